"""Writing the record, and recovering from whatever the file does.

One transaction a match. WAL mode and a busy timeout let several games record at
once; a match that cannot be written (a read-only folder, a full disk, a lock held
too long) stays in memory and is tried again after the next match and at quit; a
file that is not a database, or that SQLite finds damaged, is moved aside
(`.corrupt-<time>`) and a fresh record started, and the matches written to it this
session are written again; a database the game may not write to is left alone. The
file is not opened until it is first needed. The store speaks to the player only
through notices (`take_notices`); it never raises for the file's sake.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Sequence
from datetime import UTC
from pathlib import Path
from typing import Final

from tictactoe.record.database import is_damage, now, player_id, read_text, transaction
from tictactoe.record.match import MatchRecord
from tictactoe.record.queries import Queries
from tictactoe.record.schema import (
    SCHEMA_VERSION,
    TIME_FORMAT,
    NotOurs,
    check_ours,
    migrate,
)
from tictactoe.record.upkeep import Checkpoints, IntegrityCheck, start_import
from tictactoe.safe_files import move_aside, reason

__all__ = ["GameRecord"]

_COMPANIONS: Final = ("-wal", "-shm", "-journal")
"""SQLite's own files beside a database, which belong with it."""


class _Damaged(Exception):
    """The file is not a database, or SQLite found it damaged."""


class GameRecord(Queries):
    """The record of one session: a file, or with `path` None (`--no-save`) memory only.

    `legacy` names an old stats.json to import once, when the file is first opened.
    """

    def __init__(
        self,
        path: Path | None,
        *,
        legacy: Path | None = None,
        busy_timeout: float = 2.0,
        check_after: float = 1.0,
    ) -> None:
        self.path: Final = path
        """The database file, or None to keep the record in memory only."""
        self.legacy: Final = legacy
        self.busy_timeout: Final = busy_timeout
        """Seconds to wait for another game's write before giving up for now."""
        self.check_after: Final = check_after
        """Seconds between opening the file and starting its integrity check."""
        self._db: sqlite3.Connection | None = None
        self._pending: list[MatchRecord] = []
        """Matches not written yet, oldest first."""
        self._written: list[MatchRecord] = []
        """Matches written to the open file, in case it turns out damaged and is replaced."""
        self._notices: list[str] = []
        self._warned: set[str] = set()
        """Kinds of lasting trouble already told, so each is told once."""
        self._left_alone: str | None = None
        """Why the file must not be written to at all this session, or None."""
        self.problem: str | None = None
        """Why the last attempt to write failed, in words; None when all is saved."""
        self._check: IntegrityCheck | None = None
        """The integrity check of the file open now."""
        self._checkpoints = Checkpoints(path) if path is not None else None
        self._importer: threading.Thread | None = None

    # Recording.

    @property
    def unsaved(self) -> int:
        """Matches of this session that were meant for the file and are not in it yet."""
        return len(self._pending) if self.path is not None else 0

    def add(self, match: MatchRecord) -> None:
        """Record one finished match (and any still waiting), one transaction each."""
        self._pending.append(match)
        self.save_pending()

    def save_pending(self) -> None:
        """Try again to write every match still waiting; called after each match and at quit."""
        if not self._pending:
            return
        for _attempt in range(2):  # a second try after a damaged file was replaced
            db = self._connection()
            if db is None:
                return
            try:
                while self._pending:
                    self._insert(db, self._pending[0])
                    self._written.append(self._pending.pop(0))
                    if self._checkpoints is not None:
                        self._checkpoints.after_a_match()
            except sqlite3.Error as error:
                if is_damage(error):
                    self._replace_damaged(str(error))
                    continue
                self._failed("write", f"could not be written ({error})")
                return
            if self.problem is not None:
                self.problem = None
                self._warned -= {"write", "open"}
                self._notices.append(f"The game record {self.path} is saved again.")
            return

    @staticmethod
    def _insert(db: sqlite3.Connection, match: MatchRecord) -> None:
        with transaction(db):
            first, second = (player_id(db, player) for player in match.players)
            when = match.finished_at or now()
            db.execute(
                "INSERT INTO matches (finished_at, player1, player2, mark1, first_mover, moves,"
                " winner) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    when.astimezone(UTC).strftime(TIME_FORMAT),
                    first,
                    second,
                    str(match.marks[0]),
                    match.first_mover + 1,
                    "".join(map(str, match.moves)),
                    None if match.winner is None else match.winner + 1,
                ),
            )

    # Opening, lazily.

    def _connection(self) -> sqlite3.Connection | None:
        """The open database, opening it (and importing the old stats) on first use."""
        if self._check is not None and self._check.found is not None:
            self._replace_damaged(self._check.found)
        if self._db is not None or self._left_alone is not None:
            return self._db
        for _attempt in range(2):
            try:
                self._db = self._open()
            except _Damaged as damage:
                self._replace_damaged(str(damage))
                continue
            except NotOurs as refusal:
                self._left_alone = str(refusal)
                self._failed("left alone", str(refusal))
                return None
            except (sqlite3.Error, OSError) as error:
                why = reason(error) if isinstance(error, OSError) else str(error)
                self._failed("open", f"could not be opened ({why})")
                return None
            break
        if self._db is not None and self.path is not None:
            if self.legacy is not None:
                self._importer = start_import(self._db, self.legacy, self.path, self._tell)
            self._check = IntegrityCheck(self.path, self.check_after)
        return self._db

    def _open(self) -> sqlite3.Connection:
        if self.path is None:
            db = sqlite3.connect(":memory:", isolation_level=None)
        else:
            if self.path.exists() and not self.path.is_file():  # SQLite would write beside it
                raise NotOurs("is not a regular file, so it is left as it is")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None)
        db.text_factory = read_text
        try:
            self._prepare(db)
        except BaseException as error:
            db.close()
            if isinstance(error, sqlite3.Error) and is_damage(error):
                raise _Damaged(str(error)) from error
            raise
        return db

    def _prepare(self, db: sqlite3.Connection) -> None:
        version = check_ours(db)  # before anything is written, even the journal mode
        db.execute("PRAGMA foreign_keys = ON")
        if self.path is not None:
            self._use_wal(db)
            db.execute("PRAGMA synchronous = FULL")
            db.execute("PRAGMA wal_autocheckpoint = 0")  # see upkeep.Checkpoints
        if version < SCHEMA_VERSION:
            migrate(db)

    def _use_wal(self, db: sqlite3.Connection) -> None:
        """Switch the file to write-ahead logging, waiting for another game making it.

        While another connection holds the write lock of a file still in its first journal
        mode (a game that started a moment earlier, making the tables), SQLite answers
        the switch with "database is locked" at once rather than wait out the busy
        timeout, so the switch is tried again until that timeout.
        """
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as error:
                busy = (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF == sqlite3.SQLITE_BUSY
                if not busy or time.monotonic() >= deadline:
                    raise
                time.sleep(0.005)

    # When the file fails.

    def _replace_damaged(self, what: str) -> None:
        """Move a damaged file aside with its companions and start afresh; tell the player."""
        self._close_db()
        assert self.path is not None, "a database in memory is never damaged"
        try:
            kept = move_aside(self.path, _COMPANIONS)
        except OSError as error:
            self._left_alone = "is damaged and could not be moved aside"
            self._failed(
                "left alone",
                f"is damaged ({what}) and could not be moved aside ({reason(error)}), "
                "so it is left as it is",
            )
            return
        self._pending[:0] = self._written
        self._written = []
        self._notices.append(
            f"The game record {self.path} was damaged ({what}). It was kept as {kept.name} "
            "and a fresh record was started; this session's matches are in the new one."
        )

    def _failed(self, kind: str, problem: str) -> None:
        """Tell the player, once for each `kind`, what went wrong and what happens now."""
        self.problem = problem
        if kind in self._warned:
            return
        self._warned.add(kind)
        waiting = len(self._pending)
        if self._left_alone is not None:
            then = (
                " Play goes on, but this session's matches are kept in memory only"
                " and will not be saved."
            )
        elif waiting:
            then = (
                f" Play goes on. {waiting} finished match{' is' if waiting == 1 else 'es are'}"
                " kept in memory and tried again after each match and at quit."
            )
        else:
            then = " Play goes on."
        self._notices.append(f"The game record {self.path} {problem}.{then}")

    def _rows(self, sql: str, parameters: Sequence[object] = ()) -> list[tuple[object, ...]]:
        """Rows of a query, or none when the file cannot be read (the player is told)."""
        db = self._connection()
        if db is None:
            return []
        try:
            return list(db.execute(sql, parameters).fetchall())
        except sqlite3.Error as error:
            if is_damage(error):
                self._replace_damaged(str(error))
            else:
                self._failed("read", f"could not be read ({error})")
            return []

    # Beside play.

    def wait_for_check(self, timeout: float | None = None) -> None:
        """Let the background integrity check finish (for tests and benchmarks)."""
        if self._check is not None:
            self._check.wait(timeout)

    def wait_for_import(self, timeout: float | None = None) -> None:
        """Let an import running beside play finish (for tests and benchmarks)."""
        if self._importer is not None:
            self._importer.join(timeout)

    # Notices and the end.

    def _tell(self, notice: str) -> None:
        """Keep `notice` for the player (upkeep threads call it too)."""
        self._notices.append(notice)

    def take_notices(self) -> list[str]:
        """What the player should be told since the last call (damage, import, failures)."""
        notices, self._notices = self._notices, []
        return notices

    def where(self) -> str:
        """Where the record is kept, in words, with anything not saved yet."""
        if self.path is None:
            return "Not saved this session (--no-save)"
        if self._left_alone is not None:
            return f"Not saved this session: {self.path} {self._left_alone}"
        if not self.unsaved:
            return f"Kept in {self.path}"
        count = self.unsaved
        return (
            f"{count} match{'' if count == 1 else 'es'} of this session not saved yet"
            f" to {self.path}: {self.problem or 'waiting'}"
        )

    def close(self) -> None:
        """Close the file (it opens again if needed); anything unsaved stays pending.

        A record kept in memory (`--no-save`) stays open: closing it would forget it.
        """
        if self.path is not None:
            self._close_db()

    def _close_db(self) -> None:
        if self._check is not None:
            self._check.stop()
            self._check = None
        if self._checkpoints is not None:
            self._checkpoints.wait(5)
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
