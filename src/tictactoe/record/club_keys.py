"""The club's keys and one-time words, kept as `tictactoe.core.key_words` rules: the SQL both
club stores run (the SQLite file and PostgreSQL), each within its own transaction.

Queries are written with `?` for their parameters and run through a `Database`
(`tictactoe.record.club_dialects`), each database's own.
"""

from __future__ import annotations

import math
from typing import LiteralString

from tictactoe.core.club import START, Entry, PublicKey, Rating, until_text
from tictactoe.core.finished import CLASSIC_NAME
from tictactoe.core.key_words import (
    KEYS_PER_PLAYER,
    WORD_LIFETIME,
    KeyRow,
    WordLogin,
    key_added,
    key_elsewhere,
    too_many_keys,
    word_digest,
    word_refused,
)
from tictactoe.record.club_dialects import Database

__all__ = [
    "by_word",
    "holder",
    "keep_word",
    "keys_of",
    "player_of",
    "rating_of",
    "remove_key",
]


def holder(db: Database, data: str) -> str | None:
    """The handle the key blob `data` signs in as, if any (a key belongs to one handle)."""
    row = db.execute(
        "SELECT players.handle FROM keys JOIN players ON players.id = keys.player"
        " WHERE keys.data = ?",
        (data,),
    ).fetchone()
    return None if row is None else str(row[0])


def player_of(db: Database, handle: str, *, lock: bool = False) -> int | None:
    """The id of the player holding `handle` (their row locked to the transaction's end when
    `lock`), or None."""
    query: LiteralString = "SELECT id FROM players WHERE handle = ?"
    row = db.execute(query + db.row_lock if lock else query, (handle,)).fetchone()
    return None if row is None else int(row[0])


def rating_of(db: Database, player: int, variant: str = CLASSIC_NAME) -> Rating:
    """The rating of `player` in the game `variant` now (START before their first rated match
    of it)."""
    row = db.execute(
        "SELECT mu, sigma FROM ratings WHERE player = ? AND variant = ?", (player, variant)
    ).fetchone()
    return START if row is None else Rating(float(row[0]), float(row[1]))


def keep_word(db: Database, player: int, word: str, now: float) -> None:
    """`word` is `player`'s one-time word until `WORD_LIFETIME` from `now`, replacing any
    other; only its digest is kept."""
    db.execute("DELETE FROM key_words WHERE expires <= ?", (now,))
    db.execute(
        "INSERT INTO key_words (player, digest, expires) VALUES (?, ?, ?)"
        " ON CONFLICT (player) DO UPDATE SET digest = excluded.digest,"
        " expires = excluded.expires",
        (player, word_digest(word), now + WORD_LIFETIME),
    )


def by_word(
    db: Database, *, login: WordLogin, key: PublicKey, now: float, write: bool = True
) -> Entry:
    """The login `login` signed in with `key`: the key joins the handle when the word is the
    handle's and still good, the key is no other handle's, the handle is not banned and has
    room; the word is then used up. With `write` False, only whether it would."""
    own = login.handle
    player = player_of(db, own)
    row = db.execute(
        "SELECT player FROM key_words WHERE digest = ? AND expires > ?",
        (word_digest(login.word), now),
    ).fetchone()
    if player is None or row is None or int(row[0]) != player:
        return Entry(own, False, START, word_refused(own))
    held_by = holder(db, key.data)
    if held_by is not None and held_by != own:
        return Entry(own, False, START, key_elsewhere(held_by))
    ban = db.execute(
        "SELECT until FROM bans WHERE player = ? AND (until IS NULL OR until > ?)",
        (player, now),
    ).fetchone()
    if ban is not None:
        until = math.inf if ban[0] is None else float(ban[0])
        return Entry(own, False, START, f"{own} is banned {until_text(until)}.")
    (count,) = db.execute("SELECT count(*) FROM keys WHERE player = ?", (player,)).fetchone()
    if held_by is None and int(count) >= KEYS_PER_PLAYER:
        return Entry(own, False, START, too_many_keys(own))
    if not write:
        return Entry(own, False, START)
    if held_by is None:
        db.execute(
            "INSERT INTO keys (player, type, data, fingerprint, added_at) VALUES (?, ?, ?, ?, ?)",
            (player, key.type, key.data, key.fingerprint, now),
        )
    db.execute("DELETE FROM key_words WHERE player = ?", (player,))
    db.execute("UPDATE players SET last_seen = ? WHERE id = ?", (now, player))
    return Entry(own, False, rating_of(db, player), said=key_added(key.fingerprint, own))


def keys_of(db: Database, player: int) -> list[KeyRow]:
    """The keys that sign in as `player`, oldest first."""
    return [
        KeyRow(str(kind), str(fingerprint), float(added_at))
        for kind, fingerprint, added_at in db.execute(
            "SELECT type, fingerprint, added_at FROM keys WHERE player = ? ORDER BY id",
            (player,),
        ).fetchall()
    ]


def remove_key(db: Database, player: int, fingerprint: str) -> bool:
    """`player`'s key with `fingerprint` no longer signs in: whether there was one."""
    cursor = db.execute(
        "DELETE FROM keys WHERE player = ? AND fingerprint = ?", (player, fingerprint.strip())
    )
    return cursor.rowcount > 0
