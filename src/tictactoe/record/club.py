"""The club's own record (`ClubRecord`): players, their keys, ratings and their history, bans,
the claims of each address, and every finished match, in one SQLite file.

Its rules are `SqlClubStore`'s; this module only opens the file and runs the work on it. A
damaged file is kept aside (`.corrupt-<time>`) and a fresh one started, a file of another
program left alone. The file is in write-ahead logging with a busy timeout, so the running club
and the owner's commands (`tictactoe club ban …`) use it at once.
"""

from __future__ import annotations

import contextlib
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar, Final, TypeVar

from tictactoe.record.club_dialects import Database, Sqlite
from tictactoe.record.club_door import CLAIM_WINDOW, TOO_MANY_CLAIMS, another_key
from tictactoe.record.club_schema import CLUB_MIGRATIONS
from tictactoe.record.club_sql import ClubUnavailable, SqlClubStore, UnknownHandle
from tictactoe.record.database import is_damage, transaction
from tictactoe.record.opening import COMPANIONS, Damaged, keep_private, open_for_writing
from tictactoe.record.paths import CLUB_NAME, default_club_folder
from tictactoe.record.schema import NotOurs
from tictactoe.safe_files import move_aside, reason

__all__ = [
    "CLAIM_WINDOW",
    "CLUB_MIGRATIONS",
    "TOO_MANY_CLAIMS",
    "ClubRecord",
    "ClubUnavailable",
    "UnknownHandle",
    "another_key",
    "club_path",
]

T = TypeVar("T")


def club_path(data: Path | None) -> Path:
    """The club's file in the folder `--data` names, or in the default club folder (the
    running club and the owner's commands both find it here)."""
    return (default_club_folder() if data is None else data) / CLUB_NAME


class ClubRecord(SqlClubStore):
    """The club's file at `path` (made with its folder if it does not exist).

    Every method is safe from several threads (one at a time) and beside other processes
    using the same file. ClubUnavailable when the file cannot be opened or is another
    program's.
    """

    errors: ClassVar[tuple[type[Exception], ...]] = (sqlite3.Error,)

    def __init__(
        self, path: Path, *, busy_timeout: float = 5.0, rng: random.Random | None = None
    ) -> None:
        super().__init__(rng)
        self.path: Final = path
        self.busy_timeout: Final = busy_timeout
        """Seconds to wait for another process's write before giving up for now."""
        self._db = self._open()

    # Opening, and a damaged file.

    def _open(self) -> sqlite3.Connection:
        for _attempt in range(2):
            try:
                keep_private(self.path)  # players' keys and addresses: the owner's alone
                db = open_for_writing(self.path, self.busy_timeout, CLUB_MIGRATIONS)
            except Damaged as damage:
                self._keep_aside(str(damage))
                continue
            except NotOurs as refusal:
                raise ClubUnavailable(f"The club's file {self.path} {refusal}.") from None
            except OSError as error:
                raise ClubUnavailable(
                    f"The club's file {self.path} could not be opened ({reason(error)})."
                ) from None
            except sqlite3.Error as error:
                raise ClubUnavailable(
                    f"The club's file {self.path} could not be opened ({error})."
                ) from None
            db.execute("PRAGMA wal_autocheckpoint = 1000")  # SQLite's own: the club writes little
            return db
        raise ClubUnavailable(f"The club's file {self.path} is damaged and could not be replaced.")

    def _keep_aside(self, what: str) -> None:
        try:
            kept = move_aside(self.path, COMPANIONS)
        except OSError as error:
            raise ClubUnavailable(
                f"The club's file {self.path} is damaged ({what}) and could not be moved aside"
                f" ({reason(error)})."
            ) from None
        self._notices.append(
            f"The club's file {self.path} was damaged ({what}). It was kept as {kept.name}"
            " and a fresh one was started."
        )

    def _run(self, work: Callable[[Database], T], *, write: bool, retry_unique: bool = False) -> T:
        """`work` on the file (in a write transaction when it may `write`), with the lock held;
        once more on a fresh file if it was damaged."""
        with self._lock:
            try:
                return _on(self._db, work, write)
            except sqlite3.Error as error:
                if not is_damage(error):
                    raise
                with contextlib.suppress(sqlite3.Error):
                    self._db.close()
                self._keep_aside(str(error))
                self._db = self._open()
                return _on(self._db, work, write)

    def _reason(self, error: Exception) -> str:
        return str(error)

    def _unreachable(self, error: Exception) -> str:
        return f"The club's file {self.path} could not be used ({error})."

    def _close_connections(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._db.close()


def _on(db: sqlite3.Connection, work: Callable[[Database], T], write: bool) -> T:
    if not write:
        return work(Sqlite(db))
    with transaction(db):
        return work(Sqlite(db))
