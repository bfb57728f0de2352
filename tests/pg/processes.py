"""Club processes of one club on one PostgreSQL database, as a club is deployed: each a Python
process of its own running the club that `tictactoe club --database` runs (`club_for` over a
`PostgresClubRecord`: its own connections, its own LISTEN, its own tables' authorities), without
the SSH door and its players' games. In the door's place each opens a small gate on loopback
(`/enter`, the question the SSH door asks the club once a login is over, `Club.enter`), which
`RemoteClub` asks: a `simulated.Door`, so that tests/pg/simulated.py's players come in through it.

Used by tests/pg/test_cluster.py (the load test) and benchmarks/bench_cluster.py. Run as a script
(`python -P tests/pg/processes.py DSN`), this file is one club process: it prints where its lobby
and gate are as one line of JSON, serves until SIGTERM, then prints its CPU and its event loop's
lag as another line and ends. `BENCH_CLUSTER_PROFILE=DIR` writes a cProfile of its event loop
thread to DIR/club-PID.prof (`python -m pstats`).
"""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import faulthandler
import json
import os
import resource
import signal
import statistics
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Final

import aiohttp
from aiohttp import web

from tictactoe.club.server import club_for
from tictactoe.doors.ssh.gate import Admission
from tictactoe.record.club_pg import PostgresClubRecord, migrate

LOBBY_PACE: Final = 100_000.0
"""The lobby changes a second each club process sends (`--lobby-pace`): as many as asked for,
the players here being simulated, drawing nothing (what is measured is a change's way from one
process to the other's lobbies, not the pace a machine drawing real lobbies needs)."""
LAG_EVERY: Final = 0.02
"""Seconds between two wakings of the loop-lag probe."""
STARTS_WITHIN: Final = 60.0
"""Seconds a club process may take to say it listens, on a busy machine (`limits.EVENT_LIMIT`:
this file also runs as a script, without the tests' folder to import from)."""
STOPS_WITHIN: Final = 60.0
"""Seconds a club process may take to stop, on a busy machine (`limits.EVENT_LIMIT`)."""


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


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


def cpu_seconds() -> float:
    """CPU (user and system) this process has used so far, every thread's."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# One club process: the club, its gate on loopback, until SIGTERM.


async def serve_club(database: str) -> None:
    record = PostgresClubRecord(database, pool_size=8)
    club = club_for(record, grace=30.0, lobby_pace=LOBBY_PACE)
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


# The starting process's side: a club process as the simulated players reach it.


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
        """SIGTERM; what the process says of itself as it ends (its CPU and loop lag), or {} if
        it did not end within `STOPS_WITHIN` seconds (it is still running then)."""
        assert self.process.stdout is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            said = await asyncio.wait_for(self.process.stdout.readline(), STOPS_WITHIN)
            await asyncio.wait_for(self.process.wait(), STOPS_WITHIN)
        except TimeoutError:
            print(f"a club process did not stop within {STOPS_WITHIN:.0f} s", file=sys.stderr)
            return {}
        return dict(json.loads(said)) if said else {}


@contextlib.asynccontextmanager
async def club_processes(database: str, count: int) -> AsyncIterator[list[RemoteClub]]:
    """`count` club processes on `database` (migrated first, once), each open when this enters;
    after, each process still running (not `stopped`) is killed and waited for."""
    migrate(database)  # once, before the clubs (each checks it)
    async with aiohttp.ClientSession() as session:
        clubs: list[RemoteClub] = []
        try:
            for _ in range(count):
                process = await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-P",  # not this file's folder on sys.path: it is one of tests/pg's modules
                    str(Path(__file__).resolve()),
                    database,
                    stdout=asyncio.subprocess.PIPE,
                )
                clubs.append(RemoteClub(process, session))
            for club in clubs:
                await club.started()
            yield clubs
        finally:
            for club in clubs:
                if club.process.returncode is None:
                    club.process.kill()
                    await club.process.wait()


if __name__ == "__main__":
    club_main(sys.argv[1])
