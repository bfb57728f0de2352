"""One finished match as the game record's `matches` table holds it: the row written
(`match_row`) and the match read back (`match_of`), the one place the record converts it.

The match itself is the core's `FinishedMatch`; `MatchRecord` is the record's name for it.
What comes back from the file is untrusted: names pass through `clean_name`, and a value out of
shape reads as nothing rather than raising.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Final

from tictactoe.core.ai import Level
from tictactoe.core.engine import Mark
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.names import clean_name
from tictactoe.core.players import Player
from tictactoe.core.rules import CLASSIC, VARIANTS, Variant, variant
from tictactoe.record.schema import TIME_FORMAT

__all__ = [
    "MATCH_SELECT",
    "MatchRecord",
    "match_of",
    "match_row",
    "moves_of",
    "player_of",
    "time_of",
]

MatchRecord = FinishedMatch
"""One finished match as the record keeps it (the core's value); `id` is None until written."""

MATCH_SELECT: Final = (
    "SELECT m.id, m.finished_at, p1.kind, p1.name, p1.level, p2.kind, p2.name, p2.level,"
    " m.mark1, m.first_mover, m.moves, m.winner, m.variant"
    " FROM matches AS m JOIN players AS p1 ON p1.id = m.player1"
    " JOIN players AS p2 ON p2.id = m.player2"
)
"""The columns `match_of` reads, with both players' rows."""


def match_row(match: FinishedMatch, player1: int, player2: int) -> tuple[object, ...]:
    """The values of `match`'s row (finished_at, player1, player2, mark1, first_mover, moves,
    winner, variant), its players' rows `player1` and `player2`; a match must have its time by
    now. Its moves are written as its variant writes them (one digit a move for classic)."""
    assert match.finished_at is not None
    return (
        match.finished_at.astimezone(UTC).strftime(TIME_FORMAT),
        player1,
        player2,
        str(match.marks[0]),
        match.first_mover + 1,
        variant(match.variant).write_moves(match.moves),
        None if match.winner is None else match.winner + 1,
        match.variant,
    )


def match_of(row: tuple[object, ...]) -> FinishedMatch:
    """The match a row of `MATCH_SELECT` holds."""
    match_id, finished_at, kind1, name1, level1, kind2, name2, level2 = row[:8]
    mark1, first, moves, winner, name = row[8:]
    mark = Mark.O if mark1 == "O" else Mark.X
    game = VARIANTS.get(str(name), CLASSIC)
    return FinishedMatch(
        players=(player_of(kind1, name1, level1), player_of(kind2, name2, level2)),
        marks=(mark, mark.other),
        first_mover=1 if first == 2 else 0,
        moves=moves_of(game, moves),
        winner={1: 0, 2: 1}.get(winner) if isinstance(winner, int) else None,
        finished_at=time_of(finished_at),
        variant=game.name,
        id=int(match_id) if isinstance(match_id, int) else None,
    )


def moves_of(game: Variant, moves: object) -> tuple[int, ...]:
    """The moves of a row of `game`: the digits of at most a full board's moves, read as the
    variant writes them; anything else in the text is left out."""
    width = game.digits_a_move
    digits = "".join(char for char in str(moves)[: game.cells * width] if char in "012345678")
    return game.read_moves(digits[: len(digits) - len(digits) % width])


def player_of(kind: object, name: object, level: object) -> Player:
    """A player read back from the file."""
    if kind == "computer" and level in {member.value for member in Level}:
        return Player.computer(Level(str(level)))
    return Player(clean_name(str(name), "?"))


def time_of(value: object) -> datetime | None:
    """A time read back from the file, or None when it is not one."""
    try:
        return datetime.strptime(str(value), TIME_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None
