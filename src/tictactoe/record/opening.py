"""Opening the record file: the game's own connection (the file checked as ours, in
write-ahead logging, brought up to date), the record screen's reading connection, and
how a file is told from another one put in its place.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from pathlib import Path
from typing import Final
from urllib.parse import quote

from tictactoe.record.database import is_damage, read_text
from tictactoe.record.schema import MIGRATIONS, Migrations, NotOurs, check_ours, migrate

__all__ = [
    "COMPANIONS",
    "Damaged",
    "file_identity",
    "keep_private",
    "not_ours",
    "open_for_reading",
    "open_for_writing",
]

COMPANIONS: Final = ("-wal", "-shm", "-journal")
"""SQLite's own files beside a database, which belong with it."""


class Damaged(Exception):
    """The file is not a database, or SQLite found it damaged."""


def file_identity(path: Path | None) -> tuple[int, int] | None:
    """The device and inode of the file at `path` now (a link followed); None if none."""
    if path is None:
        return None
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_dev, status.st_ino


def keep_private(path: Path) -> None:
    """Make the database at `path` readable and writable by its owner only (0600), made empty
    first if there is none, and its companions there now too: SQLite gives the `-wal`, `-shm`
    and `-journal` it makes later the database's own mode. Something that is not a regular file
    is left alone (opening it says why); OSError as it comes."""
    if path.exists() and not path.is_file():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    for file in (path, *(Path(f"{path}{suffix}") for suffix in COMPANIONS)):
        try:
            if stat.S_IMODE(file.stat().st_mode) != 0o600:
                file.chmod(0o600)  # one made by an earlier version may be readable by others
        except FileNotFoundError:
            pass


def open_for_writing(
    path: Path | None, busy_timeout: float, migrations: Migrations = MIGRATIONS
) -> sqlite3.Connection:
    """Open (or make) the file, or with `path` None a database in memory; the writer
    thread and the caller of `GameRecord.add` share it, one at a time. `migrations` are
    the steps of its schema (the game record's by default; the club's is another).

    Damaged for a damaged file, NotOurs for a file the game may not write to; any other
    `sqlite3.Error` or `OSError` as it comes.
    """
    if path is None:
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    else:
        if path.exists() and not path.is_file():  # SQLite would write beside it
            raise NotOurs("is not a regular file, so it is left as it is")
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(
            path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
    db.text_factory = read_text
    try:
        _prepare(db, migrations, in_file=path is not None, busy_timeout=busy_timeout)
    except BaseException as error:
        db.close()
        if isinstance(error, sqlite3.Error) and is_damage(error):
            raise Damaged(str(error)) from error
        raise
    return db


def not_ours(path: Path) -> str | None:
    """Why the database at `path` is not the game's to write to (`NotOurs`' words); None
    when it may be, or when it cannot be read now (a damaged file: play deals with it).

    Read as immutable: no lock, no journal, no `-wal` or `-shm` made beside another
    program's file. What only a write-ahead log holds is not seen; play sees it.
    """
    try:
        db = sqlite3.connect(
            f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1",
            uri=True,
            isolation_level=None,
        )
    except sqlite3.Error:
        return None
    try:
        check_ours(db)
    except NotOurs as refusal:
        return str(refusal)
    except sqlite3.Error:
        return None
    finally:
        db.close()
    return None


def open_for_reading(path: Path, busy_timeout: float) -> sqlite3.Connection:
    """The record screen's connection to a file the game has opened (sqlite3.Error if not)."""
    reader = sqlite3.connect(
        f"file:{quote(str(path.resolve()))}?mode=rw",
        uri=True,
        timeout=busy_timeout,
        isolation_level=None,
        check_same_thread=False,
    )
    reader.text_factory = read_text
    return reader


def _prepare(
    db: sqlite3.Connection, migrations: Migrations, *, in_file: bool, busy_timeout: float
) -> None:
    version = check_ours(db, migrations)  # before anything is written, even the journal mode
    db.execute("PRAGMA foreign_keys = ON")
    if in_file:
        _use_wal(db, busy_timeout)
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA wal_autocheckpoint = 0")  # see upkeep.Checkpoints
    if version < len(migrations):
        migrate(db, migrations)


def _use_wal(db: sqlite3.Connection, busy_timeout: float) -> None:
    """Switch the file to write-ahead logging, waiting for another game making it.

    While another connection holds the write lock of a file still in its first journal
    mode (a game that started a moment earlier, making the tables), SQLite answers
    the switch with "database is locked" at once rather than wait out the busy
    timeout, so the switch is tried again until that timeout.
    """
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            busy = (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF == sqlite3.SQLITE_BUSY
            if not busy or time.monotonic() >= deadline:
                raise
            time.sleep(0.005)
