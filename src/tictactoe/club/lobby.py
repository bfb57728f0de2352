"""The club's lobby and tables, on this machine's loopback: who is in, what is open, what is played.

- the SSH door asks the club (a `Gate`) who each connection is, once its login is over: the club's
  record (`ClubRecord.enter`) decides from the handle and the key; a player let in gets a secret of
  its own (`CLUB_TOKEN`, in its game's environment), which its game shows the lobby to be known;
- each player's game keeps one lobby websocket (`/lobby`): it is sent a `Snapshot` of the lobby
  after every change (at once; the changes within `PUBLISH_AFTER` seconds after it, together),
  and only when what it shows has changed; the club sends at most `lobby_rate` of them a second
  (a busy club's lobbies, each drawing every change, would take the tables' share of the
  machine): past it, each lobby in turn, except for a change in what it shows of its player
  (sent at once); it asks to open a table, sit, be paired, watch, or
  take its table back (`tictactoe.online.lobby`), at most `ASKS` a second (past that, an ask is
  not done, and the player is told); anything malformed closes the lobby;
- each table is an `Authority` served by an `AuthorityServer` of its own (`tictactoe.host.server`)
  on a loopback port: the opener holds seat 0 with the table's host token, the one who sits seat 1
  with the table's door key, watchers come later with the same key. Only the lobby hands them out;
- every finished match of a rated table is written, with both ratings, in one transaction
  (`ClubRecord.finish`), and every lobby is told; a table of N matches ends after the Nth; a
  seat away past its grace loses the match in progress, and the series ends;
- after a series, either player may offer the other a rematch (`Rematch`): a table like the last,
  kept for the other, who takes it with the same ask; the offer lapses when the other leaves the
  club or goes to another table. A signed-in player may ask for a one-time word (`AddKey`):
  the next login as `HANDLE+WORD` adds the key it signs in with (`tictactoe.core.key_words`);
- bans are read from the record every `BANS_EVERY` seconds: a banned player's lobby is told
  `Farewell` (its game ends, saying so);
- what one player, one address, may do is bounded (`tictactoe.club.bounds`): guests at once, asks
  a second, tables waiting; every refusal is one line in the log;
- the record is read and written in threads (`tictactoe.club.calls`): a slow one delays its
  answer, never the lobbies and tables; finished matches are written in the order they finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import os
import secrets
import time
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from aiohttp import WSMsgType, web

from tictactoe.club.bounds import (
    ASKS_PER_HANDLE,
    ASKS_PER_NETWORK,
    GUESTS_PER_NETWORK,
    TOO_MANY_GUESTS,
    Paces,
)
from tictactoe.club.calls import InOrder, Reads
from tictactoe.club.capacity import GuestDoor
from tictactoe.club.guidance import SEATED_ELSEWHERE, guest_welcome, unrated_pair
from tictactoe.club.names import about_the_name
from tictactoe.core.club import (
    BOTH_AWAY,
    START,
    Entry,
    Rating,
    closest,
    is_guest,
    left_text,
    loses_by_leaving,
    until_text,
)
from tictactoe.core.codes import new_code
from tictactoe.core.key_words import SEPARATOR, WORD_LIFETIME
from tictactoe.core.series import FinishedMatch, Series
from tictactoe.doors.bounds import Bucket, printable
from tictactoe.doors.ssh.gate import Admission
from tictactoe.doors.throttle import Throttle
from tictactoe.host.server import AuthorityServer
from tictactoe.online.authority import Authority
from tictactoe.online.lobby import (
    MAX_LOBBY_ASK,
    MAX_LOBBY_MESSAGE,
    WATCHER_NAME,
    AddKey,
    CloseTable,
    Farewell,
    GoTo,
    KeyWord,
    LadderLine,
    LobbyAsk,
    LobbyHello,
    LobbyNews,
    OpenTable,
    PastMatch,
    ProtocolError,
    QuickPair,
    Rematch,
    Said,
    SitAt,
    Snapshot,
    TableRow,
    WatchTable,
    You,
    lobby_json,
    parse_ask,
    shared_json,
    snapshot_json,
)
from tictactoe.online.protocol import State
from tictactoe.record.club_store import ClubStore
from tictactoe.record.match import MatchRecord

if TYPE_CHECKING:
    from tictactoe.club.cluster import Cluster

__all__ = ["CLUB_TOKEN", "WATCHER_NAME", "Club"]

log = logging.getLogger("tictactoe.online")

CLUB_TOKEN: Final = "TICTACTOE_CLUB_TOKEN"
"""The variable that carries a player's secret to the game the door starts for them."""

PUBLISH_AFTER: Final = 0.1
"""Seconds after the lobbies are told a change before they are told the next: a change is told
at once, and those that follow it within these seconds together, after them."""
LOBBY_DRAW: Final = 0.02
"""Seconds of CPU a player's game spends drawing a snapshot in its lobby, in a busy club
(`bench_club.py --busy`: 20-40 ms, a snapshot gathering several changes, among 200 games on 2
cores; a new table in a quiet club, 8 ms; one lobby alone, `bench_lobby_redraw.py`, 6-10 ms)."""
LOBBIES_SHARE: Final = 0.25
"""The share of the machine's cores the lobbies' drawing may take in a busy club: the rest is
for the tables, whose moves must stay instant, the players' own screens, and the club. Less
keeps a busy club's moves faster and its lobbies further behind (benchmarks/README.md, "A busy
club")."""
LOBBIES_BURST: Final = 40.0
"""Seconds' worth of snapshots sent at once after a quiet while: a change in a quiet club
reaches every lobby at once (1,000 on 2 cores: five changes on 200 lobbies)."""
HELLO_WITHIN: Final = 5.0
ASKS: Final = 5.0
"""What a lobby may ask a second, in bursts of as many; past it, an ask is not done."""
TOO_FAST: Final = "Too many requests at once: wait a moment."
OUTBOX: Final = 16
"""Messages waiting for a lobby that does not read them; past this, it is closed."""
BANS_EVERY: Final = 1.0
LADDER_SHOWN: Final = 20
RECENT_SHOWN: Final = 10
ENDED_TABLE_KEPT: Final = 1.0
"""Seconds an ended table's authority stays up for its last words to reach its links."""


def lobby_rate(cores: int) -> float:
    """How many snapshots the club sends its lobbies a second, on `cores` cores, unless its owner
    says (`--lobby-pace`): as many as the players' games can draw with the lobbies' share of the
    machine (2 cores: 25 a second)."""
    return max(1, cores) * LOBBIES_SHARE / LOBBY_DRAW


def lobby_pace(rate: float) -> Bucket:
    """The club's lobbies sent `rate` snapshots a second, in bursts of `LOBBIES_BURST` seconds'
    worth. A change in a quiet club reaches that many lobbies at once; in a busy one, once the
    burst is spent, each lobby owed a snapshot is sent one in turn (200 lobbies owed, at 25 a
    second: one each 8 s), the changes meanwhile together, and the load of drawing them is
    spread over time instead of coming all at once."""
    return Bucket(rate, burst=rate * LOBBIES_BURST)


@dataclass(eq=False)
class _Member:
    """One logged-in connection: who it is, and its lobbies."""

    handle: str
    guest: bool
    peer: str
    lobbies: set[_Lobby] = field(default_factory=set)
    said: str | None = None
    """What its first lobby is told once it opens (the key its login added)."""

    @property
    def network(self) -> str:
        """Whom the club's bounds count the member as (`Throttle.network`)."""
        return Throttle.network(self.peer)


_Own = tuple[You, tuple[PastMatch, ...]]
"""What a lobby shows of its player alone (`Club._own_part`)."""


@dataclass(eq=False)
class _Lobby:
    """One lobby websocket."""

    member: _Member
    ws: web.WebSocketResponse
    outbox: asyncio.Queue[LobbyNews | None] = field(
        default_factory=lambda: asyncio.Queue(maxsize=OUTBOX + 2)
    )
    stale: bool = False
    """A snapshot is owed (sent with what is true when it goes)."""
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    closing: bool = False
    shown: str = ""
    """The last snapshot sent, as sent: one the same is not sent again (a move at a table, or
    an arrival, changes nothing most lobbies show)."""
    own: _Own | None = None
    """What the last snapshot sent showed of the player alone: a change in it is sent at once,
    others' changes in turn (`Club.pace`)."""
    due: asyncio.TimerHandle | None = None
    """The wake-up at this lobby's turn, for the snapshot it is owed."""
    turn: bool = False
    """Its turn has come: the snapshot owed goes."""


@dataclass(eq=False)
class _Table:
    """One table: its authority and server, and who opened it and who sat."""

    id: str
    opener: str
    rated: bool
    matches: int | None
    server: AuthorityServer
    host_token: str
    door_key: str
    sitter: str | None = None
    kept_for: str | None = None
    """The only player who may sit: a rematch offered to them."""
    recorded: int = 0
    """Finished matches of its series handed to the record."""
    ending: bool = False
    told: tuple[object, ...] = ()
    """What the lobbies were last told of it (`shown`)."""

    @property
    def authority(self) -> Authority:
        return self.server.authority

    def shown(self) -> tuple[object, ...]:
        """What the lobbies (and the other processes of a club) show of it: whether it is in
        play, the score, the watchers, a seat away; none of a series' moves."""
        authority = self.authority
        series, away = authority.series, authority.away
        score = None if series is None else (series.wins, series.draws)
        return (self.ending, score, authority.watchers, None if away is None else away.name)

    @property
    def playing(self) -> bool:
        """Whether both seats are taken (the series exists)."""
        return self.authority.series is not None


@dataclass(frozen=True)
class _Shared:
    """The part of the lobby every lobby shows alike, serialised once (`shared_json`)."""

    published: int
    """The change it was made after (`Club._published`)."""
    text: str
    waiting: dict[str, str]
    """The open table each opener waits at, by handle."""
    involved: frozenset[str]
    """Those a table is kept for (a rematch), and its openers: their lists differ."""


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
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        self.pace = pace or lobby_pace(lobby_rate(cores or 1))
        """The snapshots sent to lobbies for others' changes, a second (`lobby_pace`)."""
        self.cluster = cluster
        """This process's part in a club of several processes (`tictactoe.club.cluster`)."""
        self.grace = grace
        """Seconds a seat whose link dropped is kept for its player."""
        self.clock = clock
        """Wall-clock time, as the record keeps it."""
        self.app = web.Application()
        self.app.router.add_get("/lobby", self._handle)
        self._members: dict[str, _Member] = {}
        """By secret."""
        self._tables: dict[str, _Table] = {}
        self._ids = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._changed = asyncio.Event()
        self._published = 0
        """Changes told to the lobbies so far: what `_shared` was made for."""
        self._shared: _Shared | None = None
        self._bans_version: int | None = None
        # What a lobby shows is shown as last read while it is read again (`Reads.stale`): a
        # lobby is told of a new table without waiting for the ladder's reading.
        self._ladder: Reads[None, tuple[LadderLine, ...]] = Reads(self._read_ladder, self.changed)
        self._ratings: Reads[str, Rating] = Reads(self.record.rating, self.changed)
        self._recent: Reads[str, tuple[PastMatch, ...]] = Reads(self._read_recent, self.changed)
        self._writes = InOrder()
        """Finished matches being written, in the order they finished."""
        self._guests_entering: dict[str, int] = {}
        """By network: guests whose entry the record is making."""
        self._opening: set[str] = set()
        """Handles whose table is being opened."""
        self._handle_paces = Paces(ASKS_PER_HANDLE)
        self._network_paces = Paces(ASKS_PER_NETWORK)
        self._last: dict[str, tuple[str, bool, int | None, str]] = {}
        """Each player's last series with both seats taken: the other, rated, its length."""
        self._stopping = False
        self.guest_door = GuestDoor()
        """The guests' share of the club's places and their pace (`tictactoe.club.capacity`)."""
        self.ssh_port: int | None = None
        """The port players come in at, for the line a one-time word is typed with."""

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
        self._bans_version = await asyncio.to_thread(self.record.bans_version)
        self._spawn(self._publish())
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
        await asyncio.gather(*(table.server.stop(text) for table in self._tables.values()))
        for member in self._members.values():
            for lobby in list(member.lobbies):
                self._send(lobby, Farewell(text))
                self._close(lobby)
        for task in self._tasks:
            task.cancel()
        await self._writes.drain()  # nothing finished is lost
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # The gate: who a connection is.

    async def fits(self, user: str, key: str, peer: str) -> str | None:
        refusal = await asyncio.to_thread(self.record.would_refuse, user, key, peer, self.clock())
        return about_the_name(user, refusal)  # a name no key can have is said to any client

    async def enter(self, user: str, key: str | None, peer: str) -> Admission:
        guest = key is None or is_guest(user)
        network = Throttle.network(peer)
        if guest:
            entering = self._guests_entering.get(network, 0)
            here = sum(1 for m in self._members.values() if m.guest and m.network == network)
            if entering + here >= GUESTS_PER_NETWORK:
                return Admission(printable(user, 40), refusal=TOO_MANY_GUESTS)
            # The guests' share of the club's places, and their pace (`club.capacity`).
            guests = sum(m.guest for m in self._members.values())
            turn = self.guest_door.turn(guests + sum(self._guests_entering.values()))
            if turn.refusal is not None:
                return Admission(printable(user, 40), refusal=turn.refusal)
            self._guests_entering[network] = entering + 1
        try:
            if guest and turn.wait:
                await asyncio.sleep(turn.wait)
            entry = await asyncio.to_thread(self._enter, user, key, peer)
        finally:
            if guest:
                self._guests_entering[network] -= 1
                if not self._guests_entering[network]:
                    del self._guests_entering[network]
        if entry.refusal is not None:
            return Admission(printable(user, 40), refusal=entry.refusal)
        token = secrets.token_urlsafe(24)
        said = guest_welcome(user, self.ssh_port) if entry.guest and key is None else entry.said
        self._members[token] = _Member(entry.handle, entry.guest, peer, said=said)
        self._ratings.put(entry.handle, entry.rating)
        games = 1 if entry.guest else None  # a guest's one game counts in the guests' share
        return Admission(entry.handle, environment={CLUB_TOKEN: token}, games=games)

    def _enter(self, user: str, key: str | None, peer: str) -> Entry:
        """The record's entry (in a thread): a guest's handle is none of those in the club."""
        online = {member.handle for member in list(self._members.values())}
        return self.record.enter(user, key, peer, self.clock(), taken=online)

    def left(self, admission: Admission) -> None:
        token = admission.environment.get(CLUB_TOKEN)
        member = self._members.pop(token, None) if token is not None else None
        if member is not None and not self._online(member.handle):
            self._ratings.forget(member.handle)
            self._recent.forget(member.handle)
            self._last.pop(member.handle, None)

    def _online(self, handle: str) -> bool:
        return any(member.handle == handle for member in self._members.values())

    # Each lobby.

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=MAX_LOBBY_ASK, timeout=0.5)
        await ws.prepare(request)
        try:
            first = await ws.receive(timeout=HELLO_WITHIN)
            hello = parse_ask(first.data) if first.type is WSMsgType.TEXT else None
        except (TimeoutError, ProtocolError):
            hello = None
        member = self._members.get(hello.token) if isinstance(hello, LobbyHello) else None
        if member is None or self._stopping:
            log.warning("a lobby link without a player's secret was closed")
            await ws.close()
            return ws
        lobby = _Lobby(member, ws)
        member.lobbies.add(lobby)
        writer = asyncio.create_task(self._write(lobby))
        lobby.stale = True
        lobby.wake.set()
        if member.said is not None:
            self._send(lobby, Said(printable(member.said, 200)))
            member.said = None
        self._seat_back(lobby, tell=True)
        try:
            await self._serve(lobby)
        finally:
            member.lobbies.discard(lobby)
            self._close(lobby)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(writer, 1.0)
            await ws.close()
            if not member.lobbies:
                self._gone(member.handle)
        return ws

    async def _serve(self, lobby: _Lobby) -> None:
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

    def _too_fast(self, lobby: _Lobby, whose: str) -> None:
        member = lobby.member
        log.warning(
            "refused an ask of %s from %s: past %s pace",
            member.handle,
            member.peer,
            whose,
            extra={"peer": member.peer},
        )
        self._send(lobby, Said(TOO_FAST))

    async def _ask(self, lobby: _Lobby, ask: LobbyAsk) -> None:
        member = lobby.member
        match ask:
            case OpenTable() | SitAt() | QuickPair() if self._seat_back(lobby):
                pass  # a seat of theirs waits for them (its session lost): back to it
            case OpenTable(rated, matches):
                await self._open(lobby, rated=rated and not member.guest, matches=matches)
            case SitAt(table) if self.cluster is not None and table not in self._tables:
                busy = self._busy(member.handle)
                self._send(lobby, self.cluster.sit(member.handle, member.guest, table, busy))
            case WatchTable(table) if self.cluster is not None and table not in self._tables:
                self._send(lobby, self.cluster.watch(table))
            case SitAt(table):
                self._sit(lobby, self._tables.get(table))
            case QuickPair():
                await self._pair(lobby)
            case WatchTable(table):
                self._watch(lobby, self._tables.get(table))
            case CloseTable():
                await self._close_own(member.handle)
            case Rematch():
                await self._rematch(lobby)
            case AddKey():
                await self._key_word(lobby)
            case LobbyHello():
                self._send(lobby, Said("This lobby has said hello already."))

    def _busy(self, handle: str) -> str | None:
        """Why `handle` may not open or sit at a table now, or None."""
        if handle in self._opening:
            return "You are waiting at your own table already (c takes it back)."
        for table in self._tables.values():
            if table.ending:
                continue
            if table.opener == handle and not table.playing:
                return "You are waiting at your own table already (c takes it back)."
            if handle in (table.opener, table.sitter):
                return SEATED_ELSEWHERE
        return None if self.cluster is None else self.cluster.busy(handle)

    async def _open(
        self,
        lobby: _Lobby,
        *,
        rated: bool,
        matches: int | None,
        kept_for: str | None = None,
        opens: int = 0,
    ) -> None:
        handle = lobby.member.handle
        busy = self._busy(handle)
        if busy is not None:
            self._send(lobby, Said(busy))
            return
        number = next(self._ids)
        table_id = str(number) if self.cluster is None else self.cluster.table_id(number)
        code, host_token, door_key = (
            new_code(),
            secrets.token_urlsafe(24),
            secrets.token_urlsafe(24),
        )
        authority = Authority(code, handle, host_token=host_token, grace=self.grace, opens=opens)
        server = AuthorityServer(authority, Throttle(), door_key=door_key)
        table = _Table(table_id, handle, rated, matches, server, host_token, door_key)
        table.kept_for = kept_for
        server.on_change = lambda state: self._table_changed(table, state)
        self._opening.add(handle)  # one table waiting, however many lobbies ask
        try:
            await server.start("127.0.0.1" if self.cluster is None else self.cluster.address)
            refused = None
            if self.cluster is not None:  # one table a handle, club-wide
                refused = await self.cluster.register(table, lobby.member.guest)
        finally:
            self._opening.discard(handle)
        if refused is not None:
            table.ending = True
            await server.stop(refused)
            self._send(lobby, Said(refused))
            return
        self._tables[table_id] = table
        self._lapse(handle, f"{handle} opened a table: the rematch offer lapsed.")
        self._send(lobby, self._goto(table, handle))
        self.changed()

    def _goto(self, table: _Table, handle: str | None) -> GoTo:
        """What `handle` (None: a watcher) says hello with at `table`."""
        url = table.server.url if self.cluster is None else self.cluster.url(table.server.port)
        if handle is None:
            return GoTo(
                table.id,
                url,
                table.authority.code,
                WATCHER_NAME,
                "watcher",
                door_key=table.door_key,
            )
        if handle == table.opener:
            return GoTo(
                table.id,
                url,
                table.authority.code,
                handle,
                "seat",
                host_token=table.host_token,
            )
        return GoTo(
            table.id,
            url,
            table.authority.code,
            handle,
            "seat",
            door_key=table.door_key,
        )

    def _sit(self, lobby: _Lobby, table: _Table | None) -> None:
        handle = lobby.member.handle
        if table is None or table.ending or table.sitter is not None:
            self._send(lobby, Said("That table is not open any more."))
            return
        if table.opener == handle:
            self._send(lobby, Said("That is your own table: wait there for someone to sit."))
            return
        if table.kept_for not in (None, handle):
            self._send(lobby, Said(f"That table is kept for {table.kept_for}: a rematch."))
            return
        busy = self._busy(handle)
        if busy is not None:
            self._send(lobby, Said(busy))
            return
        guest = lobby.member.guest
        refused = None if self.cluster is None else self.cluster.claim(table.id, handle, guest)
        if refused is not None:
            self._send(lobby, Said(refused))
            return
        table.sitter = handle
        if guest:
            table.rated = False  # a guest's games are unrated
        self._lapse(handle, f"{handle} sat at another table: the rematch offer lapsed.")
        self._send(lobby, self._goto(table, handle))
        self.changed()

    async def _pair(self, lobby: _Lobby) -> None:
        member = lobby.member
        mine = await self._ratings.load(member.handle)
        for opener in {table.opener for table in self._tables.values() if table.sitter is None}:
            await self._ratings.load(opener)
        waiting = [
            (table, self._ratings.get(table.opener) or START)
            for table in self._tables.values()
            if table.sitter is None
            and not table.ending
            and table.opener != member.handle
            and table.kept_for is None
        ]
        # Rated tables first for a player with a handle, unrated ones for a guest (`guidance`).
        table = closest(mine, [(each, r) for each, r in waiting if each.rated != member.guest])
        unlike = table is None and not member.guest
        table = table or closest(mine, waiting)
        if table is None:
            await self._open(lobby, rated=not member.guest, matches=None)
            self._send(lobby, Said("Nobody is waiting: your table is open."))
        else:
            self._sit(lobby, table)
            if unlike and table.sitter == member.handle:
                self._send(lobby, Said(unrated_pair(table.opener)))

    def _watch(self, lobby: _Lobby, table: _Table | None) -> None:
        if table is None or table.ending or not table.playing:
            self._send(lobby, Said("That table is not in play."))
            return
        self._send(lobby, self._goto(table, None))

    async def _close_own(self, handle: str) -> None:
        """`handle`'s open table, nobody at it yet, closes."""
        for table in list(self._tables.values()):
            if table.opener == handle and table.sitter is None and not table.ending:
                table.ending = True
                await table.server.stop("The table was closed.")
                self._tables.pop(table.id, None)
                self.changed()

    def _gone(self, handle: str) -> None:
        """`handle` has no lobby left: a table of theirs nobody sat at closes, and so does a
        rematch kept for them."""
        if not any(member.handle == handle and member.lobbies for member in self._members.values()):
            self._spawn(self._close_own(handle))
            self._lapse(handle, f"{handle} left the club: the rematch offer lapsed.")

    # Rematches and keys.

    async def _rematch(self, lobby: _Lobby) -> None:
        """Take the rematch offered to this player, or offer one to their last opponent."""
        member = lobby.member
        for table in self._tables.values():
            if table.kept_for == member.handle and table.sitter is None and not table.ending:
                self._sit(lobby, table)
                return
        last = self._last.get(member.handle)
        if last is None:
            self._send(lobby, Said("There is nobody to offer a rematch to: play a series first."))
            return
        other, rated, matches, chose_first = last
        if not any(each.handle == other and each.lobbies for each in self._members.values()):
            self._send(lobby, Said(f"{other} is not in the club now."))
        elif self._busy(other) is not None:
            self._send(lobby, Said(f"{other} is at a table now."))
        else:
            opens = 1 if chose_first == member.handle else 0  # the chooser takes turns
            await self._open(
                lobby,
                rated=rated and not member.guest,
                matches=matches,
                kept_for=other,
                opens=opens,
            )

    def _lapse(self, handle: str, text: str) -> None:
        """Rematches kept for `handle` close, their openers told `text`."""
        for table in list(self._tables.values()):
            if table.kept_for == handle and table.sitter is None and not table.ending:
                table.ending = True
                self._tables.pop(table.id, None)
                self._spawn(table.server.stop(text))
                self.changed()

    async def _key_word(self, lobby: _Lobby) -> None:
        """Give the player a one-time word for another key (`tictactoe.core.key_words`)."""
        member = lobby.member
        if member.guest:
            self._send(lobby, Said("A guest has no handle to add a key to: come in with a key."))
            return
        try:
            word = await asyncio.to_thread(self.record.key_word, member.handle, self.clock())
        except Exception as error:  # the record cannot be written now: said, and logged
            log.warning("could not make a key word for %s: %s", member.handle, error)
            self._send(lobby, Said("The club cannot reach its records just now; try again soon."))
            return
        login = f"{member.handle}{SEPARATOR}{word}"
        self._send(lobby, KeyWord(login, self.ssh_port, round(WORD_LIFETIME / 60)))

    def _seat_back(self, lobby: _Lobby, *, tell: bool = False) -> bool:
        """A player whose seat is away (a dropped link) is sent back to it; one whose seat is
        held by another of their sessions is told so (`SEATED_ELSEWHERE`) when `tell`. Whether
        sent back."""
        handle = lobby.member.handle
        for table in self._tables.values():
            away = table.authority.away
            if not table.ending and away is not None and away.name == handle:
                self._send(lobby, self._goto(table, handle))
                return True
        goto = None if self.cluster is None else self.cluster.seat_back(handle)
        if goto is not None:
            self._send(lobby, goto)
        elif tell and any(
            table.playing and not table.ending and handle in (table.opener, table.sitter)
            for table in self._tables.values()
        ):
            self._send(lobby, Said(SEATED_ELSEWHERE))
        return goto is not None

    # The tables.

    def _table_changed(self, table: _Table, state: State) -> None:
        series = state.series
        if series is not None:
            for finished in series.finished[table.recorded :]:
                self._finished(table, MatchRecord.of(series.players, finished))
                table.recorded += 1
            if table.matches is not None and len(series.finished) >= table.matches:
                played = "1 match" if table.matches == 1 else f"{table.matches} matches"
                self._end(table, f"The series of {played} is over.")
        away = table.authority.away
        if series is not None and away is not None and away.seconds_left <= 0:
            if table.authority.everyone_away:  # nobody's loss: the match in play is aborted
                self._end(table, BOTH_AWAY)
            else:
                self._forfeit(table, series, away.seat)
                self._end(table, f"{away.name} did not come back in time: the series is over.")
        if table.authority.ended is not None:
            left = table.authority.left
            if series is not None and left is not None:
                self._forfeit(table, series, left)
            self._end(table, table.authority.ended.text)
        shown = table.shown()
        if shown != table.told:  # a move alone changes nothing a lobby shows
            table.told = shown
            self.changed()

    def _forfeit(self, table: _Table, series: Series, seat: int) -> None:
        """The seat `seat` left the match in play (`q`, a ban, its grace run out): its loss once
        both players have moved (`loses_by_leaving`), else aborted; both players are told which.
        Nothing is written for a table already ending (a match is lost once)."""
        match, marks = series.match, series.marks
        if table.ending or match is None or marks is None or match.is_over:
            return
        lost = loses_by_leaving(len(match.moves), match.is_over)
        names = (table.opener, table.sitter or "?")
        told = left_text(names[seat], names[1 - seat], lost)
        for handle in names:
            self._tell(handle, told)
        if not lost:
            return
        first = FinishedMatch(match, marks).first_mover
        record = MatchRecord(series.players, marks, first, match.moves, 1 - seat)
        self._finished(table, record)

    def _tell(self, handle: str, text: str) -> None:
        """Say `text` in every lobby of `handle`'s."""
        for member in self._members.values():
            if member.handle == handle:
                for lobby in member.lobbies:
                    self._send(lobby, Said(printable(text, 200)))

    def _finished(self, table: _Table, match: MatchRecord) -> None:
        """Write `match` (in a thread, after those finished before it); then every lobby is
        told."""
        players = (table.opener, table.sitter or "")
        finish = functools.partial(
            self.record.finish, table.id, players, table.rated, match, match.winner, self.clock()
        )

        def written(ratings: tuple[Rating, Rating] | None) -> None:
            if ratings is not None:
                for handle, rating in zip(players, ratings, strict=True):
                    self._ratings.put(handle, rating)
                self._ladder.stale(None)
            for handle in players:
                self._recent.stale(handle)
            self.changed()

        self._writes.call(finish, written)

    def _end(self, table: _Table, text: str) -> None:
        if table.ending:
            return
        table.ending = True
        if table.sitter is not None:
            log.info("table %s of %s and %s ended: %s", table.id, table.opener, table.sitter, text)
        if table.sitter is not None:  # either may offer the other a rematch
            chose_first = (table.opener, table.sitter)[table.authority.opens]
            last = (table.rated, table.matches, chose_first)
            self._last[table.opener] = (table.sitter, *last)
            self._last[table.sitter] = (table.opener, *last)

        async def end() -> None:
            await table.server.stop(text)
            await asyncio.sleep(ENDED_TABLE_KEPT)
            self._tables.pop(table.id, None)
            self.changed()

        self._spawn(end())

    # Telling the lobbies.

    def changed(self) -> None:
        """Something every lobby shows has changed: a snapshot goes to each, soon."""
        self._changed.set()
        if self.cluster is not None:
            self.cluster.changed(self._tables.values())

    def forget_cached(self, handles: Iterable[str] | None = None) -> None:
        """A match was written (of `handles`; None: of anyone, or a notice may have been lost):
        the ladder, and their ratings and recent matches, are read again."""
        self._ladder.stale(None)
        if handles is None:
            self._ratings.stale_all()
            self._recent.stale_all()
        for handle in handles or ():
            self._ratings.stale(handle)
            self._recent.stale(handle)
        self.changed()

    async def _publish(self) -> None:
        while True:
            await self._changed.wait()
            self._changed.clear()
            self._published += 1
            for member in self._members.values():
                for lobby in member.lobbies:
                    lobby.stale = True
                    lobby.wake.set()
            await asyncio.sleep(PUBLISH_AFTER)

    def snapshot(self, handle: str, guest: bool) -> Snapshot:
        """The lobby as `handle` sees it now."""
        open_rows, playing_rows = [], []
        waiting_at = waiting_for = offered_by = None
        for table in self._tables.values():
            if table.ending:
                continue
            if table.playing:
                playing_rows.append(self._playing_row(table))
            elif table.sitter is None:
                if table.opener == handle:
                    waiting_at, waiting_for = table.id, table.kept_for
                elif table.kept_for == handle:
                    offered_by = table.opener
                elif table.kept_for is not None:
                    continue  # a rematch kept for someone else
                open_rows.append(self._open_row(table, rematch=table.kept_for == handle))
        if self.cluster is not None:
            elsewhere_open, elsewhere_playing = self.cluster.rows()
            open_rows += elsewhere_open
            playing_rows += elsewhere_playing
        rating = "" if guest else self._rating(handle)
        return Snapshot(
            You(handle, guest, rating, waiting_at, waiting_for, offered_by),
            open=tuple(open_rows[:200]),
            playing=tuple(playing_rows[:200]),
            ladder=self._ladder.get(None) or (),
            recent=() if guest else (self._recent.get(handle) or ()),
        )

    def _playing_row(self, table: _Table) -> TableRow:
        series = table.authority.series
        assert series is not None
        wins = series.wins
        return TableRow(
            table.id,
            (table.opener, table.sitter or "?"),
            table.rated,
            table.matches,
            score=(wins[0], wins[1], series.draws),
            watchers=table.authority.watchers,
        )

    def _open_row(self, table: _Table, *, rematch: bool) -> TableRow:
        rating = "" if is_guest(table.opener) else self._rating(table.opener)
        return TableRow(
            table.id, (table.opener,), table.rated, table.matches, rating, rematch=rematch
        )

    def _snapshot_text(self, handle: str, guest: bool, own: _Own) -> str:
        """`lobby_json(self.snapshot(handle, guest))`, the same text, with the part every lobby
        shares (the tables, the ladder) made and serialised once a change (`_shared_part`): only
        a player's own part (`own`, from `_own_part`) is made for each lobby."""
        shared = self._shared_part()
        if handle in shared.involved:  # a rematch is offered to them, or by them: their own list
            return lobby_json(self.snapshot(handle, guest))
        you, recent = own
        return snapshot_json(you, recent, shared.text)

    def _own_part(self, handle: str, guest: bool) -> _Own:
        """What `handle`'s lobby shows of the player alone: who, the rating, the table waited at
        or the rematch offered, the recent matches (a change in it is sent at once)."""
        shared = self._shared_part()
        if handle in shared.involved:
            snapshot = self.snapshot(handle, guest)
            return snapshot.you, snapshot.recent
        rating = "" if guest else self._rating(handle)
        you = You(handle, guest, rating, shared.waiting.get(handle))
        return you, () if guest else (self._recent.get(handle) or ())

    def _shared_part(self) -> _Shared:
        """What every lobby's snapshot shows alike, as of the last change told (made once)."""
        if self._shared is not None and self._shared.published == self._published:
            return self._shared
        open_rows, playing_rows = [], []
        waiting: dict[str, str] = {}
        involved: set[str] = set()
        for table in self._tables.values():
            if table.ending:
                continue
            if table.playing:
                playing_rows.append(self._playing_row(table))
            elif table.sitter is None:
                if table.kept_for is not None:
                    involved.update((table.opener, table.kept_for))
                    continue
                waiting[table.opener] = table.id
                open_rows.append(self._open_row(table, rematch=False))
        if self.cluster is not None:
            elsewhere_open, elsewhere_playing = self.cluster.rows()
            open_rows += elsewhere_open
            playing_rows += elsewhere_playing
        text = shared_json(
            tuple(open_rows[:200]), tuple(playing_rows[:200]), self._ladder.get(None) or ()
        )
        self._shared = _Shared(self._published, text, waiting, frozenset(involved))
        return self._shared

    async def _read_for(self, handle: str, guest: bool) -> None:
        """Read what `handle`'s snapshot shows from the record (in threads), unless kept."""
        openers = {table.opener for table in self._tables.values() if table.sitter is None}
        if not guest:
            openers.add(handle)
            await self._recent.load(handle)
        for each in openers:
            await self._ratings.load(each)
        await self._ladder.load(None)

    def _rating(self, handle: str) -> str:
        """`handle`'s rating as shown, as read (`_read_for`)."""
        return (self._ratings.get(handle) or START).shown

    def _read_ladder(self, _: None) -> tuple[LadderLine, ...]:
        return tuple(
            LadderLine(
                row.rank,
                row.handle,
                row.rating.shown,
                row.matches,
                row.wins,
                row.draws,
                row.losses,
            )
            for row in self.record.ladder(LADDER_SHOWN)
        )

    def _read_recent(self, handle: str) -> tuple[PastMatch, ...]:
        return tuple(
            PastMatch(
                (match.players[0].name, match.players[1].name),
                "".join(match.marks),
                match.first_mover,
                match.moves,
                match.winner,
                rated,
                None if match.finished_at is None else match.finished_at.timestamp(),
            )
            for match, rated in self.record.recent_rated(handle, RECENT_SHOWN)
        )

    def _send(self, lobby: _Lobby, news: LobbyNews) -> None:
        if lobby.closing:
            return
        if isinstance(news, Said) and lobby.outbox.qsize() >= OUTBOX // 2:
            return  # a word among many already waiting: left out, never a reason to close
        try:
            lobby.outbox.put_nowait(news)
        except asyncio.QueueFull:
            self._close(lobby)
            return
        if lobby.outbox.qsize() > OUTBOX:
            log.warning("closed the lobby of %s: it does not read", lobby.member.handle)
            self._close(lobby)
        lobby.wake.set()

    def _close(self, lobby: _Lobby) -> None:
        if not lobby.closing:
            lobby.closing = True
            with contextlib.suppress(asyncio.QueueFull):
                lobby.outbox.put_nowait(None)
            lobby.wake.set()

    async def _write(self, lobby: _Lobby) -> None:
        """Send `lobby` its news in order, and the snapshot it is owed (as it is when sent)."""
        try:
            while True:
                await lobby.wake.wait()
                lobby.wake.clear()
                while not lobby.outbox.empty():
                    news = lobby.outbox.get_nowait()
                    if news is None:
                        return
                    await lobby.ws.send_str(lobby_json(news))
                if lobby.stale and not lobby.closing:
                    member = lobby.member
                    try:  # what the snapshot shows is read before any of it is made
                        await self._read_for(member.handle, member.guest)
                    except Exception as error:  # shown as far as it was read; said in the log
                        log.warning("the club's record could not be read: %s", error)
                    if lobby.closing:
                        continue
                    own = self._own_part(member.handle, member.guest)
                    if lobby.turn:
                        lobby.turn = False
                    elif own != lobby.own:
                        pass  # the player's own change goes at once (its turn is kept)
                    elif lobby.due is not None:
                        continue  # others' changes wait for this lobby's turn
                    elif late := self.pace.take():
                        loop = asyncio.get_running_loop()
                        lobby.due = loop.call_later(late, self._due, lobby)
                        continue
                    lobby.stale = False
                    text = self._snapshot_text(member.handle, member.guest, own)
                    if text != lobby.shown and len(text.encode()) <= MAX_LOBBY_MESSAGE:
                        lobby.shown, lobby.own = text, own
                        await lobby.ws.send_str(text)
        except (ConnectionError, RuntimeError):
            pass
        finally:
            if lobby.due is not None:
                lobby.due.cancel()
            await lobby.ws.close()

    @staticmethod
    def _due(lobby: _Lobby) -> None:
        """A lobby's turn has come: the snapshot it is owed goes."""
        lobby.due = None
        lobby.turn = True
        lobby.wake.set()

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
            for table in list(self._tables.values()):  # a ban leaves the match in play
                series = table.authority.series
                for seat, handle in enumerate((table.opener, table.sitter)):
                    if handle in banned and series is not None and not table.ending:
                        self._forfeit(table, series, seat)
                        self._end(table, f"{handle} was banned: the series is over.")
            for member in list(self._members.values()):
                until = banned.get(member.handle)
                if until is None:
                    continue
                log.warning("ended the sessions of %s: banned", member.handle)
                for lobby in list(member.lobbies):
                    self._send(
                        lobby, Farewell(f"You are banned from this club {until_text(until)}.")
                    )
                    self._close(lobby)

    def _banned(self, now: float) -> dict[str, float]:
        """Those in the club who are banned (in a thread), and until when."""
        handles = {member.handle for member in list(self._members.values()) if not member.guest}
        for table in list(self._tables.values()):  # players of this process's tables, too
            handles.update(each for each in (table.opener, table.sitter) if each is not None)
        banned = {handle: self.record.banned_until(handle, now) for handle in handles}
        return {handle: until for handle, until in banned.items() if until is not None}

    def _spawn(self, job: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
