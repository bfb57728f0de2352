"""`tictactoe club` under a guest flood from 40 addresses while a friend with a key logs in: the
friend's login time, the games open at once, and the memory of the club's processes.

    uv run python benchmarks/bench_club_flood.py                       # the club's own bounds
    uv run python benchmarks/bench_club_flood.py --max-players 64      # a smaller club
    PYTHONPATH=OLD/src uv run python benchmarks/bench_club_flood.py    # another checkout's club

The club runs as `tictactoe club --listen 127.0.0.1 --ssh-port 0 --data TMP` (a temporary
folder, removed after), with the `--max-players` given, if any. The friend (`friend`, with an
Ed25519 key) claims the handle with a first login before the flood. Then 160 guests (4 from each
of 40 addresses, 127.0.0.2 to 127.0.0.41: the club takes 4 guests at once from one address) log
in without a key, all at once, each asyncssh's client asking for a session with a pseudo-terminal
of 80 x 24; a guest let in keeps its session open (it holds its place) until the end. A guest's
answer is its lobby ("Open tables" on its screen), the club's sentence (the session ends with
it), or the connection dropped. With `--arriving N`, only N guests log in at the same time (the
next when one has its answer), as a flood from slower machines would.

While the flood goes on, the friend logs in again every `--every` seconds (from 127.0.0.1,
asyncssh's client with the key), each time timed from the connection asked for until the lobby
shows on the friend's screen; then the friend leaves. Every half second the benchmark counts the
club's games (its processes whose controlling terminal is a pseudo-terminal) and, every two
seconds, the PSS and RSS of every process of the club (`/proc/PID/smaps_rollup`); the most of
each is printed. The benchmark's own 160 SSH clients share the machine's cores with the club:
the load average is printed too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import asyncssh
from bench_club import ESCAPES, folder, memory, start_club, terminals, tree

WAIT = 60.0
ADDRESSES = [f"127.0.0.{number}" for number in range(2, 42)]
PER_ADDRESS = 4
LOBBY = "Open tables"


class Screen(asyncssh.SSHClientSession[str]):
    """A session's screen: its text lately (escape sequences out), and when it ended."""

    def __init__(self) -> None:
        self.text = ""
        self.errors = ""
        self.shown: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def data_received(self, data: str, datatype: asyncssh.DataType) -> None:
        if datatype is not None:
            self.errors += data
            return
        self.text = (self.text + " ".join(ESCAPES.sub(" ", data).split()))[-4000:]
        if LOBBY in self.text and not self.shown.done():
            self.shown.set_result(time.perf_counter())

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ended.done():
            self.ended.set_result(None)


class Keyless(asyncssh.SSHClient):
    """A login without a key (keyboard-interactive, no prompt): a guest."""

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Sequence[tuple[str, bool]]
    ) -> list[str]:
        return []


async def session(
    port: int, user: str, source: str, key: asyncssh.SSHKey | None
) -> tuple[asyncssh.SSHClientConnection | None, Screen | None, str, float]:
    """A login and a session with a terminal: the connection, its screen, what it came to (the
    lobby, a sentence, or "dropped"), and the seconds from asking until then."""
    asked = time.perf_counter()
    try:
        connection = await asyncssh.connect(
            "127.0.0.1",
            port,
            username=user,
            local_addr=(source, 0),
            known_hosts=None,
            client_keys=[key] if key is not None else None,
            client_factory=None if key is not None else Keyless,
            config=None,
            agent_path=None,
            password_auth=False,
        )
        _, screen = await connection.create_session(
            Screen, term_type="xterm-256color", term_size=(80, 24), encoding="utf-8"
        )
    except (OSError, asyncssh.Error):
        return None, None, "dropped", time.perf_counter() - asked
    done, _ = await asyncio.wait(
        [screen.shown, screen.ended], timeout=WAIT, return_when="FIRST_COMPLETED"
    )
    if screen.shown in done:
        return connection, screen, LOBBY, screen.shown.result() - asked
    connection.close()
    said = screen.errors.strip() or ("dropped" if done else f"nothing within {WAIT:.0f} s")
    return None, screen, said, time.perf_counter() - asked


async def bench(data: Path, options: list[str], logins: int, arriving: int, every: float) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    club, port = await start_club(data, options)
    held: list[asyncssh.SSHClientConnection] = []
    most_games = 0
    most_pss = most_rss = 0.0
    sampling = True

    async def sample() -> None:
        nonlocal most_games, most_pss, most_rss
        turn = 0
        while sampling:
            processes = tree(club.pid)
            ttys = terminals()
            most_games = max(most_games, sum(1 for pid in processes if pid in ttys))
            if turn % 4 == 0:
                figures = [memory(pid) for pid in processes]
                most_pss = max(most_pss, sum(pss for pss, _, _ in figures))
                most_rss = max(most_rss, sum(rss for _, rss, _ in figures))
            turn += 1
            await asyncio.sleep(0.5)

    try:
        connection, _, first, took = await session(port, "friend", "127.0.0.1", key)
        assert connection is not None, f"the friend could not come in: {first}"
        connection.close()
        print(f"the friend's first login (claiming the handle), no flood: {took * 1000:.0f} ms")
        sampler = asyncio.create_task(sample())
        began = time.perf_counter()

        at_once = asyncio.Semaphore(arriving)

        async def guest(source: str) -> str:
            async with at_once:
                connection, _, said, _ = await session(port, "guest", source, None)
            if connection is not None:
                held.append(connection)
            return said

        flood = asyncio.gather(*(guest(source) for source in ADDRESSES for _ in range(PER_ADDRESS)))
        friend: list[float] = []
        refused: list[str] = []
        for _ in range(logins):
            await asyncio.sleep(every)
            if flood.done():
                break
            connection, _, said, took = await session(port, "friend", "127.0.0.1", key)
            if connection is None:
                refused.append(said)
                continue
            friend.append(took)
            connection.close()
        said = await flood
        flooded = time.perf_counter() - began
        await asyncio.sleep(2.0)  # the last guests' games drawn
        sampling = False
        await sampler
        counts = Counter(said)
        print(
            f"{len(said)} guests from {len(ADDRESSES)} addresses answered within {flooded:.1f} s:",
            *(f"  {count:4d} {what}" for what, count in counts.most_common()),
            sep="\n",
        )
        if friend:
            print(
                f"the friend's logins during the flood: {len(friend)}, median"
                f" {statistics.median(friend) * 1000:.0f} ms, max {max(friend) * 1000:.0f} ms"
                f" ({', '.join(f'{took:.1f}' for took in friend)} s)"
            )
        if refused:
            print(f"the friend was refused {len(refused)} times: {Counter(refused)}")
        print(
            f"at most {most_games} games at once; the club's processes at most"
            f" {most_pss:.0f} MiB PSS, {most_rss:.0f} MiB RSS (counted in each process)"
        )
        print(f"load average: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    finally:
        for connection in held:
            connection.close()
        await asyncio.sleep(1)
        club.send_signal(signal.SIGTERM)
        try:
            club.wait(WAIT)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(club.pid, signal.SIGKILL)
            club.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-players", type=int, default=None, help="the club's own option")
    parser.add_argument(
        "--logins", type=int, default=30, help="the friend's logins in the flood, at most"
    )
    parser.add_argument("--every", type=float, default=2.0, help="seconds between them")
    parser.add_argument(
        "--arriving", type=int, default=160, help="guests logging in at the same time"
    )
    args = parser.parse_args()
    if sys.platform != "linux":
        sys.exit("This benchmark reads /proc: it runs on Linux.")
    options = [] if args.max_players is None else ["--max-players", str(args.max_players)]
    with folder() as data:
        asyncio.run(bench(data, options, args.logins, args.arriving, args.every))


if __name__ == "__main__":
    main()
