"""What a lobby shows of the record (the ladder, ratings, recent matches) follows every match
written anywhere in a club of two processes, even when a process missed the notice of it: after
an outage (its LISTEN connection came back after the notice was sent) and when a notice is lost
with no outage at all (within the refresh period).

The second process reaches PostgreSQL through a relay of the test's own (`Gate`), kept shut a
while after PostgreSQL is started again, so that the first process writes the match that waited,
and announces it, before the second is back: the order an outage can give, made certain.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Callable, Iterator

import asyncssh
import psycopg
import pytest

from pg.conftest import Cluster
from pg.test_unreachable import Relay, Seat, _turn
from tictactoe.club.cluster import MATCHES_CHANNEL
from tictactoe.club.cluster import Cluster as ClubCluster
from tictactoe.club.link import LobbyLink
from tictactoe.club.lobby import CLUB_TOKEN, Club
from tictactoe.club.registry_pg import TableRegistry
from tictactoe.club.server import club_for
from tictactoe.core.club import Rating
from tictactoe.core.series import Phase
from tictactoe.online.lobby import GoTo, OpenTable, SitAt, Snapshot
from tictactoe.record.club_pg import PostgresClubRecord

pytestmark = pytest.mark.slow

WRITTEN_WITHIN = 20.0
"""Seconds after PostgreSQL is started again within which the first process writes the match."""
SHOWN_WITHIN = 20.0
"""Seconds within which a lobby shows what was written (a few, at a normal pace)."""
PLAY_WITHIN = 12.0
"""Seconds for the table to be opened, sat at and played to one move before its end."""
AWAY_WITHIN = 20.0
"""Seconds within which each process finds PostgreSQL stopped."""
REFRESH = 1.0
"""The refresh period given to the process that misses every notice (the club's is longer)."""


class Gate(Relay):
    """A relay that, shut, closes every new connection at once (as a stopped PostgreSQL does)."""

    shut = False

    def _forward(self, client: socket.socket) -> None:
        if self.shut:
            self._drop(client)
            return
        super()._forward(client)


@pytest.fixture
def gate(postgres: Cluster) -> Iterator[Gate]:
    relay = Gate(postgres.port)
    try:
        yield relay
    finally:
        relay.close()


class Unheard(TableRegistry):
    """A process whose notices of matches written never reach the others (a notice lost)."""

    def notify(self, channel: str, payload: str) -> None:
        if channel != MATCHES_CHANNEL:
            super().notify(channel, payload)


def _key_line() -> str:
    key = asyncssh.generate_private_key("ssh-ed25519")
    return key.export_public_key().decode().strip()


class Lobby:
    """A player's lobby link, read all along; the last snapshot kept."""

    def __init__(self, link: LobbyLink) -> None:
        self.link = link
        self.shown: Snapshot | None = None
        self.news: asyncio.Queue[object] = asyncio.Queue()
        self._changed = asyncio.Event()
        self._reading = asyncio.create_task(self._read())

    @classmethod
    async def enter(cls, club: Club, handle: str, peer: str) -> Lobby:
        admission = await club.enter(handle, _key_line(), peer)
        assert admission.refusal is None, admission.refusal
        return cls(await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN]))

    async def _read(self) -> None:
        async for news in self.link:
            if isinstance(news, Snapshot):
                self.shown = news
                self._changed.set()
            else:
                await self.news.put(news)

    async def until(self, test: Callable[[Snapshot], bool], within: float, what: str) -> Snapshot:
        """The first snapshot `test` accepts, waited for `within` seconds at most."""
        try:
            async with asyncio.timeout(within):
                while self.shown is None or not test(self.shown):
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            raise AssertionError(f"{what} not shown within {within:.0f} s: {self.shown}") from None
        return self.shown

    async def close(self) -> None:
        await self.link.close()
        self._reading.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reading


def _ratings(dsn: str) -> dict[str, str]:
    """Each rated player's rating, as a lobby shows it."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT players.handle, mu, sigma FROM ratings"
            " JOIN players ON players.id = ratings.player"
        ).fetchall()
    return {str(handle): Rating(float(mu), float(sigma)).shown for handle, mu, sigma in rows}


def _ladder(shown: Snapshot) -> dict[str, str]:
    return {line.handle: line.rating for line in shown.ladder}


async def _table(alice: Lobby, bob: Lobby) -> list[Seat]:
    """Alice opens a rated table on her process; Bob, on the other, sits: their seats."""
    await alice.link.ask(OpenTable(True, None))
    opened = await asyncio.wait_for(_goto_of(alice), PLAY_WITHIN)
    await bob.until(lambda s: any(row.id == opened.table for row in s.open), PLAY_WITHIN, "table")
    await bob.link.ask(SitAt(opened.table))
    sat = await asyncio.wait_for(_goto_of(bob), PLAY_WITHIN)
    return [await Seat.take(opened), await Seat.take(sat)]


async def _goto_of(lobby: Lobby) -> GoTo:
    while True:
        news = await lobby.news.get()
        if isinstance(news, GoTo):
            return news


async def _play_but_the_last(seats: list[Seat]) -> None:
    """Alice (X, the first free cell each move) and Bob play until her winning move is next."""
    for _ in range(6):
        await _turn(seats)


async def _won(seats: list[Seat]) -> None:
    await _turn(seats)  # alice's fourth move: she wins
    await seats[0].until(
        lambda s: s.series is not None and s.series.phase is Phase.OVER, PLAY_WITHIN
    )


async def _away(clubs: list[Club]) -> None:
    """Until every process has found the database away (its heartbeat unanswered)."""
    began = time.monotonic()
    while any(club.cluster is not None and club.cluster.up for club in clubs):
        assert time.monotonic() - began < AWAY_WITHIN, "a process did not find the database away"
        await asyncio.sleep(0.1)


async def _written(dsn: str, within: float) -> float:
    """Seconds until the match is in the database."""
    began = time.monotonic()
    while True:
        with psycopg.connect(dsn, autocommit=True) as conn:
            row = conn.execute("SELECT count(*) FROM matches").fetchone()
        if row is not None and row[0] >= 1:
            return time.monotonic() - began
        assert time.monotonic() - began < within, "the match that waited was not written"
        await asyncio.sleep(0.1)


async def test_after_an_outage_a_process_that_missed_the_notice_shows_the_new_ratings(
    database: str, postgres: Cluster, gate: Gate
) -> None:
    # the first process holds the table; the second reaches PostgreSQL through the gate
    clubs = [
        club_for(PostgresClubRecord(database, timeout=2.0), grace=30.0),
        club_for(PostgresClubRecord(gate.dsn(database), timeout=2.0), grace=30.0),
    ]
    for club in clubs:
        await club.start()
    lobbies: list[Lobby] = []
    seats: list[Seat] = []
    stopped = False
    try:
        alice = await Lobby.enter(clubs[0], "alice", "10.0.0.1")
        bob = await Lobby.enter(clubs[1], "bob", "10.0.0.2")
        lobbies += [alice, bob]
        seats += await asyncio.wait_for(_table(alice, bob), PLAY_WITHIN)
        await asyncio.wait_for(_play_but_the_last(seats), PLAY_WITHIN)

        gate.shut = True
        postgres.stop()
        stopped = True
        await _away(clubs)
        await _won(seats)  # the match finishes while the database is away
        postgres.start()
        stopped = False
        began = time.monotonic()
        written_after = await _written(database, WRITTEN_WITHIN)
        now = _ratings(database)
        assert set(now) == {"alice", "bob"}
        # alice's own header, on the process that wrote her match, follows it
        await alice.until(
            lambda s: s.you.rating_in("classic") == now["alice"], SHOWN_WITHIN, "alice's rating"
        )
        alice_after = time.monotonic() - began

        gate.shut = False  # the second process is back: after the notice was sent
        back = time.monotonic()
        shown = await bob.until(
            lambda s: (
                s.you.rating_in("classic") == now["bob"]
                and _ladder(s) == now
                and len(s.recent) == 1
            ),
            SHOWN_WITHIN,
            "bob's rating, the ladder and his match",
        )
        bob_after = time.monotonic() - back
        assert [line.handle for line in shown.ladder] == ["alice", "bob"]
        carol = await Lobby.enter(clubs[1], "carol", "10.0.0.3")  # a login meanwhile
        lobbies.append(carol)
        await carol.until(lambda s: _ladder(s) == now, SHOWN_WITHIN, "the ladder")
        print(
            f"written {written_after:.1f} s after PostgreSQL was back; alice's header showed it"
            f" {alice_after:.1f} s after; bob's lobby {bob_after:.1f} s after his process was"
        )
    finally:
        gate.shut = False
        if stopped:
            postgres.start()
        for seat in seats:
            await seat.close()
        for lobby in lobbies:
            await lobby.close()
        for club in clubs:
            await club.stop()
            club.record.close()


async def test_a_lost_notice_is_made_good_within_the_refresh_period(database: str) -> None:
    clubs = [
        club_for(PostgresClubRecord(database), grace=30.0),
        club_for(PostgresClubRecord(database), grace=30.0),
    ]
    unheard = clubs[0].cluster
    assert isinstance(unheard, ClubCluster)
    unheard.registry = Unheard(unheard.record)
    cluster = clubs[1].cluster
    assert isinstance(cluster, ClubCluster)
    cluster.refresh_every = REFRESH
    for club in clubs:
        await club.start()
    lobbies: list[Lobby] = []
    seats: list[Seat] = []
    try:
        alice = await Lobby.enter(clubs[0], "alice", "10.0.0.1")
        bob = await Lobby.enter(clubs[1], "bob", "10.0.0.2")
        lobbies += [alice, bob]
        seats += await asyncio.wait_for(_table(alice, bob), PLAY_WITHIN)
        await asyncio.wait_for(_play_but_the_last(seats), PLAY_WITHIN)
        await _won(seats)
        await _written(database, WRITTEN_WITHIN)
        now = _ratings(database)
        await bob.until(
            lambda s: (
                s.you.rating_in("classic") == now["bob"]
                and _ladder(s) == now
                and len(s.recent) == 1
            ),
            SHOWN_WITHIN,
            "bob's rating, the ladder and his match",
        )
    finally:
        for seat in seats:
            await seat.close()
        for lobby in lobbies:
            await lobby.close()
        for club in clubs:
            await club.stop()
            club.record.close()
