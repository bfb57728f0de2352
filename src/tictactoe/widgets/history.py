"""The move-history panel: the moves of the current match, in order."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

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


class MoveHistory(Widget):
    """Lists the moves of the game on show, the latest always in view.

    Long lines end in an ellipsis; when the panel is too short for every move, the
    first line says how many earlier ones are hidden.
    """

    match: reactive[Match | None] = reactive(None, always_update=True)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Moves"

    def watch_match(self, match: Match | None) -> None:
        self.set_class(not (match and match.game and match.game.moves), "-empty")

    def render(self) -> Content:
        lines = history_lines(self.match) if self.match else []
        if not lines:
            return Content("No moves yet")
        room = max(1, self.content_size.height)
        if len(lines) > room:
            hidden = len(lines) - room + 1
            lines = [f"… {hidden} earlier", *lines[-(room - 1) :]] if room > 1 else lines[-1:]
        return Content("\n".join(lines))
