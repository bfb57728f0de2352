"""A match finished while PostgreSQL was away is written once, even when two hand it to the store
at the same moment: the process's heartbeat finding the database back, and the process stopping
(each `ClusterStore.flush`, in a thread of its own)."""

from __future__ import annotations

import threading
import time

import psycopg

from record.test_club_record import NOW, won_by_first
from tictactoe.club.cluster import Cluster
from tictactoe.core.club import Rating
from tictactoe.record.club_pg import PostgresClubRecord
from tictactoe.record.match import MatchRecord


class _Slow(PostgresClubRecord):
    """The store, each match written a moment after it is handed over (a slow database)."""

    def finish(
        self,
        table: str,
        players: tuple[str, str],
        rated: bool,
        match: MatchRecord,
        winner: int | None,
        now: float,
    ) -> tuple[Rating, Rating] | None:
        time.sleep(0.3)
        return super().finish(table, players, rated, match, winner, now)


def test_a_match_that_waited_is_written_once_when_two_flush_at_once(database: str) -> None:
    record = _Slow(database)
    cluster = Cluster(record)
    try:
        cluster.up = False  # the database is away: the match waits
        assert (
            cluster.store.finish("t1", ("ada", "bob"), False, won_by_first("ada", "bob"), 0, NOW)
            is None
        )
        cluster.up = True
        flushes = [threading.Thread(target=cluster.store.flush) for _ in range(2)]
        for flush in flushes:
            flush.start()
        for flush in flushes:
            flush.join()
        assert cluster.store.unsaved == 0
    finally:
        record.close()
    with psycopg.connect(database, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM matches").fetchone() == (1,)
