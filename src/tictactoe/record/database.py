"""The SQLite calls every part of the record shares.

A write transaction that takes the lock at once, how damage is told from other
failures, text read back as untrusted bytes, and a player's row found or added.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime

from tictactoe.core.series import COMPUTER_NAME, Player

__all__ = ["is_damage", "now", "player_id", "read_text", "transaction"]


def now() -> datetime:
    """The current time in UTC, to the second (as the file keeps it)."""
    return datetime.now(UTC).replace(microsecond=0)


def read_text(raw: bytes) -> str:
    """Text from the file: bytes that are not UTF-8 become U+FFFD instead of an error."""
    return raw.decode("utf-8", "replace")


def is_damage(error: sqlite3.Error) -> bool:
    """Whether SQLite failed because the file is damaged or is not a database at all."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:
        return False
    return code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


@contextlib.contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE (so the busy timeout applies to taking the write lock) ... COMMIT."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
        raise


def player_id(db: sqlite3.Connection, player: Player) -> int:
    """The row of `player` (a person by name, the computer by level), added if it is new.

    Within the caller's transaction.
    """
    if player.level is None:
        find = "SELECT id FROM players WHERE kind = 'person' AND name = ?"
        add = "INSERT INTO players (kind, name) VALUES ('person', ?)"
        key = player.name
    else:
        find = "SELECT id FROM players WHERE kind = 'computer' AND level = ?"
        add = f"INSERT INTO players (kind, name, level) VALUES ('computer', '{COMPUTER_NAME}', ?)"
        key = player.level.value
    row = db.execute(find, (key,)).fetchone()
    if row is not None:
        return int(row[0])
    created = db.execute(add, (key,)).lastrowid
    assert created is not None
    return created
