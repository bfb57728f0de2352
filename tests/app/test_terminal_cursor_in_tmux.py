"""The real terminal's cursor, as tmux reads it, stands on the board's cursor cell after the
mark dialog and moves with the arrow keys: what a magnifier or a braille display follows."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import pytest

from limits import EVENT_LIMIT

pytestmark = pytest.mark.slow  # the game as a real process, in a real terminal

CELL_TOP = "┏━━━━━━━━━━━━━┓"
"""The top of the cell the board's cursor is on (a cell is 15 columns wide at 100 × 32)."""


@pytest.fixture
def tmux() -> Iterator[list[str]]:
    """A tmux server of this test's own: the command that talks to it."""
    if shutil.which("tmux") is None:
        if os.environ.get("CI"):
            pytest.fail("tmux is required in CI but not installed")
        pytest.skip("tmux is not installed")
    command = ["tmux", "-L", f"cursor-{uuid.uuid4().hex[:8]}", "-f", os.devnull]
    try:
        yield command
    finally:
        subprocess.run([*command, "kill-server"], capture_output=True)


def run(tmux: list[str], *args: str) -> str:
    return subprocess.run([*tmux, *args], capture_output=True, text=True, check=True).stdout


def wait_for(tmux: list[str], text: str) -> list[str]:
    """The screen's lines, once `text` is on it."""
    deadline = time.monotonic() + EVENT_LIMIT
    while text not in (screen := run(tmux, "capture-pane", "-p", "-t", "game")):
        assert time.monotonic() < deadline, f"{text!r} did not show: {screen}"
        time.sleep(0.1)
    return screen.splitlines()


def cursor_cell(tmux: list[str], before: tuple[int, int] | None = None) -> tuple[int, int]:
    """Where the terminal's cursor stands (column, row), once it has moved from `before` and
    stands inside the frame of the board's cursor cell."""
    deadline = time.monotonic() + EVENT_LIMIT
    while True:
        x, y = map(int, run(tmux, "display", "-p", "-t", "game", "#{cursor_x} #{cursor_y}").split())
        lines = run(tmux, "capture-pane", "-p", "-t", "game").splitlines()
        tops = [(row, line.find(CELL_TOP)) for row, line in enumerate(lines) if CELL_TOP in line]
        inside = any(
            top < y < top + 6 and left < x < left + len(CELL_TOP) - 1 for top, left in tops
        )
        if inside and (x, y) != before:
            return x, y
        assert time.monotonic() < deadline, f"the cursor at {x}, {y}, the cell at {tops}"
        time.sleep(0.05)


def test_the_terminal_cursor_stands_on_the_board_s_cursor_and_follows_it(
    tmux: list[str],
) -> None:
    game = f"{sys.executable} -m tictactoe --player1 Ada --player2 Bob --no-save"
    run(tmux, "new-session", "-d", "-s", "game", "-x", "100", "-y", "32", game)
    wait_for(tmux, "choose")
    run(tmux, "send-keys", "-t", "game", "x")
    wait_for(tmux, "Ada (X) to move")
    centre = cursor_cell(tmux)
    run(tmux, "send-keys", "-t", "game", "Left")
    left = cursor_cell(tmux, centre)
    assert left[1] == centre[1] and left[0] < centre[0]
    run(tmux, "send-keys", "-t", "game", "Up")
    top_left = cursor_cell(tmux, left)
    assert top_left[0] == left[0] and top_left[1] < left[1]


def cursor_flag(tmux: list[str], shown: str) -> None:
    """Wait until tmux says the terminal's cursor is shown ("1") or hidden ("0")."""
    deadline = time.monotonic() + EVENT_LIMIT
    while (flag := run(tmux, "display", "-p", "-t", "game", "#{cursor_flag}").strip()) != shown:
        screen = run(tmux, "capture-pane", "-p", "-t", "game")
        assert time.monotonic() < deadline, f"the cursor's flag stayed {flag}: {screen}"
        time.sleep(0.05)


def test_show_cursor_shows_the_terminal_cursor_on_the_board_only(tmux: list[str]) -> None:
    """Textual hides the terminal's cursor (only ESC [ ? 25 l was sent), so a magnifier had
    nothing to follow: with --show-cursor it shows on the board, and hides under the help."""
    game = f"{sys.executable} -m tictactoe --player1 Ada --player2 Bob --no-save --show-cursor"
    run(tmux, "new-session", "-d", "-s", "game", "-x", "100", "-y", "32", game)
    wait_for(tmux, "choose")
    cursor_flag(tmux, "0")
    run(tmux, "send-keys", "-t", "game", "x")
    wait_for(tmux, "Ada (X) to move")
    cursor_flag(tmux, "1")
    cursor_cell(tmux)
    run(tmux, "send-keys", "-t", "game", "?")
    wait_for(tmux, "Escape")
    cursor_flag(tmux, "0")
    run(tmux, "send-keys", "-t", "game", "Escape")
    wait_for(tmux, "Ada (X) to move")
    cursor_flag(tmux, "1")
