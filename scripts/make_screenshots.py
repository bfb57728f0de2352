"""Write an SVG screenshot of each main screen to screenshots/ (headless, reproducible).

uv run python scripts/make_screenshots.py
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot

from tictactoe.ai import Level
from tictactoe.app import TicTacToeApp
from tictactoe.config import GameConfig

OUT = Path(__file__).resolve().parent.parent / "screenshots"
SIZE = (100, 32)

HOT_SEAT = GameConfig(player1="Ada", player2="Grace", computer_delay=0, seed=7, save=False)


async def _nothing(pilot: Pilot[object]) -> None:
    await pilot.pause()


def _keys(*keys: str) -> Callable[[Pilot[object]], Awaitable[None]]:
    async def press(pilot: Pilot[object]) -> None:
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
        await pilot.pause()

    return press


SHOTS: dict[str, tuple[GameConfig, Callable[[Pilot[object]], Awaitable[None]], tuple[int, int]]] = {
    "new-game": (GameConfig(computer_delay=0, save=False), _nothing, SIZE),
    "mark-choice": (HOT_SEAT, _nothing, SIZE),
    "mid-match": (HOT_SEAT, _keys("x", "5", "7", "up", "right"), SIZE),
    "win": (HOT_SEAT, _keys("x", "7", "4", "8", "5", "9"), SIZE),
    "draw": (HOT_SEAT, _keys("x", "5", "7", "9", "1", "4", "6", "3", "8", "2"), SIZE),
    "computer-thinking": (
        GameConfig(player1="Ada", level=Level.HARD, computer_delay=60, seed=7, save=False),
        _keys("x", "5"),
        SIZE,
    ),
    "help": (HOT_SEAT, _keys("x", "question_mark"), SIZE),
    "hint": (HOT_SEAT, _keys("x", "5", "8", "h"), SIZE),
    "history": (HOT_SEAT, _keys("x", "5", "7", "3", "9", "8"), SIZE),
    "stats": (HOT_SEAT, _keys("x", "7", "4", "8", "5", "9", "n", "o", "5", "s"), SIZE),
    "light-theme": (HOT_SEAT, _keys("x", "5", "7", "3"), SIZE),
    "too-small": (HOT_SEAT, _keys("x", "5"), (40, 12)),
}


async def shoot(name: str) -> Path:
    config, prepare, size = SHOTS[name]
    app = TicTacToeApp(config)
    async with app.run_test(size=size) as pilot:
        if name == "light-theme":
            app.theme = "textual-light"
        await prepare(pilot)
        app.save_screenshot(f"{name}.svg", path=str(OUT))
    return OUT / f"{name}.svg"


async def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name in SHOTS:
        print(await shoot(name))


if __name__ == "__main__":
    asyncio.run(main())
