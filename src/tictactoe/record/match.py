"""One finished match as the record keeps it: written by the store, read back by the queries."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from tictactoe.core.engine import GameState, IllegalMove, Mark
from tictactoe.core.labels import result_text
from tictactoe.core.series import FinishedMatch, Player
from tictactoe.record.database import now

__all__ = ["MatchRecord"]


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One finished match as the record keeps it; `id` is None until it is written."""

    players: tuple[Player, Player]
    marks: tuple[Mark, Mark]
    """The mark each player held."""
    first_mover: int
    """Index of the player who moved first."""
    moves: tuple[int, ...]
    """The cells taken, in order; 0 = top-left, row by row."""
    winner: int | None
    """Index of the winner, or None for a draw."""
    finished_at: datetime | None = None
    """When the match ended (UTC); None when the file holds no readable time."""
    id: int | None = None

    @classmethod
    def of(
        cls, players: tuple[Player, Player], match: FinishedMatch, when: datetime | None = None
    ) -> MatchRecord:
        """The record of a finished match of a series between `players`."""
        return cls(
            players=players,
            marks=match.marks,
            first_mover=match.first_mover,
            moves=match.match.moves,
            winner=match.winner,
            finished_at=when or now(),
        )

    def positions(self) -> tuple[GameState, ...]:
        """The board before the first move and after each one; a damaged tail is left out."""
        state = GameState.new(first=self.marks[self.first_mover])
        positions = [state]
        for cell in self.moves:
            try:
                state = state.play(cell)
            except IllegalMove:
                break
            positions.append(state)
        return tuple(positions)

    def result(self) -> str:
        """ "Ada won" or "Draw", in words (see `tictactoe.core.labels`)."""
        return result_text(self.players, self.winner)
