"""A match finished while PostgreSQL was away is written once, even when two hand it to the store
at the same moment: the process's heartbeat finding the database back, and the process stopping
(each `ClusterStore.flush`, in a thread of its own): the store writes its one queue under its
lock."""

from __future__ import annotations

import threading
import time

import psycopg

from record.test_club_record import NOW, won_by_first
from tictactoe.club.cluster import Cluster
from tictactoe.core.club import Rating
from tictactoe.record.club_matches import Finished
from tictactoe.record.club_pg import PostgresClubRecord


class _Slow(PostgresClubRecord):
    """The store, its waiting matches written a moment after they are asked for (a slow
    database)."""

    def save_pending(self) -> list[tuple[Finished, tuple[Rating, Rating] | None]]:
        time.sleep(0.3)
        return super().save_pending()


def test_a_match_that_waited_is_written_once_when_two_flush_at_once(database: str) -> None:
    record = _Slow(database)
    cluster = Cluster(record)
    try:
        cluster.up = False  # the database is away: the match waits
        assert (
            cluster.store.finish("t1", ("ada", "bob"), False, won_by_first("ada", "bob"), NOW)
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
