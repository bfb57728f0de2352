"""One club across several processes sharing one PostgreSQL database (`--database`).

Each process keeps the authorities of the tables opened through it, all served by its one table
server listening on the process's cluster address (`--cluster-address`, loopback by default), a
path each. What the other processes need of a table goes in PostgreSQL's registry of tables
(`tictactoe.club.registry_pg`, written by `tictactoe.club.cluster_writer`): who sits there, what
the lobby shows, and where its authority answers with the table's door key, which only the
club's processes (those given the database) can read. A player on another process is sent there
(`GoTo`) and plays over that link: a move crosses one websocket, as at a table of their own
process.

- Every change of a table is written to the registry, which tells every process by NOTIFY; each
  process LISTENs, re-reads the registry (at once, every `RESYNC_EVERY` seconds in case a
  notification was lost, and on each reconnection) and shows the others' tables in its lobbies.
- Every match written is announced the same way; what the lobbies show of the record (the
  ladder, ratings, recent matches) is read again for its players, and all of it on each
  reconnection and every `REFRESH_EVERY` seconds, so that a lost notification never leaves a
  lobby stale for longer.
- A seat is claimed in the registry in one statement (`claim_seat`), so two processes never
  seat two players at one table; a table is registered as it opens. Both check, under the
  handle's lock, that the handle holds no table of another process (`seats_pg`): one seat a
  handle, club-wide. While the database is away, a player with a handle opens and takes none.
- Every process says it is alive every `HEARTBEAT_EVERY` seconds; the tables of a process silent
  for `TABLE_LIFETIME` seconds are shown nowhere and taken out of the registry (a process killed
  with SIGKILL: its players' ssh ends with it, and a player of another process at one of its
  tables is back in the lobby at once, told the link to the table was lost).
- While the database is away (`ClusterStore`): nothing waits for it on the event loop; tables in
  play go on; a keyed login is refused in one sentence; the lobbies show what they last knew;
  a match finished meanwhile waits and is written once it is back (once: the store's uid, and
  one `flush` at a time, the heartbeat's finding it back or the stop's). The log says when the
  database went away, when it answers again, and each match written that waited.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from typing import Any, Final, Protocol

from tictactoe.club.cluster_store import AWAY_REFUSAL, MATCHES_CHANNEL, SENDER, ClusterStore
from tictactoe.club.cluster_tables import LocalTable, RemoteTable, remote_table
from tictactoe.club.cluster_writer import RegistryWriter
from tictactoe.club.registry_pg import TABLES_CHANNEL, ClubTable, TableRegistry
from tictactoe.club.seats_pg import NOT_OPEN, PLAYING, WAITING_ELSEWHERE
from tictactoe.core.club import is_guest
from tictactoe.online.lobby import WATCHER_NAME, GoTo, LobbyNews, Said, TableRow
from tictactoe.record.club_pg import PostgresClubRecord
from tictactoe.record.club_sql import ClubUnavailable

__all__ = [
    "AWAY_REFUSAL",
    "HEARTBEAT_EVERY",
    "MATCHES_CHANNEL",
    "REFRESH_EVERY",
    "RESYNC_EVERY",
    "TABLE_LIFETIME",
    "Cluster",
    "ClusterStore",
]

log = logging.getLogger("tictactoe.online")

HEARTBEAT_EVERY: Final = 1.0
"""Seconds between a process's heartbeats (each also tells whether the database answers)."""
TABLE_LIFETIME: Final = 5.0
"""Seconds after its process's last heartbeat that a table is forgotten."""
RESYNC_EVERY: Final = 2.0
"""Seconds between two readings of the registry when no notification came."""
REFRESH_EVERY: Final = 30.0
"""Seconds between two readings of everything the lobbies show of the record (a lost notice)."""
NOT_IN_PLAY: Final = "That table is not in play."


class Hub(Protocol):
    """What the cluster asks of this process's club (`tictactoe.club.lobby.Club`)."""

    def changed(self) -> None:
        """Another process's tables changed: every lobby is told."""

    def forget_cached(self, handles: Iterable[str] | None = None) -> None:
        """A match was written (of `handles`; None: of anyone): what the club read changed."""


class Cluster:
    """This process's part in a club of several: its tables in the registry, the others' in its
    lobbies, and the store as the lobby sees it (`store`)."""

    def __init__(
        self,
        record: PostgresClubRecord,
        *,
        address: str = "127.0.0.1",
        process: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.record = record
        self.registry = TableRegistry(record)
        """The tables of every process, and the news between them."""
        self.address = address
        """Where this process's tables listen, for the other processes."""
        self.process = process or secrets.token_hex(3)
        """This process's name in the registry (and its tables' ids' prefix)."""
        self.clock = clock
        self.up = True
        """Whether the database answered the last time it was asked."""
        self.store = ClusterStore(self)
        self.remote: dict[str, RemoteTable] = {}
        """The other processes' live tables, by id."""
        self._club: Hub | None = None
        self.writer = RegistryWriter(
            self.registry,
            self.process,
            clock=clock,
            rating=lambda handle, game: self.store.known_rating(handle, game).shown,
        )
        """This process's tables, written to the registry after every change."""
        self._stale = asyncio.Event()
        self._tasks: list[asyncio.Task[Any]] = []
        self._up_since = clock()
        self.refresh_every = REFRESH_EVERY
        """Seconds between two readings of everything the lobbies show of the record."""

    # The lobby's hooks.

    def table_id(self, number: int) -> str:
        """A table id no other process gives."""
        return f"{self.process}-{number}"

    async def start(self, club: Hub) -> None:
        self._club = club
        self._tasks = [
            asyncio.create_task(self._beat()),
            asyncio.create_task(self.writer.run(lambda: self.up, self.away)),
            asyncio.create_task(self._resync()),
            asyncio.create_task(self._hear(TABLES_CHANNEL, self._heard, self._stale.set)),
            asyncio.create_task(
                self._hear(MATCHES_CHANNEL, self._matches_written, self._forget_cached)
            ),
            asyncio.create_task(self._refresh()),
        ]
        self._stale.set()

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.up:
            with contextlib.suppress(ClubUnavailable):
                await asyncio.to_thread(self.registry.forget_process, self.process)
        await asyncio.to_thread(self.store.flush)

    def changed(self, tables: Iterable[LocalTable]) -> None:
        """This process's tables as they are now (called on every change): the registry is told."""
        self.writer.local = {table.id: table for table in tables if not table.ending}
        for table in self.writer.local.values():
            series = table.authority.series
            if table.sitter is None and series is not None:
                # seated by another process's claim not heard yet: the authority's word
                table.sitter = series.players[1].name
            if table.sitter is not None and is_guest(table.sitter):
                table.rated = False
        self.writer.dirty.set()

    def busy(self, handle: str) -> str | None:
        """Why `handle` may not open or sit at a table, from the other processes' tables as last
        read (the database checks again: `register`, `claim`)."""
        for table in self.remote.values():
            if handle in table.players:
                return PLAYING if table.playing or len(table.players) == 2 else WAITING_ELSEWHERE
        return None

    async def register(self, table: LocalTable, guest: bool) -> str | None:
        """This process's table, just opened by `table.opener`, in the registry at once, unless
        the opener holds a table of another process: why not, or None. A guest's is written
        later (a guest is in one process only); while the database is away, a handle's is
        refused (one seat a handle cannot be checked then)."""
        if guest:
            return None
        if not self.up:
            return AWAY_REFUSAL
        row = self.writer.row(table, (table.opener,), self.writer.state(table))
        self.writer.registering.add(table.id)
        try:
            return await asyncio.to_thread(
                self.registry.register_table, row, one_seat=TABLE_LIFETIME
            )
        except ClubUnavailable:
            self.away()
            return AWAY_REFUSAL
        finally:
            self.writer.registering.discard(table.id)

    def claim(self, table_id: str, handle: str, guest: bool) -> str | None:
        """Seat `handle` at this process's open table `table_id` in the registry (checked as in
        `sit`): why not, or None. While the database is away, a guest's seat is this process's
        alone to give, and a handle's is refused."""
        if not self.up:
            return None if guest else AWAY_REFUSAL
        try:
            return self.registry.claim_seat(
                table_id,
                handle,
                process=None if guest else self.process,
                now=self.clock(),
                within=TABLE_LIFETIME,
                unknown=True,
            )
        except ClubUnavailable:
            self.away()
            return None if guest else AWAY_REFUSAL

    def sit(self, handle: str, guest: bool, table_id: str, busy: str | None) -> LobbyNews:
        """`handle` asks to sit at another process's table: where to go, or why not."""
        table = self.remote.get(table_id)
        if table is None or table.playing or len(table.players) != 1:
            return Said(NOT_OPEN)
        if busy is not None:
            return Said(busy)
        if table.players[0] == handle:
            return Said("That is your own table: wait there for someone to sit.")
        if not self.up:
            return Said(AWAY_REFUSAL)
        try:
            refusal = self.registry.claim_seat(
                table_id,
                handle,
                process=None if guest else self.process,
                now=self.clock(),
                within=TABLE_LIFETIME,
            )
        except ClubUnavailable:
            self.away()
            return Said(AWAY_REFUSAL)
        if refusal is not None:
            return Said(refusal)
        self.remote.pop(table_id, None)
        self._stale.set()
        return GoTo(table.id, table.url, table.code, handle, "seat", door_key=table.key)

    def watch(self, table_id: str) -> LobbyNews:
        """A watcher asks for another process's table."""
        table = self.remote.get(table_id)
        if table is None or not table.playing:
            return Said(NOT_IN_PLAY)
        return GoTo(table.id, table.url, table.code, WATCHER_NAME, "watcher", door_key=table.key)

    def seat_back(self, handle: str) -> GoTo | None:
        """A player whose seat at another process's table is away: sent back to it."""
        for table in self.remote.values():
            if table.away == handle:
                return GoTo(table.id, table.url, table.code, handle, "seat", door_key=table.key)
        return None

    def rows(self) -> tuple[list[TableRow], list[TableRow]]:
        """The other processes' tables for a lobby: (open, in play)."""
        open_rows, playing_rows = [], []
        for table in self.remote.values():
            if table.playing:
                playing_rows.append(table.row())
            elif len(table.players) == 1:
                open_rows.append(table.row())
        return open_rows, playing_rows

    # Keeping in touch.

    async def _beat(self) -> None:
        """Say this process is alive; find out whether the database answers; forget the tables
        of processes silent past `TABLE_LIFETIME` (once this one has been heard that long)."""
        while True:
            now = self.clock()
            try:
                beaten = await asyncio.to_thread(self.registry.heartbeat, self.process, now)
                bans = await asyncio.to_thread(self.record.bans_version)
                if not self.up:
                    await self._back()
                self.store.bans = bans
                if beaten < len(self.writer.written):  # taken for dead: written again
                    self.writer.write_all()
                if now - self._up_since >= TABLE_LIFETIME:
                    forgotten = await asyncio.to_thread(
                        self.registry.forget_dead, now, TABLE_LIFETIME
                    )
                    for process in forgotten:
                        log.warning("forgot the tables of club process %s: silent", process)
            except ClubUnavailable:
                self.away()
            await asyncio.sleep(HEARTBEAT_EVERY)

    def away(self) -> None:
        """The database did not answer: nothing waits for it until a heartbeat is answered."""
        if self.up:
            self.up = False
            log.warning("the club's database %s is away; tables in play go on", self.record.where)

    async def _back(self) -> None:
        """The database answers again: what waited is written, the registry written afresh, and
        what the lobbies show read again (what was written meanwhile went unheard)."""
        self.up = True
        self._up_since = self.clock()
        log.warning("the club's database %s answers again", self.record.where)
        await asyncio.to_thread(self.store.flush)
        for notice in self.record.take_notices():
            log.warning("%s", notice)
        self.writer.write_all()
        self._stale.set()
        self._forget_cached()

    def _forget_cached(self) -> None:
        if self._club is not None:
            self._club.forget_cached()

    async def _refresh(self) -> None:
        """Every `refresh_every` seconds, what the lobbies show of the record is read again."""
        while True:
            await asyncio.sleep(self.refresh_every)
            if self.up:
                self._forget_cached()

    async def _hear(
        self, channel: str, heard: Callable[[str], None], missed: Callable[[], None]
    ) -> None:
        """Listen on `channel` for ever, again after each lost connection; `missed` is called
        once it listens (what was sent while it did not, it did not hear)."""
        while True:
            try:
                async with self.registry.listen(channel) as payloads:
                    missed()
                    async for payload in payloads:
                        heard(payload)
            except ClubUnavailable:
                pass
            await asyncio.sleep(HEARTBEAT_EVERY)

    async def _resync(self) -> None:
        """Read the registry after each notification (several at once: one reading), and every
        `RESYNC_EVERY` seconds."""
        while True:
            with contextlib.suppress(TimeoutError):
                # not `wait_for`: in Python 3.11 it swallows a cancellation (`stop`) that comes
                # with the event, and this loop would go on for ever
                async with asyncio.timeout(RESYNC_EVERY):
                    await self._stale.wait()
            self._stale.clear()
            if not self.up:
                continue
            try:
                rows = await asyncio.to_thread(
                    self.registry.live_tables, self.clock(), TABLE_LIFETIME
                )
            except ClubUnavailable:
                self.away()
                continue
            self._merge(rows)

    def _merge(self, rows: list[ClubTable]) -> None:
        self.writer.mine(row for row in rows if row.process == self.process)
        remote: dict[str, RemoteTable] = {}
        for row in rows:
            found = None if row.process == self.process else remote_table(row)
            if found is not None:
                remote[row.id] = found
        if remote != self.remote:
            self.remote = remote
            if self._club is not None:
                self._club.changed()

    def _heard(self, _table_id: str) -> None:
        self._stale.set()

    def _matches_written(self, payload: str) -> None:
        words = payload.split()
        if self._club is None or f"{SENDER}{self.process}" in words:
            return  # this process's lobbies were given the new ratings as it wrote the match
        handles = [word for word in words if not word.startswith(SENDER)]
        self._club.forget_cached(handles or None)
