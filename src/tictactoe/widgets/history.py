"""The move-history panel: the moves of the current match, in order."""

from __future__ import annotations

from typing import Final

from textual.content import Content
from textual.geometry import Region, Size
from textual.reactive import var
from textual.strip import Strip
from textual.widget import Widget

from tictactoe.engine import CELL_NAMES
from tictactoe.series import Series

__all__ = ["MoveHistory", "history_lines"]

KEPT_LINES: Final = 200
"""Drawn lines kept for reuse; past this many (a long session, resizes), they are dropped."""


def history_lines(series: Series) -> list[str]:
    """One line a move: "3. Ada X top-left"."""
    return [
        f"{number}. {series.players[player].name} {mark} {CELL_NAMES[cell]}"
        for number, (player, mark, cell) in enumerate(series.history(), start=1)
    ]


class MoveHistory(Widget):
    """Lists the moves of the match on show, the latest always in view.

    Long lines end in an ellipsis; when the panel is too short for every move, the
    first line says how many earlier ones are hidden.
    """

    DEFAULT_CSS = """
    MoveHistory {
        height: 1fr;
        min-height: 3;
        margin-top: 1;
        padding: 0 1;
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &.-empty {
            color: $text-muted;
        }
    }
    """

    series: var[Series | None] = var(None, always_update=True)
    """The series whose current match is listed."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Moves"
        self._drawn: tuple[Size, list[str]] | None = None
        """The lines on show and the size they were made for, to repaint only those a
        new series changes."""
        self._strips: dict[tuple[str, int], Strip] = {}
        """Each line's drawing, by its text and width (a move draws one new line)."""

    def watch_series(self, series: Series | None) -> None:
        self.set_class(not (series and series.history()), "-empty")
        size = self.content_size
        before = self._drawn[1] if self._drawn and self._drawn[0] == size else None
        lines = self._lines()
        self._drawn = (size, lines)
        if before is None or not size.width:
            self.refresh()
            return
        # A move adds a line and an undo takes one away: repaint those rows, not the
        # panel (the moves above stay put).
        rows = max(len(lines), len(before))
        changed = [
            y for y in range(rows) if y >= len(lines) or y >= len(before) or before[y] != lines[y]
        ]
        if changed:
            self.refresh(*(Region(0, y, size.width, 1) for y in changed))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def _lines(self) -> list[str]:
        """The lines the panel shows at its current size."""
        lines = history_lines(self.series) if self.series else []
        if not lines:
            return ["No moves yet"]
        room = max(1, self.content_size.height)
        if len(lines) > room:
            hidden = len(lines) - room + 1
            lines = [f"… {hidden} earlier", *lines[-(room - 1) :]] if room > 1 else lines[-1:]
        return lines

    def render_line(self, y: int) -> Strip:
        """One line of the list, drawn once for its text."""
        size = self.content_size
        if self._drawn is None or self._drawn[0] != size:
            self._drawn = (size, self._lines())  # resized: the whole panel is drawn anew
        lines = self._drawn[1]
        text = lines[y] if y < len(lines) else ""
        strip = self._strips.get((text, size.width))
        if strip is None:
            # One line, cut short with an ellipsis (the panel's text-overflow), in the
            # panel's style: what Textual's general text rendering would give, sooner.
            line = Content(text).truncate(size.width, ellipsis=True, pad=True)
            strip = Strip(line.render_segments(self.visual_style), size.width)
            if len(self._strips) > KEPT_LINES:
                self._strips.clear()
            self._strips[text, size.width] = strip
        return strip
