"""Writing the record, and recovering from whatever the file does.

One transaction a match. WAL mode and a busy timeout let several games record at
once; a match that cannot be written (a read-only folder, a full disk, a lock held
too long) stays in memory and is tried again as play goes on and at quit; a
file that is not a database, or that SQLite finds damaged, is moved aside
(`.corrupt-<time>`) and a fresh record started, and the matches written to it this
session are written again, as they are when the file is deleted or replaced during
play; a database the game may not write to is left alone. The file is not opened
until it is first needed. The store speaks to the player only through notices
(`take_notices`); it never raises for the file's sake.

A game hands its matches over with `queue`: a thread of the record's own writes them,
in order, so a slow disk or a lock held by another program delays the saving, never
the game. The record screen reads on a connection of its own, which a write waiting
for the lock does not hold up (WAL readers never wait for writers).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Sequence
from datetime import UTC
from pathlib import Path
from typing import Final
from urllib.parse import quote

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
        retry_after: float = 1.0,
    ) -> None:
        self.path: Final = path
        """The database file, or None to keep the record in memory only."""
        self.legacy: Final = legacy
        self.busy_timeout: Final = busy_timeout
        """Seconds to wait for another game's write before giving up for now."""
        self.check_after: Final = check_after
        """Seconds between opening the file and starting its integrity check."""
        self.retry_after: Final = retry_after
        """Seconds the writer thread waits before trying again what could not be written."""
        self._lock = threading.RLock()
        """Held for everything on the writing side: the file's opening, writing, replacing."""
        self._db: sqlite3.Connection | None = None
        self._identity: tuple[int, int] | None = None
        """The device and inode of the file `_db` has open: another one means it was replaced."""
        self._pending: list[MatchRecord] = []
        """Matches not written yet, oldest first."""
        self._handed: deque[MatchRecord] = deque()
        """Matches handed over by `queue`, to go after the pending ones: a deque, so that
        handing one over never waits for the writing side."""
        self._recheck = 0
        """How many of the first pending matches may be in the file already (written again
        into a file that replaced ours, which may be a copy of it)."""
        self._written: list[MatchRecord] = []
        """Matches written to the open file, in case it turns out damaged and is replaced."""
        self._told = threading.Lock()
        """Held for a moment, to add or take notices from either thread."""
        self._notices: deque[str] = deque()
        self._warned: set[str] = set()
        """Kinds of lasting trouble already told, so each is told once."""
        self._left_alone: str | None = None
        """Why the file must not be written to at all this session, or None."""
        self.problem: str | None = None
        """Why the last attempt to write failed, in words; None when all is saved."""
        self.unreadable: str | None = None
        """Why the last attempt to read failed, in words; None when it succeeded."""
        self._check: IntegrityCheck | None = None
        """The integrity check of the file open now."""
        self._checkpoints = Checkpoints(path) if path is not None else None
        self._importer: threading.Thread | None = None
        self._read_lock = threading.Lock()
        """Held while the record screen's connection is used, opened or closed."""
        self._reader: sqlite3.Connection | None = None
        self._reader_identity: tuple[int, int] | None = None
        self._writer: threading.Thread | None = None
        self._turns = threading.Condition()
        """Guards `_asked`, `_answered` and `_stopping`, and wakes the writer thread."""
        self._asked = 0
        """Attempts to write asked of the writer thread so far."""
        self._answered = 0
        """Attempts the writer thread has finished, counted as the asking they answered."""
        self._stopping = False

    # Recording.

    @property
    def unsaved(self) -> int:
        """Matches of this session that were meant for the file and are not in it yet."""
        return len(self._pending) + len(self._handed) if self.path is not None else 0

    @property
    def busy(self) -> bool:
        """Whether the writer thread has matches to write (or try again), or is writing."""
        with self._turns:
            asked = self._answered < self._asked
        return asked or (self.unsaved > 0 and self._left_alone is None)

    def add(self, match: MatchRecord) -> None:
        """Record one finished match (and any still waiting) now, one transaction each."""
        with self._lock:
            self._pending.append(match)
            self.save_pending()

    def queue(self, match: MatchRecord) -> None:
        """Record one finished match beside play: this returns at once, and the record's
        writer thread writes it after those handed over before it. A record kept in memory
        writes it at once: nothing there waits."""
        if self.path is None:
            self.add(match)
            return
        self._handed.append(match)
        self._ask_writer()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until the writer thread has tried to write every match handed over so far
        (or for `timeout` seconds); whether nothing is left unsaved."""
        with self._turns:
            if self._writer is None:
                return not self.unsaved
            self._ask_writer()
            asked = self._asked
            self._turns.wait_for(lambda: self._answered >= asked, timeout)
        return not self.unsaved

    def finish(self, timeout: float | None = None) -> None:
        """At quit: one last try to write what waits, then close the file. It waits at most
        `timeout` seconds (by default, as long as a write under way and one more may wait
        for another program's lock). What could not be written is counted by `unsaved`."""
        bound = 2 * self.busy_timeout + self.retry_after if timeout is None else timeout
        if self._writer is None:
            with self._lock:
                self.save_pending()
        else:
            self.flush(bound)
            with self._turns:
                self._stopping = True
                self._turns.notify_all()
        if self._lock.acquire(timeout=self.busy_timeout):  # not held by a write still waiting
            try:
                self.close()
            finally:
                self._lock.release()

    def _ask_writer(self) -> None:
        with self._turns:
            self._asked += 1
            self._stopping = False
            if self._writer is None or not self._writer.is_alive():
                self._writer = threading.Thread(
                    target=self._write_beside_play, name="record-writer", daemon=True
                )
                self._writer.start()
            self._turns.notify_all()

    def _write_beside_play(self) -> None:
        """The writer thread: each time it is asked, try to write every match waiting; while
        some could not be written, try again every `retry_after` seconds."""
        while True:
            with self._turns:
                self._turns.wait_for(
                    lambda: self._stopping or self._answered < self._asked,
                    self.retry_after if self.busy else None,
                )
                if self._stopping:
                    return
                asked = self._asked
            self.save_pending()
            with self._turns:
                self._answered = asked
                self._turns.notify_all()

    def save_pending(self) -> None:
        """Try again to write every match still waiting (first making sure the file is still
        the one opened); called after each match and at quit."""
        with self._lock:
            while self._handed:
                self._pending.append(self._handed.popleft())
            self._find_replaced()
            if not self._pending:
                return
            for _attempt in range(2):  # a second try after a damaged file was replaced
                db = self._connection()
                if db is None:
                    return
                try:
                    while self._pending:
                        self._insert(db, self._pending[0], recheck=self._recheck > 0)
                        self._written.append(self._pending.pop(0))
                        self._recheck = max(self._recheck - 1, 0)
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
                    with self._told:
                        self._warned -= {"write", "open"}
                    self._tell(f"The game record {self.path} is saved again.")
                return

    @staticmethod
    def _insert(db: sqlite3.Connection, match: MatchRecord, *, recheck: bool = False) -> None:
        """Write `match`; with `recheck`, not when the file holds the very same match."""
        with transaction(db):
            first, second = (player_id(db, player) for player in match.players)
            when = match.finished_at or now()
            row = (
                when.astimezone(UTC).strftime(TIME_FORMAT),
                first,
                second,
                str(match.marks[0]),
                match.first_mover + 1,
                "".join(map(str, match.moves)),
                None if match.winner is None else match.winner + 1,
            )
            if (
                recheck
                and db.execute(
                    "SELECT 1 FROM matches WHERE finished_at = ? AND player1 = ? AND player2 = ?"
                    " AND mark1 = ? AND first_mover = ? AND moves = ? AND winner IS ?",
                    row,
                ).fetchone()
            ):
                return
            db.execute(
                "INSERT INTO matches (finished_at, player1, player2, mark1, first_mover, moves,"
                " winner) VALUES (?, ?, ?, ?, ?, ?, ?)",
                row,
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
        """Open (or make) the file; the writer thread and the caller of `add` share it,
        one at a time."""
        if self.path is None:
            db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        else:
            if self.path.exists() and not self.path.is_file():  # SQLite would write beside it
                raise NotOurs("is not a regular file, so it is left as it is")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(
                self.path,
                timeout=self.busy_timeout,
                isolation_level=None,
                check_same_thread=False,
            )
        db.text_factory = read_text
        try:
            self._prepare(db)
            self._identity = self._file_identity()
        except BaseException as error:
            db.close()
            if isinstance(error, sqlite3.Error) and is_damage(error):
                raise _Damaged(str(error)) from error
            raise
        return db

    def _file_identity(self) -> tuple[int, int] | None:
        """The device and inode of the file at `path` now (a link followed); None if none."""
        if self.path is None:
            return None
        try:
            status = self.path.stat()
        except OSError:
            return None
        return status.st_dev, status.st_ino

    def _find_replaced(self) -> None:
        """When the file open was deleted or replaced by another program during play (SQLite
        would go on writing to the deleted file, and lose it all), close it and write this
        session's matches again, to a new file at the path or into the one that replaced it."""
        if self._db is None or self.path is None or self._file_identity() == self._identity:
            return
        gone = not self.path.exists()
        self._close_db()
        again = len(self._written)
        self._pending[:0] = self._written
        self._recheck = 0 if gone else again
        self._written = []
        if not again:
            return
        matches = f"{again} match is" if again == 1 else f"{again} matches are"
        if gone:
            self._tell(
                f"The game record {self.path} was deleted during play; this session's"
                f" {matches} written to it again."
            )
        else:
            self._tell(
                f"The game record {self.path} was replaced during play; this session's"
                f" {matches} added to the file now there."
            )

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
        self._recheck = 0
        self._written = []
        self._tell(
            f"The game record {self.path} was damaged ({what}). It was kept as {kept.name} "
            "and a fresh record was started; this session's matches are in the new one."
        )

    def _failed(self, kind: str, problem: str) -> None:
        """Tell the player, once for each `kind`, what went wrong and what happens now."""
        self.problem = problem
        with self._told:
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
                " kept in memory and tried again as play goes on and at quit."
            )
        else:
            then = " Play goes on."
        self._tell(f"The game record {self.path} {problem}.{then}")

    def _rows(self, sql: str, parameters: Sequence[object] = ()) -> list[tuple[object, ...]]:
        """Rows of a query, or none when the file cannot be read (`unreadable` says why,
        and the player is told)."""
        if self.path is None:
            with self._lock:
                return self._read(self._connection(), sql, parameters)
        if self._db is None:
            with self._lock:  # the file is made, migrated and imported into by the writing side
                if self._connection() is None:
                    self.unreadable = self.problem or "could not be opened"
                    return []
        damage = None
        with self._read_lock:
            reader = self._reading_connection()
            if reader is None:
                rows: list[tuple[object, ...]] = []
            else:
                try:
                    rows = list(reader.execute(sql, parameters).fetchall())
                    self.unreadable = None
                except sqlite3.Error as error:
                    rows = []
                    if is_damage(error):
                        damage = str(error)
                    else:
                        self._cannot_read(f"could not be read ({error})")
        if damage is not None:
            with self._lock:
                self._replace_damaged(damage)
        return rows

    def _read(
        self, db: sqlite3.Connection | None, sql: str, parameters: Sequence[object]
    ) -> list[tuple[object, ...]]:
        """Rows from the writing side's own connection (a record kept in memory)."""
        if db is None:
            return []
        try:
            return list(db.execute(sql, parameters).fetchall())
        except sqlite3.Error as error:
            self._cannot_read(f"could not be read ({error})")
            return []

    def _reading_connection(self) -> sqlite3.Connection | None:
        """The record screen's connection, opened afresh when the file has changed under it.

        With `_read_lock` held. A file deleted or replaced is for the writing side to deal
        with: it is asked to.
        """
        assert self.path is not None
        identity = self._file_identity()
        if self._reader is not None and identity == self._reader_identity:
            return self._reader
        self._close_reader()
        if identity != self._identity:
            self._ask_writer()  # it finds the file replaced, and writes the matches again
            self.unreadable = None
            return None
        try:
            reader = sqlite3.connect(
                f"file:{quote(str(self.path.resolve()))}?mode=rw",
                uri=True,
                timeout=self.busy_timeout,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as error:
            self._cannot_read(f"could not be read ({error})")
            return None
        reader.text_factory = read_text
        self._reader, self._reader_identity = reader, identity
        return reader

    def _cannot_read(self, problem: str) -> None:
        self.unreadable = problem
        with self._told:
            if "read" in self._warned:
                return
            self._warned.add("read")
        self._tell(f"The game record {self.path} {problem}.")

    def _close_reader(self) -> None:
        """With `_read_lock` held."""
        if self._reader is not None:
            with contextlib.suppress(sqlite3.Error):
                self._reader.close()
            self._reader = self._reader_identity = None

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
        """Keep `notice` for the player (the writer and upkeep threads call it too)."""
        with self._told:
            self._notices.append(notice)

    def take_notices(self) -> list[str]:
        """What the player should be told since the last call (damage, import, failures)."""
        with self._told:
            notices = list(self._notices)
            self._notices.clear()
        return notices

    def where(self) -> str:
        """Where the record is kept, in words, with anything not saved yet."""
        if self.path is None:
            return "Not saved this session (--no-save)"
        if self._left_alone is not None:
            return f"Not saved this session: {self.path} {self._left_alone}"
        count = self.unsaved
        if self.unreadable is not None:
            waiting = f" {count} match{'' if count == 1 else 'es'} of this session not saved yet."
            why = self.unreadable[0].upper() + self.unreadable[1:]  # first: a long path is cut
            return f"{why}: {self.path}.{waiting if count else ''}"
        if not count:
            return f"Kept in {self.path}"
        return (
            f"{count} match{'' if count == 1 else 'es'} of this session not saved yet"
            f" to {self.path}: {self.problem or 'waiting'}"
        )

    def close(self) -> None:
        """Close the file (it opens again if needed); anything unsaved stays pending.

        A record kept in memory (`--no-save`) stays open: closing it would forget it.
        """
        if self.path is not None:
            with self._lock:
                self._close_db()

    def _close_db(self) -> None:
        """With `_lock` held: the reading side's connection closes too."""
        with self._read_lock:
            self._close_reader()
        if self._check is not None:
            self._check.stop()
            self._check = None
        if self._checkpoints is not None:
            self._checkpoints.wait(5)
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
