"""Work on the record file that runs beside play: the integrity check, checkpoints, and
the one-time import of an old stats.json.

Each may take seconds on a big file, longer than a match, so none of it holds up a
move: the threads here run at the lowest priority the system allows, and SQLite
does its part of the work without the GIL. What they find reaches the player
through the record's notices.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Final
from urllib.parse import quote

from tictactoe.record.database import is_damage, now, player_id, read_text, transaction
from tictactoe.record.schema import TIME_FORMAT
from tictactoe.record.stats_import import LegacyStats, read_legacy_stats
from tictactoe.safe_files import reason

__all__ = ["Checkpoints", "IntegrityCheck", "import_legacy", "start_import"]

CHECKPOINT_EVERY: Final = 20
"""Matches recorded between two checkpoints, so the write-ahead log stays small."""

BIG_IMPORT: Final = 1_000_000
"""Bytes of an old stats file (some 15,000 players) above which it is imported beside play."""

MANY: Final = 5_000
"""Imported players from which the ordering indexes are made afresh rather than kept up."""


def lower_this_threads_priority() -> None:
    """Let the calling thread yield the processor to the game (on Linux, where threads
    have a niceness of their own; elsewhere it runs as it is)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


# The integrity check.


class IntegrityCheck:
    """`PRAGMA quick_check` of one opened file, on a read-only connection of its own.

    It starts `delay` seconds after the file is opened, so the screen that needed the
    file is drawn first. Its finding belongs to the file it was started on: the store
    drops the check when it closes or replaces that file.
    """

    def __init__(self, path: Path, delay: float) -> None:
        self.found: str | None = None
        """What the check found wrong, once it has; None while all is well (or not known)."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._db: sqlite3.Connection | None = None
        uri = f"file:{quote(str(path.resolve()))}?mode=ro"
        try:
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except sqlite3.Error:
            return
        self._thread = threading.Thread(
            target=self._run, args=(self._db, delay), name="record-check", daemon=True
        )
        self._thread.start()

    def _run(self, db: sqlite3.Connection, delay: float) -> None:
        try:
            if self._stop.wait(delay):
                return
            lower_this_threads_priority()
            rows = db.execute("PRAGMA quick_check").fetchall()
        except sqlite3.Error as error:
            found = [str(error)] if is_damage(error) else ["ok"]
        else:
            found = [str(row[0]) for row in rows]
        finally:
            with contextlib.suppress(sqlite3.Error):
                db.close()
        if found != ["ok"]:
            first = found[0].replace("*** in database main ***", "").strip().splitlines()[0]
            self.found = f"the integrity check found: {first}"

    def wait(self, timeout: float | None = None) -> None:
        """Let the check finish (for tests and benchmarks)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def stop(self) -> None:
        """Stop the check, interrupting SQLite if it has begun."""
        self._stop.set()
        if self._thread is not None and self._thread.is_alive() and self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.interrupt()
            self._thread.join(1)


# Checkpoints.


def _checkpoint(path: Path) -> None:
    """Copy what the write-ahead log holds into the database file (PASSIVE: waits for nobody)."""
    with contextlib.suppress(sqlite3.Error):
        db = sqlite3.connect(path, timeout=1, isolation_level=None)
        try:
            db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            db.close()


class Checkpoints:
    """Now and then, copy the write-ahead log into the file, beside play.

    SQLite would otherwise do it inside the commit of some match, and on a big record
    that match would take long to record; a thread of its own does it without the
    GIL instead. The last connection to close checkpoints too.
    """

    def __init__(self, path: Path) -> None:
        self.path: Final = path
        self._since = 0
        """Matches recorded since the last checkpoint began."""
        self._thread: threading.Thread | None = None

    def after_a_match(self) -> None:
        """Count a recorded match; every `CHECKPOINT_EVERY`, start a checkpoint."""
        self._since += 1
        if self._since < CHECKPOINT_EVERY:
            return
        if self._thread is not None and self._thread.is_alive():
            return
        self._since = 0
        self._thread = threading.Thread(
            target=_checkpoint, args=(self.path,), name="record-checkpoint", daemon=True
        )
        self._thread.start()

    def wait(self, timeout: float | None = None) -> None:
        """Let a checkpoint under way finish (before the file is closed)."""
        if self._thread is not None:
            self._thread.join(timeout)


# The old statistics file.


def start_import(
    db: sqlite3.Connection, legacy: Path, record: Path, tell: Callable[[str], None]
) -> threading.Thread | None:
    """Import the old file now when it is small, else beside play: a big one takes seconds.

    Matches recorded meanwhile wait for the import's transaction (or, past the busy
    timeout, wait in memory for the next try), so nothing is lost either way. Returns
    the thread of an import beside play. `tell` passes a notice on to the player.
    """
    if not legacy.is_file():
        return None
    try:
        big = legacy.stat().st_size > BIG_IMPORT
    except OSError:
        big = False
    if not big:
        import_legacy(db, legacy, tell)
        return None
    importer = threading.Thread(
        target=_import_in_background, args=(record, legacy, tell), name="record-import", daemon=True
    )
    importer.start()
    return importer


def _import_in_background(record: Path, legacy: Path, tell: Callable[[str], None]) -> None:
    try:
        db = sqlite3.connect(record, timeout=30, isolation_level=None)
    except sqlite3.Error as error:
        tell(f"The old statistics file could not be imported ({error}).")
        return
    try:
        db.text_factory = read_text
        db.execute("PRAGMA foreign_keys = ON")
        import_legacy(db, legacy, tell)
    finally:
        db.close()


def import_legacy(db: sqlite3.Connection, legacy: Path, tell: Callable[[str], None]) -> None:
    """Import the old file into `db` once (its digest is remembered), then rename it.

    A file that cannot be read at all (not JSON, not the old format) is left as it is.
    """
    if not legacy.is_file():
        return
    try:
        raw = legacy.read_bytes()
    except OSError as error:
        tell(
            f"The old statistics file {legacy} could not be read ({reason(error)}); "
            "it was not imported."
        )
        return
    stats = read_legacy_stats(raw)
    if stats.problem is not None:  # what could not be read is not renamed as imported
        tell(
            f"The old statistics file {legacy} {stats.problem}, so nothing was imported;"
            " it is left as it is."
        )
        return
    digest = hashlib.sha256(raw).hexdigest()
    try:
        with transaction(db):
            done = db.execute("SELECT 1 FROM imports WHERE digest = ?", (digest,)).fetchone()
            if done is None:
                _insert_imported(db, legacy, digest, stats)
    except sqlite3.Error as error:
        tell(
            f"The old statistics file {legacy} could not be imported ({error}); "
            "it is left as it is and tried again next time."
        )
        return
    kept = legacy.with_name(legacy.name + ".imported")
    attempt = 0
    while kept.exists() or kept.is_symlink():
        attempt += 1
        kept = legacy.with_name(f"{legacy.name}.imported-{attempt}")
    try:
        legacy.rename(kept)
    except OSError as error:
        kept_note = f"It could not be renamed ({reason(error)}) and will not be imported twice."
    else:
        kept_note = f"It is now {kept.name}."
    if done is not None:
        return
    tell(_import_notice(legacy, stats, kept_note))


def _insert_imported(db: sqlite3.Connection, legacy: Path, digest: str, stats: LegacyStats) -> None:
    """Within the caller's transaction. For a big file the indexes that only order the
    screen's tables are set aside and made again afterwards: one sort each instead of
    a random insert per row."""
    set_aside = []
    if len(stats.totals) > MANY:
        set_aside = db.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index'"
            " AND tbl_name IN ('players', 'totals') AND sql NOT LIKE 'CREATE UNIQUE%'"
        ).fetchall()
        for name, _ in set_aside:
            db.execute(f'DROP INDEX "{name}"')
    import_id = db.execute(
        "INSERT INTO imports (digest, source, imported_at) VALUES (?, ?, ?)",
        (digest, str(legacy), now().strftime(TIME_FORMAT)),
    ).lastrowid
    db.executemany(
        "INSERT INTO imported_totals (import_id, player, wins, losses, draws)"
        " VALUES (?, ?, ?, ?, ?)",
        (
            (import_id, player_id(db, entry.player), *counts)
            for entry in stats.totals
            for counts in [(entry.wins, entry.losses, entry.draws)]
        ),
    )
    for _, sql in set_aside:
        db.execute(sql)


def _import_notice(legacy: Path, stats: LegacyStats, kept: str) -> str:
    count = len(stats.totals)
    notice = (
        f"The old statistics file {legacy} was imported into the game record "
        f"({count} player{'' if count == 1 else 's'}' totals). {kept}"
    )
    if stats.refused:
        shown = "; ".join(stats.refused[:5])
        more = f"; and {len(stats.refused) - 5} more" if len(stats.refused) > 5 else ""
        notice += (
            f" {len(stats.refused)} entr{'y was' if len(stats.refused) == 1 else 'ies were'}"
            f" refused: {shown}{more}."
        )
    return notice
