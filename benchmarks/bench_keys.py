"""The work of one key, in-process: the game against the bare app, frame included.

`bench_app.py` watches both apps from outside, through tmux, where a figure moves by
±20 % from run to run on this machine. This script runs each app inside this process,
headless but rendering every frame as it would for a terminal (Textual's own headless
mode skips drawing), and counts the CPU time of the process's main thread from a key
posted to the frame written, and the frame's size. It is a script, not a test:

    uv run python benchmarks/bench_keys.py              # 10 rounds, about 20 s
    PYTHONPATH=/tmp/old/src uv run python benchmarks/bench_keys.py   # an older src/

The game plays 5 1 9 3 7 8 (no line) and takes the six moves back, round after round;
the bare app, which can change each of its buttons once, gets the digits 1 to 9 in a
fresh app each round. Both first close the dialog they start with (`x`). `--ultimate` also
times Ultimate: twelve moves of a seeded game typed as a person types them (a board's digit
and a cell's, or the cell's alone when the board is forced) and taken back, round after round.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App
from textual.drivers.headless_driver import HeadlessDriver

BARE_APP = Path(__file__).resolve().parent / "bare_app.py"
SIZE = (100, 32)

_written: list[int] = []
"""Bytes of each frame written, in order."""


def _draw_frames() -> None:
    """Make the headless driver draw frames as a terminal driver would, to nowhere."""
    HeadlessDriver.is_headless = property(lambda self: False)  # type: ignore[method-assign,assignment]
    HeadlessDriver.write = lambda self, data: _written.append(len(data.encode()))  # type: ignore[method-assign]


async def _keys(
    app: App[Any], keys: str, before: Callable[[Any], Awaitable[None]] | None = None
) -> list[float]:
    """CPU milliseconds of the main thread from each key to its frame."""
    samples = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        if before:
            await before(pilot)
        gc.collect()
        gc.freeze()  # as the game does once it is on screen
        for key in keys:
            await pilot.pause(0.02)
            frames = len(_written)
            start = time.thread_time()
            app.post_message(events.Key(key, key))
            while len(_written) == frames:
                await asyncio.sleep(0.0005)
            samples.append((time.thread_time() - start) * 1000)
    return samples


async def choose_x(pilot: Any) -> None:
    """Close the dialog each app starts with."""
    await pilot.press("x")
    await pilot.pause(0.3)


def game_keys(rounds: int) -> tuple[list[float], list[int]]:
    from tictactoe.options import parse_config
    from tictactoe.tui.app import TicTacToeApp

    config = parse_config(["--player1", "Ada", "--player2", "Bob", "--no-save", "--delay", "0"])
    start = len(_written)
    samples = asyncio.run(_keys(TicTacToeApp(config), ("519378" + "u" * 6) * rounds, choose_x))
    return samples, _written[start:][-len(samples) :]


def ultimate_keys(rounds: int) -> list[float]:
    import random

    from tictactoe.core.keys import KeyLayout
    from tictactoe.core.ultimate import UltimateState
    from tictactoe.options import parse_config
    from tictactoe.tui.app import TicTacToeApp

    rng, state, typed = random.Random(7), UltimateState.new(), ""
    for _ in range(12):
        move = rng.choice(state.legal_moves())
        board, cell = divmod(move, 9)
        key = KeyLayout.NUMPAD.key_for
        typed += key(cell) if state.forced_board == board else key(board) + key(cell)
        state = state.play(move)
    argv = ["--player1", "Ada", "--player2", "Bob", "--no-save", "--delay", "0"]
    config = parse_config([*argv, "--variant", "ultimate"])
    return asyncio.run(_keys(TicTacToeApp(config), (typed + "u" * 12) * rounds, choose_x))


def bare_keys(rounds: int) -> tuple[list[float], list[int]]:
    spec = importlib.util.spec_from_file_location("bare_app", BARE_APP)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    samples: list[float] = []
    sizes: list[int] = []
    for _ in range(rounds):
        start = len(_written)
        keys = asyncio.run(_keys(module.BareApp(), "519378246", choose_x))
        samples += keys
        sizes += _written[start:][-len(keys) :]
    return samples, sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--ultimate", action="store_true", help="time Ultimate's keys too")
    args = parser.parse_args()
    _draw_frames()
    game, game_bytes = game_keys(args.rounds)
    bare, bare_bytes = bare_keys(args.rounds)
    print(f"{'per key':<28} {'game':>8} {'bare':>8} {'ratio':>7}")
    for label, g, b in (
        ("CPU, median (ms)", statistics.median(game), statistics.median(bare)),
        (
            "CPU, 90th percentile (ms)",
            sorted(game)[len(game) * 9 // 10],
            sorted(bare)[len(bare) * 9 // 10],
        ),
        ("frame written, median (B)", statistics.median(game_bytes), statistics.median(bare_bytes)),
    ):
        print(f"{label:<28} {g:8.2f} {b:8.2f} {g / b:6.2f}x")
    print(f"({len(game)} keys of the game, {len(bare)} of the bare app)")
    if args.ultimate:
        ultimate = ultimate_keys(args.rounds)
        print(
            f"Ultimate, CPU per key: median {statistics.median(ultimate):.2f} ms,"
            f" 90th percentile {sorted(ultimate)[len(ultimate) * 9 // 10]:.2f} ms"
            f" ({len(ultimate)} keys)"
        )


if __name__ == "__main__":
    main()
