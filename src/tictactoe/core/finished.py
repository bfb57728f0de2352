"""One finished match (`FinishedMatch`): the value the series hands out when a match ends, and
the one every writer, reader and message carries from there.

The game record and the club's store write it, the record screen, the replay, the line mode's
record and the club's recent matches read it back, and the wire carries it in a series and in a
lobby; each converts it to its own format in one place (rows in `tictactoe.record.match` and
`tictactoe.record.club_matches`, JSON in `tictactoe.online.matches`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Final

from tictactoe.core.engine import IllegalMove, Mark
from tictactoe.core.labels import result_text
from tictactoe.core.players import Player

if TYPE_CHECKING:
    from tictactoe.core.rules import Position

__all__ = ["CLASSIC_NAME", "FinishedMatch"]

CLASSIC_NAME: Final = "classic"
"""The variant a match is of unless it says otherwise (`tictactoe.core.rules.CLASSIC`'s name)."""


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    """One finished match: who played it with which mark, who moved first, the moves, the
    winner; when it ended once it is recorded, and its id once the game record holds it."""

    players: tuple[Player, Player]
    marks: tuple[Mark, Mark]
    """The mark each player held."""
    first_mover: int
    """Index of the player who moved first."""
    moves: tuple[int, ...]
    """The moves, in order; on the classic board the cells, 0 = top-left, row by row."""
    winner: int | None
    """Index of the winner, or None for a draw. A match left before its end is won by the one
    who stayed, whatever the board shows."""
    finished_at: datetime | None = None
    """When the match ended (UTC); None until it is recorded, or when that is not known."""
    variant: str = CLASSIC_NAME
    """The name of the game it was a match of (`tictactoe.core.rules.Variant.name`)."""
    id: int | None = None
    """Its id in the game record; None until it is written there."""

    @classmethod
    def of(
        cls,
        players: tuple[Player, Player],
        final: Position,
        marks: tuple[Mark, Mark],
        winner: int | None = None,
        variant: str = CLASSIC_NAME,
    ) -> FinishedMatch:
        """The match between `players`, holding `marks`, that ended at `final`; won by the
        board's winner, or by `winner` when it is given (the other player left)."""
        if winner is None and final.winner is not None:
            winner = marks.index(final.winner)
        first = marks.index(final.first)
        return cls(players, marks, first, final.moves, winner, variant=variant)

    def at(self, when: datetime) -> FinishedMatch:
        """The same match, ended at `when`."""
        return replace(self, finished_at=when)

    def positions(self) -> tuple[Position, ...]:
        """The board of its game before the first move and after each one; a damaged tail is
        left out."""
        from tictactoe.core.rules import variant  # the rules bring the computer, this does not

        state = variant(self.variant).new(first=self.marks[self.first_mover])
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
