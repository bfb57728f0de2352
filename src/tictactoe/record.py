"""The game record: every finished match, kept in a SQLite database.

One row a match (when, both players, their marks, who moved first, the moves in
order, the result), written in one transaction each. Lifetime totals are not a
second copy kept by this code: the `totals` table is kept by triggers inside the
database, in the same transaction as each match, so it always agrees with
`matches` (plus the totals imported from an old stats.json, which had no matches).

Nothing finished is lost: WAL mode and a busy timeout let several games record at
once; a match that cannot be written (a read-only folder, a full disk, a lock held
too long) stays in memory and is tried again after the next match and at quit; a
file that is not a database, or that SQLite finds damaged, is moved aside
(`.corrupt-<time>`) and a fresh record started, and the matches written to it this
session are written again. The file is not opened until it is first needed.

Names read back are untrusted: each passes through `clean_name`. The record speaks
to the player only through notices (`take_notices`); it never raises for the
file's sake, and it imports nothing from Textual.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Final
from urllib.parse import quote

from tictactoe.ai import Level
from tictactoe.engine import GameState, IllegalMove, Mark
from tictactoe.names import clean_name, name_key
from tictactoe.record_paths import (
    RECORD_NAME,
    default_legacy_path,
    default_record_path,
    path_problem,
)
from tictactoe.safe_files import move_aside, reason
from tictactoe.series import COMPUTER_NAME, FinishedMatch, Player
from tictactoe.stats_import import LegacyStats, read_legacy_stats

__all__ = [
    "MIGRATIONS",
    "RECORD_NAME",
    "SCHEMA_VERSION",
    "GameRecord",
    "HeadToHead",
    "MatchRecord",
    "PlayerSort",
    "PlayerTotals",
    "default_legacy_path",
    "default_record_path",
    "display_name",
    "path_problem",
]

TIME_FORMAT: Final = "%Y-%m-%d %H:%M:%S"
"""How `finished_at` is written: UTC, the format of SQLite's own datetime()."""

_SCHEMA_V1: Final = (
    """CREATE TABLE players (
        id    INTEGER PRIMARY KEY,
        kind  TEXT NOT NULL CHECK (kind IN ('person', 'computer')),
        name  TEXT NOT NULL,
        level TEXT CHECK (level IN ('easy', 'medium', 'hard')),
        CHECK ((kind = 'person') = (level IS NULL))
    )""",
    "CREATE UNIQUE INDEX one_person_a_name ON players (name) WHERE kind = 'person'",
    "CREATE UNIQUE INDEX one_computer_a_level ON players (level) WHERE kind = 'computer'",
    "CREATE INDEX players_by_name ON players (name COLLATE NOCASE, id)",
    """CREATE TABLE matches (
        id          INTEGER PRIMARY KEY,
        finished_at TEXT NOT NULL,
        player1     INTEGER NOT NULL REFERENCES players (id),
        player2     INTEGER NOT NULL REFERENCES players (id),
        mark1       TEXT NOT NULL CHECK (mark1 IN ('X', 'O')),
        first_mover INTEGER NOT NULL CHECK (first_mover IN (1, 2)),
        moves       TEXT NOT NULL
                    CHECK (length(moves) BETWEEN 5 AND 9 AND moves NOT GLOB '*[^0-8]*'),
        winner      INTEGER CHECK (winner IN (1, 2)),
        CHECK (player1 <> player2)
    )""",
    "CREATE INDEX matches_by_pair ON matches (player1, player2)",
    """CREATE TABLE imports (
        id          INTEGER PRIMARY KEY,
        digest      TEXT NOT NULL UNIQUE,
        source      TEXT NOT NULL,
        imported_at TEXT NOT NULL
    )""",
    """CREATE TABLE imported_totals (
        import_id INTEGER NOT NULL REFERENCES imports (id),
        player    INTEGER NOT NULL REFERENCES players (id),
        wins      INTEGER NOT NULL CHECK (wins >= 0),
        losses    INTEGER NOT NULL CHECK (losses >= 0),
        draws     INTEGER NOT NULL CHECK (draws >= 0),
        PRIMARY KEY (import_id, player)
    )""",
    """CREATE TABLE totals (
        player   INTEGER PRIMARY KEY REFERENCES players (id),
        wins     INTEGER NOT NULL DEFAULT 0,
        losses   INTEGER NOT NULL DEFAULT 0,
        draws    INTEGER NOT NULL DEFAULT 0,
        matches  INTEGER GENERATED ALWAYS AS (wins + losses + draws) VIRTUAL,
        win_rate REAL GENERATED ALWAYS AS
                 (CAST(wins AS REAL) / nullif(wins + losses + draws, 0)) VIRTUAL
    )""",
    "CREATE INDEX totals_by_matches ON totals (matches, player)",
    "CREATE INDEX totals_by_wins ON totals (wins, player)",
    "CREATE INDEX totals_by_losses ON totals (losses, player)",
    "CREATE INDEX totals_by_draws ON totals (draws, player)",
    "CREATE INDEX totals_by_win_rate ON totals (win_rate, player)",
    """CREATE TRIGGER count_a_match AFTER INSERT ON matches BEGIN
        INSERT INTO totals (player, wins, losses, draws)
            VALUES (NEW.player1, NEW.winner IS 1, NEW.winner IS 2, NEW.winner IS NULL),
                   (NEW.player2, NEW.winner IS 2, NEW.winner IS 1, NEW.winner IS NULL)
            ON CONFLICT (player) DO UPDATE SET wins = wins + excluded.wins,
                losses = losses + excluded.losses, draws = draws + excluded.draws;
    END""",
    """CREATE TRIGGER uncount_a_match AFTER DELETE ON matches BEGIN
        UPDATE totals SET wins = wins - (OLD.winner IS 1), losses = losses - (OLD.winner IS 2),
                          draws = draws - (OLD.winner IS NULL)
            WHERE player = OLD.player1;
        UPDATE totals SET wins = wins - (OLD.winner IS 2), losses = losses - (OLD.winner IS 1),
                          draws = draws - (OLD.winner IS NULL)
            WHERE player = OLD.player2;
    END""",
    """CREATE TRIGGER a_match_is_never_changed BEFORE UPDATE ON matches BEGIN
        SELECT RAISE(ABORT, 'a recorded match is never changed; delete it instead');
    END""",
    """CREATE TRIGGER count_imported_totals AFTER INSERT ON imported_totals BEGIN
        INSERT INTO totals (player, wins, losses, draws)
            VALUES (NEW.player, NEW.wins, NEW.losses, NEW.draws)
            ON CONFLICT (player) DO UPDATE SET wins = wins + excluded.wins,
                losses = losses + excluded.losses, draws = draws + excluded.draws;
    END""",
    """CREATE TRIGGER uncount_imported_totals AFTER DELETE ON imported_totals BEGIN
        UPDATE totals SET wins = wins - OLD.wins, losses = losses - OLD.losses,
                          draws = draws - OLD.draws
            WHERE player = OLD.player;
    END""",
    """CREATE TRIGGER imported_totals_are_never_changed BEFORE UPDATE ON imported_totals BEGIN
        SELECT RAISE(ABORT, 'imported totals are never changed; delete them instead');
    END""",
)

MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (_SCHEMA_V1,)
"""`MIGRATIONS[n]` takes a database at `PRAGMA user_version` n to n + 1, in one transaction.

Version 0 is an empty file. A later schema appends its steps here; nothing is ever
edited in place, so a database of any earlier version walks up one step at a time.
"""

SCHEMA_VERSION: Final = len(MIGRATIONS)
"""The `PRAGMA user_version` this code writes; a file with a higher one is left alone."""

_BIG_IMPORT: Final = 1_000_000
"""Bytes of an old stats file (some 15,000 players) above which it is imported beside play."""

_CHECKPOINT_EVERY: Final = 20
"""Matches recorded between two checkpoints (each adds some 60 KB to the write-ahead log)."""

_MANY: Final = 5_000
"""Imported players from which the ordering indexes are made afresh rather than kept up."""

_COMPANIONS: Final = ("-wal", "-shm", "-journal")
"""SQLite's own files beside a database, which belong with it."""


def display_name(player: Player) -> str:
    """How the record names a player: the computer with its level, a person by name,
    marked "(person)" when that name would pass for the computer's."""
    if player.level is not None:
        return f"{COMPUTER_NAME} ({player.level.value})"
    if name_key(player.name) in _LOOKALIKES:
        return f"{player.name} (person)"
    return player.name


_LOOKALIKES: Final = frozenset(
    name_key(name)
    for name in (COMPUTER_NAME, *(f"{COMPUTER_NAME} ({level.value})" for level in Level))
)
"""Names a person might have that would pass for the computer's."""


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One finished match as the record keeps it; `id` is None until it is written."""

    players: tuple[Player, Player]
    marks: tuple[Mark, Mark]
    """The mark each player held."""
    first_mover: int
    """Index of the player who moved first."""
    moves: tuple[int, ...]
    """The cells taken, in order; 0 = top-left, row by row."""
    winner: int | None
    """Index of the winner, or None for a draw."""
    finished_at: datetime | None = None
    """When the match ended (UTC); None when the file holds no readable time."""
    id: int | None = None

    @classmethod
    def of(
        cls, players: tuple[Player, Player], match: FinishedMatch, when: datetime | None = None
    ) -> MatchRecord:
        """The record of a finished match of a series between `players`."""
        return cls(
            players=players,
            marks=match.marks,
            first_mover=match.first_mover,
            moves=match.match.moves,
            winner=match.winner,
            finished_at=when or _now(),
        )

    def positions(self) -> tuple[GameState, ...]:
        """The board before the first move and after each one; a damaged tail is left out."""
        state = GameState.new(first=self.marks[self.first_mover])
        positions = [state]
        for cell in self.moves:
            try:
                state = state.play(cell)
            except IllegalMove:
                break
            positions.append(state)
        return tuple(positions)

    def result(self) -> str:
        """ "Ada won" or "Draw", in words."""
        if self.winner is None:
            return "Draw"
        return f"{display_name(self.players[self.winner])} won"


@dataclass(frozen=True, slots=True)
class PlayerTotals:
    """A player's lifetime totals, as the Players table shows them."""

    player: Player
    wins: int
    losses: int
    draws: int

    @property
    def matches(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def win_rate(self) -> float | None:
        """Wins as a share of matches, or None before the first match."""
        return self.wins / self.matches if self.matches else None


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """Two players against each other, all-time."""

    players: tuple[Player, Player]
    wins: tuple[int, int] = (0, 0)
    draws: int = 0
    first: datetime | None = None
    last: datetime | None = None

    @property
    def matches(self) -> int:
        return self.wins[0] + self.wins[1] + self.draws


class PlayerSort(StrEnum):
    """What the Players table can be sorted by."""

    NAME = "name"
    MATCHES = "matches"
    WINS = "wins"
    LOSSES = "losses"
    DRAWS = "draws"
    WIN_RATE = "win_rate"


class _Damaged(Exception):
    """The file is not a database, or SQLite found it damaged."""


class _NotOurs(Exception):
    """The file is a database, but not one this code may write to; the message says why."""


def _is_damage(error: sqlite3.Error) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:
        return False
    return code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def _checkpoint(path: Path) -> None:
    """Copy what the write-ahead log holds into the database file (PASSIVE: waits for nobody)."""
    with contextlib.suppress(sqlite3.Error):
        db = sqlite3.connect(path, timeout=1, isolation_level=None)
        try:
            db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            db.close()


def _lower_this_threads_priority() -> None:
    """Let the calling thread yield the processor to the game (on Linux, where threads
    have a niceness of their own; elsewhere it runs as it is)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


def _read_text(raw: bytes) -> str:
    """Text from the file: bytes that are not UTF-8 become U+FFFD instead of an error."""
    return raw.decode("utf-8", "replace")


class GameRecord:
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
        self._check: threading.Thread | None = None
        self._check_db: sqlite3.Connection | None = None
        self._check_stop = threading.Event()
        self._importer: threading.Thread | None = None
        self._checkpointer: threading.Thread | None = None
        self._since_checkpoint = 0
        self._opened = 0
        """How many times a file has been opened: a check's finding counts for its own file only."""
        self._damage: str | None = None
        """What the background integrity check found wrong, once it has."""

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
                    self._checkpoint_soon()
            except sqlite3.Error as error:
                if _is_damage(error):
                    self._replace_damaged(str(error))
                    continue
                self._failed("write", f"could not be written ({error})")
                return
            if self.problem is not None:
                self.problem = None
                self._warned -= {"write", "open"}
                self._notices.append(f"The game record {self.path} is saved again.")
            return

    def _insert(self, db: sqlite3.Connection, match: MatchRecord) -> None:
        with self._transaction(db):
            first, second = (self._player_id(db, player) for player in match.players)
            when = match.finished_at or _now()
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

    @staticmethod
    @contextlib.contextmanager
    def _transaction(db: sqlite3.Connection) -> Iterator[None]:
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

    @staticmethod
    def _player_id(db: sqlite3.Connection, player: Player) -> int:
        if player.level is None:
            find = "SELECT id FROM players WHERE kind = 'person' AND name = ?"
            add = "INSERT INTO players (kind, name) VALUES ('person', ?)"
            key = player.name
        else:
            find = "SELECT id FROM players WHERE kind = 'computer' AND level = ?"
            add = (
                f"INSERT INTO players (kind, name, level) VALUES ('computer', '{COMPUTER_NAME}', ?)"
            )
            key = player.level.value
        row = db.execute(find, (key,)).fetchone()
        if row is not None:
            return int(row[0])
        created = db.execute(add, (key,)).lastrowid
        assert created is not None
        return created

    # Opening, lazily.

    def _connection(self) -> sqlite3.Connection | None:
        """The open database, opening it (and importing the old stats) on first use."""
        if self._damage is not None:
            found, self._damage = self._damage, None
            self._replace_damaged(found)
        if self._db is not None or self._left_alone is not None:
            return self._db
        for _attempt in range(2):
            try:
                self._db = self._open()
            except _Damaged as damage:
                self._replace_damaged(str(damage))
                continue
            except _NotOurs as refusal:
                self._left_alone = str(refusal)
                self._failed("left alone", str(refusal))
                return None
            except (sqlite3.Error, OSError) as error:
                why = reason(error) if isinstance(error, OSError) else str(error)
                self._failed("open", f"could not be opened ({why})")
                return None
            break
        if self._db is not None and self.path is not None:
            self._start_import(self._db)
            self._start_check()
        return self._db

    def _open(self) -> sqlite3.Connection:
        if self.path is None:
            db = sqlite3.connect(":memory:", isolation_level=None)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None)
        db.text_factory = _read_text
        try:
            self._prepare(db)
        except BaseException as error:
            db.close()
            if isinstance(error, sqlite3.Error) and _is_damage(error):
                raise _Damaged(str(error)) from error
            raise
        return db

    def _prepare(self, db: sqlite3.Connection) -> None:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise _NotOurs(
                f"was written by a newer version of tictactoe (schema {version}), "
                "so it is left as it is"
            )
        db.execute("PRAGMA foreign_keys = ON")
        if self.path is not None:
            self._use_wal(db)
            db.execute("PRAGMA synchronous = FULL")
            db.execute("PRAGMA wal_autocheckpoint = 0")  # see _checkpoint_soon
        if version < SCHEMA_VERSION:
            self._migrate(db)

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

    def _migrate(self, db: sqlite3.Connection) -> None:
        with self._transaction(db):
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            if version == 0 and db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                raise _NotOurs("is a database of some other program, so it is left as it is")
            for steps in MIGRATIONS[version:]:
                for statement in steps:
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

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
        self.problem = problem
        if kind in self._warned:
            return
        self._warned.add(kind)
        waiting = len(self._pending)
        kept = (
            f" {waiting} finished match{'' if waiting == 1 else 'es'} kept in memory"
            " and saved once that works again."
            if waiting
            else ""
        )
        self._notices.append(f"The game record {self.path} {problem}. Play goes on.{kept}")

    # The integrity check runs beside play: on a big file it takes seconds, longer than a
    # match. It starts a moment after the file is opened (so the screen that needed the file
    # is drawn first), in a thread at the lowest priority, and SQLite runs it without the GIL.

    def _start_check(self) -> None:
        assert self.path is not None
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        try:
            self._check_db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except sqlite3.Error:
            return
        self._check_stop = threading.Event()
        self._check = threading.Thread(
            target=self._run_check,
            args=(self._check_db, self._opened, self._check_stop),
            name="record-check",
            daemon=True,
        )
        self._check.start()

    def _run_check(self, db: sqlite3.Connection, opened: int, stop: threading.Event) -> None:
        try:
            if stop.wait(self.check_after):
                return
            _lower_this_threads_priority()
            rows = db.execute("PRAGMA quick_check").fetchall()
        except sqlite3.Error as error:
            found = [str(error)] if _is_damage(error) else ["ok"]
        else:
            found = [str(row[0]) for row in rows]
        finally:
            with contextlib.suppress(sqlite3.Error):
                db.close()
        if found != ["ok"] and opened == self._opened:
            first = found[0].replace("*** in database main ***", "").strip().splitlines()[0]
            self._damage = f"the integrity check found: {first}"

    def wait_for_check(self, timeout: float | None = None) -> None:
        """Let the background integrity check finish (for tests and benchmarks)."""
        if self._check is not None:
            self._check.join(timeout)

    def _stop_check(self) -> None:
        self._check_stop.set()
        if self._check is not None and self._check.is_alive() and self._check_db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._check_db.interrupt()
            self._check.join(1)
        self._check = None
        self._check_db = None

    # The old statistics file.

    def _start_import(self, db: sqlite3.Connection) -> None:
        """Import the old file now when it is small, else beside play: a big one takes seconds.

        Matches recorded meanwhile wait for the import's transaction (or, past the busy
        timeout, wait in memory for the next try), so nothing is lost either way.
        """
        legacy = self.legacy
        if legacy is None or not legacy.is_file():
            return
        try:
            big = legacy.stat().st_size > _BIG_IMPORT
        except OSError:
            big = False
        if not big:
            self._import_legacy(db)
            return
        assert self.path is not None
        self._importer = threading.Thread(
            target=self._import_in_background, args=(self.path,), name="record-import", daemon=True
        )
        self._importer.start()

    def _import_in_background(self, path: Path) -> None:
        try:
            db = sqlite3.connect(path, timeout=30, isolation_level=None)
        except sqlite3.Error as error:
            self._notices.append(f"The old statistics file could not be imported ({error}).")
            return
        try:
            db.text_factory = _read_text
            db.execute("PRAGMA foreign_keys = ON")
            self._import_legacy(db)
        finally:
            db.close()

    def wait_for_import(self, timeout: float | None = None) -> None:
        """Let an import running beside play finish (for tests and benchmarks)."""
        if self._importer is not None:
            self._importer.join(timeout)

    def _import_legacy(self, db: sqlite3.Connection) -> None:
        legacy = self.legacy
        if legacy is None or not legacy.is_file():
            return
        try:
            raw = legacy.read_bytes()
        except OSError as error:
            self._notices.append(
                f"The old statistics file {legacy} could not be read ({reason(error)}); "
                "it was not imported."
            )
            return
        digest = hashlib.sha256(raw).hexdigest()
        stats = read_legacy_stats(raw)
        try:
            with self._transaction(db):
                done = db.execute("SELECT 1 FROM imports WHERE digest = ?", (digest,)).fetchone()
                if done is None and stats.problem is None:
                    self._insert_imported(db, legacy, digest, stats)
        except sqlite3.Error as error:
            self._notices.append(
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
        self._notices.append(self._import_notice(legacy, stats, kept_note))

    @staticmethod
    def _insert_imported(
        db: sqlite3.Connection, legacy: Path, digest: str, stats: LegacyStats
    ) -> None:
        """Within the caller's transaction. For a big file the indexes that only order the
        screen's tables are set aside and made again afterwards: one sort each instead of
        a random insert per row (200,000 players: seconds instead of a quarter minute)."""
        set_aside = []
        if len(stats.totals) > _MANY:
            set_aside = db.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index'"
                " AND tbl_name IN ('players', 'totals') AND sql NOT LIKE 'CREATE UNIQUE%'"
            ).fetchall()
            for name, _ in set_aside:
                db.execute(f'DROP INDEX "{name}"')
        import_id = db.execute(
            "INSERT INTO imports (digest, source, imported_at) VALUES (?, ?, ?)",
            (digest, str(legacy), _now().strftime(TIME_FORMAT)),
        ).lastrowid
        db.executemany(
            "INSERT INTO imported_totals (import_id, player, wins, losses, draws)"
            " VALUES (?, ?, ?, ?, ?)",
            (
                (import_id, GameRecord._player_id(db, entry.player), *counts)
                for entry in stats.totals
                for counts in [(entry.wins, entry.losses, entry.draws)]
            ),
        )
        for _, sql in set_aside:
            db.execute(sql)

    @staticmethod
    def _import_notice(legacy: Path, stats: LegacyStats, kept: str) -> str:
        if stats.problem is not None:
            return (
                f"The old statistics file {legacy} {stats.problem}, so nothing was imported. {kept}"
            )
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

    # Reading, for the record screen.

    def _rows(self, sql: str, parameters: Sequence[object] = ()) -> list[tuple[object, ...]]:
        """Rows of a query, or none when the file cannot be read (the player is told)."""
        db = self._connection()
        if db is None:
            return []
        try:
            return list(db.execute(sql, parameters).fetchall())
        except sqlite3.Error as error:
            if _is_damage(error):
                self._replace_damaged(str(error))
            else:
                self._failed("read", f"could not be read ({error})")
            return []

    def player_count(self) -> int:
        rows = self._rows("SELECT count(*) FROM totals")
        return int(rows[0][0]) if rows else 0  # type: ignore[call-overload]

    def players(
        self,
        sort: PlayerSort = PlayerSort.WINS,
        *,
        descending: bool = True,
        offset: int = 0,
        limit: int = 100,
    ) -> list[PlayerTotals]:
        """One page of every player's totals, in the order asked for (ties: newest first)."""
        way = "DESC" if descending else "ASC"
        if sort is PlayerSort.NAME:
            order = f"p.name COLLATE NOCASE {way}, p.id {way}"
        else:
            order = f"t.{PlayerSort(sort).value} {way}, t.player {way}"
        rows = self._rows(
            "SELECT p.kind, p.name, p.level, t.wins, t.losses, t.draws"
            " FROM totals AS t JOIN players AS p ON p.id = t.player"
            f" ORDER BY {order} LIMIT ? OFFSET ?",
            (limit, offset),
        )
        return [
            PlayerTotals(_player(kind, name, level), _count(wins), _count(losses), _count(draws))
            for kind, name, level, wins, losses, draws in rows
        ]

    def match_count(self, between: tuple[Player, Player] | None = None) -> int:
        if between is None:
            rows = self._rows("SELECT count(*) FROM matches")
        else:
            ids = self._ids(between)
            if ids is None:
                return 0
            rows = self._rows(
                "SELECT count(*) FROM matches WHERE (player1 = ? AND player2 = ?)"
                " OR (player1 = ? AND player2 = ?)",
                (*ids, *reversed(ids)),
            )
        return int(rows[0][0]) if rows else 0  # type: ignore[call-overload]

    def recent(
        self,
        *,
        before: int | None = None,
        limit: int = 100,
        between: tuple[Player, Player] | None = None,
    ) -> list[MatchRecord]:
        """Matches newest first: a page of those recorded before match `before`.

        With `between`, only the matches of those two players against each other.
        """
        where = ["m.id < ?"] if before is not None else []
        parameters: list[object] = [before] if before is not None else []
        if between is not None:
            ids = self._ids(between)
            if ids is None:
                return []
            where.append("((m.player1 = ? AND m.player2 = ?) OR (m.player1 = ? AND m.player2 = ?))")
            parameters += [*ids, *reversed(ids)]
        rows = self._rows(
            "SELECT m.id, m.finished_at, p1.kind, p1.name, p1.level, p2.kind, p2.name, p2.level,"
            " m.mark1, m.first_mover, m.moves, m.winner"
            " FROM matches AS m JOIN players AS p1 ON p1.id = m.player1"
            " JOIN players AS p2 ON p2.id = m.player2"
            f"{' WHERE ' + ' AND '.join(where) if where else ''}"
            " ORDER BY m.id DESC LIMIT ?",
            (*parameters, limit),
        )
        return [_match(row) for row in rows]

    def match(self, match_id: int) -> MatchRecord | None:
        """One recorded match, by id."""
        rows = self._rows(
            "SELECT m.id, m.finished_at, p1.kind, p1.name, p1.level, p2.kind, p2.name, p2.level,"
            " m.mark1, m.first_mover, m.moves, m.winner"
            " FROM matches AS m JOIN players AS p1 ON p1.id = m.player1"
            " JOIN players AS p2 ON p2.id = m.player2 WHERE m.id = ?",
            (match_id,),
        )
        return _match(rows[0]) if rows else None

    def head_to_head(self, players: tuple[Player, Player]) -> HeadToHead:
        """How `players` have done against each other, all-time."""
        ids = self._ids(players)
        if ids is None:
            return HeadToHead(players)
        rows = self._rows(
            "SELECT"
            " coalesce(sum(CASE winner WHEN 1 THEN player1 = :a WHEN 2 THEN player2 = :a END), 0),"
            " coalesce(sum(CASE winner WHEN 1 THEN player1 = :b WHEN 2 THEN player2 = :b END), 0),"
            " coalesce(sum(winner IS NULL), 0), min(finished_at), max(finished_at)"
            " FROM matches"
            " WHERE (player1 = :a AND player2 = :b) OR (player1 = :b AND player2 = :a)",
            {"a": ids[0], "b": ids[1]},  # type: ignore[arg-type]
        )
        if not rows:
            return HeadToHead(players)
        first_wins, second_wins, draws, first, last = rows[0]
        return HeadToHead(
            players,
            (_count(first_wins), _count(second_wins)),
            _count(draws),
            _time(first),
            _time(last),
        )

    def _ids(self, players: tuple[Player, Player]) -> tuple[int, int] | None:
        """The ids of two players, or None when either has no match on record."""
        ids = []
        for player in players:
            if player.level is None:
                rows = self._rows(
                    "SELECT id FROM players WHERE kind = 'person' AND name = ?", (player.name,)
                )
            else:
                rows = self._rows(
                    "SELECT id FROM players WHERE kind = 'computer' AND level = ?",
                    (player.level.value,),
                )
            if not rows:
                return None
            ids.append(int(rows[0][0]))  # type: ignore[call-overload]
        return ids[0], ids[1]

    # Notices and the end.

    def take_notices(self) -> list[str]:
        """What the player should be told since the last call (damage, import, failures)."""
        notices, self._notices = self._notices, []
        return notices

    def where(self) -> str:
        """Where the record is kept, in words, with anything not saved yet."""
        if self.path is None:
            return "Not saved this session (--no-save)"
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

    def _checkpoint_soon(self) -> None:
        """Now and then, copy the write-ahead log into the file, beside play.

        SQLite would do it inside the commit of every ~60th match (some 20 ms on a big
        record); a thread of its own does it without the GIL instead, so recording a match
        stays a millisecond or two. The last connection to close checkpoints too.
        """
        self._since_checkpoint += 1
        if self._since_checkpoint < _CHECKPOINT_EVERY or self.path is None:
            return
        if self._checkpointer is not None and self._checkpointer.is_alive():
            return
        self._since_checkpoint = 0
        self._checkpointer = threading.Thread(
            target=_checkpoint, args=(self.path,), name="record-checkpoint", daemon=True
        )
        self._checkpointer.start()

    def _close_db(self) -> None:
        self._stop_check()
        if self._checkpointer is not None:
            self._checkpointer.join(5)
        self._opened += 1
        self._damage = None
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None


# Rows from the file, read as untrusted.


def _player(kind: object, name: object, level: object) -> Player:
    if kind == "computer" and level in {member.value for member in Level}:
        return Player.computer(Level(str(level)))
    return Player(clean_name(str(name), "?"))


def _count(value: object) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def _time(value: object) -> datetime | None:
    try:
        return datetime.strptime(str(value), TIME_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None


def _match(row: tuple[object, ...]) -> MatchRecord:
    match_id, finished_at, kind1, name1, level1, kind2, name2, level2 = row[:8]
    mark1, first, moves, winner = row[8:]
    mark = Mark.O if mark1 == "O" else Mark.X
    return MatchRecord(
        players=(_player(kind1, name1, level1), _player(kind2, name2, level2)),
        marks=(mark, mark.other),
        first_mover=1 if first == 2 else 0,
        moves=tuple(int(char) for char in str(moves)[:9] if char in "012345678"),
        winner={1: 0, 2: 1}.get(winner) if isinstance(winner, int) else None,
        finished_at=_time(finished_at),
        id=int(match_id) if isinstance(match_id, int) else None,
    )
