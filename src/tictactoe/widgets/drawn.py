"""Widgets that keep the lines they rendered, and widgets that draw their lines whole."""

from __future__ import annotations

from typing import Any, Final, Self

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.containers import Horizontal, Vertical
from textual.css.styles import RenderStyles
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

__all__ = [
    "BOXES",
    "DrawnLines",
    "EvenLines",
    "KeptHorizontal",
    "KeptLines",
    "KeptVertical",
    "edge_line",
    "look_colours",
]

BOXES: Final[dict[str, tuple[str, str, str]]] = {
    "round": ("╭─╮", "│ │", "╰─╯"),
    "heavy": ("┏━┓", "┃ ┃", "┗━┛"),
    "double": ("╔═╗", "║ ║", "╚═╝"),
    "dashed": ("┏╍┓", "╏ ╏", "┗╍┛"),
}
"""The borders a widget here draws itself: (top, middle, bottom) rows of (left, fill,
right), as Textual draws the border types of the same names."""


def look_colours(styles: RenderStyles, under: Color, inherited: Color) -> tuple[Color, Color]:
    """The background and the text colour of a look drawn over `under`, worked out from
    its (component) styles as Textual does for a widget: a background blends over what
    is under it, an `auto` colour contrasts with the background, else `inherited`."""
    background = under
    if styles.has_rule("background"):
        background = under + styles.background.tint(styles.background_tint)
    colour = inherited
    if styles.has_rule("color"):
        colour = styles.color.multiply_alpha(styles.text_opacity)
        if styles.auto_color:
            colour = background.get_contrast_text(colour.a)
    return background, colour


def edge_line(chars: str, width: int, style: Style) -> Strip:
    """A top or bottom border `width` cells wide, from a (left, fill, right) row of `BOXES`."""
    line = chars[0] + chars[1] * max(0, width - 2) + chars[2] if width >= 2 else chars[0]
    return Strip([Segment(line[:width], style)], width)


class KeptLines(Widget):
    """A widget that answers with the lines it gave last time, until it changes.

    Textual asks every widget in the box around a frame's changes for its lines, changed
    or not, and a widget styled by CSS goes over each of its lines again to answer. The
    lines of this one can only change when it is refreshed, restyled or resized (or the
    terminal's colour filters change): until then, the same list is the answer.
    """

    def __init__(self, *children: Widget, **options: Any) -> None:
        super().__init__(*children, **options)
        self._kept: tuple[tuple[Region, Size, tuple[int, ...]], list[Strip]] | None = None
        """The lines last rendered, and what they were rendered for."""

    def refresh(self, *regions: Region, **changes: Any) -> Self:
        self._kept = None
        return super().refresh(*regions, **changes)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._kept = None

    def render_lines(self, crop: Region) -> list[Strip]:
        key = (crop, self.size, tuple(map(id, self.get_line_filters())))
        if self._kept is None or self._kept[0] != key:
            self._kept = (key, self.fresh_lines(crop))
        return self._kept[1]

    def fresh_lines(self, crop: Region) -> list[Strip]:
        """The lines of `crop`, rendered now."""
        return super().render_lines(crop)


class EvenLines(KeptLines):
    """A container: its own lines, under its children, are alike row after row.

    With no content of its own, a container's rows between its top and bottom padding
    (and borders) are all the same line. Textual renders each one, and the compositor
    cuts each at every child's edge. Here Textual renders the first, middle and last of
    those rows; if they are equal, the middle one stands for them all, and the rows of
    the top and bottom padding are rendered one by one: a screen's height of rendering
    becomes a few rows, and the compositor's cuts of the one line serve every row whose
    children have the same edges (a line keeps its cuts). If the three differ, every
    row is rendered as usual.
    """

    def fresh_lines(self, crop: Region) -> list[Strip]:
        top, _, bottom, _ = self.styles.gutter
        first = max(crop.y, top)
        last = min(crop.bottom, self.outer_size.height - bottom) - 1
        if last - first < 2:
            return super().fresh_lines(crop)
        render = super().fresh_lines

        def row(y: int) -> Strip:
            return render(Region(crop.x, y, crop.width, 1))[0]

        alike = row((first + last) // 2)
        if not row(first) == alike == row(last):
            return super().fresh_lines(crop)
        return [alike if first <= y <= last else row(y) for y in crop.line_range]


class KeptVertical(Vertical, EvenLines):
    """A column that only lays out its children: its own lines are kept."""


class KeptHorizontal(Horizontal, EvenLines):
    """A row that only lays out its children: its own lines are kept."""


class DrawnLines(KeptLines):
    """A widget whose `render_line` returns whole, finished lines.

    Textual passes every line a widget renders through a styling step for its border,
    padding, tint and opacity, which copies the line each time, so that the terminal's
    colour filter must convert it again too. A subclass has none of those (it draws its
    own borders): its lines go out as drawn.
    """

    DEFAULT_CSS = """
    DrawnLines {
        border: none;
        padding: 0;
    }
    """

    def fresh_lines(self, crop: Region) -> list[Strip]:
        filters = self.get_line_filters()
        background = self.background_colors[1]
        lines = []
        for y in crop.line_range:
            line = self.render_line(y)
            for line_filter in filters:
                line = line.apply_filter(line_filter, background)
            lines.append(line)
        x1, x2 = crop.column_span
        if (x1, x2) != (0, self.size.width):
            lines = [line.crop(x1, x2) for line in lines]
        return lines
