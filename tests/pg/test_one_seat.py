"""One seat a handle, club-wide: a player logged in on two processes of one club (allowed) holds at
most one open or seated table across both, checked in the database where the processes meet, not
only in each process's memory; the second table, or seat, is refused in one sentence. While the
database is away it cannot be checked: a player with a handle opens no table then."""

from __future__ import annotations

import asyncio

import asyncssh
import pytest

from pg.conftest import Cluster
from pg.test_lobby_after_outage import Lobby, _away
from tictactoe.club.cluster import AWAY_REFUSAL
from tictactoe.club.link import LobbyLink
from tictactoe.club.lobby import CLUB_TOKEN, Club
from tictactoe.club.server import club_for
from tictactoe.online.lobby import CloseTable, GoTo, OpenTable, Said, SitAt
from tictactoe.record.club_pg import PostgresClubRecord

pytestmark = pytest.mark.slow

ANSWER_WITHIN = 12.0
"""Seconds for a lobby's answer to an ask (a table opened, or a sentence)."""
BACK_WITHIN = 20.0
"""Seconds for each process to find the database back once it is started again."""
WAITING_ELSEWHERE = "You are waiting at your own table in another session already."
PLAYING = "You are playing at a table already."


async def _same_player(clubs: list[Club], handle: str) -> list[Lobby]:
    """`handle` logged in on each process with one key: a lobby on each."""
    key = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().strip()
    lobbies = []
    for number, club in enumerate(clubs):
        admission = await club.enter(handle, key, f"10.0.1.{number + 1}")
        assert admission.refusal is None, admission.refusal
        link = await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN])
        lobbies.append(Lobby(link))
    return lobbies


async def _answer(lobby: Lobby) -> GoTo | Said:
    """The lobby's answer to the last ask: a table to go to, or a sentence."""
    async with asyncio.timeout(ANSWER_WITHIN):
        while True:
            news = await lobby.news.get()
            if isinstance(news, GoTo | Said):
                return news


async def _back(clubs: list[Club]) -> None:
    async with asyncio.timeout(BACK_WITHIN):
        while not all(club.cluster is not None and club.cluster.up for club in clubs):
            await asyncio.sleep(0.1)


async def test_a_handle_has_one_table_across_the_club(database: str, postgres: Cluster) -> None:
    clubs = [club_for(PostgresClubRecord(database, timeout=2.0), grace=30.0) for _ in range(2)]
    for club in clubs:
        await club.start()
    lobbies: list[Lobby] = []
    stopped = False
    try:
        alice = await _same_player(clubs, "alice")
        lobbies += alice
        bob = await Lobby.enter(clubs[1], "bob", "10.0.0.2")
        carol = await Lobby.enter(clubs[0], "carol", "10.0.0.3")
        lobbies += [bob, carol]

        # alice opens a rated table on each process at the same moment: one is opened
        await asyncio.gather(*(lobby.link.ask(OpenTable(True, None)) for lobby in alice))
        answers = [await _answer(lobby) for lobby in alice]
        assert sorted(type(answer).__name__ for answer in answers) == ["GoTo", "Said"], answers
        mine = 0 if isinstance(answers[0], GoTo) else 1
        other = alice[1 - mine]
        assert answers[1 - mine] == Said(WAITING_ELSEWHERE)
        opened = answers[mine]
        assert isinstance(opened, GoTo)

        # bob's open table: alice may not sit there from her other session either
        await bob.link.ask(OpenTable(True, None))
        bobs = await _answer(bob)
        assert isinstance(bobs, GoTo)
        await other.until(lambda s: any(r.id == bobs.table for r in s.open), ANSWER_WITHIN, "table")
        await other.link.ask(SitAt(bobs.table))
        assert await _answer(other) == Said(WAITING_ELSEWHERE)

        # while the database is away nothing can be checked: no table for a player with a handle
        postgres.stop()
        stopped = True
        await _away(clubs)
        await carol.link.ask(OpenTable(False, None))
        assert await _answer(carol) == Said(AWAY_REFUSAL)
        postgres.start()
        stopped = False
        await _back(clubs)
        await other.link.ask(OpenTable(True, None))
        assert await _answer(other) == Said(WAITING_ELSEWHERE)
        await carol.link.ask(OpenTable(False, None))
        assert isinstance(await _answer(carol), GoTo)

        # her table taken back, she may open one from the other session
        await alice[mine].link.ask(CloseTable())
        await other.until(
            lambda s: all(r.id != opened.table for r in s.open), ANSWER_WITHIN, "table closed"
        )
        await other.link.ask(OpenTable(True, None))
        assert isinstance(await _answer(other), GoTo)
    finally:
        if stopped:
            postgres.start()
        for lobby in lobbies:
            await lobby.close()
        for club in clubs:
            await club.stop()
            club.record.close()
