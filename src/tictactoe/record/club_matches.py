"""The club's finished matches and ratings, as both databases keep them: one match written (with
both new ratings and their history when it is rated), and what the lobbies read back (the
ladder, a player's recent matches, the players). A match's row is made (`_values`) and read back
(`_match_of`) here alone.

Who is rated is `tictactoe.core.club.moves_ratings`'s to say; here it is only kept.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import tictactoe.record.club_keys as club_keys
from tictactoe.core.ai import Level
from tictactoe.core.club import LadderRow, PlayerRow, Rating, moves_ratings, rated
from tictactoe.core.engine import Mark
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.names import clean_name
from tictactoe.core.players import Player
from tictactoe.core.rules import variant
from tictactoe.record.club_dialects import MATCH_COLUMNS, Database

__all__ = ["Finished", "ladder", "players", "recent_rated", "write"]


@dataclass(frozen=True, slots=True)
class Finished:
    """A finished match waiting to be written, with the id that makes its write happen once."""

    uid: uuid.UUID
    table: str
    players: tuple[str, str]
    """The players' handles, in the match's order."""
    rated: bool
    match: FinishedMatch
    """The match, its time set (its `winner` may differ from the board's: a seat left)."""


def write(db: Database, finished: Finished) -> tuple[Rating, Rating] | None:
    """One finished match (and, when rated, both ratings and their history), in the caller's
    transaction: the new ratings, or None when unrated. A match already written (the same
    `uid`) is not written again: the ratings it gave are read back."""
    match = finished.match
    handles = (finished.players[0].lower(), finished.players[1].lower())
    levels = tuple(None if player.level is None else player.level.value for player in match.players)
    rating_it = moves_ratings(finished.rated, handles, levels != (None, None))
    ids: dict[str, int] = {}
    if rating_it:
        # Both players' rows, in handle order (two writers never wait on each other in a
        # circle), before their ratings are read.
        for player, handle in db.execute(
            "SELECT id, handle FROM players WHERE handle IN (?, ?) ORDER BY handle"
            + db.byte_order
            + db.row_lock,
            handles,
        ).fetchall():
            ids[str(handle)] = int(player)
        rating_it = len(ids) == 2
    values = _values(finished, handles, levels, rating_it)
    row = db.add_match(finished.uid, values)
    if row is None:
        return _written(db, finished.uid)
    if not rating_it:
        return None
    first, second = ids[handles[0]], ids[handles[1]]
    game = match.variant
    before = (club_keys.rating_of(db, first, game), club_keys.rating_of(db, second, game))
    after = rated(*before, match.winner)
    for side, (player, rating) in enumerate(zip((first, second), after, strict=True)):
        won = match.winner == side
        lost = match.winner is not None and not won
        drew = match.winner is None
        db.execute(
            "INSERT INTO ratings (player, variant, mu, sigma, matches, wins, draws, losses)"
            " VALUES (?, ?, ?, ?, 1, ?, ?, ?) ON CONFLICT (player, variant) DO UPDATE SET"
            " mu = excluded.mu, sigma = excluded.sigma, matches = ratings.matches + 1,"
            " wins = ratings.wins + excluded.wins, draws = ratings.draws + excluded.draws,"
            " losses = ratings.losses + excluded.losses",
            (player, game, rating.mu, rating.sigma, int(won), int(drew), int(lost)),
        )
        db.execute(
            "INSERT INTO rating_history (player, match, mu, sigma) VALUES (?, ?, ?, ?)",
            (player, row, rating.mu, rating.sigma),
        )
    return after


def _written(db: Database, uid: uuid.UUID) -> tuple[Rating, Rating] | None:
    """The ratings a match already written gave (None when it was unrated)."""
    rows = db.execute(
        "SELECT rating_history.mu, rating_history.sigma FROM matches"
        " JOIN players ON players.handle IN (matches.handle1, matches.handle2)"
        " JOIN rating_history ON rating_history.match = matches.id"
        " AND rating_history.player = players.id"
        " WHERE matches.uid = ? ORDER BY players.handle = matches.handle2",
        (uid,),
    ).fetchall()
    if len(rows) != 2:
        return None
    return Rating(float(rows[0][0]), float(rows[0][1])), Rating(
        float(rows[1][0]), float(rows[1][1])
    )


def ladder(db: Database, limit: int, variant: str) -> list[LadderRow]:
    """The ladder of the game `variant`: its best `limit` players with a rated match of it,
    best first (by `Rating.points`)."""
    rows = db.execute(
        "SELECT players.handle, mu, sigma, matches, wins, draws, losses"
        " FROM ratings JOIN players ON players.id = ratings.player WHERE variant = ?"
        " ORDER BY mu - 3 * sigma DESC, players.handle LIMIT ?",
        (variant, limit),
    ).fetchall()
    return [
        LadderRow(rank, _handle(handle), Rating(mu, sigma), matches, wins, draws, losses)
        for rank, (handle, mu, sigma, matches, wins, draws, losses) in enumerate(rows, 1)
    ]


def recent_rated(db: Database, handle: str, limit: int) -> list[tuple[FinishedMatch, bool]]:
    """The last `limit` matches `handle` played, newest first, each with whether it was rated."""
    rows = db.execute(
        "SELECT id, " + MATCH_COLUMNS + " FROM matches WHERE id IN (SELECT id FROM matches"
        " WHERE handle1 = ? UNION SELECT id FROM matches WHERE handle2 = ?)"
        " ORDER BY id DESC LIMIT ?",
        (handle, handle, limit),
    ).fetchall()
    return [(_match_of(db, row), bool(row[7])) for row in rows]


def players(db: Database) -> list[PlayerRow]:
    """Every player who holds a handle, by handle, with their keys' fingerprints."""
    fingerprints: dict[int, list[str]] = {}
    for player, fingerprint in db.execute(
        "SELECT player, fingerprint FROM keys ORDER BY id"
    ).fetchall():
        fingerprints.setdefault(int(player), []).append(str(fingerprint))
    return [
        PlayerRow(_handle(handle), tuple(fingerprints.get(int(player), ())), last_seen)
        for player, handle, last_seen in db.execute(
            "SELECT id, handle, last_seen FROM players ORDER BY handle" + db.byte_order
        ).fetchall()
    ]


def _handle(text: object) -> str:
    """A handle read back from the database: untrusted text, shown only once made safe."""
    return clean_name(str(text), "?")


def _values(
    finished: Finished, handles: tuple[str, str], levels: tuple[str | None, ...], rating_it: bool
) -> tuple[Any, ...]:
    """The values of `MATCH_COLUMNS` that keep `finished` (the handles lower-cased, each
    player's level or None, and whether it moved ratings)."""
    match = finished.match
    assert match.finished_at is not None
    return (
        match.finished_at,
        finished.table,
        *handles,
        *levels,
        rating_it,
        str(match.marks[0]),
        match.first_mover + 1,
        variant(match.variant).write_moves(match.moves),
        None if match.winner is None else match.winner + 1,
        match.variant,
    )


def _match_of(db: Database, row: Sequence[Any]) -> FinishedMatch:
    """A match read back (its id, then `MATCH_COLUMNS`), for the replay screen."""
    match_id, finished_at, _table, handle1, handle2, level1, level2, _rated = row[:8]
    mark1, first_mover, moves, winner, game = row[8:]
    kind = variant(str(game))
    players = tuple(
        Player(_handle(handle)) if level is None else Player.computer(Level(str(level)))
        for handle, level in ((handle1, level1), (handle2, level2))
    )
    first = Mark(str(mark1))
    return FinishedMatch(
        players=(players[0], players[1]),
        marks=(first, first.other),
        first_mover=int(str(first_mover)) - 1,
        moves=kind.read_moves(str(moves)),
        winner=None if winner is None else int(str(winner)) - 1,
        finished_at=db.time_of(finished_at),
        variant=kind.name,
        id=int(str(match_id)),
    )
