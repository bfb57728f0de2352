"""The move-history panel: the moves of the current match, in order."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from tictactoe.engine import CELL_NAMES
from tictactoe.match import Match, movers

__all__ = ["MoveHistory", "history_lines"]


def history_lines(match: Match) -> list[str]:
    """One line a move: "3. Ada X top-left"."""
    game = match.game
    if game is None or match.marks is None:
        return []
    return [
        f"{number}. {match.players[match.player_with(mark)].name} {mark} {CELL_NAMES[cell]}"
        for number, (mark, cell) in enumerate(zip(movers(game), game.moves, strict=True), start=1)
    ]


class MoveHistory(Static):
    """Lists the moves of the game on show; long lines end in an ellipsis."""

    match: reactive[Match | None] = reactive(None, always_update=True)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(markup=False, id=id)
        self.border_title = "Moves"

    def watch_match(self, match: Match | None) -> None:
        lines = history_lines(match) if match else []
        self.update(Content("\n".join(lines) if lines else "No moves yet"))
        self.set_class(not lines, "-empty")
