"""Where the club's two databases speak differently: a connection in a transaction as the club's
SQL sees it (`Database`), one for SQLite (`Sqlite`) and one for PostgreSQL (`Postgres`).

The club's queries are written once, with `?` for their parameters; each adapter runs them as
its database wants, and says the little that differs: how a row is locked for the rest of the
transaction, how text sorts byte by byte, how a new row's id comes back, how a finished match
is added (PostgreSQL's carry an id the club made, so one is never written twice) and how its
time is kept.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, Final, LiteralString, Protocol

from tictactoe.record.schema import TIME_FORMAT

__all__ = ["MATCH_COLUMNS", "Database", "Postgres", "Sqlite"]

MATCH_COLUMNS: Final[LiteralString] = (
    "finished_at, club_table, handle1, handle2, level1, level2, rated, mark1, first_mover,"
    " moves, winner, variant"
)
"""The columns of a match both databases keep, in the order `Database.add_match` takes them."""


class Cursor(Protocol):
    """What the club reads of a query's answer."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Database(Protocol):
    """A connection in a transaction, taking `?` for parameters."""

    row_lock: LiteralString
    """Appended to a SELECT to lock its rows until the transaction ends (SQLite's write
    transaction locks the whole file already)."""
    byte_order: LiteralString
    """Appended to an ORDER BY of text to sort it byte by byte, as SQLite does by itself."""

    def execute(self, query: LiteralString, parameters: Any = ..., /) -> Cursor: ...

    def insert(self, query: LiteralString, parameters: Any, /) -> int:
        """Run the INSERT `query`: the new row's id."""
        ...

    def one_at_a_time(self, name: str) -> None:
        """Hold `name` until the transaction ends, so that transactions holding the same name
        run one after the other (across processes)."""
        ...

    def add_match(self, uid: uuid.UUID, values: tuple[Any, ...]) -> int | None:
        """Add a match (`values` of `MATCH_COLUMNS`, its time a datetime): its id, or None when
        the match with `uid` was written already."""
        ...

    def time_of(self, kept: object) -> datetime | None:
        """A match's time as it was read back (None when it cannot be read)."""
        ...


class _Connection:
    """A connection of a database's driver, running the club's queries."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def _dialect(self, query: LiteralString) -> LiteralString:
        """`query` as this database takes it."""
        return query

    def execute(self, query: LiteralString, parameters: Any = (), /) -> Cursor:
        cursor: Cursor = self.conn.execute(self._dialect(query), parameters)
        return cursor


class Sqlite(_Connection):
    """A SQLite connection (in a write transaction, or reading) as a `Database`."""

    row_lock: LiteralString = ""
    byte_order: LiteralString = ""

    def insert(self, query: LiteralString, parameters: Any, /) -> int:
        created = self.conn.execute(query, parameters).lastrowid
        assert created is not None
        return int(created)

    def one_at_a_time(self, name: str) -> None:
        """Nothing to do: a write transaction holds the whole file."""

    def add_match(self, uid: uuid.UUID, values: tuple[Any, ...]) -> int | None:
        finished_at, *rest = values
        return self.insert(
            "INSERT INTO matches ("
            + MATCH_COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (finished_at.astimezone(UTC).strftime(TIME_FORMAT), *rest),
        )

    def time_of(self, kept: object) -> datetime | None:
        try:
            return datetime.strptime(str(kept), TIME_FORMAT).replace(tzinfo=UTC)
        except ValueError:
            return None


class Postgres(_Connection):
    """A psycopg connection in a transaction as a `Database`."""

    row_lock: LiteralString = " FOR NO KEY UPDATE"
    byte_order: LiteralString = ' COLLATE "C"'

    def _dialect(self, query: LiteralString) -> LiteralString:
        return query.replace("?", "%s")

    def insert(self, query: LiteralString, parameters: Any, /) -> int:
        return int(self.execute(query + " RETURNING id", parameters).fetchone()[0])

    def one_at_a_time(self, name: str) -> None:
        self.execute("SELECT pg_advisory_xact_lock(hashtext(?))", (name,))

    def add_match(self, uid: uuid.UUID, values: tuple[Any, ...]) -> int | None:
        row = self.execute(
            "INSERT INTO matches (uid, " + MATCH_COLUMNS + ") VALUES"
            " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (uid) DO NOTHING RETURNING id",
            (uid, *values),
        ).fetchone()
        return None if row is None else int(row[0])

    def time_of(self, kept: object) -> datetime | None:
        return kept.astimezone(UTC) if isinstance(kept, datetime) else None
