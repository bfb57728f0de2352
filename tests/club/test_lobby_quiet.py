"""A lobby is sent a snapshot only when what it shows has changed: a move at a table in play
changes nothing the other lobbies show (the players, the score, the watchers), so they are not
sent the same snapshot again; the match's end changes the score, and that is sent. (On a club
of 200 players every move was 198 snapshots, each read and compared by a player's game.)"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from limits import EVENT_LIMIT, eventually
from tictactoe.club.link import LobbyLink
from tictactoe.club.lobby import CLUB_TOKEN, PUBLISH_AFTER, Club
from tictactoe.core.engine import Mark
from tictactoe.core.series import ChooseMark, Play
from tictactoe.link.client import AuthorityLink
from tictactoe.online.lobby import GoTo, LobbyNews, OpenTable, SitAt, Snapshot
from tictactoe.online.protocol import State
from tictactoe.record.club import ClubRecord

from .test_club_features import at_table, goto, key_line, next_news


async def snapshots_within(link: LobbyLink, seconds: float) -> list[Snapshot]:
    """The snapshots the club sends `link` within `seconds`."""
    got: list[Snapshot] = []

    async def read() -> None:
        async for news in link:
            if isinstance(news, Snapshot):
                got.append(news)

    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(read(), seconds)
    return got


CELLS = (0, 3, 1, 4, 2)
"""The moves in order: whoever moves first takes the top row, and wins on the fifth."""


async def play(link: AuthorityLink, seat: int, four: asyncio.Event, fifth: asyncio.Event) -> None:
    """`seat` chooses X when asked and makes its moves of `CELLS`; once four are made it says
    so (`four`) and waits to be let make the fifth (`fifth`)."""
    acted = -1
    async for message in link:
        if not isinstance(message, State) or message.series is None:
            continue
        series = message.series
        made = 0 if series.match is None else len(series.match.moves)
        if made == len(CELLS):
            return
        if made == len(CELLS) - 1:
            four.set()
        if series.actor != seat or message.version == acted:
            continue
        if made == len(CELLS) - 1:
            await fifth.wait()
        acted = message.version
        intent = ChooseMark(Mark.X) if series.match is None else Play(CELLS[made])
        await link.act(message.version, intent)


async def test_a_move_sends_no_snapshot_and_the_matchs_end_does(tmp_path: Path) -> None:
    record = ClubRecord(tmp_path / "club.sqlite")
    club = Club(record)
    await club.start()
    links: dict[str, LobbyLink] = {}
    seats: list[AuthorityLink] = []
    try:
        for handle in ("ada", "alan", "grace"):
            admission = await club.enter(handle, key_line(handle), "127.0.0.1")
            links[handle] = await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN])
        ada, alan, grace = links["ada"], links["alan"], links["grace"]
        await ada.ask(OpenTable(rated=True, matches=None))
        opened = await next_news(ada, goto)
        assert isinstance(opened, GoTo)
        await alan.ask(SitAt(opened.table))
        seats = [await at_table(opened), await at_table(await next_news(alan, goto))]

        def in_play(news: LobbyNews) -> bool:
            return isinstance(news, Snapshot) and len(news.playing) == 1

        await next_news(grace, in_play)
        four, fifth = asyncio.Event(), asyncio.Event()
        players = asyncio.gather(*(play(s, i, four, fifth) for i, s in enumerate(seats)))
        await asyncio.wait_for(four.wait(), EVENT_LIMIT)
        assert await snapshots_within(grace, 5 * PUBLISH_AFTER + 0.3) == []

        fifth.set()  # the winning move: the score changes, and Grace's lobby is told
        await asyncio.wait_for(players, EVENT_LIMIT)
        told = await next_news(grace, in_play)
        assert isinstance(told, Snapshot)
        assert told.playing[0].score == (1, 0, 0)
    finally:
        for seat in seats:
            with contextlib.suppress(Exception):
                await seat.close()
        for link in links.values():
            with contextlib.suppress(Exception):
                await link.close()
        await club.stop()
        record.close()


async def test_a_move_is_no_change_told_to_the_lobbies(tmp_path: Path) -> None:
    """The club is told of a table's change (`Club.changed`: a snapshot made for every lobby,
    and in a club of several processes the registry's row of every table of this one made again)
    only when what its lobbies show of it changes: not at each move, but at the match's end."""
    record = ClubRecord(tmp_path / "club.sqlite")
    club = Club(record)
    await club.start()
    links: list[LobbyLink] = []
    seats: list[AuthorityLink] = []
    try:
        for handle in ("ada", "alan"):
            admission = await club.enter(handle, key_line(handle), "127.0.0.1")
            links.append(await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN]))
        ada, alan = links
        await ada.ask(OpenTable(rated=True, matches=None))
        opened = await next_news(ada, goto)
        assert isinstance(opened, GoTo)
        await alan.ask(SitAt(opened.table))
        seats = [await at_table(opened), await at_table(await next_news(alan, goto))]
        await next_news(ada, lambda news: isinstance(news, Snapshot) and len(news.playing) == 1)
        told = 0
        changed = club.publisher.changed

        def counted() -> None:
            nonlocal told
            told += 1
            changed()

        club.publisher.changed = counted  # type: ignore[method-assign]
        four, fifth = asyncio.Event(), asyncio.Event()
        players = asyncio.gather(*(play(s, i, four, fifth) for i, s in enumerate(seats)))
        await asyncio.wait_for(four.wait(), EVENT_LIMIT)
        await asyncio.sleep(2 * PUBLISH_AFTER)
        assert told == 0  # the mark chosen, four moves: the lobby shows none of them
        fifth.set()
        await asyncio.wait_for(players, EVENT_LIMIT)
        await eventually(lambda: told > 0, lambda: told, "the club told of the score's change")
    finally:
        for seat in seats:
            with contextlib.suppress(Exception):
                await seat.close()
        for link in links:
            with contextlib.suppress(Exception):
                await link.close()
        await club.stop()
        record.close()
