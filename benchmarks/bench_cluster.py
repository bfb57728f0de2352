"""A club of two processes on one PostgreSQL (issue 39), loaded with simulated players.

    uv run python benchmarks/bench_cluster.py                      # 200 players, 60 s
    uv run python benchmarks/bench_cluster.py --players 40 --seconds 10

It starts a throwaway PostgreSQL cluster of its own (as tests/pg do: PostgreSQL's server programs
must be installed; as root they run as the `postgres` user), and two clubs on one database, each
with its own store (its own connections, its own LISTEN) and its own tables' authorities, both
in this Python process (one event loop: the two clubs and every simulated player share it, so
the figures include that contention). Players come in pairs (tests/pg/simulated.py): one opens
a rated table on one club, the other sits from the other club's lobby, and they play until the
time is up, each acting `--pace` seconds after its turn comes (a person's pace; 0: as fast as
the event loop lets them, which measures the loop's saturation more than the club).

What it prints, each beside its target:
- a lobby event across processes: from a table's opening on one club to its row in a lobby of
  the other (the registry's NOTIFY, a re-read, the lobby's coalesced snapshot): p50 and p95;
- a cross-process move: from a seat's move sent to the other seat's state showing it: p50, p95;
- matches written per second (rated: both ratings under row locks, one transaction each).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pwd
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from pg.conftest import POSTGRES_USER, Cluster, _free_port, _programs
from pg.simulated import play_for
from tictactoe.club.cluster import club_for
from tictactoe.record.club_pg import PostgresClubRecord

LOBBY_TARGET = 0.2
MOVE_TARGET = 0.05


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def line(name: str, values: list[float], target: float) -> str:
    if not values:
        return f"{name}: none measured"
    p50, high = statistics.median(values), p95(values)
    verdict = "ok" if high <= target else "over"
    return (
        f"{name}: p50 {p50 * 1000:.1f} ms, p95 {high * 1000:.1f} ms"
        f" (target {target * 1000:.0f} ms: {verdict}; {len(values)} measured)"
    )


async def bench(database: str, players: int, seconds: float, pace: float) -> None:
    clubs = [club_for(PostgresClubRecord(database, pool_size=8), grace=30.0) for _ in range(2)]
    for club in clubs:
        await club.start()
    started = time.monotonic()
    try:
        played = await play_for(clubs, pairs=players // 2, seconds=seconds, pace=pace)
    finally:
        for club in clubs:
            await club.stop()
            club.record.close()
    elapsed = time.monotonic() - started
    with psycopg.connect(database, autocommit=True) as conn:
        row = conn.execute("SELECT count(*), count(DISTINCT uid) FROM matches").fetchone()
    assert row is not None
    written, distinct = int(row[0]), int(row[1])
    finished = sum(played.finished.values())
    print(
        f"{players} players over 2 club processes for {seconds:.0f} s, each acting {pace} s"
        f" after its turn comes ({elapsed:.1f} s in all)"
    )
    print(line("a lobby event across processes", played.lobby_events, LOBBY_TARGET))
    print(line("a cross-process move", played.moves, MOVE_TARGET))
    print(
        f"matches written: {written} ({written / seconds:.0f} a second); finished at the"
        f" tables: {finished}; written once each: {written == distinct == finished}"
    )
    print(f"load average: {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--pace",
        type=float,
        default=0.5,
        help="seconds a player takes to act once it is its turn (0: as fast as it can)",
    )
    args = parser.parse_args()
    programs = _programs()
    if programs is None:
        sys.exit("PostgreSQL's server programs (initdb, pg_ctl) are not installed.")
    folder = Path(tempfile.mkdtemp(prefix="tictactoe-bench-pg-"))
    if os.geteuid() == 0:
        owner = pwd.getpwnam(POSTGRES_USER)
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    cluster = Cluster(programs, folder, _free_port())
    try:
        cluster.init()
        cluster.start()
        asyncio.run(bench(cluster.create_database(), args.players, args.seconds, args.pace))
    finally:
        try:
            cluster.stop()
        finally:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
