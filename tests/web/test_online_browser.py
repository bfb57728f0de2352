"""Bob joins Alice's hosted series from a real Chromium tab, and they play a whole match.

Alice's game is the real `tictactoe host` in a pseudo-terminal; Bob types the code on the door's
page and then his name in the game, as a person would, without clicking or focusing anything.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser

import limits
from limits import EVENT_LIMIT
from online.test_end_to_end import words
from web.conftest import SCREEN_READER, VIEWPORT, Tab, recorded_results

pytestmark = pytest.mark.slow


class HostTerminal:
    """`tictactoe host` in a pseudo-terminal of 100x32, read all the time (a terminal that
    stops reading would stop the game), typed into as a person would."""

    def __init__(self, home: Path, *options: str, files: str | None = None) -> None:
        """`options`: more of `tictactoe host`'s; `files`: the limit of open files it starts
        under, as `ulimit` takes it (`-Sn 1024`: a tool's soft limit, which the host may raise;
        `-n 1024`: soft and hard, which it may not)."""
        self.record = home / "record.sqlite3"
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 32, 100, 0, 0))
        environment = dict(os.environ, TERM="xterm-256color", HOME=str(home))
        environment["XDG_DATA_HOME"] = str(home / "data")
        self.environment = environment
        """The host's environment."""
        limit = () if files is None else ("sh", "-c", f'ulimit {files}; exec "$@"', "-")
        self.process = subprocess.Popen(
            [
                *limit,
                *(sys.executable, "-m", "tictactoe", "host", "--player1", "Alice"),
                *("--record", str(self.record)),
                *("--listen", "127.0.0.1", "--ssh-port", "0", "--web-port", "0"),
                *options,
            ],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
            env=environment,
        )
        os.close(slave)
        self.master = master
        self.output = bytearray()
        self._reading_thread = threading.Thread(target=self._read, daemon=True)
        self._reading_thread.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.output += data

    def text(self) -> str:
        return words(bytes(self.output))

    def find(self, pattern: str, timeout: float = EVENT_LIMIT) -> re.Match[str]:
        found = limits.wait_until(
            lambda: re.search(pattern, self.text()),
            lambda: self.text()[-1500:],
            f"the host's screen showing {pattern!r}",
            timeout,
        )
        assert found is not None
        return found

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(5)
        os.close(self.master)


@pytest.fixture
def alice(tmp_path: Path) -> Iterator[HostTerminal]:
    host = HostTerminal(tmp_path)
    try:
        yield host
    finally:
        host.stop()


async def test_bob_joins_from_a_browser_and_they_play_a_match(
    alice: HostTerminal, browser: Browser
) -> None:
    address = alice.find(r"http://127\.0\.0\.1:\d+/").group(0)
    code = alice.find(r"code: ([A-Z0-9]{6})").group(1)
    context = await browser.new_context(viewport=VIEWPORT)
    page = await context.new_page()
    tab = Tab(context, page)
    page.on("websocket", lambda websocket: tab.requests.append(websocket.url))
    await page.add_init_script(SCREEN_READER)
    await page.goto(address)
    await page.wait_for_function("document.activeElement?.id === 'code'")  # the page's own doing
    # Typed straight away, nothing focused by hand: the code (as a person might, in lower
    # case) and Enter on the door's page; then the game asks the name, with the keyboard.
    await page.keyboard.type(code.lower())
    await page.keyboard.press("Enter")
    await tab.wait_for("Join a friend's series")
    assert len(tab.requests) == 1 and "/ws/" in tab.requests[0]  # one game, for the code
    await page.keyboard.type("Bob")
    await page.keyboard.press("Enter")
    await tab.wait_for("Alice is choosing a mark")
    alice.find("Bob joined the series")

    alice.type("x")
    await tab.wait_for("Alice (X) to move")
    await page.keyboard.press("5")  # not Bob's turn: said, and nothing moves
    await tab.wait_for("It is Alice's turn")
    alice.type("5")
    await tab.wait_for("Bob (O) to move")
    await page.keyboard.press("7")
    alice.find(r"2\. Bob O top-left")
    alice.type("1")
    await tab.wait_for("3. Alice X bottom-left")
    await page.keyboard.press("9")
    alice.find(r"4\. Bob O top-right")
    alice.type("3")
    await tab.wait_for("5. Alice X bottom-right")
    await page.keyboard.press("4")
    alice.find(r"6\. Bob O left")
    alice.type("2")  # bottom row: Alice wins
    await tab.wait_for("Alice wins!")

    await page.keyboard.press("q")  # Bob leaves: the series ends for both
    ending = await tab.ending()
    assert "You ended the series." in ending and "Alice won the series." in ending
    assert "Alice  1" in ending
    assert alice.process.wait(EVENT_LIMIT) == 0
    assert "Bob left the series." in alice.text()
    await tab.close()
    assert recorded_results(alice.record) == {"Alice": (1, 0, 0), "Bob": (0, 1, 0)}


async def test_a_wrong_code_on_the_door_page_is_told_and_starts_nothing(
    alice: HostTerminal, browser: Browser
) -> None:
    address = alice.find(r"http://127\.0\.0\.1:\d+/").group(0)
    context = await browser.new_context(viewport=VIEWPORT)
    page = await context.new_page()
    sockets: list[str] = []
    page.on("websocket", lambda websocket: sockets.append(websocket.url))
    await page.goto(address)
    await page.wait_for_function("document.activeElement?.id === 'code'")
    await page.keyboard.type("ABCDEF")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("text=That is not the code of this series.")
    assert sockets == []
    assert await page.evaluate("document.activeElement.id") == "code"
    await context.close()
