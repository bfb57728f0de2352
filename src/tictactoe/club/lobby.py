"""The club on this machine's loopback (`Club`): the hub of its rooms, and each lobby's link.

- who comes in is the gatekeeper's (`tictactoe.club.gatekeeper`): the SSH door and the web door
  ask it, once a login is over; a player let in gets a secret (`CLUB_TOKEN`);
- each player's game keeps one lobby websocket (`/lobby`), said hello to with that secret: what
  it shows, and when, is the publisher's (`tictactoe.club.publisher`); it asks to open a table,
  sit, be paired, watch, take its table back, a rematch, a one-time word for another key
  (`tictactoe.online.lobby`), at most `ASKS` a second (past that, an ask is not done, and the
  player is told); anything malformed closes the lobby;
- the tables are the tables room's (`tictactoe.club.tables`), each an authority of its own,
  all served by one server (`table_server`), a path each;
- bans are read from the record every `BANS_EVERY` seconds: a banned player's match in play is
  left, and their lobby is told `Farewell` (its game ends, saying so);
- what one player, one address, may do is bounded (`tictactoe.club.bounds`): guests at once, asks
  a second, tables waiting; every refusal is one line in the log;
- the record is read and written in threads (`tictactoe.club.calls`): a slow one delays its
  answer, never the lobbies and tables.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any, Final

from aiohttp import WSMsgType, web

from tictactoe.club.bounds import ASKS_PER_HANDLE, ASKS_PER_NETWORK, Paces
from tictactoe.club.capacity import GuestDoor
from tictactoe.club.gatekeeper import CLUB_TOKEN, Gatekeeper
from tictactoe.club.lobbies import Lobby, Members
from tictactoe.club.publisher import (
    LOBBIES_BURST,
    PUBLISH_AFTER,
    Publisher,
    lobby_pace,
    lobby_rate,
)
from tictactoe.club.table import Table
from tictactoe.club.tables import Tables
from tictactoe.core.club import until_text
from tictactoe.core.key_words import SEPARATOR, WORD_LIFETIME
from tictactoe.core.rules import variant
from tictactoe.doors.bounds import Bucket, printable
from tictactoe.doors.ssh.gate import Admission
from tictactoe.link.server import LinkServer
from tictactoe.online.lobby import (
    MAX_LOBBY_ASK,
    WATCHER_NAME,
    AddKey,
    CloseTable,
    Farewell,
    KeyWord,
    LobbyAsk,
    LobbyHello,
    OpenTable,
    ProtocolError,
    QuickPair,
    Rematch,
    Said,
    SitAt,
    Snapshot,
    WatchTable,
)
from tictactoe.online.lobby_reading import parse_ask
from tictactoe.record.club_store import ClubStore

if TYPE_CHECKING:
    from tictactoe.club.cluster import Cluster

__all__ = [
    "CLUB_TOKEN",
    "LOBBIES_BURST",
    "PUBLISH_AFTER",
    "TOO_FAST",
    "WATCHER_NAME",
    "Club",
    "lobby_pace",
    "lobby_rate",
]

log = logging.getLogger("tictactoe.online")

HELLO_WITHIN: Final = 5.0
ASKS: Final = 5.0
"""What a lobby may ask a second, in bursts of as many; past it, an ask is not done."""
TOO_FAST: Final = "Too many requests at once: wait a moment."
BANS_EVERY: Final = 1.0


class Club:
    """The lobby, the tables and the gate of a club."""

    def __init__(
        self,
        record: ClubStore,
        *,
        grace: float = 120.0,
        clock: Callable[[], float] = time.time,
        cluster: Cluster | None = None,
        pace: Bucket | None = None,
    ) -> None:
        self.record = record
        self.cluster = cluster
        """This process's part in a club of several processes (`tictactoe.club.cluster`)."""
        self.clock = clock
        """Wall-clock time, as the record keeps it."""
        self.members = Members()
        tables: dict[str, Table] = {}
        self.table_server = LinkServer()
        """Where every table of this process is served, a path each (on the cluster's address in
        a club of several processes, for the others to reach)."""
        self.publisher = Publisher(record, self.members, tables, cluster=cluster, pace=pace)
        self.tables = Tables(
            record,
            self.members,
            self.publisher,
            grace=grace,
            clock=clock,
            spawn=self._spawn,
            cluster=cluster,
            by_id=tables,
            links=self.table_server,
        )
        self.gate = Gatekeeper(record, self.members, clock=clock, rated=self.publisher.entered)
        self.app = web.Application()
        self.app.router.add_get("/lobby", self._handle)
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._bans_version: int | None = None
        self._handle_paces = Paces(ASKS_PER_HANDLE)
        self._network_paces = Paces(ASKS_PER_NETWORK)
        self._stopping = False

    @property
    def ssh_port(self) -> int | None:
        """The port players come in at, for the lines the club tells them to type."""
        return self.gate.ssh_port

    @ssh_port.setter
    def ssh_port(self, port: int | None) -> None:
        self.gate.ssh_port = port

    @property
    def pace(self) -> Bucket:
        """The snapshots sent to lobbies for others' changes, a second (`lobby_pace`)."""
        return self.publisher.pace

    @property
    def guest_door(self) -> GuestDoor:
        """The guests' share of the club's places and their pace (`tictactoe.club.capacity`)."""
        return self.gate.guest_door

    @guest_door.setter
    def guest_door(self, door: GuestDoor) -> None:
        self.gate.guest_door = door

    # Starting and stopping.

    @property
    def url(self) -> str:
        """The lobby's websocket, for the games the door starts."""
        if self._port is None:
            raise RuntimeError("the club is not started")
        return f"ws://127.0.0.1:{self._port}/lobby"

    async def start(self) -> None:
        self._runner = web.AppRunner(
            self.app, access_log=None, shutdown_timeout=0.5, handle_signals=False
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = int(self._runner.addresses[0][1])
        tables_at = "127.0.0.1" if self.cluster is None else self.cluster.address
        await self.table_server.start(tables_at)
        self._bans_version = await asyncio.to_thread(self.record.bans_version)
        self._spawn(self.publisher.publish())
        self._spawn(self._watch_bans())
        if self.cluster is not None:
            await self.cluster.start(self)

    async def stop(self, text: str = "The club has closed.") -> None:
        """Every table ends with `text`, every lobby is told it, and the server closes."""
        if self._stopping:
            return
        self._stopping = True
        if self.cluster is not None:
            await self.cluster.stop()
        stopping = asyncio.create_task(self.tables.stop(text))
        for lobby in self.members.lobbies():
            lobby.send(Farewell(text))
            lobby.close()
        for task in self._tasks:
            task.cancel()
        await stopping  # nothing finished is lost
        await self.table_server.stop()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # The gate, and what the other processes of a club tell.

    async def fits(self, user: str, key: str, peer: str) -> str | None:
        return await self.gate.fits(user, key, peer)

    async def enter(self, user: str, key: str | None, peer: str) -> Admission:
        return await self.gate.enter(user, key, peer)

    def left(self, admission: Admission) -> None:
        member = self.gate.left(admission)
        if member is not None and not self.members.online(member.handle):
            self.publisher.forget(member.handle)
            self.tables.forget(member.handle)

    def changed(self) -> None:
        """Something every lobby shows has changed: a snapshot goes to each, soon."""
        self.publisher.changed()

    def forget_cached(self, handles: Iterable[str] | None = None) -> None:
        """A match was written (of `handles`; None: of anyone, or a notice may have been lost):
        what the lobbies show of the record is read again."""
        self.publisher.forget_cached(handles)

    def snapshot(self, handle: str, guest: bool) -> Snapshot:
        """The lobby as `handle` sees it now."""
        return self.publisher.snapshot(handle, guest)

    # Each lobby.

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=MAX_LOBBY_ASK, timeout=0.5)
        await ws.prepare(request)
        try:
            first = await ws.receive(timeout=HELLO_WITHIN)
            hello = parse_ask(first.data) if first.type is WSMsgType.TEXT else None
        except (TimeoutError, ProtocolError):
            hello = None
        token = hello.token if isinstance(hello, LobbyHello) else None
        member = None if token is None else self.members.by_token.get(token)
        if member is None or self._stopping:
            log.warning("a lobby link without a player's secret was closed")
            await ws.close()
            return ws
        lobby = Lobby(member, ws)
        member.lobbies.add(lobby)
        writer = asyncio.create_task(self.publisher.write(lobby))
        lobby.owed()
        if member.said is not None:
            lobby.send(Said(printable(member.said, 200)))
            member.said = None
        self.tables.seat_back(lobby, tell=True)
        try:
            await self._serve(lobby)
        finally:
            member.lobbies.discard(lobby)
            lobby.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(writer, 1.0)
            await ws.close()
            if not member.lobbies:
                self.tables.gone(member.handle)
        return ws

    async def _serve(self, lobby: Lobby) -> None:
        bucket = Bucket(ASKS)
        while not lobby.closing:
            frame = await lobby.ws.receive()
            if frame.type is not WSMsgType.TEXT:
                return
            try:
                ask = parse_ask(frame.data)
            except ProtocolError as error:
                log.warning("closed the lobby of %s: %s", lobby.member.handle, error)
                return
            if bucket.take():  # past the pace (a held key): not done, and said so
                self._too_fast(lobby, "its lobby's")
                continue
            member = lobby.member
            if not self._handle_paces.has(member.handle):
                self._too_fast(lobby, "its handle's")
                continue
            if not self._network_paces.has(member.network):
                self._too_fast(lobby, "its address's")
                continue
            self._handle_paces.take(member.handle)
            self._network_paces.take(member.network)
            await self._ask(lobby, ask)

    def _too_fast(self, lobby: Lobby, whose: str) -> None:
        member = lobby.member
        log.warning(
            "refused an ask of %s from %s: past %s pace",
            member.handle,
            member.peer,
            whose,
            extra={"peer": member.peer},
        )
        lobby.send(Said(TOO_FAST))

    async def _ask(self, lobby: Lobby, ask: LobbyAsk) -> None:
        member, tables, here = lobby.member, self.tables, self.tables.by_id
        match ask:
            case OpenTable() | SitAt() | QuickPair() if tables.seat_back(lobby):
                pass  # a seat of theirs waits for them (its session lost): back to it
            case OpenTable(rated, matches, game):
                await tables.open(lobby, rated=rated, matches=matches, variant=variant(game))
            case SitAt(table) if self.cluster is not None and table not in here:
                busy = tables.busy(member.handle)
                lobby.send(self.cluster.sit(member.handle, member.guest, table, busy))
            case WatchTable(table) if self.cluster is not None and table not in here:
                lobby.send(self.cluster.watch(table))
            case SitAt(table):
                tables.sit(lobby, here.get(table))
            case QuickPair(game):
                await tables.pair(lobby, variant(game))
            case WatchTable(table):
                tables.watch(lobby, here.get(table))
            case CloseTable():
                await tables.close_own(member.handle)
            case Rematch():
                await tables.rematch(lobby)
            case AddKey():
                await self._key_word(lobby)
            case LobbyHello():
                lobby.send(Said("This lobby has said hello already."))

    async def _key_word(self, lobby: Lobby) -> None:
        """Give the player a one-time word for another key (`tictactoe.core.key_words`)."""
        member = lobby.member
        if member.guest:
            lobby.send(Said("A guest has no handle to add a key to: come in with a key."))
            return
        try:
            word = await asyncio.to_thread(self.record.key_word, member.handle, self.clock())
        except Exception as error:  # the record cannot be written now: said, and logged
            log.warning("could not make a key word for %s: %s", member.handle, error)
            lobby.send(Said("The club cannot reach its records just now; try again soon."))
            return
        login = f"{member.handle}{SEPARATOR}{word}"
        lobby.send(KeyWord(login, self.ssh_port, round(WORD_LIFETIME / 60)))

    # Bans.

    async def _watch_bans(self) -> None:
        while True:
            await asyncio.sleep(BANS_EVERY)
            try:
                version = await asyncio.to_thread(self.record.bans_version)
                if version == self._bans_version:
                    continue
                banned = await asyncio.to_thread(self._banned, self.clock())
            except Exception as error:  # read again at the next turn
                log.warning("the club's record could not be read: %s", error)
                continue
            self._bans_version = version
            self.tables.banned(banned)  # a ban leaves the match in play
            for member in self.members:
                until = banned.get(member.handle)
                if until is None:
                    continue
                log.warning("ended the sessions of %s: banned", member.handle)
                for lobby in list(member.lobbies):
                    lobby.send(Farewell(f"You are banned from this club {until_text(until)}."))
                    lobby.close()

    def _banned(self, now: float) -> dict[str, float]:
        """Those in the club or at its tables who are banned (in a thread), and until when."""
        handles = {member.handle for member in self.members if not member.guest}
        handles |= self.tables.players()
        banned = {handle: self.record.banned_until(handle, now) for handle in handles}
        return {handle: until for handle, until in banned.items() if until is not None}

    def _spawn(self, job: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
