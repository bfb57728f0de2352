"""The game served by `tictactoe serve`, played from a real Chromium through Playwright.

`served` starts the real server as a process (any free port, `--delay 0`, the game record in
`tmp_path`) and stops it in teardown with a bounded wait. `browser` is the system's Chromium
(Playwright cannot download one here); without it these tests skip, unless
`TICTACTOE_REQUIRE_BROWSER=1` (set by CI), where they fail. A `Tab` reads the terminal that the
page draws on a canvas from xterm.js's own buffer, through a script added before the page loads.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from playwright.async_api import Browser, BrowserContext, Page, ViewportSize, async_playwright

from limits import EVENT_LIMIT
from tictactoe.core.labels import display_name
from tictactoe.record import GameRecord

REQUIRE_BROWSER: Final = "TICTACTOE_REQUIRE_BROWSER"
"""When "1", a missing Chromium fails the browser tests instead of skipping them."""

CHROMIUM_FLAGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

VIEWPORT: Final[ViewportSize] = {"width": 1200, "height": 800}
"""About 133×40 terminal cells at the page's 16 px font: the whole game fits."""

SCREEN_READER: Final = """
(() => {
  // textual-serve's page keeps its xterm.js Terminal in a private object, as `this.terminal`:
  // catch that assignment and keep the Terminal where the test can read its buffer.
  Object.defineProperty(Object.prototype, "terminal", {
    configurable: true,
    set(value) {
      Object.defineProperty(this, "terminal", {
        value, writable: true, configurable: true, enumerable: true,
      });
      if (value && value.buffer && value.onData) window.__terminal = value;
    },
  });
  window.__screenText = () => {
    const terminal = window.__terminal;
    if (!terminal) return "";
    const buffer = terminal.buffer.active, lines = [];
    for (let row = 0; row < terminal.rows; row++) {
      const line = buffer.getLine(buffer.viewportY + row);
      lines.push(line ? line.translateToString(true) : "");
    }
    return lines.join("\\n");
  };
  window.__cellBox = () => {
    const terminal = window.__terminal, screen = terminal.element.querySelector(".xterm-screen");
    const box = screen.getBoundingClientRect();
    return {
      x: box.left, y: box.top,
      width: box.width / terminal.cols, height: box.height / terminal.rows,
    };
  };
})();
"""


def recorded_results(path: Path) -> dict[str, tuple[int, int, int]]:
    """Each player's (wins, losses, draws) as kept in the game record at `path`.

    The one place that knows how the record is stored, so that every "was it recorded" check
    reads it the same way.
    """
    if not path.exists():
        return {}
    record = GameRecord(path)
    try:
        return {
            display_name(row.player): (row.wins, row.losses, row.draws)
            for row in record.players(limit=1000)
        }
    finally:
        record.close()


def record_options(path: Path) -> list[str]:
    """The game options that keep the record at `path`."""
    return ["--record", str(path)]


def children(pid: int) -> set[int]:
    """The processes whose parent is `pid` (Linux: read from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Running, and not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def wait_until(condition: Any, what: str, timeout: float = EVENT_LIMIT) -> float:
    """Poll `condition()` until true; the seconds it took (a figure to print, not to test)."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, f"{what}: not within {timeout:.0f} s"
        time.sleep(0.02)
    return time.monotonic() - start


class Served:
    """`tictactoe serve` running as a process, with its own game record."""

    def __init__(self, tmp_path: Path, *game_args: str) -> None:
        self.record = tmp_path / "record.sqlite3"
        self.log = tmp_path / "server.log"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tictactoe",
                    "serve",
                    "--port",
                    "0",
                    "--delay",
                    "0",
                    *record_options(self.record),
                    *game_args,
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.games_seen: set[int] = set()
        self.url = self._wait_for_url()

    def _wait_for_url(self) -> str:
        deadline = time.monotonic() + EVENT_LIMIT
        while time.monotonic() < deadline:
            found = re.search(r"http://\S+/", self.log.read_text(errors="replace"))
            if found:
                return found.group(0)
            assert self.process.poll() is None, f"the server stopped: {self.output()}"
            time.sleep(0.05)
        raise AssertionError(f"the server never said where it listens: {self.output()}")

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    @property
    def pid(self) -> int:
        return self.process.pid

    def games(self) -> set[int]:
        """The game processes running now (the spare one included)."""
        games = {pid for pid in children(self.pid) if alive(pid)}
        self.games_seen |= games
        return games

    def stop(self, sig: int = signal.SIGTERM, timeout: float = EVENT_LIMIT) -> float:
        """Signal the server; the seconds it took to exit (killed after `timeout`), a figure to
        print, not to test."""
        self.games()
        start = time.monotonic()
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
            raise AssertionError(
                f"the server did not stop within {timeout:.0f} s: {self.output()[-1500:]}"
            ) from None
        return time.monotonic() - start

    def kill_leftovers(self) -> set[int]:
        """Kill any game process still running; the ones that were."""
        left = {pid for pid in self.games_seen if alive(pid)}
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        return left


@contextlib.contextmanager
def serving(tmp_path: Path, *game_args: str) -> Iterator[Served]:
    """`tictactoe serve` with `game_args` for every tab, stopped after, with no game left."""
    server = Served(tmp_path, *game_args)
    try:
        yield server
    finally:
        if server.process.poll() is None:
            server.stop()
        left = server.kill_leftovers()
        assert not left, f"game processes left running after the server stopped: {left}"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serving(tmp_path) as server:
        yield server


def chromium_path() -> str | None:
    """The system's Chromium, however the distribution names it."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    path = chromium_path()
    if path is None:
        if os.environ.get(REQUIRE_BROWSER) == "1":
            pytest.fail(f"Chromium is required ({REQUIRE_BROWSER}=1) but none is installed")
        pytest.skip("no Chromium here (Debian: apt-get install chromium); browser tests skipped")
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(
            executable_path=path, args=list(CHROMIUM_FLAGS), timeout=EVENT_LIMIT * 1000
        )
        try:
            yield chromium
        finally:
            await chromium.close()


class Tab:
    """One browser tab showing the served game, read and typed into as a person would."""

    def __init__(self, context: BrowserContext, page: Page) -> None:
        self.context = context
        self.page = page
        self.requests: list[str] = []
        """Every address the page asked for, websockets included."""

    @classmethod
    async def open(cls, browser: Browser, url: str, first_screen: str = "Who is playing?") -> Tab:
        context = await browser.new_context(viewport=VIEWPORT)
        page = await context.new_page()
        tab = cls(context, page)
        page.on("request", lambda request: tab.requests.append(request.url))
        page.on("websocket", lambda websocket: tab.requests.append(websocket.url))
        await page.add_init_script(SCREEN_READER)
        await page.goto(url)
        await tab.wait_for(first_screen)
        return tab

    async def screen(self) -> str:
        text: str = await self.page.evaluate("window.__screenText()")
        return text

    async def wait_for(self, text: str, timeout: float = EVENT_LIMIT) -> str:
        """Wait until the screen shows `text`; the screen then."""
        try:
            await self.page.wait_for_function(
                "text => window.__screenText().includes(text)",
                arg=text,
                timeout=timeout * 1000,
                polling=20,
            )
        except Exception as error:
            screen = await self.screen()
            raise AssertionError(f"{text!r} never appeared; the screen:\n{screen}") from error
        return await self.screen()

    async def type(self, *keys: str) -> None:
        """Press keys (Playwright's names: "x", "Enter", "Tab", "Control+s") in the terminal."""
        await self.page.focus(".xterm-helper-textarea")
        for key in keys:
            await self.page.keyboard.press(key)

    async def fill(self, text: str) -> None:
        await self.page.focus(".xterm-helper-textarea")
        await self.page.keyboard.type(text)

    async def click_cell(self, key: str) -> None:
        """Click the board cell that shows the digit `key` (an empty cell shows its digit)."""
        rows = (await self.screen()).splitlines()
        places = [
            (row, found.start(1))
            for row, line in enumerate(rows)
            for found in re.finditer(rf"[│┃]\s+({re.escape(key)})\s+[│┃]", line)
        ]
        assert len(places) == 1, f"no one cell shows {key!r}:\n" + "\n".join(rows)
        row, column = places[0]
        box = await self.page.evaluate("window.__cellBox()")
        x = box["x"] + (column + 0.5) * box["width"]
        y = box["y"] + (row + 0.5) * box["height"]
        await self.page.mouse.click(x, y)

    async def ended(self) -> bool:
        """The page says the game has ended (textual-serve's closed dialog is showing)."""
        dialog = self.page.locator(".closed-dialog")
        return await dialog.is_visible() and "The game has ended" in await dialog.inner_text()

    async def ending(self, timeout: float = EVENT_LIMIT) -> str:
        """What the page says once its game has ended, when it says it."""
        dialog = self.page.locator(".closed-dialog")
        try:
            await dialog.wait_for(state="visible", timeout=timeout * 1000)
        except Exception as error:
            screen = await self.screen()
            raise AssertionError(f"the game never ended; the screen:\n{screen}") from error
        return await dialog.inner_text()

    async def close(self) -> None:
        await self.context.close()


async def start_hot_seat(tab: Tab, player1: str, player2: str) -> None:
    """From the new-game screen: both names, another person, start; then X for player 1.

    Each name is seen on the screen before the next key, as a person would see it.
    """
    await tab.fill(player1)  # the name fields start empty, their defaults shown as placeholders
    await tab.wait_for(f"▊  {player1} ")
    await tab.type("Tab")
    await tab.fill(player2)
    await tab.wait_for(f"▊  {player2} ")
    await tab.type("Control+s")
    await tab.wait_for("choose your mark")
    await tab.type("x")
    await tab.wait_for(f"{player1} (X) to move")
