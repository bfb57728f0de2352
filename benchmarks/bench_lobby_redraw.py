"""What one change in the club costs each lobby: the CPU a lobby screen spends on a snapshot in
which one table has opened (its session process does this for every change, on every lobby; on
a club of 200 players, 200 times). The real lobby screen, headless at 80 x 24, a ladder of 20,
its link to the club a fake that hands it snapshots (as tests/club/test_lobby_screen.py does).

Beside it, the floor: the least any Textual screen can spend to show a change, measured the same
way: a bare app of Textual's own Header, a one-line Static and a Footer, the Static given a new
line (`layout=False`: nothing moves). From both, the least time 199 lobbies can take to show one
change on this machine's cores, were the club's and the SSH clients' own work nothing.

    uv run python benchmarks/bench_lobby_redraw.py             # 40 snapshots, 3 rounds
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Static

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from club.test_lobby_screen import LOBBY, FakeLobby, club_app
from tictactoe.online.lobby import LadderLine, TableRow

GAP = 0.03
"""Seconds between changes: each is drawn before the next (Textual draws at most 60 frames a
second)."""


async def cpu_a_change(app: App[None], change: Callable[[int], None], changes: int) -> float:
    """Milliseconds of CPU `app` spends on one `change`, drawn: the same number of gaps with a
    change in each, less the same gaps without (the app idle: its timers, the loop). Not through
    Pilot, whose own waiting costs about as much as the smallest change."""
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.3)
        spent = []
        for changing in (False, True):
            started = time.process_time()
            for number in range(changes):
                if changing:
                    change(number)
                await asyncio.sleep(GAP)
            spent.append(time.process_time() - started)
    return (spent[1] - spent[0]) / changes * 1000


async def lobby_round(changes: int) -> float:
    """The lobby: each snapshot with one more open table than the one before."""
    ladder = tuple(LadderLine(i, f"p{i}", "1500 ± 100", 10, 5, 2, 3) for i in range(1, 21))
    base = dataclasses.replace(LOBBY, ladder=ladder)
    app = club_app(FakeLobby(base))

    def change(number: int) -> None:
        opened = TableRow(f"n{number}", (f"new{number}",), True, None, rating="1500 ± 500")
        app.hear(dataclasses.replace(base, open=(*base.open, opened)))

    return await cpu_a_change(app, change, changes)


class Floor(App[None]):
    """The least a screen can be that shows a change: Textual's own widgets, one line changed."""

    CSS = "#line { height: 1; }"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="line")
        yield Footer()


async def floor_round(changes: int) -> float:
    """The floor: the bare app's one line, another each time, nothing moved."""
    app = Floor()

    def change(number: int) -> None:
        line = app.query_one("#line", Static)
        line.update(Text(f"new{number} 1500 ± 500 rated · open"), layout=False)

    return await cpu_a_change(app, change, changes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshots", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    costs, floors = [], []
    for _ in range(args.rounds):
        costs.append(asyncio.run(lobby_round(args.snapshots)))
        floors.append(asyncio.run(floor_round(args.snapshots)))
    cores = len(os.sched_getaffinity(0))
    for name, figures in (
        ("the lobby, a snapshot with a new open table", costs),
        ("the floor, a bare app's one line changed", floors),
    ):
        cost = statistics.median(figures)
        print(
            f"{name}: {cost:.1f} ms of CPU (rounds: {', '.join(f'{c:.1f}' for c in figures)});"
            f" 199 of them on {cores} cores: at least {cost * 199 / cores:.0f} ms"
        )


if __name__ == "__main__":
    main()
