"""`tictactoe serve --ssh-port` with many SSH sessions open at once: a key's round trip on any
of them, and the memory each one costs.

    uv run python benchmarks/bench_ssh_capacity.py                   # 50 sessions: about 2 minutes
    uv run python benchmarks/bench_ssh_capacity.py --sessions 10 --keys 60   # rougher

`tictactoe serve --port 0 --ssh-port 0 --player1 A --player2 B --no-save` runs with a home folder
of its own (its SSH host key is made there). asyncssh's client opens the sessions, each with a
pseudo-terminal of 100 x 32 (xterm-256color), four to a connection as OpenSSH's connection
sharing would (the door takes 16 connections from one address, 4 sessions each), a few at a
time as people would arrive. Each session's game starts at the mark dialog (both names given):
`x` takes it to the board.

With every session open, keys go to sessions picked at random, one at a time after a random
pause of up to 50 ms: a digit of a drawn match (7 8 9 5 4 6 2 1 3), then `n` and `x`
(untimed) for the next. A round trip is timed from writing the digit to the session's channel
until its output, escape sequences taken out, shows the move's line in the list of moves
("4. B O centre"); beside it, until the first byte back. Target: p95 at most 250 ms.

Memory: VmRSS of every session's game process (those of the server's children whose terminal
is a pseudo-terminal), and PSS from /proc/PID/smaps_rollup (the shared pages of the interpreter
and its libraries split between the processes); the server's own. The CPU the games spend
while nobody types is measured over a few seconds before the keys.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import os
import platform
import random
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh

SIZE = (100, 32)
WAIT = 120.0
PER_CONNECTION = 4
ARRIVING = 4
"""Sessions being opened at the same time."""
ESCAPES = re.compile(
    rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|P[^\x1b]*\x1b\\"
    rb"|[()][0-9A-Za-z]|[ -~])"
)
DRAW = "789546213"
"""A match that ends in a draw, as digits (keypad layout)."""
CELL = {
    "7": "top-left",
    "8": "top",
    "9": "top-right",
    "4": "left",
    "5": "centre",
    "6": "right",
    "1": "bottom-left",
    "2": "bottom",
    "3": "bottom-right",
}


def words(raw: bytes) -> str:
    return " ".join(ESCAPES.sub(b"", raw).decode(errors="replace").split())


@dataclass
class Session:
    """One SSH session: its game's output, read as it comes."""

    process: asyncssh.SSHClientProcess[bytes]
    raw: bytearray = field(default_factory=bytearray)
    mark: int = 0
    moves: int = 0
    """Moves played in the match on show."""
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    first: float | None = None
    reader: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while data := await self.process.stdout.read(65536):
            if self.first is None:
                self.first = time.perf_counter()
            self.raw += data
            self.arrived.set()

    def from_now(self) -> None:
        self.mark = len(self.raw)
        self.first = None

    async def expect(self, pattern: str, timeout: float = WAIT) -> float:
        """Wait until `pattern` shows after the mark; when (perf_counter) it did."""
        try:
            async with asyncio.timeout(timeout):
                while not re.search(pattern, words(bytes(self.raw[self.mark :]))):
                    self.arrived.clear()
                    await self.arrived.wait()
        except TimeoutError:
            shown = words(bytes(self.raw[self.mark :]))[-1500:]
            raise SystemExit(
                f"{pattern!r} did not show in {timeout} s (the session's exit status:"
                f" {self.process.exit_status}); it showed: {shown!r}"
            ) from None
        return time.perf_counter()

    def send(self, keys: str) -> None:
        self.process.stdin.write(keys.encode())


def game_pids(server: int) -> list[int]:
    """The server's children that run in a pseudo-terminal: the SSH sessions' games."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(stat[1]) == server and str((entry / "fd" / "0").readlink()).startswith(
                "/dev/pts/"
            ):
                pids.append(int(entry.name))
    return pids


def kib(pid: int, path: str, key: str) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/{path}").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return None


def cpu_seconds(pid: int) -> float:
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")


async def drain(stream: asyncio.StreamReader, said: list[str]) -> None:
    while line := await stream.readline():
        said.append(line.decode(errors="replace").rstrip())


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def open_session(
    connect: Callable[[], Awaitable[asyncssh.SSHClientConnection]], gate: asyncio.Semaphore
) -> tuple[Session, float]:
    """A session at its board; how long it took to get there (its connection included when
    it is the connection's first: the door closes a connection left without a session)."""
    async with gate:
        started = time.perf_counter()
        connection = await connect()
        process = await connection.create_process(
            term_type="xterm-256color", term_size=SIZE, encoding=None
        )
        session = Session(process)
        session.start()
        await session.expect("A, choose your mark")
        session.from_now()
        session.send("x")
        await session.expect(r"A \(X\) to move")
        return session, time.perf_counter() - started


async def round_trip(session: Session) -> tuple[float, float]:
    """A digit on `session`: seconds to the first byte back, and to the move drawn."""
    if session.moves == len(DRAW):  # the match was drawn: the next one, untimed
        session.from_now()
        session.send("n")
        await session.expect("choose your mark")
        session.from_now()
        session.send("x")
        await session.expect(r"\(X\) to move")
        session.moves = 0
        await asyncio.sleep(0.2)
    key = DRAW[session.moves]
    session.moves += 1
    mark = "X" if session.moves % 2 else "O"
    session.from_now()
    started = time.perf_counter()
    session.send(key)
    drawn = await session.expect(rf"{session.moves}\. [AB] {mark} {CELL[key]}\b", 10)
    assert session.first is not None
    return session.first - started, drawn - started


async def run(sessions_wanted: int, keys: int) -> None:
    home = Path(tempfile.mkdtemp(prefix="bench-ssh-capacity-"))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "SSH_AUTH_SOCK")}
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_STATE_HOME=str(home / "state"),
    )
    server = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "tictactoe", "serve", "--port", "0", "--ssh-port", "0"),
        *("--player1", "A", "--player2", "B", "--no-save"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )
    assert server.stdout is not None
    connections: list[asyncssh.SSHClientConnection] = []
    said: list[str] = []
    draining: asyncio.Task[None] | None = None
    try:
        port = None
        while port is None:
            line = (await asyncio.wait_for(server.stdout.readline(), 30)).decode()
            if not line:
                raise SystemExit("the server ended before it gave its ssh line")
            if found := re.search(r"ssh -p (\d+) play@127\.0\.0\.1", line):
                port = int(found[1])
        draining = asyncio.create_task(drain(server.stdout, said))  # its log never fills a pipe
        connecting: dict[int, asyncio.Task[asyncssh.SSHClientConnection]] = {}

        async def dial() -> asyncssh.SSHClientConnection:
            connection = await asyncssh.connect(
                "127.0.0.1",
                port,
                username="play",
                known_hosts=None,
                client_keys=None,
                agent_path=None,
                config=None,
            )
            connections.append(connection)
            return connection

        async def connect(number: int) -> asyncssh.SSHClientConnection:
            if number not in connecting:
                connecting[number] = asyncio.create_task(dial())
            return await connecting[number]

        gate = asyncio.Semaphore(ARRIVING)
        started = time.perf_counter()
        opened = await asyncio.gather(
            *(
                open_session(functools.partial(connect, index // PER_CONNECTION), gate)
                for index in range(sessions_wanted)
            )
        )
        all_open = time.perf_counter() - started
        sessions = [session for session, _ in opened]
        each = [seconds * 1000 for _, seconds in opened]
        pids = game_pids(server.pid)
        print(
            f"{len(sessions)} sessions at their board in {all_open:.1f} s, {ARRIVING} arriving"
            f" at a time (each: median {statistics.median(each):.0f} ms,"
            f" worst {max(each):.0f} ms); {len(pids)} game processes"
        )

        await asyncio.sleep(2)
        before = {pid: cpu_seconds(pid) for pid in pids}
        idle = 5.0
        await asyncio.sleep(idle)
        spent = sum(cpu_seconds(pid) - before[pid] for pid in pids)
        print(f"idle: the games spent {spent / idle * 100:.1f} % of one core in all")

        chosen = random.Random(1)
        firsts, drawns = [], []
        for _ in range(keys):
            await asyncio.sleep(chosen.uniform(0, 0.05))
            first, drawn = await round_trip(chosen.choice(sessions))
            firsts.append(first * 1000)
            drawns.append(drawn * 1000)

        rss = [kib(pid, "status", "VmRSS") or 0 for pid in pids]
        pss = [kib(pid, "smaps_rollup", "Pss") for pid in pids]
        server_rss = kib(server.pid, "status", "VmRSS") or 0
        server_pss = kib(server.pid, "smaps_rollup", "Pss")
    except BaseException:
        print("the server said:", *said[-20:], sep="\n  ")
        raise
    finally:
        for connection in connections:
            connection.close()
        if server.returncode is None:
            server.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(server.wait(), 10)
            except TimeoutError:
                os.killpg(server.pid, signal.SIGKILL)
                await server.wait()
        if draining is not None:
            draining.cancel()
        shutil.rmtree(home, ignore_errors=True)

    print()
    print(f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores")
    print(f"{keys} round trips with {len(sessions)} sessions open (a random one each time):")
    for label, values in (("move drawn", drawns), ("first byte back", firsts)):
        print(
            f"  {label}: median {statistics.median(values):.1f} ms,"
            f" p95 {percentile(values, 0.95):.1f} ms, worst {max(values):.1f} ms"
        )
    print(
        f"memory per session's game: VmRSS median {statistics.median(rss) / 1024:.1f} MiB"
        f" (all {sum(rss) / 1024:.0f} MiB)"
    )
    if all(value is not None for value in pss):
        known = [value for value in pss if value is not None]
        print(
            f"                           PSS median {statistics.median(known) / 1024:.1f} MiB"
            f" (all {sum(known) / 1024:.0f} MiB)"
        )
    print(
        f"the server: VmRSS {server_rss / 1024:.1f} MiB"
        + (f", PSS {server_pss / 1024:.1f} MiB" if server_pss is not None else "")
    )
    p95 = percentile(drawns, 0.95)
    print(f"target: p95 <= 250 ms ({'met' if p95 <= 250 else 'MISSED'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--keys", type=int, default=200, help="round trips timed")
    args = parser.parse_args()
    asyncio.run(run(args.sessions, args.keys))


if __name__ == "__main__":
    main()
