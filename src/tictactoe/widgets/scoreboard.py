"""The scoreboard sidebar: both players, their marks and wins, draws, and whose turn it is."""

from __future__ import annotations

from typing import ClassVar, Final, NamedTuple

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.color import WHITE, Color
from textual.content import Content
from textual.css.styles import RenderStyles
from textual.geometry import Region, Size
from textual.reactive import var
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual

from tictactoe.series import Series
from tictactoe.widgets.drawn import BOXES, DrawnLines, edge_line, look_colours

__all__ = ["PARTS", "Card", "Scoreboard"]

PARTS: Final = ("title", "player-1", "player-2", "tally")
"""The scoreboard's parts, top to bottom."""

KEPT_DRAWINGS: Final = 64
"""Drawn parts kept for reuse; past this many, they are dropped and drawn again."""

_MARK_STYLE: Final[dict[str | None, str]] = {"X": "$text-accent", "O": "$text-primary"}


class Card(NamedTuple):
    """What one player's card shows."""

    name: str
    mark: str | None
    wins: int
    level: str | None
    to_move: bool
    """Highlighted: it is this player's turn."""
    winner: bool
    """Highlighted: this player won the match on show."""

    @classmethod
    def of(cls, series: Series, index: int) -> Card:
        player = series.players[index]
        return cls(
            name=player.name,
            mark=str(series.marks[index]) if series.marks else None,
            wins=series.wins[index],
            level=str(player.level) if player.level else None,
            to_move=series.to_move == index,
            winner=series.winner == index,
        )

    @property
    def content(self) -> Content:
        """The card's two lines: the name, then the mark, the wins and the level."""
        marker = "▶ " if self.to_move else "★ " if self.winner else "  "
        return Content.assemble(
            (marker + self.name, "bold"),
            "\n",
            (f" {self.mark or '·'} ", f"bold {_MARK_STYLE.get(self.mark, '')} on $boost"),
            f" {self.wins} win{'' if self.wins == 1 else 's'}",
            (f" · {self.level}" if self.level else "", "$text-muted"),
        )


class Scoreboard(DrawnLines):
    """Renders a `Series`; it never changes one.

    One widget draws the title, both players' cards and the tally, line by line, from
    its component classes. A turn changes the two cards: only their lines are drawn
    again, with no restyle.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "scoreboard--title",
        "scoreboard--card",
        "scoreboard--to-move",
        "scoreboard--winner",
        "scoreboard--tally",
    }
    """The title; a player's card, with its look while it is their turn or after they won
    (layered in this order); the draws and matches played."""

    DEFAULT_CSS = """
    Scoreboard {
        height: auto;
        text-wrap: nowrap;
        text-overflow: ellipsis;

        & > .scoreboard--title {
            text-style: bold;
            color: $text-muted;
            margin-bottom: 1;
        }
        & > .scoreboard--card {
            padding: 0 1;
            margin-bottom: 1;
            border: round $panel-lighten-2;
        }
        & > .scoreboard--to-move {
            border: heavy $secondary;
            background: $secondary 15%;
        }
        & > .scoreboard--winner {
            border: double $success;
            background: $success 15%;
        }
        & > .scoreboard--tally {
            margin-top: 1;
            color: $text-muted;
        }
    }
    """

    series: var[Series | None] = var(None, always_update=True)
    """The series on show."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: dict[str, object] = {}
        """What each part shows now (a `Card`, the tally's text, the title's)."""
        self._drawn: dict[tuple[str, object, Size], list[Strip]] = {}
        """Each part's lines by what it shows and its size, drawn once (a card takes
        turns between two looks)."""
        self._places: tuple[int, dict[str, Region]] | None = None
        """Where each part is, for the current styles, and the width it was worked out for."""

    # What the scoreboard shows.

    def card(self, index: int) -> Card | None:
        """What player `index`'s card shows (None before a series is set)."""
        card = self._shown.get(f"player-{index + 1}")
        return card if isinstance(card, Card) else None

    def region_of(self, part: str) -> Region | None:
        """Where `part` (one of `PARTS`) is, relative to the scoreboard; None if hidden."""
        return self._layout().get(part)

    def bordered(self, part: str) -> bool:
        """Whether `part` has a border (the cards do, except on short screens)."""
        return part.startswith("player-") and _has_border(
            self.get_component_styles("scoreboard--card")
        )

    def watch_series(self, series: Series | None) -> None:
        if series is None:
            return
        shown: dict[str, object] = {
            "title": "Scoreboard",
            "player-1": Card.of(series, 0),
            "player-2": Card.of(series, 1),
            "tally": f"Draws    {series.draws}\nPlayed   {series.played}",
        }
        changed = [part for part in PARTS if shown[part] != self._shown.get(part)]
        self._shown = shown
        if self.is_mounted:
            places = self._layout()
            self.refresh(*(places[part] for part in changed if part in places))

    # Layout, as Textual would lay out a column of these parts.

    def _layout(self, width: int | None = None) -> dict[str, Region]:
        """Where each part is, for `width` (the scoreboard's own width if None).

        Textual asks for the height while it lays the screen out, with the width: the
        scoreboard's own size is not known then, and asking for it would lay the whole
        screen out again, inside that layout.
        """
        if width is None:
            width = self.size.width
        if self._places is None or self._places[0] != width:
            places: dict[str, Region] = {}
            y = margin = 0
            for part in PARTS:
                styles = self._styles_of(part)
                if styles.display == "none":
                    continue
                top, _, bottom, _ = styles.margin
                height = 2 if part != "title" else 1
                if _has_border(styles):
                    height += 2
                height += styles.padding.top + styles.padding.bottom
                y += max(margin, top)  # adjacent margins overlap
                places[part] = Region(0, y, width, height)
                y += height
                margin = bottom
            self._places = (width, places)
        return self._places[1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        places = self._layout(width)
        return max((region.bottom for region in places.values()), default=0)

    def _styles_of(self, part: str) -> RenderStyles:
        if part.startswith("player-"):
            card = self._shown.get(part)
            layers = ["scoreboard--card"]
            if isinstance(card, Card) and card.to_move:
                layers.append("scoreboard--to-move")
            if isinstance(card, Card) and card.winner:
                layers.append("scoreboard--winner")
            return self.get_component_styles(*layers)
        return self.get_component_styles(f"scoreboard--{part}")

    def notify_style_update(self) -> None:
        """The theme or the screen's size classes changed: lay out and draw anew."""
        super().notify_style_update()
        self._forget()

    def on_resize(self) -> None:
        self._places = None
        self._drawn.clear()

    def _forget(self) -> None:
        self._places = None
        self._drawn.clear()
        self.refresh(layout=True)

    # Drawing.

    def render_line(self, y: int) -> Strip:
        for part, region in self._layout().items():
            if region.y <= y < region.bottom:
                key = (part, self._shown.get(part), region.size)
                lines = self._drawn.get(key)
                if lines is None:
                    if len(self._drawn) > KEPT_DRAWINGS:
                        self._drawn.clear()  # a long session: the scores have moved on
                    lines = self._drawn[key] = self._draw(part, region.size)
                return lines[y - region.y]
        return Strip.blank(self.size.width, RichStyle(bgcolor=self._under().rich_color))

    def _under(self) -> Color:
        return self.background_colors[1]

    def _draw(self, part: str, size: Size) -> list[Strip]:
        """The lines of `part`: its text, padded and boxed as its component styles say."""
        styles = self._styles_of(part)
        under = self._under()
        background, color = look_colours(styles, under, self.visual_style.foreground or WHITE)
        text_style = styles.text_style
        base = Style(
            background=background,
            foreground=color,
            bold=text_style.bold,
            italic=text_style.italic,
        )
        shown = self._shown.get(part, "")
        content = shown.content if isinstance(shown, Card) else Content(str(shown))

        width, height = size
        bordered = _has_border(styles)
        pad_top, pad_right, pad_bottom, pad_left = styles.padding
        edge = 1 if bordered else 0
        inner_width = max(0, width - 2 * edge - pad_left - pad_right)
        inner_height = max(0, height - 2 * edge - pad_top - pad_bottom)
        fill = RichStyle(bgcolor=background.rich_color)
        text = Visual.to_strips(self, content, inner_width, inner_height, base)
        text = [*text, *[Strip.blank(inner_width, fill)] * (inner_height - len(text))]
        body = [
            Strip.join(
                [
                    Strip.blank(pad_left, fill),
                    line.adjust_cell_length(inner_width, fill),
                    Strip.blank(pad_right, fill),
                ]
            )
            for line in text[:inner_height]
        ]
        body = [
            *[Strip.blank(width - 2 * edge, fill)] * pad_top,
            *body,
            *[Strip.blank(width - 2 * edge, fill)] * pad_bottom,
        ]
        if not bordered:
            return body
        kind, border_color = styles.border_top
        box = BOXES.get(kind, BOXES["round"])
        ink = RichStyle.from_color((under + border_color).rich_color, background.rich_color)
        left, right = Segment(box[1][0], ink), Segment(box[1][2], ink)
        lines = [edge_line(box[0], width, ink)]
        lines += [Strip([left, *line, right], width) for line in body]
        lines.append(edge_line(box[2], width, ink))
        return lines


def _has_border(styles: RenderStyles) -> bool:
    return styles.border_top[0] not in ("", "none", "hidden")
