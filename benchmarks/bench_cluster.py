"""A club of two processes on one PostgreSQL (issue 39), loaded with simulated players.

    uv run python benchmarks/bench_cluster.py                      # 200 players, 60 s
    uv run python benchmarks/bench_cluster.py --players 40 --seconds 10

It starts a throwaway PostgreSQL cluster of its own (as tests/pg do: PostgreSQL's server programs
must be installed; as root they run as the `postgres` user), and two club processes on one
database, as a club is deployed: each a Python process of its own running the club that
`tictactoe club --database` runs (`club_for` over a `PostgresClubRecord`: its own connections, its
own LISTEN, its own tables' authorities), without the SSH door and its players' games. In their
place each club process (tests/pg/processes.py, as the load test's in tests/pg/test_cluster.py)
opens a small gate on loopback (`/enter`, the question the SSH door asks the club once a login is
over, `Club.enter`), and the simulated players (tests/pg/simulated.py) live in this script's
process: each comes in through a club's gate, keeps a lobby websocket and plays over its table's
authority link, as a player's game does. Players come in pairs: one opens a rated table on one
club, the other sits from the other club's lobby, and they play until the time is up, each acting
`--pace` seconds after its turn comes (a person's pace; 0: as fast as they can, which measures
saturation more than the club).

What it prints, each beside its target:
- a lobby event across processes: from a table's opening on one club to its row in a lobby of
  the other (the registry's NOTIFY, a re-read, the lobby's coalesced snapshot): p50 and p95;
- a cross-process move: from a seat's move sent to the other seat's state showing it: p50, p95;
- matches written per second (rated: both ratings under row locks, one transaction each);
- each process's CPU and its event loop's lag (how late a 20 ms timer wakes: p50, p95, worst),
  the players' process's too: a lagging players' loop inflates both figures above.

`BENCH_CLUSTER_PROFILE=DIR` writes a cProfile of each club process's event loop thread to
DIR/club-PID.prof (`python -m pstats`).
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
from typing import Any, Final

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from pg.conftest import POSTGRES_USER, Cluster, _free_port, _programs
from pg.processes import Lag, club_processes, cpu_seconds, p95
from pg.simulated import Played, play_for

LOBBY_TARGET: Final = 0.2
MOVE_TARGET: Final = 0.05
CLUBS: Final = 2


def line(name: str, values: list[float], target: float) -> str:
    if not values:
        return f"{name}: none measured"
    p50, high = statistics.median(values), p95(values)
    verdict = "ok" if high <= target else "over"
    return (
        f"{name}: p50 {p50 * 1000:.1f} ms, p95 {high * 1000:.1f} ms"
        f" (target {target * 1000:.0f} ms: {verdict}; {len(values)} measured)"
    )


def lag_text(lag: dict[str, float]) -> str:
    return (
        f"loop late p50 {lag['p50'] * 1000:.1f} ms, p95 {lag['p95'] * 1000:.1f} ms,"
        f" worst {lag['worst'] * 1000:.0f} ms"
    )


async def bench(database: str, players: int, seconds: float, pace: float, series: int) -> None:
    async with club_processes(database, CLUBS) as clubs:
        lag = Lag()
        lag.start()
        cpu_before = cpu_seconds()
        started = time.monotonic()
        played = await asyncio.wait_for(
            play_for(clubs, players // 2, seconds, pace, series or None), seconds + 60
        )
        elapsed = time.monotonic() - started
        players_cpu = cpu_seconds() - cpu_before
        players_lag = lag.stop()
        ended = [await club.stopped() for club in clubs]
    print(
        f"{players} players over {CLUBS} club processes for {seconds:.0f} s, each acting {pace} s"
        f" after its turn comes, at tables of {series or 'endless'} matches"
        f" ({elapsed:.1f} s in all)"
    )
    report(database, seconds, elapsed, played, ended, players_cpu, players_lag)


def report(
    database: str,
    seconds: float,
    elapsed: float,
    played: Played,
    ended: list[dict[str, Any]],
    players_cpu: float,
    players_lag: dict[str, float],
) -> None:
    with psycopg.connect(database, autocommit=True) as conn:
        row = conn.execute("SELECT count(*), count(DISTINCT uid) FROM matches").fetchone()
    assert row is not None
    written, distinct = int(row[0]), int(row[1])
    finished = sum(played.finished.values())
    print(line("a lobby event across processes", played.lobby_events, LOBBY_TARGET))
    print(line("  of those, once every pair is in", played.later_lobby_events, LOBBY_TARGET))
    print(line("a cross-process move", played.moves, MOVE_TARGET))
    print(
        f"matches written: {written} ({written / seconds:.0f} a second); finished at the"
        f" tables: {finished}; written once each: {written == distinct == finished}"
    )
    for number, said in enumerate(ended, 1):
        if said:
            print(
                f"club process {number}: CPU {said['cpu']:.1f} s"
                f" ({100 * said['cpu'] / elapsed:.0f} % of a core); {lag_text(said['lag'])}"
            )
    print(
        f"players' process: CPU {players_cpu:.1f} s ({100 * players_cpu / elapsed:.0f} % of a"
        f" core); {lag_text(players_lag)}"
    )
    print(f"load average: {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--pace",
        type=float,
        default=0.5,
        help="seconds a player takes to act once it is its turn (0: as fast as it can)",
    )
    parser.add_argument(
        "--series",
        type=int,
        default=3,
        help="matches a table; then each pair opens another (0: one endless table a pair)",
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
        asyncio.run(
            bench(cluster.create_database(), args.players, args.seconds, args.pace, args.series)
        )
    finally:
        try:
            cluster.stop()
        finally:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
