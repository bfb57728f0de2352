"""The club's store on PostgreSQL (`PostgresClubRecord`): what `ClubRecord` keeps in its SQLite
file, kept where several club processes, on one machine or many, share it.

Its rules are `SqlClubStore`'s; this module keeps the connections, and the promises of a shared
database:

- The schema is made or migrated when the store opens (`tictactoe.record.club_schema_pg`).
- One transaction a finished match; both players' rows are locked (in handle order, so two
  writers never wait on each other in a circle) before their ratings are read, so two processes
  finishing matches of one player at the same moment both count; a transaction PostgreSQL rolled
  back for a conflict with another one is tried again.
- Each finished match carries an id the club made, so a write that reached the database but
  whose answer was lost is never written twice.
- While the database is out of reach, a keyed login is refused in one sentence, the bans'
  version stays the last one read, and the other reads raise ClubUnavailable (one sentence).
  Nothing waits for it longer than `timeout` at each step (a connection from the pool, a new
  connection, the work on one): where packets vanish, a connection whose answer does not come
  within `timeout` is cut off (`Cutter`) rather than waited on for as long as TCP retries.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any, ClassVar, Final, TypeVar

import psycopg
import psycopg.errors
from psycopg_pool import ConnectionPool

from tictactoe.record.club_dialects import Database, Postgres
from tictactoe.record.club_schema_pg import (
    APPLICATION,
    PG_MIGRATIONS,
    PG_SCHEMA_VERSION,
    migrate,
    reason,
    where,
)
from tictactoe.record.club_sql import ClubUnavailable, SqlClubStore
from tictactoe.record.pg_cutter import Cutter

__all__ = [
    "APPLICATION",
    "PG_MIGRATIONS",
    "PG_SCHEMA_VERSION",
    "Connection",
    "PostgresClubRecord",
    "migrate",
    "where",
]

T = TypeVar("T")

Connection = psycopg.Connection[tuple[Any, ...]]

_RETRIES: Final = 5
"""Attempts of a transaction PostgreSQL rolled back for a conflict with another one."""


class PostgresClubRecord(SqlClubStore):
    """The club's store in the PostgreSQL database at `dsn` (`postgresql://USER@HOST:PORT/DB`),
    its schema made or migrated first. Same methods and meanings as `ClubRecord`.

    Every method is safe from several threads and beside other processes using the same
    database. ClubUnavailable when the database cannot be reached at start, is another
    program's, or is of a newer schema.
    """

    errors: ClassVar[tuple[type[Exception], ...]] = (psycopg.Error,)
    shared: ClassVar[bool] = True

    def __init__(
        self,
        dsn: str,
        *,
        timeout: float = 5.0,
        pool_size: int = 4,
        rng: random.Random | None = None,
    ) -> None:
        super().__init__(rng)
        self.dsn: Final = dsn
        self.timeout: Final = timeout
        """Seconds to wait for a connection, or for the answer on one, before giving up for now."""
        self.where: Final = where(dsn)
        self._cutter = Cutter()
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

    def run(self, work: Callable[[Connection], T]) -> T:
        """`work` in one transaction on a pooled connection (as the store's own work is run), or
        ClubUnavailable (one sentence) when the database cannot be used now: for what the club
        keeps beside its store in the same database."""
        try:
            return self._attempts(work, retry_unique=False)
        except psycopg.Error as error:
            raise ClubUnavailable(self._unreachable(error)) from None

    def _run(self, work: Callable[[Database], T], *, write: bool, retry_unique: bool = False) -> T:
        return self._attempts(lambda conn: work(Postgres(conn)), retry_unique=retry_unique)

    def _attempts(self, work: Callable[[Connection], T], *, retry_unique: bool) -> T:
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

    def _reason(self, error: Exception) -> str:
        return reason(error) if isinstance(error, psycopg.Error) else str(error)

    def _unreachable(self, error: Exception) -> str:
        return f"The club's database {self.where} cannot be used just now ({self._reason(error)})."

    def _back(self, written: int) -> None:
        self._notices.append(
            f"The club's database {self.where} can be used again; {written}"
            " finished matches that waited are written."
        )

    def _close_connections(self) -> None:
        self._pool.close()
        self._cutter.close()
