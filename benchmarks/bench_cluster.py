"""A club of two processes on one PostgreSQL (issue 39), loaded with simulated players.

    uv run python benchmarks/bench_cluster.py                      # 200 players, 60 s
    uv run python benchmarks/bench_cluster.py --players 40 --seconds 10

It starts a throwaway PostgreSQL cluster of its own (as tests/pg do: PostgreSQL's server programs
must be installed; as root they run as the `postgres` user), and two club processes on one
database, as a club is deployed: each a Python process of its own running the club that
`tictactoe club --database` runs (`club_for` over a `PostgresClubRecord`: its own connections, its
own LISTEN, its own tables' authorities), without the SSH door and its players' games. In their
place each club process opens a small gate on loopback (`/enter`, the question the SSH door asks
the club once a login is over, `Club.enter`), and the simulated players (tests/pg/simulated.py)
live in this script's process: each comes in through a club's gate, keeps a lobby websocket and
plays over its table's authority link, as a player's game does. Players come in pairs: one opens
a rated table on one club, the other sits from the other club's lobby, and they play until the
time is up, each acting `--pace` seconds after its turn comes (a person's pace; 0: as fast as
they can, which measures saturation more than the club).

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
import cProfile
import faulthandler
import json
import os
import pwd
import resource
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

import aiohttp
import psycopg
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from pg.conftest import POSTGRES_USER, Cluster, _free_port, _programs
from pg.simulated import Played, play_for
from tictactoe.club.server import club_for
from tictactoe.doors.ssh.gate import Admission
from tictactoe.record.club_pg import PostgresClubRecord, migrate

LOBBY_TARGET: Final = 0.2
MOVE_TARGET: Final = 0.05
CLUBS: Final = 2
LAG_EVERY: Final = 0.02
"""Seconds between two wakings of the loop-lag probe."""
STARTS_WITHIN: Final = 30.0
STOPS_WITHIN: Final = 15.0


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


class Lag:
    """How late the event loop wakes a timer of `LAG_EVERY` seconds, while it runs."""

    def __init__(self) -> None:
        self.late: list[float] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._probe())

    async def _probe(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(LAG_EVERY)
            self.late.append(loop.time() - before - LAG_EVERY)

    def stop(self) -> dict[str, float]:
        if self._task is not None:
            self._task.cancel()
        late = self.late or [0.0]
        return {"p50": statistics.median(late), "p95": p95(late), "worst": max(late)}


def lag_text(lag: dict[str, float]) -> str:
    return (
        f"loop late p50 {lag['p50'] * 1000:.1f} ms, p95 {lag['p95'] * 1000:.1f} ms,"
        f" worst {lag['worst'] * 1000:.0f} ms"
    )


def cpu_seconds() -> float:
    """CPU (user and system) this process has used so far, every thread's."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# One club process (`--club DSN`): the club, its gate on loopback, until SIGTERM.


async def serve_club(database: str) -> None:
    record = PostgresClubRecord(database, pool_size=8)
    club = club_for(record, grace=30.0)
    await club.start()

    async def enter(request: web.Request) -> web.Response:
        asked = await request.json()
        admission = await club.enter(asked["user"], asked["key"], asked["peer"])
        return web.json_response(
            {
                "name": admission.name,
                "refusal": admission.refusal,
                "environment": dict(admission.environment),
            }
        )

    gate = web.Application()
    gate.router.add_post("/enter", enter)
    runner = web.AppRunner(gate, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = int(runner.addresses[0][1])
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    lag = Lag()
    lag.start()
    started = cpu_seconds()
    print(json.dumps({"lobby": club.url, "gate": f"http://127.0.0.1:{port}/enter"}), flush=True)
    await stop.wait()
    used = cpu_seconds() - started
    late = lag.stop()
    faulthandler.dump_traceback_later(STOPS_WITHIN / 2)  # where a stop that hangs is
    asyncio.get_running_loop().call_later(STOPS_WITHIN / 2, print_tasks)
    await club.stop()
    record.close()
    await runner.cleanup()
    faulthandler.cancel_dump_traceback_later()
    print(json.dumps({"cpu": used, "lag": late}), flush=True)


def print_tasks() -> None:
    for task in asyncio.all_tasks():
        task.print_stack(file=sys.stderr)


def club_main(database: str) -> None:
    folder = os.environ.get("BENCH_CLUSTER_PROFILE")
    if not folder:
        asyncio.run(serve_club(database))
        return
    profile = cProfile.Profile()
    profile.runcall(asyncio.run, serve_club(database))
    profile.dump_stats(Path(folder) / f"club-{os.getpid()}.prof")


# The script's own process: the database, the club processes, the players.


class RemoteClub:
    """A club process as the simulated players reach it (`simulated.Door`): its gate and lobby."""

    def __init__(self, process: asyncio.subprocess.Process, session: aiohttp.ClientSession):
        self.process = process
        self.session = session
        self.gate = ""
        self.lobby = ""

    @property
    def url(self) -> str:
        return self.lobby

    async def started(self) -> None:
        assert self.process.stdout is not None
        said = await asyncio.wait_for(self.process.stdout.readline(), STARTS_WITHIN)
        if not said:
            raise RuntimeError("a club process ended before it was open")
        where = json.loads(said)
        self.gate, self.lobby = where["gate"], where["lobby"]

    async def enter(self, user: str, key: str | None, peer: str) -> Admission:
        asked = {"user": user, "key": key, "peer": peer}
        async with self.session.post(self.gate, json=asked) as answer:
            said = await answer.json()
        return Admission(said["name"], said["refusal"], said["environment"])

    async def stopped(self) -> dict[str, Any]:
        """SIGTERM; what the process says of itself as it ends."""
        assert self.process.stdout is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            said = await asyncio.wait_for(self.process.stdout.readline(), STOPS_WITHIN)
            await asyncio.wait_for(self.process.wait(), STOPS_WITHIN)
        except TimeoutError:
            print(f"a club process did not stop within {STOPS_WITHIN:.0f} s", file=sys.stderr)
            return {}
        return dict(json.loads(said)) if said else {}


async def bench(database: str, players: int, seconds: float, pace: float, series: int) -> None:
    migrate(database)  # once, before the clubs (each checks it)
    script = str(Path(__file__).resolve())
    async with aiohttp.ClientSession() as session:
        clubs: list[RemoteClub] = []
        try:
            for _ in range(CLUBS):
                process = await asyncio.create_subprocess_exec(
                    sys.executable, script, "--club", database, stdout=asyncio.subprocess.PIPE
                )
                clubs.append(RemoteClub(process, session))
            for club in clubs:
                await club.started()
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
        finally:
            for club in clubs:
                if club.process.returncode is None:
                    club.process.kill()
                    await club.process.wait()
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
    parser.add_argument("--club", metavar="DSN", help=argparse.SUPPRESS)  # a club process
    args = parser.parse_args()
    if args.club:
        club_main(args.club)
        return
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
