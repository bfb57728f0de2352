"""The record of a session (`GameRecord`): what is saved, what waits, and recovering
from whatever the file does.

One transaction a match. WAL mode and a busy timeout let several games record at
once; a match that cannot be written (a read-only folder, a full disk, a lock held
too long) stays in memory and is tried again as play goes on and at quit; a
file that is not a database, or that SQLite finds damaged, is moved aside
(`.corrupt-<time>`) and a fresh record started, and the matches written to it this
session are written again, as they are when the file is deleted or replaced during
play; a database the game may not write to is left alone. The file is not opened
until it is first needed. The store speaks to the player only through notices
(`take_notices`); it never raises for the file's sake.

A game hands its matches over with `queue`: the record's writer thread (`writing`)
writes them, in order, so a slow disk or a lock held by another program delays the saving, never
the game. The record screen reads on a connection of its own (`opening`), which a
write waiting for the lock does not hold up (WAL readers never wait for writers).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from tictactoe.record.database import is_damage, now
from tictactoe.record.match import MatchRecord
from tictactoe.record.opening import (
    COMPANIONS,
    Damaged,
    file_identity,
    open_for_reading,
    open_for_writing,
)
from tictactoe.record.queries import Queries
from tictactoe.record.schema import NotOurs
from tictactoe.record.upkeep import Checkpoints, IntegrityCheck, start_import
from tictactoe.record.writing import Writer, insert_match
from tictactoe.safe_files import move_aside, reason

__all__ = ["GameRecord"]


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
        self._writer: Final = Writer(
            self.save_pending,
            lambda: self.unsaved > 0 and self._left_alone is None,
            retry_after,
        )
        """The thread that writes the matches handed over by `queue`."""
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
        self._again: tuple[str, int] | None = None
        """What became of the file during play ("deleted", "replaced") and how many of this
        session's matches wait to be written to the path again: said once they are."""
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

    # Recording.

    @property
    def unsaved(self) -> int:
        """Matches of this session that were meant for the file and are not in it yet."""
        return len(self._pending) + len(self._handed) if self.path is not None else 0

    @property
    def busy(self) -> bool:
        """Whether the writer thread has matches to write (or try again), or is writing."""
        return self._writer.busy

    def add(self, match: MatchRecord) -> None:
        """Record one finished match (and any still waiting) now, one transaction each."""
        with self._lock:
            self._pending.append(_timed(match))
            self.save_pending()

    def queue(self, match: MatchRecord) -> None:
        """Record one finished match beside play: this returns at once, and the record's
        writer thread writes it after those handed over before it. A record kept in memory
        writes it at once: nothing there waits."""
        if self.path is None:
            self.add(match)
            return
        self._handed.append(_timed(match))
        self._writer.ask()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until the writer thread has tried to write every match handed over so far
        (or for `timeout` seconds); whether nothing is left unsaved."""
        self._writer.flush(timeout)
        return not self.unsaved

    def ready(self, timeout: float | None = None) -> None:
        """Before reading: open the file if it is not open yet (made, or brought up to date
        from an earlier version, which takes seconds for a big record), and wait for what the
        writer thread is writing (for `timeout` seconds at most). Called off the screen's
        thread, so that the reads after it find the file open (a read of a file not open yet
        would wait for the writing side's lock, which opens it)."""
        if self._db is None:
            with self._lock:
                self._connection()
        if self.busy:
            self.flush(timeout)

    def finish(self, timeout: float | None = None) -> None:
        """At quit: one last try to write what waits, then close the file. It waits at most
        `timeout` seconds (by default, as long as a write under way and one more may wait
        for another program's lock). What could not be written is counted by `unsaved`."""
        bound = 2 * self.busy_timeout + self.retry_after if timeout is None else timeout
        if not self._writer.started:
            with self._lock:
                self.save_pending()
        else:
            self.flush(bound)
            self._writer.stop()
        if self._lock.acquire(timeout=self.busy_timeout):  # not held by a write still waiting
            try:
                self.close()
            finally:
                self._lock.release()

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
                        insert_match(db, self._pending[0], recheck=self._recheck > 0)
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
                if self._again is not None:
                    self._tell_written_again()
                elif self.problem is not None:
                    self._tell(f"The game record {self.path} is saved again.")
                if self.problem is not None:
                    self.problem = None
                    with self._told:
                        self._warned -= {"write", "open"}
                return

    # Opening, lazily.

    def _connection(self) -> sqlite3.Connection | None:
        """The open database, opening it (and importing the old stats) on first use."""
        if self._check is not None and self._check.found is not None:
            self._replace_damaged(self._check.found)
        if self._db is not None or self._left_alone is not None:
            return self._db
        for _attempt in range(2):
            try:
                self._db = open_for_writing(self.path, self.busy_timeout)
                self._identity = file_identity(self.path)
            except Damaged as damage:
                self._replace_damaged(str(damage))
                continue
            except NotOurs as refusal:
                self._left_alone = str(refusal)
                problem = str(refusal)
                if self._again is not None and self._again[0] == "replaced":
                    problem = f"was replaced during play, and the file now there {refusal}"
                self._again = None  # nothing is written to it again
                self._failed("left alone", problem)
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

    def _find_replaced(self) -> None:
        """When the file open was deleted or replaced by another program during play (SQLite
        would go on writing to the deleted file, and lose it all), close it and write this
        session's matches again, to a new file at the path or into the one that replaced it."""
        if self._db is None or self.path is None or file_identity(self.path) == self._identity:
            return
        gone = not self.path.exists()
        self._close_db()
        again = len(self._written)
        self._pending[:0] = self._written
        self._recheck = 0 if gone else again
        self._written = []
        if again:
            self._again = ("deleted" if gone else "replaced", again)

    def _tell_written_again(self) -> None:
        """Say that the matches of a file deleted or replaced during play are in the file
        at the path now (with `_lock` held, once they are)."""
        assert self._again is not None
        what, again = self._again
        matches = f"{again} match is" if again == 1 else f"{again} matches are"
        if what == "deleted":
            self._tell(
                f"The game record {self.path} was deleted during play; this session's"
                f" {matches} written to it again."
            )
        else:
            self._tell(
                f"The game record {self.path} was replaced during play; this session's"
                f" {matches} added to the file now there."
            )
        self._again = None

    # When the file fails.

    def _replace_damaged(self, what: str) -> None:
        """Move a damaged file aside with its companions and start afresh; tell the player."""
        self._close_db()
        assert self.path is not None, "a database in memory is never damaged"
        try:
            kept = move_aside(self.path, COMPANIONS)
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
        identity = file_identity(self.path)
        if self._reader is not None and identity == self._reader_identity:
            return self._reader
        self._close_reader()
        if identity != self._identity:
            self._writer.ask()  # it finds the file replaced, and writes the matches again
            self.unreadable = None
            return None
        try:
            reader = open_for_reading(self.path, self.busy_timeout)
        except sqlite3.Error as error:
            self._cannot_read(f"could not be read ({error})")
            return None
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


def _timed(match: MatchRecord) -> MatchRecord:
    """`match`, ended now unless it says when (a series' match is timed as it is handed over)."""
    return match if match.finished_at is not None else match.at(now())
