"""PostgreSQL out of reach for 30 s, as on a real network: packets vanish, so connections stay
open and nothing answers, and a new connection is never answered (not refused at once, as when
PostgreSQL is stopped: tests/pg/test_cluster.py). Two clubs of this process reach the tests'
PostgreSQL through a relay of the test's own (`Relay`) that is switched to a black hole for 30 s,
then back, while a rated table of one process is played from the other.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import socket
import threading
import time
from collections.abc import Callable, Iterator

import asyncssh
import psycopg
import pytest

from pg.conftest import Cluster
from tictactoe.club.cluster import AWAY_REFUSAL
from tictactoe.club.link import LobbyLink
from tictactoe.club.lobby import CLUB_TOKEN, Club
from tictactoe.club.server import club_for
from tictactoe.core.engine import Mark
from tictactoe.core.series import ChooseMark, NextMatch, Phase, Play, Series
from tictactoe.link.client import AuthorityLink
from tictactoe.online.lobby import GoTo, OpenTable, SitAt, Snapshot
from tictactoe.online.protocol import Ended, Hello, State
from tictactoe.record.club_pg import PostgresClubRecord

pytestmark = pytest.mark.slow

OUTAGE = 30.0
"""Seconds PostgreSQL is out of reach."""
MOVE_WITHIN = 3.0
"""A move's generous bound, from sent to drawn on the other seat (50 ms is the club's aim)."""
LOGIN_WITHIN = 12.0
"""A login's bound during the outage: refused in one sentence, not left hanging."""
LOBBY_WITHIN = 3.0
"""A lobby's bound during the outage: a newcomer's first snapshot, a score shown."""
WRITTEN_WITHIN = 20.0
"""Seconds after the outage within which the match finished during it is written."""


class Relay:
    """A TCP relay on 127.0.0.1 to the port `target`, in threads of its own. Black-holed
    (`black_hole`), it keeps every connection open and forwards nothing, and accepts new ones
    without answering; restored (`restore`), it forwards what was held, and connects those it
    accepted meanwhile (as a network whose packets are retransmitted once it is back)."""

    def __init__(self, target: int) -> None:
        self.target = target
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self.port = int(self._listener.getsockname()[1])
        self._open = threading.Event()
        self._open.set()
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._held: list[socket.socket] = []
        self._closed = False
        self._threads = [threading.Thread(target=self._accept, name="relay-accept", daemon=True)]
        self._threads[0].start()

    def dsn(self, dsn: str) -> str:
        return dsn.replace(f":{self.target}/", f":{self.port}/")

    def black_hole(self) -> None:
        self._open.clear()

    def restore(self) -> None:
        with self._lock:
            held, self._held = self._held, []
            self._open.set()
        for client in held:
            self._forward(client)

    @property
    def connections(self) -> int:
        """Sockets open through the relay (both ends of each connection)."""
        with self._lock:
            return len(self._sockets)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            sockets = list(self._sockets)
        self._open.set()
        for each in sockets:
            self._drop(each)
        for thread in self._threads:
            thread.join(5.0)
        self._listener.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _address = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            with self._lock:
                if self._closed:
                    client.close()
                    return
                self._sockets.add(client)
                if not self._open.is_set():
                    self._held.append(client)  # accepted, never answered while black-holed
                    continue
            self._forward(client)

    def _forward(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5.0)
        except OSError:
            self._drop(client)
            return
        upstream.settimeout(None)
        with self._lock:
            if self._closed:
                upstream.close()
                return
            self._sockets.add(upstream)
            for source, sink in ((client, upstream), (upstream, client)):
                thread = threading.Thread(
                    target=self._pump, args=(source, sink), name="relay-pump", daemon=True
                )
                self._threads.append(thread)
                thread.start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                self._open.wait()  # black-holed: held, as a network holds a packet it retries
                sink.sendall(data)
        except OSError:
            pass
        finally:
            self._drop(source)
            self._drop(sink)

    def _drop(self, each: socket.socket) -> None:
        with self._lock:
            self._sockets.discard(each)
        with contextlib.suppress(OSError):
            each.shutdown(socket.SHUT_RDWR)
        each.close()


@pytest.fixture
def relay(postgres: Cluster) -> Iterator[Relay]:
    relay = Relay(postgres.port)
    try:
        yield relay
    finally:
        relay.close()


def _key_line() -> str:
    key = asyncssh.generate_private_key("ssh-ed25519")
    return key.export_public_key().decode().strip()


async def _lobby(club: Club, handle: str, peer: str) -> LobbyLink:
    admission = await club.enter(handle, _key_line(), peer)
    assert admission.refusal is None, admission.refusal
    return await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN])


async def _goto(lobby: LobbyLink) -> GoTo:
    async for news in lobby:
        if isinstance(news, GoTo):
            return news
    raise AssertionError("the lobby closed before sending its player to a table")


async def _snapshot(lobby: LobbyLink, test: Callable[[Snapshot], bool]) -> Snapshot:
    async for news in lobby:
        if isinstance(news, Snapshot) and test(news):
            return news
    raise AssertionError("the lobby closed")


def _plies(series: Series | None) -> int:
    """Moves made in the series so far (a match finished counts all its moves)."""
    if series is None:
        return -1
    done = sum(len(finished.moves) for finished in series.finished)
    return done + (len(series.match.moves) if series.match is not None else 0)


class Seat:
    """A player's seat at a table, over the table's authority link, its states read all along."""

    def __init__(self, link: AuthorityLink) -> None:
        self.link = link
        self.state: State | None = None
        self._changed = asyncio.Event()
        self._reading = asyncio.create_task(self._read())

    @classmethod
    async def take(cls, goto: GoTo) -> Seat:
        hello = Hello(
            goto.code, goto.name, "127.0.0.1", host_token=goto.host_token, door_key=goto.door_key
        )
        return cls(await AuthorityLink.open(goto.url, hello))

    async def _read(self) -> None:
        async for message in self.link:
            if isinstance(message, State):
                self.state = message
                self._changed.set()
            elif isinstance(message, Ended):
                return

    async def until(self, test: Callable[[State], bool], within: float) -> State:
        async with asyncio.timeout(within):
            while self.state is None or not test(self.state):
                self._changed.clear()
                await self._changed.wait()
        return self.state

    async def act(self, intent: ChooseMark | Play | NextMatch) -> None:
        assert self.state is not None
        await self.link.act(self.state.version, intent)

    async def close(self) -> None:
        await self.link.close()
        self._reading.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reading


async def _turn(seats: list[Seat]) -> float:
    """The seat whose turn it is plays (choosing X first when it must, unmeasured) the first
    free cell: seconds from its move sent until the other seat is shown it."""
    state = await seats[0].until(
        lambda s: s.series is not None and s.series.phase is not Phase.OVER, MOVE_WITHIN
    )
    assert state.series is not None and state.series.actor is not None
    if state.series.phase is Phase.CHOOSING:
        await seats[state.series.actor].act(ChooseMark(Mark.X))
        state = await seats[0].until(
            lambda s: s.series is not None and s.series.phase is Phase.PLAYING, MOVE_WITHIN
        )
    series = state.series
    assert series is not None and series.match is not None and series.actor is not None
    mover, other = seats[series.actor], seats[1 - series.actor]
    await mover.until(lambda s: s.version >= state.version, MOVE_WITHIN)
    before = _plies(series)
    sent = time.perf_counter()
    await mover.act(Play(series.match.legal_moves()[0]))
    await other.until(lambda s: _plies(s.series) > before, MOVE_WITHIN)
    return time.perf_counter() - sent


async def _refused(club: Club, handle: str, peer: str) -> tuple[float, str | None]:
    """A keyed login during the outage: (seconds it took, its refusal)."""
    began = time.perf_counter()
    admission = await asyncio.wait_for(club.enter(handle, _key_line(), peer), 2 * LOGIN_WITHIN)
    return time.perf_counter() - began, admission.refusal


def _written(dsn: str) -> tuple[int, int, list[tuple[str, int]]]:
    """(matches, rating history rows, (handle, matches counted) of each rating)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        matches = conn.execute("SELECT count(*) FROM matches").fetchone()
        history = conn.execute("SELECT count(*) FROM rating_history").fetchone()
        ratings = conn.execute(
            "SELECT players.handle, ratings.matches FROM ratings"
            " JOIN players ON players.id = ratings.player ORDER BY players.handle"
        ).fetchall()
    assert matches is not None and history is not None
    return int(matches[0]), int(history[0]), [(str(h), int(n)) for h, n in ratings]


def _connected(dsn: str) -> int:
    """Connections to the database `dsn` names, other than this one."""
    name = dsn.rsplit("/", 1)[1]
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        ).fetchone()
    assert row is not None
    return int(row[0])


async def test_postgresql_out_of_reach_30_s_tables_go_on_logins_refused_match_written_once(
    database: str, relay: Relay
) -> None:
    threads = set(threading.enumerate())
    dsn = relay.dsn(database)
    clubs = [club_for(PostgresClubRecord(dsn), grace=5.0) for _ in range(2)]
    for club in clubs:
        await club.start()
    lobbies: list[LobbyLink] = []
    seats: list[Seat] = []
    try:
        alice = await _lobby(clubs[0], "alice", "10.0.0.1")
        bob = await _lobby(clubs[1], "bob", "10.0.0.2")
        lobbies += [alice, bob]
        async with asyncio.timeout(LOGIN_WITHIN):  # the table, before the outage
            await alice.ask(OpenTable(True, None))
            opened = await _goto(alice)
            await _snapshot(bob, lambda shown: any(row.id == opened.table for row in shown.open))
            await bob.ask(SitAt(opened.table))
            sat = await _goto(bob)
            seats += [await Seat.take(opened), await Seat.take(sat)]
            await _turn(seats)  # alice chooses X and plays

        relay.black_hole()
        began = time.monotonic()
        logins = [
            asyncio.create_task(_refused(clubs[0], "carol", "10.0.0.3")),  # at once
            asyncio.create_task(_refused(clubs[1], "dave", "10.0.0.4")),
        ]
        moves: list[float] = []
        for _ in range(6):  # alice (X, the first free cell each) wins on her fourth move
            await asyncio.sleep(2.5)
            moves.append(await _turn(seats))
        won = await seats[0].until(lambda s: s.series is not None and s.series.wins == (1, 0), 1.0)
        assert won.series is not None and len(won.series.finished) == 1
        finished_after = time.monotonic() - began
        # alice's lobby, of the table's process, shows the score at once
        shown_in = time.perf_counter()
        await asyncio.wait_for(
            _snapshot(alice, lambda s: any(row.score == (1, 0, 0) for row in s.playing)),
            LOBBY_WITHIN,
        )
        lobby_seconds = time.perf_counter() - shown_in
        # a guest comes in, without the records, and is shown the lobby
        came = time.perf_counter()
        guest = await asyncio.wait_for(clubs[1].enter("guest", None, "10.0.0.5"), LOBBY_WITHIN)
        assert guest.refusal is None
        lobbies.append(await LobbyLink.open(clubs[1].url, guest.environment[CLUB_TOKEN]))
        await asyncio.wait_for(_snapshot(lobbies[-1], lambda s: True), LOBBY_WITHIN)
        guest_seconds = time.perf_counter() - came
        late = asyncio.create_task(_refused(clubs[0], "erin", "10.0.0.6"))  # midway
        await seats[0].act(NextMatch())
        for _ in range(4):  # the next match goes on as the outage ends
            await asyncio.sleep(2.5)
            moves.append(await _turn(seats))
        refusals = [await login for login in [*logins, late]]
        await asyncio.sleep(max(0.0, began + OUTAGE - time.monotonic()))
        assert _written(database)[0] == 0  # nothing reached the database meanwhile
        relay.restore()
        back = time.monotonic()

        print(
            f"moves during the outage: {', '.join(f'{m * 1000:.0f}' for m in moves)} ms;"
            f" logins refused after {', '.join(f'{r[0]:.1f}' for r in refusals)} s;"
            f" match finished {finished_after:.1f} s in; lobby showed it in"
            f" {lobby_seconds * 1000:.0f} ms; a guest's lobby in {guest_seconds * 1000:.0f} ms"
        )
        assert max(moves) < MOVE_WITHIN
        assert [refusal for _seconds, refusal in refusals] == [AWAY_REFUSAL] * 3
        assert max(seconds for seconds, _refusal in refusals) < LOGIN_WITHIN

        while _written(database)[0] < 1:
            assert time.monotonic() - back < WRITTEN_WITHIN, "the match was not written"
            await asyncio.sleep(0.2)
        written_after = time.monotonic() - back
        await _turn(seats)  # the table still goes on
        await asyncio.sleep(3.0)  # every heartbeat since: written once
        print(f"the match was written {written_after:.1f} s after the outage")
        assert _written(database) == (1, 2, [("alice", 1), ("bob", 1)])
    finally:
        relay.restore()  # when something failed during the outage
        for each in seats:
            await each.close()
        for lobby in lobbies:
            await lobby.close()
        for club in clubs:
            await club.stop()
            club.record.close()
    deadline = time.monotonic() + LOBBY_WITHIN  # each connection closes: nothing held open
    while _connected(database) or relay.connections:
        assert time.monotonic() < deadline, (_connected(database), relay.connections)
        # a connection attempt given up during the outage (psycopg's) is closed when collected
        gc.collect()
        await asyncio.sleep(0.1)
    left = [thread.name for thread in set(threading.enumerate()) - threads]
    assert not [name for name in left if not name.startswith(("asyncio_", "relay-"))], left
