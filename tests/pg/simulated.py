"""Simulated players for a club of several processes: each comes in through a club's gate with a
key of its own (as the SSH door would ask), keeps a lobby websocket, and plays at a table over the
table's authority link, as a player's game does; no terminal, no SSH.

Players come in pairs: the first opens a rated table on one process, the second, on another
process, waits until its lobby shows that table and sits; they play matches (the first free cell,
the opener choosing X) until time is up, then the second leaves. Used by tests/pg/test_cluster.py
(a bounded load) and benchmarks/bench_cluster.py.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import asyncssh

from tictactoe.club.link import LobbyLink
from tictactoe.club.lobby import CLUB_TOKEN, Club
from tictactoe.core.engine import Mark
from tictactoe.core.series import ChooseMark, NextMatch, Phase, Play, Series
from tictactoe.host.client import AuthorityLink
from tictactoe.online.lobby import GoTo, OpenTable, SitAt, Snapshot
from tictactoe.online.protocol import Ended, Hello, State


@dataclass
class Played:
    """What the simulated players saw."""

    finished: dict[str, int] = field(default_factory=dict)
    """By table id: matches finished in its series, as the players' last state had it."""
    lobby_events: list[float] = field(default_factory=list)
    """Seconds from a table's opening on one process to its row in a lobby of another."""
    moves: list[float] = field(default_factory=list)
    """Seconds from a move sent to the other seat's state showing it."""


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


async def _seat(
    goto: GoTo,
    seat: int,
    until: float,
    played: Played,
    sent: dict[str, list[tuple[int, float]]],
    pace: float,
) -> None:
    """Play at the table `goto` names as `seat` until `until` (monotonic); then seat 1 leaves."""
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
                    await link.leave()
                continue
            if message.version == acted_on or message.away is not None:
                continue
            intent: ChooseMark | Play | NextMatch | None = None
            if series.phase is Phase.OVER:
                intent = NextMatch() if seat == 0 else None
                moves_seen = 0
            elif series.actor == seat:
                if series.match is None:
                    intent = ChooseMark(Mark.X)
                else:
                    intent = Play(series.match.legal_moves()[0])
                    sent[goto.table] = [(seat, time.perf_counter())]
            if intent is not None:
                if pace:
                    await asyncio.sleep(pace)
                    if isinstance(intent, Play):
                        sent[goto.table] = [(seat, time.perf_counter())]
                acted_on = message.version
                await link.act(message.version, intent)
    finally:
        await link.close()


async def pair(
    opener_club: Club,
    sitter_club: Club,
    number: int,
    until: float,
    played: Played,
    sent: dict[str, list[tuple[int, float]]],
    pace: float = 0.0,
) -> None:
    """Players `number` a and b: a opens on `opener_club`, b sits from `sitter_club`."""
    first = await _lobby(opener_club, f"a{number}", f"10.1.{number // 200}.{number % 200 + 1}")
    second = await _lobby(sitter_club, f"b{number}", f"10.2.{number // 200}.{number % 200 + 1}")
    try:
        opened = time.perf_counter()
        await first.ask(OpenTable(True, None))
        goto_first = await _goto(first)
        table = goto_first.table
        sent[table] = []
        async for news in second:
            if isinstance(news, Snapshot) and any(row.id == table for row in news.open):
                played.lobby_events.append(time.perf_counter() - opened)
                await second.ask(SitAt(table))
                break
        goto_second = await _goto(second)
        await asyncio.gather(
            _seat(goto_first, 0, until, played, sent, pace),
            _seat(goto_second, 1, until, played, sent, pace),
        )
    finally:
        await first.close()
        await second.close()


async def play_for(clubs: Sequence[Club], pairs: int, seconds: float, pace: float = 0.0) -> Played:
    """`pairs` pairs of players across `clubs` (each pair's two on two processes), for
    `seconds` of play, each acting `pace` seconds after its turn comes (0: at once)."""
    played = Played()
    sent: dict[str, list[tuple[int, float]]] = {}
    until = time.monotonic() + seconds
    await asyncio.gather(
        *(
            pair(clubs[n % len(clubs)], clubs[(n + 1) % len(clubs)], n, until, played, sent, pace)
            for n in range(pairs)
        )
    )
    return played
