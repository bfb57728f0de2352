"""A club process of several stops at once, even when it is told of a change in the same moment
(Python 3.11's `asyncio.wait_for` gave the change and swallowed the stop: the process went on
reading the registry for ever, and `tictactoe club` never ended on SIGTERM)."""

from __future__ import annotations

import asyncio
import contextlib

from club.test_club_features import goto, key_line, next_news
from limits import EVENT_LIMIT, eventually
from tictactoe.club.cluster import Cluster
from tictactoe.club.link import LobbyLink
from tictactoe.club.lobby import CLUB_TOKEN
from tictactoe.club.server import club_for
from tictactoe.online.lobby import GoTo, OpenTable


async def test_a_club_told_of_a_change_as_it_stops_stops(database: str) -> None:
    from tictactoe.record.club_pg import PostgresClubRecord

    first, second = (club_for(PostgresClubRecord(database), grace=5.0) for _ in range(2))
    for club in (first, second):
        await club.start()
    link = None
    try:
        admission = await first.enter("ada", key_line("ada"), "127.0.0.1")
        link = await LobbyLink.open(first.url, admission.environment[CLUB_TOKEN])
        await link.ask(OpenTable(rated=True, matches=None))
        opened = await next_news(link, goto)
        assert isinstance(opened, GoTo)
        cluster = second.cluster
        assert isinstance(cluster, Cluster)
        await eventually(
            lambda: opened.table in cluster.remote,
            lambda: sorted(cluster.remote),
            "the table in the second process's registry",
        )
        # bob sits from the second process (it will read the registry again), which stops then
        assert isinstance(cluster.sit("bob", False, opened.table, None), GoTo)
        await asyncio.wait_for(second.stop(), EVENT_LIMIT)
    finally:
        if link is not None:
            with contextlib.suppress(Exception):
                await link.close()
        for club in (first, second):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(club.stop(), EVENT_LIMIT)
            club.record.close()
