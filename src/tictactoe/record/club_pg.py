"""The club's store on PostgreSQL (`PostgresClubRecord`): what `ClubRecord` keeps in its SQLite
file, kept where several club processes, on one machine or many, share it.

It keeps `ClubRecord`'s promises, and those of a shared database:

- The schema is the club's own: made and migrated when a club starts (or by `tictactoe club
  migrate`), one step a version in `schema_version`, under a lock so that two processes
  starting at once migrate once. A database of a newer schema is refused in one sentence.
- One transaction a finished match: the match, both ratings and their history. Both players'
  rows are locked (`FOR NO KEY UPDATE`, in handle order, so two writers never wait on each
  other in a circle) before their ratings are read, so two processes finishing matches of one
  player at the same moment both count.
- Nothing finished is lost: a match that cannot be written now (the database restarting or out
  of reach) waits in memory and is written before the next one and at close. Each match
  carries an id the club made (`uid`), so a write that reached the database but whose answer
  was lost is never written twice (`ON CONFLICT DO NOTHING`).
- While the database is out of reach, a keyed login is refused in one sentence, the bans'
  version stays the last one read, and the other reads raise ClubUnavailable (one sentence).
  Nothing waits for it longer than `timeout` at each step (a connection from the pool, a new
  connection, the work on one): where packets vanish, a connection whose answer does not come
  within `timeout` is cut off (`_Cutter`) rather than waited on for as long as TCP retries.

Beside the store: the registry of every process's tables (`tables`, each with its process's
heartbeat) and PostgreSQL's own LISTEN/NOTIFY between processes (`notify`, `listen`).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import os
import random
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable, Container, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Final, LiteralString, TypeVar

import psycopg
import psycopg.errors
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool

import tictactoe.record.club_keys as club_keys
from tictactoe.core.ai import Level
from tictactoe.core.club import (
    CLAIMS_PER_HOUR,
    START,
    BadHandle,
    BadKey,
    Entry,
    LadderRow,
    PlayerRow,
    Rating,
    guest_handle,
    handle_of,
    is_guest,
    public_key,
    rated,
    until_text,
)
from tictactoe.core.engine import Mark
from tictactoe.core.key_words import KeyRow, key_elsewhere, new_word, word_login
from tictactoe.core.names import clean_name
from tictactoe.core.series import Player
from tictactoe.record.club import (
    CLAIM_WINDOW,
    TOO_MANY_CLAIMS,
    ClubUnavailable,
    UnknownHandle,
    another_key,
)
from tictactoe.record.match import MatchRecord
from tictactoe.record.seats_pg import seat_free, seated_elsewhere

__all__ = [
    "APPLICATION",
    "PG_MIGRATIONS",
    "PG_SCHEMA_VERSION",
    "TABLES_CHANNEL",
    "TABLE_LIFETIME",
    "ClubTable",
    "Listening",
    "PostgresClubRecord",
    "migrate",
    "where",
]

T = TypeVar("T")

Connection = psycopg.Connection[tuple[Any, ...]]

APPLICATION: Final = "tictactoe-club"
"""What `schema_version.application` holds in a club's database: another program's is refused."""

TABLES_CHANNEL: Final = "tictactoe_tables"
"""The channel told the id of every table registered, changed or removed."""

TABLE_LIFETIME: Final = 15.0
"""Seconds after its process's last heartbeat that a table still counts as live."""

_MIGRATION_LOCK: Final = 0x7469637461630001
"""The advisory lock two club processes starting at once take to migrate one after the other."""

_RETRIES: Final = 5
"""Attempts of a transaction PostgreSQL rolled back for a conflict with another one."""

_SCHEMA_V1: Final[tuple[LiteralString, ...]] = (
    """CREATE TABLE players (
        id         bigserial PRIMARY KEY,
        handle     text NOT NULL UNIQUE CHECK (handle ~ '^[a-z0-9_-]{1,20}$'),
        claimed_at double precision NOT NULL,
        last_seen  double precision NOT NULL
    )""",
    """CREATE TABLE keys (
        id          bigserial PRIMARY KEY,
        player      bigint NOT NULL REFERENCES players (id),
        type        text NOT NULL,
        data        text NOT NULL,
        fingerprint text NOT NULL,
        added_at    double precision NOT NULL,
        UNIQUE (player, data)
    )""",
    "CREATE INDEX keys_by_data ON keys (data)",
    """CREATE TABLE ratings (
        player  bigint PRIMARY KEY REFERENCES players (id),
        mu      double precision NOT NULL,
        sigma   double precision NOT NULL CHECK (sigma > 0),
        matches integer NOT NULL CHECK (matches = wins + draws + losses),
        wins    integer NOT NULL CHECK (wins >= 0),
        draws   integer NOT NULL CHECK (draws >= 0),
        losses  integer NOT NULL CHECK (losses >= 0)
    )""",
    "CREATE INDEX ratings_by_points ON ratings ((mu - 3 * sigma))",
    """CREATE TABLE matches (
        id          bigserial PRIMARY KEY,
        uid         uuid NOT NULL UNIQUE,
        finished_at timestamptz NOT NULL,
        club_table  text NOT NULL,
        handle1     text NOT NULL,
        handle2     text NOT NULL,
        level1      text CHECK (level1 IN ('easy', 'medium', 'hard')),
        level2      text CHECK (level2 IN ('easy', 'medium', 'hard')),
        rated       boolean NOT NULL,
        mark1       text NOT NULL CHECK (mark1 IN ('X', 'O')),
        first_mover smallint NOT NULL CHECK (first_mover IN (1, 2)),
        moves       text NOT NULL CHECK (moves ~ '^[0-8]{0,9}$'),
        winner      smallint CHECK (winner IN (1, 2))
    )""",
    "CREATE INDEX matches_by_handle1 ON matches (handle1, id)",
    "CREATE INDEX matches_by_handle2 ON matches (handle2, id)",
    """CREATE FUNCTION a_match_is_never_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'a recorded match is never changed'; END
    $$""",
    """CREATE TRIGGER a_match_is_never_changed BEFORE UPDATE ON matches
        FOR EACH ROW EXECUTE FUNCTION a_match_is_never_changed()""",
    """CREATE TABLE rating_history (
        id     bigserial PRIMARY KEY,
        player bigint NOT NULL REFERENCES players (id),
        match  bigint NOT NULL REFERENCES matches (id),
        mu     double precision NOT NULL,
        sigma  double precision NOT NULL,
        UNIQUE (player, match)
    )""",
    """CREATE TABLE bans (
        player    bigint PRIMARY KEY REFERENCES players (id),
        until     double precision,
        banned_at double precision NOT NULL
    )""",
    """CREATE TABLE claims (
        id      bigserial PRIMARY KEY,
        address text NOT NULL,
        at      double precision NOT NULL,
        handle  text NOT NULL
    )""",
    "CREATE INDEX claims_by_address ON claims (address, at)",
    """CREATE TABLE counters (
        name  text PRIMARY KEY,
        value bigint NOT NULL
    )""",
    "INSERT INTO counters (name, value) VALUES ('bans', 0)",
    """CREATE TABLE tables (
        id        text PRIMARY KEY,
        process   text NOT NULL,
        owner     text NOT NULL,
        rated     boolean NOT NULL,
        matches   integer CHECK (matches > 0),
        players   text[] NOT NULL,
        state     text NOT NULL,
        heartbeat double precision NOT NULL
    )""",
    "CREATE INDEX tables_by_process ON tables (process)",
    "CREATE INDEX tables_by_heartbeat ON tables (heartbeat)",
)

_SCHEMA_V2: Final[tuple[LiteralString, ...]] = (
    # A key joins a handle only through a login made with it (`tictactoe.core.key_words`): the
    # keys that claimed their handles were so proven, those pasted in were not, and go; a key
    # proven for several handles stays with the first.
    """CREATE TABLE key_words (
        player  bigint PRIMARY KEY REFERENCES players (id),
        digest  text NOT NULL UNIQUE,
        expires double precision NOT NULL
    )""",
    """DELETE FROM keys USING players
        WHERE players.id = keys.player AND keys.added_at <> players.claimed_at""",
    "DELETE FROM keys AS a USING keys AS b WHERE a.data = b.data AND a.id > b.id",
    "DROP INDEX keys_by_data",
    "CREATE UNIQUE INDEX keys_by_data ON keys (data)",
)

PG_MIGRATIONS: Final[tuple[tuple[LiteralString, ...], ...]] = (_SCHEMA_V1, _SCHEMA_V2)
"""`PG_MIGRATIONS[n]` takes a club's database from schema version n to n + 1 (as the SQLite
record's: released steps are never edited, later ones appended)."""

PG_SCHEMA_VERSION: Final = len(PG_MIGRATIONS)
"""The schema version this tictactoe makes and reads."""


def where(dsn: str) -> str:
    """The database `dsn` names, for a sentence: host, port and name, never a password."""
    try:
        parts = conninfo_to_dict(dsn)
    except psycopg.Error:
        return "(an address that cannot be read)"
    host = str(parts.get("host") or parts.get("hostaddr") or "localhost")
    port = str(parts.get("port") or 5432)
    name = str(parts.get("dbname") or parts.get("user") or "")
    return f"{host}:{port}/{name}"


def migrate(dsn: str, *, connect_timeout: float = 5.0) -> tuple[int, int]:
    """Make or migrate the club's schema in the database at `dsn`: (the version found, the
    version now). ClubUnavailable, one sentence, when it cannot be reached, is another
    program's, or is of a newer schema than this tictactoe knows."""
    try:
        with psycopg.connect(
            dsn, autocommit=True, connect_timeout=max(1, math.ceil(connect_timeout))
        ) as conn:
            return _migrate(conn, dsn)
    except psycopg.Error as error:
        raise ClubUnavailable(
            f"The club's database {where(dsn)} could not be used ({_reason(error)})."
        ) from None


def _migrate(conn: Connection, dsn: str) -> tuple[int, int]:
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        if _one(conn, "SELECT to_regclass('schema_version')") is None:
            if _one(conn, "SELECT to_regclass('players')") is not None:
                raise ClubUnavailable(
                    f"The club's database {where(dsn)} holds some other program's tables."
                )
            conn.execute(
                "CREATE TABLE schema_version ("
                " only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),"
                " application text NOT NULL, version integer NOT NULL)"
            )
            conn.execute(
                "INSERT INTO schema_version (application, version) VALUES (%s, 0)",
                (APPLICATION,),
            )
        row = conn.execute("SELECT application, version FROM schema_version").fetchone()
        if row is None or row[0] != APPLICATION:
            raise ClubUnavailable(
                f"The club's database {where(dsn)} holds some other program's tables."
            )
        found = int(row[1])
        if found > PG_SCHEMA_VERSION:
            raise ClubUnavailable(
                f"The club's database {where(dsn)} has schema version {found}, newer than"
                f" this tictactoe's {PG_SCHEMA_VERSION}; please upgrade tictactoe."
            )
        for version in range(found, PG_SCHEMA_VERSION):
            for statement in PG_MIGRATIONS[version]:
                conn.execute(statement)
            conn.execute("UPDATE schema_version SET version = %s", (version + 1,))
    return found, PG_SCHEMA_VERSION


@dataclass(frozen=True, slots=True)
class ClubTable:
    """A table of some club process, as the registry shares it with the others."""

    id: str
    process: str
    """The club process that holds the table's authority."""
    owner: str
    """The handle of who opened it."""
    rated: bool
    matches: int | None
    """The series' length in matches; None when open-ended."""
    players: tuple[str, ...]
    """The handles seated, in seat order."""
    state: str
    """What the lobby shows of it (open, in play, its score): the club's words."""
    heartbeat: float
    """When its process last said it was alive (seconds since the epoch)."""


@dataclass(frozen=True, slots=True)
class _Finished:
    """A finished match waiting to be written, with the id that makes its write happen once."""

    uid: uuid.UUID
    table: str
    players: tuple[str, str]
    rated: bool
    match: MatchRecord
    winner: int | None


class PostgresClubRecord:
    """The club's store in the PostgreSQL database at `dsn` (`postgresql://USER@HOST:PORT/DB`),
    its schema made or migrated first. Same methods and meanings as `ClubRecord`.

    Every method is safe from several threads and beside other processes using the same
    database. ClubUnavailable when the database cannot be reached at start, is another
    program's, or is of a newer schema.
    """

    def __init__(
        self,
        dsn: str,
        *,
        timeout: float = 5.0,
        pool_size: int = 4,
        rng: random.Random | None = None,
    ) -> None:
        self.dsn: Final = dsn
        self.timeout: Final = timeout
        """Seconds to wait for a connection, or for the answer on one, before giving up for now."""
        self.where: Final = where(dsn)
        self._rng: Final = rng or random.SystemRandom()
        self._lock = threading.RLock()
        """Held while the waiting matches are written, so that they are written in order."""
        self._pending: deque[_Finished] = deque()
        """Finished matches not written yet, oldest first."""
        self.problem: str | None = None
        """Why the last write failed, in words; None when everything is written."""
        self._notices: deque[str] = deque()
        self._bans_version = 0
        self._cutter = _Cutter()
        migrate(dsn, connect_timeout=timeout)
        self._pool: ConnectionPool[Connection] = ConnectionPool(
            dsn,
            kwargs={"autocommit": True, "connect_timeout": max(1, math.ceil(timeout))},
            min_size=1,
            max_size=max(1, pool_size),
            timeout=timeout,
            # A connection that cannot be made is given up after `timeout` (and made afresh at
            # the next use), not retried ever more slowly: a write resumes soon after an outage.
            reconnect_timeout=timeout,
            check=self._check,
            name="tictactoe-club",
            open=True,
        )

    def _run(self, work: Callable[[Connection], T], *, retry_unique: bool = False) -> T:
        """`work` in one transaction on a pooled connection, once more (up to `_RETRIES` in
        all) when PostgreSQL rolled it back for a conflict with another transaction."""
        for attempt in range(_RETRIES):
            try:
                with (
                    self._pool.connection() as conn,
                    self._cutter.within(conn, self.timeout),
                    conn.transaction(),
                ):
                    return work(conn)
            except (psycopg.errors.TransactionRollback, psycopg.errors.UniqueViolation) as e:
                again = retry_unique or isinstance(e, psycopg.errors.TransactionRollback)
                if not again or attempt == _RETRIES - 1:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _check(self, conn: Connection) -> None:
        """The pool's check of a connection before it is handed out, cut off after `timeout`."""
        with self._cutter.within(conn, self.timeout):
            ConnectionPool.check_connection(conn)

    def _read(self, work: Callable[[Connection], T]) -> T:
        """`work`, or ClubUnavailable (one sentence) when the database cannot be used now."""
        try:
            return self._run(work)
        except psycopg.Error as error:
            raise ClubUnavailable(self._unreachable(error)) from None

    def _unreachable(self, error: psycopg.Error) -> str:
        return f"The club's database {self.where} cannot be used just now ({_reason(error)})."

    def take_notices(self) -> list[str]:
        """What the owner should be told since the last call (matches written after waiting)."""
        with self._lock:
            notices = list(self._notices)
            self._notices.clear()
            return notices

    def close(self) -> None:
        """Write what waits (once more), then close the connections."""
        with self._lock:
            with contextlib.suppress(psycopg.Error):
                self.save_pending()
            self._pool.close()
            self._cutter.close()

    # The door.

    def enter(
        self,
        handle: str,
        key: str | None,
        address: str,
        now: float,
        *,
        taken: Container[str] = (),
    ) -> Entry:
        """Who comes in as `handle` with the public key line `key` from `address` (see
        `ClubRecord.enter`); while the database is out of reach a keyed login is refused."""
        if key is None or is_guest(handle):
            return Entry(guest_handle(self._rng, taken), True, START)
        try:
            login = word_login(handle)
            own = login.handle if login is not None else handle_of(handle)
            line = public_key(key)
        except (BadHandle, BadKey) as refusal:
            return Entry(handle.lower(), False, START, str(refusal))

        def come_in(conn: Connection) -> Entry:
            if login is not None:
                _player(conn, own, lock=True)  # one word's login at a time
                return club_keys.by_word(club_keys.Postgres(conn), login=login, key=line, now=now)
            found = _one(conn, "SELECT id FROM players WHERE handle = %s", (own,))
            if found is None:
                return _claim(conn, own, line.type, line.data, line.fingerprint, address, now)
            player = int(found)
            if _one(
                conn, "SELECT 1 FROM keys WHERE player = %s AND data = %s", (player, line.data)
            ):
                banned = _key_banned(conn, line.data, now)
                if banned is not None:
                    return Entry(own, False, START, banned)
                conn.execute("UPDATE players SET last_seen = %s WHERE id = %s", (now, player))
                return Entry(own, False, _rating(conn, player))
            return Entry(
                own,
                False,
                START,
                f"The handle {own} belongs to another key; choose another handle.",
            )

        try:
            return self._run(come_in, retry_unique=True)
        except psycopg.Error:
            return Entry(
                own,
                False,
                START,
                "The club cannot reach its records just now; please try again in a minute.",
            )

    def would_refuse(self, handle: str, key: str, address: str, now: float) -> str | None:
        """Why `enter` would refuse the key `key` as `handle` from `address` now, changing
        nothing (see `ClubRecord.would_refuse`); None too while the database is out of reach
        (`enter` then says so)."""
        if is_guest(handle):
            return None
        try:
            login = word_login(handle)
            own = login.handle if login is not None else handle_of(handle)
            line = public_key(key)
        except (BadHandle, BadKey) as refusal:
            return str(refusal)

        def check(conn: Connection) -> str | None:
            if login is not None:
                return club_keys.by_word(
                    club_keys.Postgres(conn), login=login, key=line, now=now, write=False
                ).refusal
            player = _player(conn, own)
            if player is not None:
                held = _one(
                    conn,
                    "SELECT 1 FROM keys WHERE player = %s AND data = %s",
                    (player, line.data),
                )
                return _key_banned(conn, line.data, now) if held else another_key(own)
            banned = _key_banned(conn, line.data, now)
            if banned is not None:
                return banned
            holder = club_keys.holder(club_keys.Postgres(conn), line.data)
            if holder is not None:
                return key_elsewhere(holder)
            claims = _one(
                conn,
                "SELECT count(*) FROM claims WHERE address = %s AND at > %s",
                (address, now - CLAIM_WINDOW),
            )
            return TOO_MANY_CLAIMS if int(claims) >= CLAIMS_PER_HOUR else None

        try:
            return self._run(check)
        except psycopg.Error:
            return None

    def key_word(self, handle: str, now: float) -> str:
        """A one-time word for `handle` (see `ClubRecord.key_word`); UnknownHandle if nobody
        holds it, ClubUnavailable while the database is out of reach."""
        word = new_word()
        own = handle.lower()

        def keep(conn: Connection) -> None:
            player = _player(conn, own, lock=True)
            if player is None:
                raise UnknownHandle(f"No player is called {own}.")
            club_keys.keep_word(club_keys.Postgres(conn), player, word, now)

        self._read(keep)
        return word

    def keys(self, handle: str) -> list[KeyRow]:
        """The keys that sign in as `handle`, oldest first; UnknownHandle if nobody holds it."""
        own = handle.lower()

        def read(conn: Connection) -> list[KeyRow]:
            player = _player(conn, own)
            if player is None:
                raise UnknownHandle(f"No player is called {own}.")
            return club_keys.keys_of(club_keys.Postgres(conn), player)

        return self._read(read)

    def remove_key(self, handle: str, fingerprint: str) -> bool:
        """The key of `handle` with `fingerprint` no longer signs in: whether it held one;
        UnknownHandle if nobody holds the handle."""
        own = handle.lower()

        def remove(conn: Connection) -> bool:
            player = _player(conn, own, lock=True)
            if player is None:
                raise UnknownHandle(f"No player is called {own}.")
            return club_keys.remove_key(club_keys.Postgres(conn), player, fingerprint)

        return self._read(remove)

    # Bans.

    def ban(self, handle: str, until: float | None, now: float | None = None) -> None:
        """Ban `handle` (and its keys) until `until` (seconds since the epoch), or for ever
        with None; UnknownHandle if nobody holds it."""
        own = handle.lower()
        when = datetime.now(UTC).timestamp() if now is None else now

        def ban(conn: Connection) -> None:
            player = _player(conn, own)
            if player is None:
                raise UnknownHandle(f"No player is called {own}.")
            conn.execute(
                "INSERT INTO bans (player, until, banned_at) VALUES (%s, %s, %s)"
                " ON CONFLICT (player) DO UPDATE SET until = excluded.until,"
                " banned_at = excluded.banned_at",
                (player, until, when),
            )
            conn.execute("UPDATE counters SET value = value + 1 WHERE name = 'bans'")

        self._read(ban)

    def unban(self, handle: str) -> bool:
        """Lift the ban on `handle`: whether there was one; UnknownHandle if nobody holds it."""
        own = handle.lower()

        def unban(conn: Connection) -> bool:
            player = _player(conn, own)
            if player is None:
                raise UnknownHandle(f"No player is called {own}.")
            lifted = conn.execute("DELETE FROM bans WHERE player = %s", (player,)).rowcount
            if lifted:
                conn.execute("UPDATE counters SET value = value + 1 WHERE name = 'bans'")
            return bool(lifted)

        return self._read(unban)

    def banned_until(self, handle: str, now: float) -> float | None:
        """When the ban on `handle` ends (math.inf: never); None when it is not banned now."""

        def until(conn: Connection) -> float | None:
            row = conn.execute(
                "SELECT bans.until FROM bans JOIN players ON players.id = bans.player"
                " WHERE players.handle = %s AND (bans.until IS NULL OR bans.until > %s)",
                (handle.lower(), now),
            ).fetchone()
            if row is None:
                return None
            return math.inf if row[0] is None else float(row[0])

        return self._read(until)

    def bans_version(self) -> int:
        """A number that changes whenever a ban is made or lifted, by any process (the last one
        read while the database is out of reach)."""
        with contextlib.suppress(psycopg.Error):
            self._bans_version = int(
                self._run(lambda conn: _one(conn, "SELECT value FROM counters WHERE name = 'bans'"))
            )
        return self._bans_version

    # Matches and ratings.

    def finish(
        self,
        table: str,
        players: tuple[str, str],
        rated: bool,
        match: MatchRecord,
        winner: int | None,
        now: float,
    ) -> tuple[Rating, Rating] | None:
        """Keep a finished match (see `ClubRecord.finish`): the match, and when rated both new
        ratings and their history, in one transaction. The new ratings, or None when unrated
        or when the database cannot be written now (the match waits in memory, `problem` says
        why, and it is written before the next one and at close, once)."""
        when = match.finished_at or datetime.fromtimestamp(now, UTC)
        kept = MatchRecord(
            match.players,
            match.marks,
            match.first_mover,
            match.moves,
            match.winner,
            when.replace(microsecond=0),
            match.id,
        )
        with self._lock:
            self._pending.append(_Finished(uuid.uuid4(), table, players, rated, kept, winner))
            results = self.save_pending()
            return results[-1] if results and not self._pending else None

    @property
    def unsaved(self) -> int:
        """Finished matches waiting to be written."""
        return len(self._pending)

    def save_pending(self) -> list[tuple[Rating, Rating] | None]:
        """Write every finished match still waiting, in order, one transaction each; their
        new ratings (None for an unrated one). A failure leaves the rest waiting and says why
        in `problem`."""
        results: list[tuple[Rating, Rating] | None] = []
        with self._lock:
            waited = self.problem is not None
            while self._pending:
                finished = self._pending[0]
                try:
                    results.append(self._run(functools.partial(_write, finished=finished)))
                except psycopg.Error as error:
                    self.problem = f"could not be written ({_reason(error)})"
                    return results
                self._pending.popleft()
            self.problem = None
            if waited and results:
                self._notices.append(
                    f"The club's database {self.where} can be used again; {len(results)}"
                    " finished matches that waited are written."
                )
        return results

    def rating(self, handle: str) -> Rating:
        """The rating of `handle` now (START for a player without a rated match, or nobody)."""

        def read(conn: Connection) -> Rating:
            player = _player(conn, handle.lower())
            return START if player is None else _rating(conn, player)

        return self._read(read)

    def ladder(self, limit: int = 100) -> list[LadderRow]:
        """The best `limit` players with a rated match, best first (by `Rating.points`)."""
        rows = self._read(
            lambda conn: conn.execute(
                "SELECT players.handle, mu, sigma, matches, wins, draws, losses"
                " FROM ratings JOIN players ON players.id = ratings.player"
                " ORDER BY mu - 3 * sigma DESC, players.handle LIMIT %s",
                (limit,),
            ).fetchall()
        )
        return [
            LadderRow(rank, _handle(handle), Rating(mu, sigma), matches, wins, draws, losses)
            for rank, (handle, mu, sigma, matches, wins, draws, losses) in enumerate(rows, 1)
        ]

    def recent(self, handle: str, limit: int = 10) -> list[MatchRecord]:
        """The last `limit` matches `handle` played, newest first, each replayable."""
        return [match for match, _rated in self.recent_rated(handle, limit)]

    def recent_rated(self, handle: str, limit: int = 10) -> list[tuple[MatchRecord, bool]]:
        """`recent`, each match with whether it was rated."""
        own = handle.lower()
        rows = self._read(
            lambda conn: conn.execute(
                "SELECT id, finished_at, handle1, handle2, level1, level2, mark1, first_mover,"
                " moves, winner, rated FROM matches WHERE handle1 = %s OR handle2 = %s"
                " ORDER BY id DESC LIMIT %s",
                (own, own, limit),
            ).fetchall()
        )
        return [(_match_of(row[:-1]), bool(row[-1])) for row in rows]

    def players(self) -> list[PlayerRow]:
        """Every player who holds a handle, by handle, with their keys' fingerprints."""

        def read(conn: Connection) -> list[PlayerRow]:
            fingerprints: dict[int, list[str]] = {}
            for player, fingerprint in conn.execute(
                "SELECT player, fingerprint FROM keys ORDER BY id"
            ):
                fingerprints.setdefault(int(player), []).append(str(fingerprint))
            return [
                PlayerRow(_handle(handle), tuple(fingerprints.get(int(player), ())), last_seen)
                for player, handle, last_seen in conn.execute(
                    'SELECT id, handle, last_seen FROM players ORDER BY handle COLLATE "C"'
                )
            ]

        return self._read(read)

    # The registry of tables, shared by every process of the club.

    def register_table(self, table: ClubTable, *, one_seat: float | None = None) -> str | None:
        """Add `table` to the registry, or replace what it says of it; `TABLES_CHANNEL` is told
        its id when the change is made. Given `one_seat` (seconds a table of a silent process
        stays live), only when its opener holds no table of another process: else why not."""

        def put(conn: Connection) -> str | None:
            if one_seat is not None:
                refusal = seated_elsewhere(
                    conn, table.owner, table.process, table.heartbeat, one_seat
                )
                if refusal is not None:
                    return refusal
            conn.execute(
                "INSERT INTO tables (id, process, owner, rated, matches, players, state,"
                " heartbeat) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO UPDATE"
                " SET process = excluded.process, owner = excluded.owner,"
                " rated = excluded.rated, matches = excluded.matches,"
                " players = excluded.players, state = excluded.state,"
                " heartbeat = excluded.heartbeat",
                (
                    table.id,
                    table.process,
                    table.owner,
                    table.rated,
                    table.matches,
                    list(table.players),
                    table.state,
                    table.heartbeat,
                ),
            )
            conn.execute("SELECT pg_notify(%s, %s)", (TABLES_CHANNEL, table.id))
            return None

        return self._read(put)

    def update_table(
        self,
        table_id: str,
        *,
        players: Sequence[str] | None = None,
        state: str | None = None,
        heartbeat: float | None = None,
    ) -> bool:
        """Change what the registry says of a table (what is given): whether it was there."""

        def change(conn: Connection) -> bool:
            found = conn.execute(
                "UPDATE tables SET players = coalesce(%s, players), state = coalesce(%s, state),"
                " heartbeat = coalesce(%s, heartbeat) WHERE id = %s",
                (None if players is None else list(players), state, heartbeat, table_id),
            ).rowcount
            if found:
                conn.execute("SELECT pg_notify(%s, %s)", (TABLES_CHANNEL, table_id))
            return bool(found)

        return self._read(change)

    def claim_seat(
        self,
        table_id: str,
        handle: str,
        *,
        process: str | None = None,
        now: float = 0.0,
        within: float = TABLE_LIFETIME,
        unknown: bool = False,
    ) -> str | None:
        """Seat `handle` at the open table `table_id` (see `seats_pg.seat_free`): None when the
        seat is theirs now, else why not in one sentence. Given `process` (the one asking), only
        when `handle` holds no table of another process live at `now` (`seated_elsewhere`)."""

        def claim(conn: Connection) -> str | None:
            refusal = None
            if process is not None:
                refusal = seated_elsewhere(conn, handle, process, now, within)
            if refusal is None:
                refusal = seat_free(conn, table_id, handle, unknown=unknown)
            if refusal is None:
                conn.execute("SELECT pg_notify(%s, %s)", (TABLES_CHANNEL, table_id))
            return refusal

        return self._read(claim)

    def remove_table(self, table_id: str) -> bool:
        """Take a table out of the registry: whether it was there."""

        def remove(conn: Connection) -> bool:
            found = conn.execute("DELETE FROM tables WHERE id = %s", (table_id,)).rowcount
            if found:
                conn.execute("SELECT pg_notify(%s, %s)", (TABLES_CHANNEL, table_id))
            return bool(found)

        return self._read(remove)

    def heartbeat(self, process: str, now: float) -> int:
        """Say that `process` is alive: every table it holds is live again; how many."""
        return self._read(
            lambda conn: (
                conn.execute(
                    "UPDATE tables SET heartbeat = %s WHERE process = %s", (now, process)
                ).rowcount
            )
        )

    def live_tables(self, now: float, within: float = TABLE_LIFETIME) -> list[ClubTable]:
        """Every table whose process said it was alive within `within` seconds of `now`, by id."""
        rows = self._read(
            lambda conn: conn.execute(
                "SELECT id, process, owner, rated, matches, players, state, heartbeat"
                " FROM tables WHERE heartbeat > %s ORDER BY id",
                (now - within,),
            ).fetchall()
        )
        return [
            ClubTable(
                str(table_id),
                str(process),
                _handle(owner),
                bool(rated_),
                None if matches is None else int(matches),
                tuple(_handle(handle) for handle in players),
                str(state),
                float(beat),
            )
            for table_id, process, owner, rated_, matches, players, state, beat in rows
        ]

    def forget_process(self, process: str) -> int:
        """Take every table of `process` (ended, or found dead) out of the registry: how many."""

        def forget(conn: Connection) -> int:
            gone = conn.execute(
                "DELETE FROM tables WHERE process = %s RETURNING id", (process,)
            ).fetchall()
            for (table_id,) in gone:
                conn.execute("SELECT pg_notify(%s, %s)", (TABLES_CHANNEL, table_id))
            return len(gone)

        return self._read(forget)

    def forget_dead(self, now: float, within: float = TABLE_LIFETIME) -> list[str]:
        """Take out the tables of every process silent for more than `within` seconds: the
        processes forgotten."""

        def forget(conn: Connection) -> list[str]:
            gone = conn.execute(
                "DELETE FROM tables WHERE process IN (SELECT process FROM tables"
                " GROUP BY process HAVING max(heartbeat) <= %s) RETURNING id, process",
                (now - within,),
            ).fetchall()
            for table_id, _process in gone:
                conn.execute("SELECT pg_notify(%s, %s)", (TABLES_CHANNEL, table_id))
            return sorted({str(process) for _table_id, process in gone})

        return self._read(forget)

    # Between processes: PostgreSQL's LISTEN/NOTIFY.

    def notify(self, channel: str, payload: str) -> None:
        """Send `payload` (under 8000 bytes) to every process listening on `channel`."""
        self._read(lambda conn: conn.execute("SELECT pg_notify(%s, %s)", (channel, payload)))

    def listen(self, channel: str) -> Listening:
        """What is sent on `channel`, from the moment the returned context is entered:
        `async with record.listen("c") as messages: async for payload in messages: …`."""
        return Listening(self.dsn, channel, self.timeout)


class _Cutter:
    """Cuts off a connection whose work outlasts its time (one thread a store, started at the
    first use). Where packets vanish (a network or a firewall dropping them), nothing answers a
    query, and its thread would wait as long as TCP retries, many minutes; cut (its socket shut
    down), the wait ends in OperationalError at once, and the pool discards the connection."""

    def __init__(self) -> None:
        self._due: dict[int, tuple[float, Connection]] = {}
        self._keys = itertools.count()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False

    @contextlib.contextmanager
    def within(self, conn: Connection, seconds: float) -> Iterator[None]:
        """What is done on `conn` inside, cut off after `seconds` (every caller gives the same
        `seconds`: a new deadline is the earliest only when it is the only one)."""
        with self._changed:
            key = next(self._keys)
            self._due[key] = (time.monotonic() + seconds, conn)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="tictactoe-club-cutter", daemon=True
                )
                self._thread.start()
            elif len(self._due) == 1:
                self._changed.notify()
        try:
            yield
        finally:
            with self._changed:  # never cut once done: the connection may be someone else's
                self._due.pop(key, None)

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify()
        if self._thread is not None:
            self._thread.join()

    def _watch(self) -> None:
        with self._changed:
            while not self._closed:
                now = time.monotonic()
                for key, (due, conn) in list(self._due.items()):
                    if due <= now:
                        del self._due[key]
                        _cut(conn)
                soonest = min((due for due, _conn in self._due.values()), default=None)
                self._changed.wait(None if soonest is None else soonest - now)


def _cut(conn: Connection) -> None:
    """Shut `conn`'s socket down, from another thread: its wait for an answer ends."""
    with (
        contextlib.suppress(OSError, psycopg.Error),
        socket.socket(fileno=os.dup(conn.fileno())) as sock,
    ):
        sock.shutdown(socket.SHUT_RDWR)


class Listening:
    """The payloads sent on one channel, through a connection of its own (LISTEN needs one
    that stays open); listening from `__aenter__` to `__aexit__`."""

    def __init__(self, dsn: str, channel: str, timeout: float) -> None:
        self.dsn: Final = dsn
        self.channel: Final = channel
        self.timeout: Final = timeout
        self._conn: psycopg.AsyncConnection[tuple[Any, ...]] | None = None
        self._notifies: AsyncIterator[psycopg.Notify] | None = None

    async def __aenter__(self) -> Listening:
        try:
            self._conn = await psycopg.AsyncConnection.connect(
                self.dsn, autocommit=True, connect_timeout=max(1, math.ceil(self.timeout))
            )
            await self._conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
        except psycopg.Error as error:
            await self.__aexit__(None, None, None)
            raise ClubUnavailable(
                f"The club's database {where(self.dsn)} cannot be used just now ({_reason(error)})."
            ) from None
        self._notifies = self._conn.notifies()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        conn, self._conn, self._notifies = self._conn, None, None
        if conn is not None:
            await conn.close()

    def __aiter__(self) -> Listening:
        return self

    async def __anext__(self) -> str:
        if self._notifies is None:
            raise StopAsyncIteration
        try:
            return (await anext(self._notifies)).payload
        except psycopg.Error as error:
            raise ClubUnavailable(
                f"The club's database {where(self.dsn)} stopped answering ({_reason(error)})."
            ) from None


def _one(conn: Connection, query: LiteralString, params: Sequence[object] = ()) -> Any:
    """The first column of the first row `query` returns, or None when it returns none."""
    row = conn.execute(query, params).fetchone()
    return None if row is None else row[0]


def _reason(error: psycopg.Error) -> str:
    """An error of the database in a few words: its first line, without a trailing stop."""
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__).rstrip(".")


def _player(conn: Connection, handle: str, *, lock: bool = False) -> int | None:
    query: LiteralString = "SELECT id FROM players WHERE handle = %s"
    found = _one(conn, query + " FOR NO KEY UPDATE" if lock else query, (handle,))
    return None if found is None else int(found)


def _rating(conn: Connection, player: int) -> Rating:
    row = conn.execute("SELECT mu, sigma FROM ratings WHERE player = %s", (player,)).fetchone()
    return START if row is None else Rating(float(row[0]), float(row[1]))


def _handle(text: object) -> str:
    """A handle read back from the database: untrusted text, shown only once made safe."""
    return clean_name(str(text), "?")


def _claim(
    conn: Connection,
    handle: str,
    kind: str,
    data: str,
    fingerprint: str,
    address: str,
    now: float,
) -> Entry:
    """A free handle claimed by a key, within the caller's transaction."""
    banned = _key_banned(conn, data, now)
    if banned is not None:
        return Entry(handle, False, START, banned)
    holder = club_keys.holder(club_keys.Postgres(conn), data)
    if holder is not None:
        return Entry(handle, False, START, key_elsewhere(holder))
    # One claim at a time from an address, across processes, so that none passes the bound.
    conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (address,))
    conn.execute("DELETE FROM claims WHERE at <= %s", (now - CLAIM_WINDOW,))
    claims = _one(
        conn,
        "SELECT count(*) FROM claims WHERE address = %s AND at > %s",
        (address, now - CLAIM_WINDOW),
    )
    if int(claims) >= CLAIMS_PER_HOUR:
        return Entry(
            handle,
            False,
            START,
            "Too many new handles were claimed from this address this hour;"
            " please try again later.",
        )
    player = _one(
        conn,
        "INSERT INTO players (handle, claimed_at, last_seen) VALUES (%s, %s, %s) RETURNING id",
        (handle, now, now),
    )
    conn.execute(
        "INSERT INTO keys (player, type, data, fingerprint, added_at) VALUES (%s, %s, %s, %s, %s)",
        (player, kind, data, fingerprint, now),
    )
    conn.execute(
        "INSERT INTO claims (address, at, handle) VALUES (%s, %s, %s)", (address, now, handle)
    )
    return Entry(handle, False, START)


def _key_banned(conn: Connection, data: str, now: float) -> str | None:
    """Why a key of a banned player may not come in (as any handle), or None."""
    row = conn.execute(
        "SELECT players.handle, bans.until FROM keys JOIN bans ON bans.player = keys.player"
        " JOIN players ON players.id = keys.player"
        " WHERE keys.data = %s AND (bans.until IS NULL OR bans.until > %s)"
        " ORDER BY bans.until IS NOT NULL, bans.until DESC LIMIT 1",
        (data, now),
    ).fetchone()
    if row is None:
        return None
    until = math.inf if row[1] is None else float(row[1])
    return f"{row[0]} is banned {until_text(until)}."


def _write(conn: Connection, *, finished: _Finished) -> tuple[Rating, Rating] | None:
    """One finished match (and, when rated, both ratings and their history), in the caller's
    transaction; a match already written (the same `uid`) is not written again."""
    match = finished.match
    handles = (finished.players[0].lower(), finished.players[1].lower())
    levels = tuple(None if player.level is None else player.level.value for player in match.players)
    assert match.finished_at is not None
    rating_it = (
        finished.rated
        and handles[0] != handles[1]
        and not any(map(is_guest, handles))
        and levels == (None, None)
    )
    ids: dict[str, int] = {}
    if rating_it:
        # Both players' rows, in handle order, before their ratings are read.
        for player, handle in conn.execute(
            "SELECT id, handle FROM players WHERE handle = ANY(%s)"
            ' ORDER BY handle COLLATE "C" FOR NO KEY UPDATE',
            (sorted(handles),),
        ):
            ids[str(handle)] = int(player)
        rating_it = len(ids) == 2
    row = _one(
        conn,
        "INSERT INTO matches (uid, finished_at, club_table, handle1, handle2, level1, level2,"
        " rated, mark1, first_mover, moves, winner)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (uid) DO NOTHING RETURNING id",
        (
            finished.uid,
            match.finished_at,
            finished.table,
            *handles,
            *levels,
            rating_it,
            str(match.marks[0]),
            match.first_mover + 1,
            "".join(map(str, match.moves)),
            None if finished.winner is None else finished.winner + 1,
        ),
    )
    if row is None:
        return _written(conn, finished.uid)
    if not rating_it:
        return None
    first, second = ids[handles[0]], ids[handles[1]]
    after = rated(_rating(conn, first), _rating(conn, second), finished.winner)
    for side, (player, rating) in enumerate(zip((first, second), after, strict=True)):
        won = finished.winner == side
        lost = finished.winner is not None and not won
        drew = finished.winner is None
        conn.execute(
            "INSERT INTO ratings (player, mu, sigma, matches, wins, draws, losses)"
            " VALUES (%s, %s, %s, 1, %s, %s, %s) ON CONFLICT (player) DO UPDATE SET"
            " mu = excluded.mu, sigma = excluded.sigma, matches = ratings.matches + 1,"
            " wins = ratings.wins + excluded.wins, draws = ratings.draws + excluded.draws,"
            " losses = ratings.losses + excluded.losses",
            (player, rating.mu, rating.sigma, int(won), int(drew), int(lost)),
        )
        conn.execute(
            "INSERT INTO rating_history (player, match, mu, sigma) VALUES (%s, %s, %s, %s)",
            (player, row, rating.mu, rating.sigma),
        )
    return after


def _written(conn: Connection, uid: uuid.UUID) -> tuple[Rating, Rating] | None:
    """The ratings a match already written gave (None when it was unrated)."""
    rows = conn.execute(
        "SELECT rating_history.mu, rating_history.sigma FROM matches"
        " JOIN players ON players.handle IN (matches.handle1, matches.handle2)"
        " JOIN rating_history ON rating_history.match = matches.id"
        " AND rating_history.player = players.id"
        " WHERE matches.uid = %s ORDER BY players.handle = matches.handle2",
        (uid,),
    ).fetchall()
    if len(rows) != 2:
        return None
    return Rating(float(rows[0][0]), float(rows[0][1])), Rating(
        float(rows[1][0]), float(rows[1][1])
    )


def _match_of(row: Sequence[Any]) -> MatchRecord:
    """A match read back from the database, for the replay screen."""
    match_id, finished_at, handle1, handle2, level1, level2, mark1, first_mover, moves, winner = row
    players = tuple(
        Player(_handle(handle)) if level is None else Player.computer(Level(str(level)))
        for handle, level in ((handle1, level1), (handle2, level2))
    )
    first = Mark(str(mark1))
    when = finished_at.astimezone(UTC) if isinstance(finished_at, datetime) else None
    return MatchRecord(
        players=(players[0], players[1]),
        marks=(first, first.other),
        first_mover=int(first_mover) - 1,
        moves=tuple(int(cell) for cell in str(moves)),
        winner=None if winner is None else int(winner) - 1,
        finished_at=when,
        id=int(match_id),
    )
