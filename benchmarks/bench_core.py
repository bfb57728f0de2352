"""How fast the pure core is, next to the plain code a tutorial would write.

Run it with `uv run python benchmarks/bench_core.py` (add `--quick` for fewer repeats).
It prints three comparisons, each measured in this one run:

(a) a full walk of the game tree (255,168 games) through the engine's public API
    against a classic mutable-list engine that places a mark, checks the 8 lines and
    takes the mark back;
(b) hard's first move on an empty board in a fresh interpreter (a cold memo, imports
    excluded) against a plain `functools.lru_cache` negamax over tuple boards solving
    the same position, also in a fresh interpreter;
(c) hard's move once warm: the median over many calls on assorted positions.

All times are CPU time (`time.process_time`), not wall-clock: on a shared machine a
process waiting for a core would otherwise count other people's work as its own.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

from tictactoe.core.ai import Level, choose_move
from tictactoe.core.engine import GameState

GAMES = 255_168
"""Complete games of tic-tac-toe: both walks must count exactly this many."""

ROOT = Path(__file__).resolve().parent.parent


# (a) The full game-tree walk.


def walk_engine(state: GameState) -> int:
    """Complete games below `state`, using only the public API."""
    if state.is_over:
        return 1
    games = 0
    for cell in state.legal_moves():
        games += walk_engine(state.play(cell))
    return games


CLASSIC_LINES = [
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
]


def classic_winner(board: list[str]) -> str | None:
    for a, b, c in CLASSIC_LINES:
        if board[a] != " " and board[a] == board[b] == board[c]:
            return board[a]
    return None


def walk_classic(board: list[str], player: str) -> int:
    """The tutorial engine: one list, place a mark, check the lines, take it back."""
    if classic_winner(board) is not None or " " not in board:
        return 1
    games = 0
    for cell in range(9):
        if board[cell] == " ":
            board[cell] = player
            games += walk_classic(board, "O" if player == "X" else "X")
            board[cell] = " "
    return games


def interleaved(repeats: int, *runs: Callable[[], int]) -> list[list[float]]:
    """The times of `repeats` runs of each, in seconds, taking turns so that whatever
    else the machine is doing falls on both alike; every run must count every game."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for run, taken in zip(runs, times, strict=True):
            start = time.process_time()
            games = run()
            taken.append(time.process_time() - start)
            if games != GAMES:
                raise SystemExit(f"a walk counted {games} games, not {GAMES}")
    return times


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


# (b) The cold first move, each in a fresh interpreter.

COLD_ENGINE = """
import random, time
start = time.process_time()
from tictactoe.core.ai import Level, choose_move
from tictactoe.core.engine import GameState
imported = time.process_time() - start
state, rng = GameState.new(), random.Random(0)
start = time.process_time()
cell = choose_move(state, Level.HARD, rng)
print(time.process_time() - start, cell, imported)
"""

COLD_REFERENCE = """
import time
from functools import lru_cache

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))

def won(board, mark):
    return any(board[a] == board[b] == board[c] == mark for a, b, c in LINES)

@lru_cache(maxsize=None)
def negamax(board, player):
    other = "O" if player == "X" else "X"
    if won(board, other):
        return -1
    if " " not in board:
        return 0
    return max(
        -negamax(board[:cell] + (player,) + board[cell + 1:], other)
        for cell in range(9)
        if board[cell] == " "
    )

def best_move(board, player):
    other = "O" if player == "X" else "X"
    free = [cell for cell in range(9) if board[cell] == " "]
    return max(free, key=lambda cell: -negamax(board[:cell] + (player,) + board[cell + 1:], other))

start = time.process_time()
cell = best_move((" ",) * 9, "X")
print(time.process_time() - start, cell)
"""


def fresh_interpreter_times(code: str, repeats: int) -> list[float]:
    """The medians of the times the code reports for itself over `repeats` fresh
    interpreters: first the time of its move, then any other times it prints."""
    times: list[list[float]] = []
    for _ in range(repeats):
        output = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        ).stdout.split()
        cell = int(output.pop(1))
        if cell not in range(9):
            raise SystemExit(f"the first move came out as {cell}")
        times.append([float(seconds) for seconds in output])
    return [statistics.median(column) for column in zip(*times, strict=True)]


# (c) The warm move.


def assorted_positions(count: int, rng: random.Random) -> list[GameState]:
    """Unfinished positions from random games, from the empty board to the last move."""
    positions: list[GameState] = []
    while len(positions) < count:
        state = GameState.new()
        while not state.is_over and len(positions) < count:
            positions.append(state)
            state = state.play(rng.choice(state.legal_moves()))
    return positions


def warm_move_times(positions: list[GameState], rounds: int) -> list[float]:
    rng = random.Random(1)
    for state in positions:
        choose_move(state, Level.HARD, rng)
    times = []
    for _ in range(rounds):
        for state in positions:
            start = time.process_time()
            choose_move(state, Level.HARD, rng)
            times.append(time.process_time() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, rougher numbers")
    quick = parser.parse_args().quick
    walks, colds, rounds = (2, 3, 20) if quick else (5, 9, 200)

    print(f"Python {platform.python_version()} on {platform.machine()}, {platform.system()}")
    print()

    our_times, classic_times = interleaved(
        walks, lambda: walk_engine(GameState.new()), lambda: walk_classic([" "] * 9, "X")
    )
    ours, classic = min(our_times), min(classic_times)
    print(f"(a) full game-tree walk, {GAMES:,} games, best of {walks}")
    print(f"    engine (public API: is_over, legal_moves, play)  {ours * 1000:8.0f} ms")
    print(f"    classic mutable list (place, check, take back)   {classic * 1000:8.0f} ms")
    speedup = classic / ours
    print(
        f"    engine is {speedup:.2f}x as fast (target: at least 1.2x, {verdict(speedup >= 1.2)})"
    )
    rounds_ratios = [c / o for o, c in zip(our_times, classic_times, strict=True)]
    print(f"    round by round: {min(rounds_ratios):.2f}x to {max(rounds_ratios):.2f}x")
    print()

    cold_engine, engine_import = fresh_interpreter_times(COLD_ENGINE, colds)
    (cold_reference,) = fresh_interpreter_times(COLD_REFERENCE, colds)
    print(f"(b) first move on an empty board, cold, median of {colds} fresh interpreters")
    print(f"    hard (choose_move, Level.HARD)                   {cold_engine * 1000:8.1f} ms")
    print(f"    lru_cache negamax over tuple boards              {cold_reference * 1000:8.1f} ms")
    print(
        "    (importing tictactoe.core.ai and its tables, not counted:"
        f" {engine_import * 1000:.1f} ms)"
    )
    ratio = cold_engine / cold_reference
    print(f"    ratio hard / reference: {ratio:.2f} (target: at most 0.5, {verdict(ratio <= 0.5)})")
    print()

    positions = assorted_positions(100, random.Random(2026))
    times = warm_move_times(positions, rounds)
    print(f"(c) hard's move once warm, {len(times):,} calls on {len(positions)} positions")
    print(f"    median {statistics.median(times) * 1e6:.1f} µs", end="")
    print(f", 99th percentile {statistics.quantiles(times, n=100)[98] * 1e6:.1f} µs")
    print()
    print(
        textwrap.fill(
            "Times are CPU time of the measuring process (time.process_time), so that time "
            "spent waiting while other work holds the cores does not count; that work still "
            "shares caches and clock speed, so compare the ratios, measured side by side in "
            "the same run.",
            width=88,
        )
    )


if __name__ == "__main__":
    main()
