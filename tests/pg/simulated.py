"""Simulated players for a club of several processes: each comes in through a club's gate with a
key of its own (as the SSH door would ask), keeps a lobby websocket, and plays at a table over the
table's authority link, as a player's game does; no terminal, no SSH.

Players come in pairs: the first opens a rated table on one process, the second, on another
process, waits until its lobby shows that table and sits; they play matches (the first free cell,
the opener choosing X) until time is up, then the second leaves; or, given `series`, tables of
that many matches, one after another (each a new table, another lobby event). A player reads its
lobby all the time, as a player's game does, but reads into a snapshot only when it looks for a
table in it (a game's reading is its own process's work, not the club's). Used by
tests/pg/test_cluster.py (the load test) and benchmarks/bench_cluster.py, each club in a process of
its own (tests/pg/processes.py), reached through a `Door` that asks it over loopback.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import aiohttp
import asyncssh

from tictactoe.club.lobby import CLUB_TOKEN
from tictactoe.core.engine import Mark
from tictactoe.core.series import ChooseMark, NextMatch, Phase, Play, Series
from tictactoe.doors.ssh.gate import Admission
from tictactoe.link.client import AuthorityLink, LinkError
from tictactoe.online.lobby import (
    MAX_LOBBY_MESSAGE,
    GoTo,
    LobbyAsk,
    LobbyHello,
    LobbyNews,
    OpenTable,
    Said,
    SitAt,
    Snapshot,
    lobby_json,
)
from tictactoe.online.lobby_reading import parse_news
from tictactoe.online.protocol import Ended, Hello, State


class Door(Protocol):
    """What a simulated player needs of a club process: its gate (as the SSH door asks it,
    `Club.enter`) and its lobby's websocket. A `Club` of this process is one."""

    @property
    def url(self) -> str: ...

    async def enter(self, user: str, key: str | None, peer: str) -> Admission: ...


@dataclass
class Played:
    """What the simulated players saw."""

    finished: dict[str, int] = field(default_factory=dict)
    """By table id: matches finished in its series, as the players' last state had it."""
    lobby_events: list[float] = field(default_factory=list)
    """Seconds from a table's opening on one process to its row in a lobby of another."""
    later_lobby_events: list[float] = field(default_factory=list)
    """The same, for the tables after each pair's first (while the others play)."""
    moves: list[float] = field(default_factory=list)
    """Seconds from a move sent to the other seat's state showing it."""


def _key_line() -> str:
    key = asyncssh.generate_private_key("ssh-ed25519")
    return key.export_public_key().decode().strip()


class _Lobby:
    """A simulated player's lobby websocket, read all the time; a snapshot is kept as text, and
    read only when the player looks for a table in it (`shows`)."""

    def __init__(self, session: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse):
        self._session = session
        self._ws = ws
        self._snapshot = ""
        self._arrived = 0.0
        self._fresh = asyncio.Event()
        self._news: asyncio.Queue[LobbyNews | None] = asyncio.Queue()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, club: Door, handle: str, peer: str) -> _Lobby:
        admission = await club.enter(handle, _key_line(), peer)
        assert admission.refusal is None, admission.refusal
        session = aiohttp.ClientSession()
        ws = await session.ws_connect(club.url, max_msg_size=MAX_LOBBY_MESSAGE)
        await ws.send_str(lobby_json(LobbyHello(admission.environment[CLUB_TOKEN])))
        return cls(session, ws)

    async def _read(self) -> None:
        try:
            async for frame in self._ws:
                if frame.type is not aiohttp.WSMsgType.TEXT:
                    break
                if frame.data.startswith('{"kind":"snapshot"'):
                    self._snapshot, self._arrived = frame.data, time.perf_counter()
                    self._fresh.set()
                else:
                    self._news.put_nowait(parse_news(frame.data))
        finally:
            self._news.put_nowait(None)
            self._fresh.set()

    async def ask(self, ask: LobbyAsk) -> None:
        await self._ws.send_str(lobby_json(ask))

    async def shows(self, table: str) -> float:
        """When (`time.perf_counter`) a snapshot showing `table` open arrived."""
        while True:
            self._fresh.clear()
            if f'"{table}"' in self._snapshot:
                snapshot = parse_news(self._snapshot)
                assert isinstance(snapshot, Snapshot)
                if any(row.id == table for row in snapshot.open):
                    return self._arrived
            if self._reader.done():
                raise AssertionError("the lobby closed before showing a table")
            await self._fresh.wait()

    async def goto(self) -> GoTo | Said:
        """The club's next answer to an ask: where to go, or why not."""
        while True:
            news = await self._news.get()
            if news is None:
                raise AssertionError("the lobby closed before sending its player to a table")
            if isinstance(news, GoTo | Said):
                return news

    async def close(self) -> None:
        await self._ws.close()
        await self._session.close()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


async def _seat(
    goto: GoTo,
    seat: int,
    until: float,
    played: Played,
    sent: dict[str, list[tuple[int, float]]],
    pace: float,
    matches: int | None = None,
) -> None:
    """Play at the table `goto` names as `seat` until `until` (monotonic), or to the end of its
    series of `matches`; then seat 1 leaves."""
    link = await AuthorityLink.open(
        goto.url,
        Hello(
            goto.code, goto.name, "127.0.0.1", host_token=goto.host_token, door_key=goto.door_key
        ),
    )
    acted_on = -1
    moves_seen = 0
    try:
        async for message in link:
            if isinstance(message, Ended):
                if message.series is not None:
                    played.finished[goto.table] = len(message.series.finished)
                return
            if not isinstance(message, State) or message.series is None:
                continue
            series: Series = message.series
            played.finished[goto.table] = len(series.finished)
            seen = len(series.match.moves) if series.match is not None else 0
            mover = sent[goto.table]
            if seen > moves_seen and mover and mover[0][0] != seat:  # the other seat's move
                played.moves.append(time.perf_counter() - mover.pop()[1])
            moves_seen = seen
            if time.monotonic() > until:
                if seat == 1:
                    await _leave(link)
                continue
            if message.version == acted_on or message.away is not None:
                continue
            intent: ChooseMark | Play | NextMatch | None = None
            if series.phase is Phase.OVER:
                last = matches is not None and len(series.finished) >= matches
                intent = NextMatch() if seat == 0 and not last else None
                moves_seen = 0
            elif series.actor == seat:
                if series.match is None:
                    intent = ChooseMark(Mark.X)
                else:
                    intent = Play(series.match.legal_moves()[0])
                    sent[goto.table] = [(seat, time.perf_counter())]
            if intent is not None:
                if pace:  # a person's pace, not the same each time: the pairs fall out of step
                    await asyncio.sleep(pace * random.uniform(0.5, 1.5))
                    if time.monotonic() > until:  # the time ran out meanwhile: this seat
                        await _leave(link)  # leaves (the other may be waiting for its move)
                        continue
                    if isinstance(intent, Play):
                        sent[goto.table] = [(seat, time.perf_counter())]
                acted_on = message.version
                try:
                    await link.act(message.version, intent)
                except LinkError:
                    if time.monotonic() <= until:
                        raise
                    return  # the other seat left as the time ran out, and the table ended
    finally:
        await link.close()


async def _leave(link: AuthorityLink) -> None:
    """Leave the table, unless its link is closing already (the other seat left first)."""
    with contextlib.suppress(LinkError):
        await link.leave()


async def pair(
    opener_club: Door,
    sitter_club: Door,
    number: int,
    until: float,
    played: Played,
    sent: dict[str, list[tuple[int, float]]],
    pace: float = 0.0,
    series: int | None = None,
) -> None:
    """Players `number` a and b: a opens on `opener_club`, b sits from `sitter_club`; again
    after each series of `series` matches, until `until`."""
    first = await _Lobby.open(opener_club, f"a{number}", f"10.1.{number // 200}.{number % 200 + 1}")
    second = await _Lobby.open(
        sitter_club, f"b{number}", f"10.2.{number // 200}.{number % 200 + 1}"
    )
    first_table = True
    try:
        while time.monotonic() < until:
            opened = time.perf_counter()
            await first.ask(OpenTable(True, series))
            goto_first = await first.goto()
            if not isinstance(goto_first, GoTo):  # the last table is not ended here yet
                await asyncio.sleep(0.1)
                continue
            table = goto_first.table
            sent[table] = []
            shown = await second.shows(table)
            played.lobby_events.append(shown - opened)
            if not first_table:
                played.later_lobby_events.append(shown - opened)
            first_table = False
            await second.ask(SitAt(table))
            goto_second = await second.goto()
            while not isinstance(goto_second, GoTo):  # the last table is not ended there yet
                assert time.monotonic() < until + 10, goto_second.text
                await asyncio.sleep(0.1)
                await second.ask(SitAt(table))
                goto_second = await second.goto()
            await asyncio.gather(
                _seat(goto_first, 0, until, played, sent, pace, series),
                _seat(goto_second, 1, until, played, sent, pace, series),
            )
            if series is None:
                return
    finally:
        await first.close()
        await second.close()


async def play_for(
    clubs: Sequence[Door],
    pairs: int,
    seconds: float,
    pace: float = 0.0,
    series: int | None = None,
) -> Played:
    """`pairs` pairs of players across `clubs` (each pair's two on two processes), for
    `seconds` of play, each acting `pace` seconds after its turn comes on average (0: at once),
    from half that to one and a half times that; at one
    table each, or at tables of `series` matches, one after another."""
    played = Played()
    sent: dict[str, list[tuple[int, float]]] = {}
    until = time.monotonic() + seconds
    await asyncio.gather(
        *(
            pair(
                clubs[n % len(clubs)],
                clubs[(n + 1) % len(clubs)],
                n,
                until,
                played,
                sent,
                pace,
                series,
            )
            for n in range(pairs)
        )
    )
    return played
