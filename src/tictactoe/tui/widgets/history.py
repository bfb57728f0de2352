"""The move-history panel: the moves of the current match, in order."""

from __future__ import annotations

from rich.cells import cell_len
from textual.content import Content
from textual.reactive import var
from textual.widgets import Static

from tictactoe.core.labels import side_by_side
from tictactoe.core.names import short
from tictactoe.core.series import Series

__all__ = ["MoveHistory", "history_lines"]


def history_lines(series: Series, width: int | None = None) -> list[str]:
    """One line a move: "3. Ada X top-left" (against the computer, a person called like it
    is "Computer (person)", see `side_by_side`). Within `width` cells the move stays whole:
    the name is shortened to fit (the computer's level left out first: the person's mark
    tells them apart), and left out ("3. X top-left") where not even that fits."""
    lines = []
    for number, (player, mark, cell) in enumerate(series.history(), start=1):
        head, move = f"{number}. ", f"{mark} {series.variant.short_move_words(cell)}"
        name = side_by_side(series.players)[player]
        if width is not None:
            room = width - len(head) - len(move) - 1
            plain = short(series.players[player].name, room)
            fitting = [
                cut
                for cut in (side_by_side(series.players, room)[player], plain)
                if cell_len(cut) <= room and (cut != "…" or name == cut)
            ]
            name = fitting[0] if fitting else ""
        lines.append(f"{head}{name} {move}" if name else f"{head}{move}")
    return lines


class MoveHistory(Static):
    """Lists the moves of the match on show, the latest always in view: when the panel is
    too short for every move, the first line says how many earlier ones are hidden."""

    series: var[Series | None] = var(None)
    """The series whose current match is listed."""

    def on_mount(self) -> None:
        self.border_title = "Moves"

    def watch_series(self) -> None:
        self._list()

    def on_resize(self) -> None:
        self._list()

    def _list(self) -> None:
        width, room = self.content_size
        lines = history_lines(self.series, width or None) if self.series else []
        self.set_class(not lines, "-empty")
        if not lines:
            lines = ["No moves yet"]
        elif room and len(lines) > room:
            hidden = len(lines) - room + 1
            lines = [f"… {hidden} earlier", *lines[-(room - 1) :]] if room > 1 else lines[-1:]
        self.update(Content("\n".join(lines)), layout=False)  # it fills the room it is given
