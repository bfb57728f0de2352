"""Write an SVG screenshot of each main screen to screenshots/ (headless, reproducible),
and a PNG of the game served to Chromium by `tictactoe serve` (browser.png).

uv run python scripts/make_screenshots.py           every picture
uv run python scripts/make_screenshots.py NAME ...  those named (ultimate, new-game...)

The record screen's pictures read a small record of fixed matches, made in a
temporary folder each run (times shown in UTC); every other picture keeps nothing.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.pilot import Pilot
from textual.screen import Screen

if TYPE_CHECKING:
    from playwright.async_api import ViewportSize

import tictactoe.tui.app
from tictactoe.config import GameConfig
from tictactoe.core.ai import Level, choose_move
from tictactoe.core.engine import GameState, Mark
from tictactoe.core.notices import Notice
from tictactoe.core.series import ChooseMark, Intent, Play, Player, Series
from tictactoe.core.ultimate import UltimateState
from tictactoe.host.invitation import Invitation
from tictactoe.online.protocol import Ended, Refused, State, Welcome
from tictactoe.play.seat_table import SeatTable
from tictactoe.record import GameRecord, MatchRecord
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.online_app import JoinSetup, OnlineApp
from tictactoe.tui.screens.game import CHORES_AFTER, GameScreen
from tictactoe.tui.screens.online import InvitationScreen

OUT = Path(__file__).resolve().parent.parent / "screenshots"
SIZE = (100, 32)

HOT_SEAT = GameConfig(player1="Ada", player2="Grace", computer_delay=0, seed=7, save=False)
RECORD = Path("record.sqlite3")
"""The demonstration record, relative to the temporary folder the script works in."""
WITH_RECORD = GameConfig(
    player1="Ada",
    player2="Grace",
    computer_delay=0,
    seed=7,
    record_file=RECORD,
    settings_file=Path("settings.json"),
)


def make_record(path: Path) -> None:
    """Nine matches at fixed times: Ada, Grace, the hard computer and a person called like it."""
    ada, grace, hard = Player("Ada"), Player("Grace"), Player.computer(Level.HARD)
    impostor = Player("Computer (hard)")
    x_o, o_x = (Mark.X, Mark.O), (Mark.O, Mark.X)
    matches = [
        (ada, grace, x_o, (4, 0, 8, 2, 1, 7, 6, 3, 5)),
        (grace, ada, x_o, (0, 3, 1, 4, 2)),
        (ada, hard, x_o, (4, 0, 2, 6, 3, 5, 1, 7, 8)),
        (impostor, hard, o_x, (4, 0, 8, 2, 1, 7, 6, 3, 5)),
        (ada, grace, o_x, (0, 4, 8, 2, 6, 3, 7)),
        (grace, ada, x_o, (4, 0, 8, 2, 1, 7, 6, 3, 5)),
        (ada, impostor, x_o, (6, 4, 7, 0, 8)),
        (hard, ada, x_o, (4, 0, 8, 2, 1, 7, 6, 3, 5)),
        (ada, grace, x_o, (4, 1, 0, 8, 6, 2, 3)),
    ]
    record = GameRecord(path)
    start = datetime(2026, 11, 20, 18, 0, tzinfo=UTC)
    for number, (first, second, marks, moves) in enumerate(matches):
        match = GameState.new(first=marks[0])
        for cell in moves:
            match = match.play(cell)
        winner = None if match.winner is None else marks.index(match.winner)
        when = start + timedelta(minutes=9 * number)
        record.add(MatchRecord((first, second), marks, 0, moves, winner, when))
    record.close()


async def _nothing(pilot: Pilot[object]) -> None:
    await pilot.pause()


def _keys(*keys: str) -> Callable[[Pilot[object]], Awaitable[None]]:
    async def press(pilot: Pilot[object]) -> None:
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
        await pilot.pause(CHORES_AFTER)  # the footer follows a finished match a moment later
        await pilot.pause()

    return press


def _ultimate_opening(moves: int) -> tuple[int, ...]:
    """The first `moves` moves of an Ultimate game, medium against easy from a fixed seed."""
    rng, game = random.Random(8), UltimateState.new()
    while len(game.moves) < moves:
        level = Level.MEDIUM if game.to_move is Mark.X else Level.EASY
        game = game.play(choose_move(game, level, rng))
    return game.moves


async def _ultimate(pilot: Pilot[object]) -> None:
    """X chosen, then the opening typed by its digits (one when the board is forced)."""
    await pilot.pause()
    await pilot.press("x")
    screen = pilot.app.screen
    assert isinstance(screen, GameScreen)
    for move in _ultimate_opening(26):
        await pilot.press(*screen.board.key_for(move))
    await pilot.pause()


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
    "record": (WITH_RECORD, _keys("x", "s"), SIZE),
    "replay": (WITH_RECORD, _keys("x", "s", "m", "enter", "left", "left"), SIZE),
    "light-theme": (HOT_SEAT, _keys("x", "5", "7", "3"), SIZE),
    "too-small": (HOT_SEAT, _keys("x", "5"), (40, 12)),
    "ultimate": (
        GameConfig(player1="Ada", player2="Grace", variant="ultimate", seed=7, save=False),
        _ultimate,
        SIZE,
    ),
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


INVITATION = Invitation(
    code="K7M4QX",
    addresses=("192.168.1.20", "2a01:4f8:c0c:1234::20"),
    ssh_port=2222,
    web_port=8000,
    fingerprint="SHA256:4mBf3rZ1l0wq9oTQm3xWvD0yYkq8s2h5Jd7uJ6tE1aQ",
    relay=("relay.example.net", 41234),
)
"""What the host's invitation shows with a relay (`--relay`): an address of a home network
and a global IPv6 one."""


class OnlineShot(OnlineApp):
    """The online app showing one screen, as the host's or the friend's terminal shows it."""

    CSS_PATH = str(Path(tictactoe.tui.app.__file__).with_name("app.tcss"))
    """(A relative path would be read beside this script.)"""

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__(GameConfig(save=False), JoinSetup())
        self._screen = screen

    def begin(self) -> None:
        self.push_screen(self._screen)


class Nowhere:
    """A link to no authority, in a picture: it takes what the seat sends, and brings nothing."""

    def __init__(self, seat: int | None) -> None:
        self.welcome = Welcome("watcher") if seat is None else Welcome("seat", seat)

    async def act(self, version: int, intent: Intent) -> None:
        pass

    async def ask_hint(self) -> None:
        pass

    async def leave(self) -> None:
        pass

    def __aiter__(self) -> Nowhere:
        return self

    async def __anext__(self) -> State | Refused | Ended:
        raise StopAsyncIteration


def _online_series() -> Series:
    """Ada (X) against Grace (O), four moves in, Ada to move."""
    series = Series.new("Ada", "Grace")
    for intent in (ChooseMark(Mark.X), Play(4), Play(0), Play(8), Play(2)):
        series = series.apply(intent)
    return series


async def shoot_online() -> list[Path]:
    """Both sides of an online series, and the host's invitation."""
    series = _online_series()
    shots = {
        "online-invitation": (InvitationScreen(INVITATION), None, ""),
        "online-host": (
            GameScreen(SeatTable(series, Nowhere(0))),
            1,
            "Grace asked for a hint.",
        ),
        "online-friend": (GameScreen(SeatTable(series, Nowhere(1))), 1, ""),
    }
    paths = []
    for name, (screen, watchers, notice) in shots.items():
        app = OnlineShot(screen)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            if isinstance(screen, GameScreen) and isinstance(screen.table, SeatTable):
                said = Notice.of(notice) if notice else Notice()
                state = State(7, series, ("Ada", "Grace"), watchers or 0, None, said)
                screen.table.receive(state)
                if screen.table.seat == 1:
                    await pilot.press("9")  # Ada's turn: said on Grace's screen
                await pilot.pause()
            app.save_screenshot(f"{name}.svg", path=str(OUT))
        paths.append(OUT / f"{name}.svg")
    return paths


BROWSER_VIEWPORT: ViewportSize = {"width": 1100, "height": 680}
"""About 114×35 terminal cells in the page's 16 px font."""

READ_SCREEN = """
(() => {
  Object.defineProperty(Object.prototype, "terminal", {
    configurable: true,
    set(value) {
      Object.defineProperty(this, "terminal", {
        value, writable: true, configurable: true, enumerable: true,
      });
      if (value && value.buffer && value.onData) window.__terminal = value;
    },
  });
  window.__shows = text => {
    const terminal = window.__terminal;
    if (!terminal) return false;
    const buffer = terminal.buffer.active;
    for (let row = 0; row < terminal.rows; row++) {
      const line = buffer.getLine(buffer.viewportY + row);
      if (line && line.translateToString(true).includes(text)) return true;
    }
    return false;
  };
})();
"""
"""Reaches the xterm.js terminal that textual-serve's page keeps to itself, to wait on its text."""


BROWSER_KEYS = [
    ("x", "Ada (X) to move"),
    ("7", "1. Ada X top-left"),
    ("4", "2. Grace O left"),
    ("8", "3. Ada X top"),
    ("5", "4. Grace O centre"),
    ("9", "Ada wins!"),
]
"""Each key, and what shows once it has been handled."""


async def shoot_browser() -> Path | None:
    """A won match in the system's Chromium, served by `tictactoe serve`."""
    chromium = shutil.which("chromium")
    if chromium is None:
        print("browser.png skipped: no Chromium here (Debian: apt-get install chromium)")
        return None
    from playwright.async_api import async_playwright

    from tictactoe.doors.web.server import GameServer

    server = GameServer(
        ["--player1", "Ada", "--player2", "Grace", "--delay", "0", "--seed", "7", "--no-save"],
        port=0,
        spare=False,
    )
    ready = asyncio.Event()
    serving = asyncio.create_task(server.run(lambda _address: ready.set()))
    await ready.wait()
    path = OUT / "browser.png"
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=chromium,
                args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
            )
            page = await browser.new_page(viewport=BROWSER_VIEWPORT)
            await page.add_init_script(READ_SCREEN)
            await page.goto(server.address)
            await page.wait_for_function("window.__shows('choose your mark')")
            await page.focus(".xterm-helper-textarea")
            for key, then in BROWSER_KEYS:
                await page.keyboard.press(key)
                await page.wait_for_function("text => window.__shows(text)", arg=then)
            await page.wait_for_timeout(400)  # the terminal's fade-in and the last frame
            await page.screenshot(path=str(path))
            await browser.close()
    finally:
        server.request_exit()
        await serving
    return path


async def main() -> None:
    OUT.mkdir(exist_ok=True)
    os.environ["TZ"] = "UTC"
    time.tzset()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        make_record(RECORD)
        named = sys.argv[1:]
        for name in named or SHOTS:
            print(await shoot(name))
        if named:
            return
        for path in await shoot_online():
            print(path)
        print(await shoot_browser())


if __name__ == "__main__":
    asyncio.run(main())
