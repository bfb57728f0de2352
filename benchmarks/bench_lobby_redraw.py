"""What one change in the club costs each lobby: the CPU a lobby screen spends on a snapshot in
which one table has opened (its session process does this for every change, on every lobby; on
a club of 200 players, 200 times). The real lobby screen, headless at 80 x 24, a ladder of 20,
its link to the club a fake that hands it snapshots (as tests/club/test_lobby_screen.py does).

    uv run python benchmarks/bench_lobby_redraw.py             # 40 snapshots, 3 rounds
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from club.test_lobby_screen import LOBBY, FakeLobby, club_app
from tictactoe.online.lobby import LadderLine, TableRow


async def one_round(snapshots: int) -> float:
    """Milliseconds of CPU a snapshot, each with one more open table, drawn."""
    ladder = tuple(LadderLine(i, f"p{i}", "1500 ± 100", 10, 5, 2, 3) for i in range(1, 21))
    base = dataclasses.replace(LOBBY, ladder=ladder)
    lobby = FakeLobby(base)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause(0.2)
        started = time.process_time()
        for number in range(snapshots):
            opened = TableRow(f"n{number}", (f"new{number}",), True, None, rating="1500 ± 500")
            lobby.say(dataclasses.replace(base, open=(*base.open, opened)))
            await pilot.pause()
        return (time.process_time() - started) / snapshots * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshots", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    costs = [asyncio.run(one_round(args.snapshots)) for _ in range(args.rounds)]
    print(
        f"a snapshot with a new open table: {statistics.median(costs):.1f} ms of CPU"
        f" (rounds: {', '.join(f'{cost:.1f}' for cost in costs)})"
    )


if __name__ == "__main__":
    main()
