"""The status line under the board: whose turn it is, the result, or a short notice."""

from __future__ import annotations

from typing import Final

from rich.style import Style as RichStyle
from textual.content import Content
from textual.strip import Strip
from textual.visual import Visual

from tictactoe.names import short
from tictactoe.series import Series
from tictactoe.widgets.drawn import DrawnLines

__all__ = ["StatusLine", "describe"]


def describe(series: Series) -> str:
    """The status line for a series as it stands, in words."""
    match, actor = series.match, series.actor
    if match is None:
        chooser = series.players[series.chooser]
        return f"{short(chooser.name)} is choosing a mark…"
    winner = series.winner
    if winner is not None:
        return f"{short(series.players[winner].name)} wins!   n or Enter: next match · q: quit"
    if actor is None:
        return "It's a draw.   n or Enter: next match · q: quit"
    player = series.players[actor]
    if player.is_computer:
        return f"{short(player.name)} is thinking…"
    return f"{short(player.name)} ({match.to_move}) to move"


KEPT_DRAWINGS: Final = 32
"""Drawn texts kept for reuse; past this many (a long session), they are dropped."""


class StatusLine(DrawnLines):
    """Two fixed lines: a notice about the last input when there is one, else `describe`.

    Each text is drawn once, as Textual draws a `Static` with these styles, and its
    lines go out as drawn (`DrawnLines`): a move changes this line on every key.
    """

    DEFAULT_CSS = """
    StatusLine {
        width: 47;
        max-width: 100%;
        height: 2;
        margin-top: 1;
        text-align: center;
        color: $text;
        text-style: bold;
        &.-notice {
            color: $text-warning;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = ""
        """What the line says now."""
        self._drawn: dict[tuple[str, int, int], list[Strip]] = {}
        """Each text's lines, by the text and the size they were drawn at."""

    def show(self, series: Series, notice: str) -> None:
        """Show `notice`, or the state of `series` when there is none."""
        text = notice or describe(series)
        self.set_class(bool(notice), "-notice")  # a new colour restyles, and redraws all
        if text != self._text:
            self._text = text
            self.refresh()  # two lines, always: no new layout needed

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn.clear()

    def render_line(self, y: int) -> Strip:
        width, height = self.size
        key = (self._text, width, height)
        lines = self._drawn.get(key)
        if lines is None:
            if len(self._drawn) > KEPT_DRAWINGS:
                self._drawn.clear()
            lines = self._drawn[key] = self._draw(width, height)
        return lines[y]

    def _draw(self, width: int, height: int) -> list[Strip]:
        style = self.visual_style
        fill = RichStyle(bgcolor=style.background.rich_color) if style.background else None
        lines = Visual.to_strips(self, Content(self._text), width, height, style)
        lines = [line.adjust_cell_length(width, fill) for line in lines[:height]]
        return [*lines, *[Strip.blank(width, fill)] * (height - len(lines))]
