"""What a lobby shows of the record (the ladder, ratings, recent matches) is shown as last read
while it is read again: a match written elsewhere makes the club read the ladder again, and a new
table reaches the lobbies meanwhile, not after that reading (on a club of several processes,
every match anywhere made every lobby's next snapshot wait for one)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path

from limits import EVENT_LIMIT, eventually
from tictactoe.club.calls import Reads
from tictactoe.club.link import LobbyLink
from tictactoe.club.lobby import CLUB_TOKEN, Club
from tictactoe.core.club import LadderRow
from tictactoe.core.finished import CLASSIC_NAME
from tictactoe.online.lobby import LobbyNews, OpenTable, Snapshot
from tictactoe.record.club import ClubRecord

from .test_club_features import goto, key_line, next_news


class HeldLadder(ClubRecord):
    """A club's file whose ladder is read only while `reads` is set."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.reads = threading.Event()
        self.reads.set()

    def ladder(self, limit: int = 100, variant: str = CLASSIC_NAME) -> list[LadderRow]:
        self.reads.wait(10)
        return super().ladder(limit, variant)


async def test_a_new_table_is_shown_while_the_ladder_is_read_again(tmp_path: Path) -> None:
    record = HeldLadder(tmp_path / "club.sqlite")
    club = Club(record)
    await club.start()
    links: dict[str, LobbyLink] = {}
    try:
        for handle in ("ada", "grace"):
            admission = await club.enter(handle, key_line(handle), "127.0.0.1")
            links[handle] = await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN])
        ada, grace = links["ada"], links["grace"]
        await next_news(grace, lambda news: isinstance(news, Snapshot))
        record.reads.clear()
        club.forget_cached(["alan", "bob"])  # another process wrote a match: read again
        await ada.ask(OpenTable(rated=True, matches=None))
        await next_news(ada, goto)

        def shows_it(news: LobbyNews) -> bool:
            return isinstance(news, Snapshot) and [row.players for row in news.open] == [("ada",)]

        await asyncio.wait_for(next_news(grace, shows_it), EVENT_LIMIT)
    finally:
        record.reads.set()
        for link in links.values():
            with contextlib.suppress(Exception):
                await link.close()
        await club.stop()
        record.close()


async def test_a_stale_answer_is_given_while_it_is_read_again_then_kept() -> None:
    answers = iter(["first", "second"])
    reading = threading.Event()
    told: list[str] = []

    def read(_: str) -> str:
        reading.wait(2 * EVENT_LIMIT)  # past the test's limit: a load that waits fails it
        return next(answers)

    reads: Reads[str, str] = Reads(read, lambda: told.append("fresh"))
    reading.set()
    assert await reads.load("ladder") == "first"
    reading.clear()
    reads.stale("ladder")
    assert await asyncio.wait_for(reads.load("ladder"), EVENT_LIMIT) == "first"  # not waited for
    assert told == []
    reading.set()
    await eventually(lambda: told, lambda: told, "the fresh answer told")
    assert told == ["fresh"]
    assert reads.get("ladder") == "second"
    assert await reads.load("ladder") == "second"  # kept: not read a third time
