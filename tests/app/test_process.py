"""The game as a real process in a pseudo-terminal: signals end it cleanly, errors stay plain."""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from pathlib import Path

import pytest

import tictactoe.app
from tictactoe.app import TicTacToeApp
from tictactoe.config import GameConfig

pty = pytest.importorskip("pty")

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"
SHOW_CURSOR = b"\x1b[?25h"


class Terminal:
    """`python -m tictactoe` running in a pseudo-terminal, read as a person would see it."""

    def __init__(self, *args: str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the game
            os.environ["TERM"] = "xterm-256color"
            os.execv(sys.executable, [sys.executable, "-m", "tictactoe", *args])
        self.output = b""

    def read_until(self, text: bytes, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            assert time.monotonic() < deadline, f"{text!r} never appeared"
            if select.select([self.fd], [], [], 0.05)[0]:
                self.output += os.read(self.fd, 65536)

    def type(self, *keys: bytes, screen_after: bytes) -> None:
        for key in keys:
            self.output = b""
            os.write(self.fd, key)
            time.sleep(0.15)
        self.read_until(screen_after)

    def finish(self, timeout: float = 20) -> int:
        """Read to the end; the exit status."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not select.select([self.fd], [], [], 0.1)[0]:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # the child has gone and the terminal closed
                break
            if not chunk:
                break
            self.output += chunk
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_restores_the_terminal_saves_and_prints_the_score(
    tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    stats = tmp_path / "stats.json"
    game = Terminal("--player1", "Ada", "--player2", "Bob", "--stats-file", str(stats))
    game.read_until(b"choose your mark")
    game.type(b"x", b"7", b"4", b"8", b"5", b"9", screen_after=b"Ada wins!")
    os.kill(game.pid, sig)

    assert game.finish() == status
    restored = game.output.rsplit(LEAVE_ALTERNATE_SCREEN, 1)
    assert len(restored) == 2, "the alternate screen was never left"
    assert SHOW_CURSOR in restored[1]
    assert b"Final score" in restored[1] and b"Ada    1" in restored[1]
    saved = json.loads(stats.read_text(encoding="utf-8"))
    assert saved["players"]["Ada"]["wins"] == 1
    assert saved["players"]["Bob"]["losses"] == 1


class BrokenApp(TicTacToeApp):
    CSS_PATH = str(Path(tictactoe.app.__file__).with_name("app.tcss"))

    def on_mount(self) -> None:
        raise RuntimeError("a bug the player should not have to read about")


def test_an_unexpected_error_is_told_in_plain_words_and_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "logs" / "crash.log"
    monkeypatch.setattr(tictactoe.app, "CRASH_LOG", log)

    BrokenApp(GameConfig(player1="Ada", player2="Bob", save=False)).run(headless=True)

    printed = capsys.readouterr()
    assert "Traceback" not in printed.err + printed.out
    assert "a bug the player" not in printed.err + printed.out
    assert "stopped after an unexpected error" in printed.err
    assert str(log) in printed.err
    assert "RuntimeError" in log.read_text(encoding="utf-8")
