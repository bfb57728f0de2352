"""The move-history panel: the moves of the current match, in order."""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Region
from textual.reactive import var
from textual.widget import Widget

from tictactoe.engine import CELL_NAMES
from tictactoe.series import Series

__all__ = ["MoveHistory", "history_lines"]


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
        self._drawn: list[str] | None = None
        """The lines last drawn, to repaint only those a new series changes."""

    def watch_series(self, series: Series | None) -> None:
        self.set_class(not (series and series.history()), "-empty")
        drawn, lines = self._drawn, self._lines()
        width = self.content_size.width
        if drawn is None or len(lines) < len(drawn) or not width:
            self.refresh()
            return
        # A move adds a line: repaint that one, not the panel (the moves above stay put).
        changed = [y for y, line in enumerate(lines) if y >= len(drawn) or drawn[y] != line]
        if changed:
            self.refresh(*(Region(0, y, width, 1) for y in changed))

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

    def render(self) -> Content:
        self._drawn = self._lines()
        return Content("\n".join(self._drawn))
