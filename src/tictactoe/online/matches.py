"""A finished match as JSON: the one place it is written (`encode_match`) and read strictly
(`decode_match`), for a series' finished matches (`tictactoe.online.wire`) and a lobby's recent
matches (`tictactoe.online.lobby`) alike.

The object: `players` (each `{"name", "level"}`), `marks` (`["X", "O"]`), `first_mover` and
`winner` (0, 1, or null for a draw), `moves` (each 0 up to the variant's cells), `at` (seconds
since the epoch, or null) and, for a game other than classic, `variant`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Final

from tictactoe.core.ai import Level
from tictactoe.core.engine import Mark
from tictactoe.core.finished import CLASSIC_NAME, FinishedMatch
from tictactoe.core.names import MAX_MARKS, MAX_NAME_LENGTH
from tictactoe.core.players import Player
from tictactoe.core.rules import VARIANTS
from tictactoe.online import schema
from tictactoe.online.schema import ProtocolError

__all__ = ["MAX_NAME", "decode_match", "decode_player", "encode_match", "encode_player"]

MAX_NAME: Final = MAX_NAME_LENGTH * (1 + MAX_MARKS)
"""The longest name a message may carry (a name may hold marks, each several characters)."""
_LATEST: Final = 2**40
"""No time is later than this, in seconds since the epoch."""


def encode_player(player: Player) -> dict[str, object]:
    """`player` as JSON: `{"name", "level"}`, the level null for a person."""
    return {"name": player.name, "level": None if player.level is None else player.level.value}


def decode_player(obj: object) -> Player:
    """The player `obj` describes, or ProtocolError."""
    fields = schema.fields(obj, "player", {"name", "level"})
    level = None if fields["level"] is None else schema.choice(Level, fields["level"], "level")
    return Player(schema.text(fields["name"], "name", MAX_NAME), level)


def encode_match(match: FinishedMatch) -> dict[str, object]:
    """`match` as JSON (its record id stays behind); `decode_match` gives back an equal one."""
    encoded: dict[str, object] = {
        "players": [encode_player(player) for player in match.players],
        "marks": [mark.value for mark in match.marks],
        "first_mover": match.first_mover,
        "moves": list(match.moves),
        "winner": match.winner,
        "at": None if match.finished_at is None else match.finished_at.timestamp(),
    }
    if match.variant != CLASSIC_NAME:
        encoded["variant"] = match.variant
    return encoded


def decode_match(obj: object) -> FinishedMatch:
    """The finished match `obj` describes, or ProtocolError (whether its moves are legal is
    for its reader: a series checks them, a replay stops at the first that is not)."""
    keys = {"players", "marks", "first_mover", "moves", "winner", "at"}
    fields = schema.fields(obj, "match", keys, {"variant"})
    name = schema.text(fields.get("variant", CLASSIC_NAME), "variant", 20)
    if name not in VARIANTS:
        raise ProtocolError(f"variant: no such variant {schema.shown(name)}")
    cells = VARIANTS[name].cells
    marks = schema.pair(fields["marks"], "marks", lambda item: schema.choice(Mark, item, "mark"))
    if marks[0] is marks[1]:
        raise ProtocolError("match: marks: both players hold one mark")
    winner = fields["winner"]
    return FinishedMatch(
        players=schema.pair(fields["players"], "players", decode_player),
        marks=marks,
        first_mover=schema.whole(fields["first_mover"], "first_mover", 0, 1),
        moves=tuple(
            schema.whole(move, "move", 0, cells - 1)
            for move in schema.items(fields["moves"], "moves", 0, cells)
        ),
        winner=None if winner is None else schema.whole(winner, "winner", 0, 1),
        finished_at=_time(fields["at"]),
        variant=name,
    )


def _time(value: object) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < _LATEST:
        raise ProtocolError("match: at: not a time")
    return datetime.fromtimestamp(value, UTC)
