"""A busy club paces what it sends each lobby: every change is drawn by every player's game in the
lobby, so a club of many lobbies whose tables start and end all the time would spend the whole
machine drawing lobbies, and the moves at its tables would wait (benchmarks/bench_club.py
`--busy`). The club sends at most so many snapshots a second (`lobby_pace`), past it each lobby
in its turn, the changes meanwhile together, the last one always; a change in what a lobby
shows of its own player (the table the player opened) goes at once."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from limits import eventually
from tictactoe.club.link import LobbyLink
from tictactoe.club.lobby import CLUB_TOKEN, LOBBIES_BURST, Club, lobby_pace, lobby_rate
from tictactoe.club.server import club_for
from tictactoe.doors.bounds import Bucket
from tictactoe.online.lobby import CloseTable, LobbyNews, OpenTable, Snapshot
from tictactoe.options import BadArguments, parse
from tictactoe.record.club import ClubRecord

from .test_club_features import goto, key_line, next_news

RATE = 2.0
"""Snapshots a second the club sends for others' changes, in these tests (in bursts of one)."""


def test_the_pace_is_what_the_lobbies_share_of_the_cores_draws() -> None:
    two, four = lobby_pace(lobby_rate(2)), lobby_pace(lobby_rate(4))
    assert 20 <= two.rate <= 100  # 10-40 ms a lobby's drawing, on 2 cores: half a core
    assert four.rate == 2 * two.rate
    assert two.burst >= 200  # a change in a quiet club: 200 lobbies at once


def opened_by(handle: str) -> Callable[[LobbyNews], bool]:
    def wanted(news: LobbyNews) -> bool:
        return isinstance(news, Snapshot) and any(row.players[0] == handle for row in news.open)

    return wanted


def waiting(news: LobbyNews) -> bool:
    return isinstance(news, Snapshot) and news.you.waiting_at is not None


async def test_a_lobby_is_sent_a_snapshot_once_a_gap_and_its_own_change_at_once(
    tmp_path: Path,
) -> None:
    record = ClubRecord(tmp_path / "club.sqlite")
    club = Club(record, pace=Bucket(RATE, burst=1))
    await club.start()
    links: dict[str, LobbyLink] = {}
    try:
        for handle in ("ada", "alan", "hedy", "grace"):
            admission = await club.enter(handle, key_line(handle), "127.0.0.1")
            links[handle] = await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN])
        grace = links["grace"]
        await next_news(grace, lambda news: isinstance(news, Snapshot))
        seen: list[tuple[float, Snapshot]] = []

        async def watch() -> None:
            async for news in grace:
                if isinstance(news, Snapshot):
                    seen.append((time.monotonic(), news))

        watching = asyncio.create_task(watch())
        changes = 0
        for _ in range(3):  # three players open a table and take it back, three times over
            for handle in ("alan", "hedy", "ada"):
                await links[handle].ask(OpenTable(rated=False, matches=1))
                await next_news(links[handle], goto)
                await links[handle].ask(CloseTable())
                changes += 2
                await asyncio.sleep(0.15)
        # Hedy's last table stays: what Grace is owed at the end differs from what she was shown
        # first (each table taken back at her turns, she would be owed nothing new).
        await links["hedy"].ask(OpenTable(rated=False, matches=1))
        await next_news(links["hedy"], goto)
        changes += 1
        await eventually(  # every lobby's turn has come: Grace is shown Hedy's table
            lambda: seen and opened_by("hedy")(seen[-1][1]),
            lambda: seen[-1:],
            "Hedy's last table in Grace's lobby",
        )
        watching.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watching
        times = [when for when, _snapshot in seen]
        # Four lobbies, owed a snapshot all along: each in its turn, at most RATE a second.
        assert 1 <= len(times) <= 1 + (times[-1] - times[0]) * RATE / 4 + 1
        assert len(times) < changes
        turns = itertools.pairwise(times)
        assert all(later - earlier >= 1 / RATE - 0.05 for earlier, later in turns)
        assert opened_by("hedy")(seen[-1][1])  # the last change, shown: Hedy's table

        # Alan opens a table: four lobbies are owed it, in turn, RATE a second. Ada opens one
        # at once: her lobby shows it at once, not in her lobby's turn.
        ada = links["ada"]
        await links["alan"].ask(OpenTable(rated=False, matches=1))
        await asyncio.sleep(0.05)
        asked = time.monotonic()
        await ada.ask(OpenTable(rated=False, matches=1))
        mine = await next_news(ada, waiting)
        print(f"Ada's own table shown in {time.monotonic() - asked:.2f} s (her turn: {1 / RATE} s)")
        if not opened_by("alan")(mine):  # her own change came first: Alan's comes in its turn
            await next_news(ada, opened_by("alan"))
    finally:
        for link in links.values():
            await link.close()
        await club.stop()
        record.close()


def test_the_owner_sets_the_pace(tmp_path: Path) -> None:
    assert parse(["club", "--lobby-pace", "40"]).args.lobby_pace == 40.0
    for wrong in ("0", "-3", "fast", "1e9"):
        with pytest.raises(BadArguments) as refusal:
            parse(["club", "--lobby-pace", wrong])
        assert str(refusal.value).startswith("tictactoe club: --lobby-pace: ")
    record = ClubRecord(tmp_path / "club.sqlite")
    try:
        paced = club_for(record, grace=1.0, lobby_pace=40.0)
        assert (paced.pace.rate, paced.pace.burst) == (40.0, 40.0 * LOBBIES_BURST)
        cores = len(os.sched_getaffinity(0))
        assert club_for(record, grace=1.0).pace.rate == lobby_rate(cores)
    finally:
        record.close()
