"""A change in the club is made once for every lobby: the part of a snapshot every lobby shares (the
tables, the ladder) is serialised once, each lobby's own part (who, rating, recent matches) is
added to it, and what each lobby is sent is the very text of its whole snapshot."""

from __future__ import annotations

import asyncio
from datetime import UTC
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from club.test_club_hostile import come_in, heard, opened_by
from online.test_end_to_end import WAIT
from tictactoe.club.lobby import Club
from tictactoe.core.engine import Mark
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.players import Player
from tictactoe.online.lobby import (
    LadderLine,
    LobbyNews,
    OpenTable,
    PastMatch,
    Snapshot,
    TableRow,
    You,
    lobby_json,
    shared_json,
    snapshot_json,
)
from tictactoe.record.club import ClubRecord

texts = st.text(max_size=12)
maybe = st.none() | texts
counts = st.integers(0, 99)
rows = st.builds(
    TableRow,
    texts,
    st.lists(texts, min_size=1, max_size=2).map(tuple),
    st.booleans(),
    st.none() | counts,
    texts,
    st.tuples(counts, counts, counts),
    counts,
    st.booleans(),
)
snapshots = st.builds(
    Snapshot,
    st.builds(You, texts, st.booleans(), texts, maybe, maybe, maybe),
    st.lists(rows, max_size=3).map(tuple),
    st.lists(rows, max_size=3).map(tuple),
    st.lists(st.builds(LadderLine, counts, texts, texts, counts, counts, counts, counts)).map(
        tuple
    ),
    st.lists(
        st.builds(
            PastMatch,
            st.builds(
                FinishedMatch,
                st.tuples(st.builds(Player, texts), st.builds(Player, texts)),
                st.sampled_from([(Mark.X, Mark.O), (Mark.O, Mark.X)]),
                st.integers(0, 1),
                st.lists(st.integers(0, 8), max_size=9).map(tuple),
                st.none() | st.integers(0, 1),
                st.none() | st.datetimes(timezones=st.just(UTC)),
            ),
            st.booleans(),
        ),
        max_size=3,
    ).map(tuple),
)


@given(snapshots)
def test_a_snapshot_made_from_its_shared_part_is_the_same_text(snapshot: Snapshot) -> None:
    shared = shared_json(snapshot.open, snapshot.playing, snapshot.ladder)
    assert snapshot_json(snapshot.you, snapshot.recent, shared) == lobby_json(snapshot)


def is_snapshot(news: LobbyNews) -> bool:
    return isinstance(news, Snapshot)


async def test_each_lobby_is_sent_its_own_whole_snapshot(tmp_path: Path) -> None:
    club = Club(ClubRecord(tmp_path / "club.sqlite3"))
    await club.start()
    try:
        ada, bob, cy = [await come_in(club, handle) for handle in ("ada", "bob", "cy")]
        for link in (ada, bob, cy):
            await heard(link, is_snapshot, WAIT)
        await ada.ask(OpenTable(rated=True, matches=3))
        shown = {
            "bob": await heard(bob, opened_by("ada"), WAIT),
            "cy": await heard(cy, opened_by("ada"), WAIT),
            "ada": await heard(
                ada,
                lambda news: isinstance(news, Snapshot) and news.you.waiting_at is not None,
                WAIT,
            ),
        }
        await asyncio.sleep(0.3)  # nothing changes after: what each was sent is what is true
        for handle, snapshot in shown.items():
            assert snapshot == club.snapshot(handle, guest=False)
        assert isinstance(shown["ada"], Snapshot) and shown["ada"].you.handle == "ada"
        for link in (ada, bob, cy):
            await link.close()
    finally:
        await club.stop()
