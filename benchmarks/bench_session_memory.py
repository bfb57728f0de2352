"""What one more person's game costs in memory, three ways (issue 38: a club of 500 players at
most 20 MiB PSS each). Each way runs N games of the real app, headless, at 80 x 24, each with a
mark chosen and a move made, and reads the kernel's figures (`/proc/PID/smaps_rollup`):

- (a) a fresh interpreter per game, as the doors start one today (`python -m tictactoe …`);
- (b) a game forked from a warm parent (everything imported, one game played, `gc.freeze`);
- (c) N games in one process (Textual apps side by side on one event loop): the growth of its
  resident memory per game past the first.

PSS (proportional set size) shares each page among the processes that map it: the sum of
the PSS of every game process is what they cost the machine together.

    uv run python benchmarks/bench_session_memory.py          # N = 12, about 40 s
    uv run python benchmarks/bench_session_memory.py --games 30
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import subprocess
import sys
import time
from pathlib import Path

TARGET_MIB = 20.0
SETTLE = 4.0
"""Seconds the games are left running before they are measured."""

GAME = """
import asyncio, sys
from tictactoe.config import GameConfig
from tictactoe.tui.app import TicTacToeApp

async def main() -> None:
    app = TicTacToeApp(GameConfig(player1="Ada", player2="Bob", save=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("x")
        await pilot.press("5")
        print("ready", flush=True)
        await asyncio.sleep(float(sys.argv[1]))

asyncio.run(main())
"""


def figures(pid: int) -> tuple[float, float]:
    """PSS and RSS of process `pid`, in MiB."""
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("Pss", "Rss"):
            values[name] = int(rest.split()[0]) / 1024
    return values["Pss"], values["Rss"]


def fresh(games: int) -> float:
    """(a): the mean PSS of `games` fresh interpreters, each running a game."""
    hold = str(SETTLE + 30)
    processes = [
        subprocess.Popen([sys.executable, "-c", GAME, hold], stdout=subprocess.PIPE, text=True)
        for _ in range(games)
    ]
    try:
        for process in processes:
            assert process.stdout is not None and process.stdout.readline() == "ready\n"
        time.sleep(SETTLE)
        return sum(figures(p.pid)[0] for p in processes) / games
    finally:
        for process in processes:
            process.kill()
            process.wait()


async def _game(ready: asyncio.Semaphore, done: asyncio.Event) -> None:
    from tictactoe.config import GameConfig
    from tictactoe.tui.app import TicTacToeApp

    app = TicTacToeApp(GameConfig(player1="Ada", player2="Bob", save=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("x")
        await pilot.press("5")
        ready.release()
        await done.wait()


async def _games(count: int, hold: float) -> None:
    ready, done = asyncio.Semaphore(0), asyncio.Event()
    tasks = [asyncio.create_task(_game(ready, done)) for _ in range(count)]
    for _ in range(count):
        await ready.acquire()
    await asyncio.sleep(hold)
    done.set()
    await asyncio.gather(*tasks)


def forked(games: int) -> float:
    """(b): the mean PSS of `games` games forked from a warm parent."""
    asyncio.run(_games(1, 0))  # warm: every module a game imports, and one game played
    gc.collect()
    gc.freeze()
    children = []
    reader, writer = os.pipe()
    for _ in range(games):
        pid = os.fork()
        if pid == 0:  # a game of its own, then nothing else
            os.close(reader)
            try:
                asyncio.run(_ready_then(writer))
            finally:
                os._exit(0)
        children.append(pid)
    os.close(writer)
    for _ in range(games):
        assert os.read(reader, 1) == b"r"
    time.sleep(SETTLE)
    try:
        return sum(figures(pid)[0] for pid in children) / games
    finally:
        for pid in children:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        gc.unfreeze()


async def _ready_then(writer: int) -> None:
    ready, done = asyncio.Semaphore(0), asyncio.Event()
    task = asyncio.create_task(_game(ready, done))
    await ready.acquire()
    os.write(writer, b"r")
    await asyncio.sleep(SETTLE + 30)
    done.set()
    await task


def side_by_side(games: int) -> tuple[float, float]:
    """(c): the resident memory of one process with one game, and its growth per game more."""

    async def measure() -> tuple[float, float]:
        ready, done = asyncio.Semaphore(0), asyncio.Event()
        first = asyncio.create_task(_game(ready, done))
        await ready.acquire()
        gc.collect()
        one = figures(os.getpid())[1]
        more = [asyncio.create_task(_game(ready, done)) for _ in range(games - 1)]
        for _ in more:
            await ready.acquire()
        await asyncio.sleep(SETTLE)
        gc.collect()
        every = figures(os.getpid())[1]
        done.set()
        await asyncio.gather(first, *more)
        return one, (every - one) / (games - 1)

    return asyncio.run(measure())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12)
    games = parser.parse_args().games
    if sys.platform != "linux":
        sys.exit("This benchmark reads /proc: it runs on Linux.")
    print(f"{games} games each way; target: at most {TARGET_MIB:.0f} MiB PSS a player")
    a = fresh(games)
    print(f"(a) a fresh interpreter per game:   {a:5.1f} MiB PSS a game")
    if os.fork() == 0:  # (b) and (c) in children of their own: each starts cold
        b = forked(games)
        print(f"(b) forked from a warm parent:      {b:5.1f} MiB PSS a game", flush=True)
        os._exit(0)
    os.wait()
    if os.fork() == 0:
        one, each = side_by_side(games)
        print(
            f"(c) games side by side in one process: {each:5.1f} MiB a game more"
            f" (the process with one game: {one:.1f} MiB resident)",
            flush=True,
        )
        os._exit(0)
    os.wait()


if __name__ == "__main__":
    main()
