"""The registry of a club's tables, shared by every process of the club in its PostgreSQL
database (`TableRegistry`): each table with its process's heartbeat, and PostgreSQL's own
LISTEN/NOTIFY between the processes (`notify`, `listen`). Every change of a table is told on
`TABLES_CHANNEL`, its id the payload.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final

import psycopg
from psycopg import sql

from tictactoe.club.seats_pg import seat_free, seated_elsewhere
from tictactoe.core.finished import CLASSIC_NAME
from tictactoe.core.names import clean_name
from tictactoe.record.club_pg import Connection, PostgresClubRecord
from tictactoe.record.club_schema_pg import reason, where
from tictactoe.record.club_sql import ClubUnavailable

__all__ = ["TABLES_CHANNEL", "TABLE_LIFETIME", "ClubTable", "Listening", "TableRegistry"]

TABLES_CHANNEL: Final = "tictactoe_tables"
"""The channel told the id of every table registered, changed or removed."""

TABLE_LIFETIME: Final = 15.0
"""Seconds after its process's last heartbeat that a table still counts as live."""


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
    variant: str = CLASSIC_NAME
    """The game played there (`tictactoe.core.rules.Variant.name`)."""


class TableRegistry:
    """The registry of tables in the database of `record`, through its connections."""

    def __init__(self, record: PostgresClubRecord) -> None:
        self.record = record

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
                " heartbeat, variant) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (id) DO UPDATE SET process = excluded.process,"
                " owner = excluded.owner, rated = excluded.rated, matches = excluded.matches,"
                " variant = excluded.variant,"
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
                    table.variant,
                ),
            )
            _told(conn, table.id)
            return None

        return self.record.run(put)

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
                _told(conn, table_id)
            return bool(found)

        return self.record.run(change)

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
                _told(conn, table_id)
            return refusal

        return self.record.run(claim)

    def remove_table(self, table_id: str) -> bool:
        """Take a table out of the registry: whether it was there."""

        def remove(conn: Connection) -> bool:
            found = conn.execute("DELETE FROM tables WHERE id = %s", (table_id,)).rowcount
            if found:
                _told(conn, table_id)
            return bool(found)

        return self.record.run(remove)

    def heartbeat(self, process: str, now: float) -> int:
        """Say that `process` is alive: every table it holds is live again; how many."""
        return self.record.run(
            lambda conn: (
                conn.execute(
                    "UPDATE tables SET heartbeat = %s WHERE process = %s", (now, process)
                ).rowcount
            )
        )

    def live_tables(self, now: float, within: float = TABLE_LIFETIME) -> list[ClubTable]:
        """Every table whose process said it was alive within `within` seconds of `now`, by id."""
        rows = self.record.run(
            lambda conn: conn.execute(
                "SELECT id, process, owner, rated, matches, players, state, heartbeat,"
                " variant FROM tables WHERE heartbeat > %s ORDER BY id",
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
                str(game),
            )
            for table_id, process, owner, rated_, matches, players, state, beat, game in rows
        ]

    def forget_process(self, process: str) -> int:
        """Take every table of `process` (ended, or found dead) out of the registry: how many."""

        def forget(conn: Connection) -> int:
            gone = conn.execute(
                "DELETE FROM tables WHERE process = %s RETURNING id", (process,)
            ).fetchall()
            for (table_id,) in gone:
                _told(conn, table_id)
            return len(gone)

        return self.record.run(forget)

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
                _told(conn, table_id)
            return sorted({str(process) for _table_id, process in gone})

        return self.record.run(forget)

    def notify(self, channel: str, payload: str) -> None:
        """Send `payload` (under 8000 bytes) to every process listening on `channel`."""
        self.record.run(lambda conn: conn.execute("SELECT pg_notify(%s, %s)", (channel, payload)))

    def listen(self, channel: str) -> Listening:
        """What is sent on `channel`, from the moment the returned context is entered:
        `async with record.listen("c") as messages: async for payload in messages: …`."""
        return Listening(self.record.dsn, channel, self.record.timeout)


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
                f"The club's database {where(self.dsn)} cannot be used just now ({reason(error)})."
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
                f"The club's database {where(self.dsn)} stopped answering ({reason(error)})."
            ) from None


def _handle(text: object) -> str:
    """A handle read back from the database: untrusted text, shown only once made safe."""
    return clean_name(str(text), "?")


def _told(conn: Connection, table_id: str) -> None:
    """Every process listening on `TABLES_CHANNEL` is told `table_id` changed, once the
    transaction commits."""
    conn.execute("SELECT pg_notify(%s, %s)", (TABLES_CHANNEL, table_id))
