"""The game as a real process in a pseudo-terminal: every way out, and the terminal it needs.

Each row of the README's table of exit statuses is tried here, as a person would meet it
(3, finished matches that could not be saved, with the record's failures in test_record_files.py).
"""

from __future__ import annotations

import os
import re
import select
import signal
import struct
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

import pytest

import tictactoe.tui.app
from limits import EVENT_LIMIT, wait_until
from online.test_end_to_end import words
from tictactoe.config import GameConfig
from tictactoe.record import GameRecord
from tictactoe.tui.app import TicTacToeApp

pty = pytest.importorskip("pty")
termios = pytest.importorskip("termios")
fcntl = pytest.importorskip("fcntl")

pytestmark = pytest.mark.slow  # real processes: CI runs them, `-m slow` too

ENTER_ALTERNATE_SCREEN = b"\x1b[?1049h"
LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"
SHOW_CURSOR = b"\x1b[?25h"
CTRL_Q = b"\x11"


class Terminal:
    """`python -m tictactoe` running in a pseudo-terminal, read as a person would see it.

    `stdin` and `stdout` replace those streams of the game with a file descriptor (a
    pipe, the null device); `code` runs instead of `-m tictactoe`, with the same options.
    """

    def __init__(
        self,
        *args: str,
        size: tuple[int, int] = (100, 32),
        stdin: int | None = None,
        stdout: int | None = None,
        stderr: int | None = None,
        code: str | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        started, exec_done = os.pipe()  # the child's end closes on exec: the game has started
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the game, nothing else
            try:
                os.close(started)
                columns, rows = size
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
                for replacement, fd in ((stdin, 0), (stdout, 1), (stderr, 2)):
                    if replacement is not None:
                        os.dup2(replacement, fd)
                environment = {
                    name: value
                    for name, value in os.environ.items()
                    if name not in ("COLUMNS", "LINES", "TEXTUAL_DRIVER")
                }
                environment.update({"TERM": "xterm-256color", **(env or {})})
                program = ["-c", code] if code else ["-m", "tictactoe"]
                os.execve(sys.executable, [sys.executable, *program, *args], environment)
            finally:
                os._exit(127)
        os.close(exec_done)
        os.read(started, 1)
        os.close(started)
        self.started = time.monotonic()
        """When the game's program began (its interpreter starting)."""
        self.output = b""

    def read_until(self, text: bytes, timeout: float = EVENT_LIMIT) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            assert time.monotonic() < deadline, (
                f"{text!r} never appeared; the end of the screen: {self.seen()!r}"
            )
            if select.select([self.fd], [], [], 0.05)[0]:
                self.output += os.read(self.fd, 65536)

    def seen(self) -> str:
        """The end of what the terminal showed, its escape sequences taken out."""
        return words(self.output)[-1500:]

    def type(self, *keys: bytes, screen_after: bytes) -> None:
        for key in keys:
            self.output = b""
            os.write(self.fd, key)
            time.sleep(0.15)
        self.read_until(screen_after)

    def finish(self, timeout: float = EVENT_LIMIT) -> int:
        """Read to the end; the exit status (a test failure if the game is still running)."""
        deadline = time.monotonic() + timeout
        while (status := self.status(block=False)) is None:
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                raise AssertionError(
                    f"still running {timeout} s later, and killed; the end of the screen:"
                    f" {self.seen()!r}"
                )
            if self.fd < 0:
                time.sleep(0.05)
            elif select.select([self.fd], [], [], 0.05)[0]:
                with suppress(OSError):  # the terminal closes behind the child
                    self.output += os.read(self.fd, 65536)
        self.drain()
        self.line_settings = self.attributes()
        self.close()
        return status

    def status(self, *, block: bool) -> int | None:
        pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        return os.waitstatus_to_exitcode(status) if pid else None

    def drain(self) -> None:
        while self.fd >= 0 and select.select([self.fd], [], [], 0.05)[0]:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.output += chunk

    def attributes(self) -> int | None:
        """The terminal's local modes (echo, line editing, Ctrl-C...), as the game left them."""
        if self.fd < 0:
            return None
        lflag: int = termios.tcgetattr(self.fd)[3]
        return lflag

    def close(self) -> None:
        """Close the terminal: its window goes away, as far as the game can tell."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    @property
    def after_the_game(self) -> bytes:
        """What the terminal shows once the game has left its screen."""
        restored = self.output.rsplit(LEAVE_ALTERNATE_SCREEN, 1)
        assert len(restored) == 2, "the alternate screen was never left"
        return restored[1]


def play_a_win_for_ada(game: Terminal) -> None:
    game.read_until(b"choose your mark")
    game.type(b"x", b"7", b"4", b"8", b"5", b"9", screen_after=b"Ada wins!")


def wins_saved(record: Path) -> dict[str, int]:
    return {row.player.name: row.wins for row in GameRecord(record).players()}


LINE_MODES = termios.ECHO | termios.ICANON | termios.ISIG
"""What the game turns off while it runs: a shell needs them back."""


def assert_restored(game: Terminal) -> None:
    """The screen, the cursor and the line modes are as they were before the game."""
    assert SHOW_CURSOR in game.after_the_game
    assert game.line_settings is not None
    assert game.line_settings & LINE_MODES == LINE_MODES


QUITS = {
    "q on the board": (b"q",),
    "ctrl+q": (CTRL_Q,),
    "the mark dialog's Quit": (b"n", b"q"),
}


@pytest.mark.parametrize("keys", QUITS.values(), ids=QUITS.keys())
def test_quitting_leaves_0_with_the_terminal_restored_the_match_kept_and_the_score_printed(
    tmp_path: Path, keys: tuple[bytes, ...]
) -> None:
    record = tmp_path / "record.sqlite3"
    game = Terminal("--player1", "Ada", "--player2", "Bob", "--record", str(record))
    play_a_win_for_ada(game)
    if keys[0] == b"n":
        game.type(b"n", screen_after=b"Bob, choose your mark")
    os.write(game.fd, keys[-1])

    assert game.finish() == 0
    assert_restored(game)
    assert b"Final score" in game.after_the_game and b"Ada    1" in game.after_the_game
    assert wins_saved(record) == {"Ada": 1, "Bob": 0}


@pytest.mark.parametrize(
    ("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)]
)
def test_a_signal_restores_the_terminal_saves_and_prints_the_score(
    tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    record = tmp_path / "record.sqlite3"
    game = Terminal("--player1", "Ada", "--player2", "Bob", "--record", str(record))
    play_a_win_for_ada(game)
    os.kill(game.pid, sig)

    assert game.finish() == status
    assert_restored(game)
    assert b"Final score" in game.after_the_game and b"Ada    1" in game.after_the_game
    assert wins_saved(record) == {"Ada": 1, "Bob": 0}


SIGNAL_TO_ANOTHER_THREAD = """
import os, signal, sys, threading, time
number, go = getattr(signal, sys.argv.pop()), sys.argv.pop()

def take_the_signal():
    while not os.path.exists(go):
        time.sleep(0.02)
    signal.pthread_kill(threading.get_ident(), number)  # to this thread, not the main one

threading.Thread(target=take_the_signal, daemon=True).start()
from tictactoe.__main__ import main
raise SystemExit(main())
"""
"""The game, with a thread of its own that takes a signal (named by the last argument)
once a file (the one before) exists: the system may hand a signal to any thread."""


@pytest.mark.parametrize(
    ("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)]
)
def test_a_signal_taken_by_another_thread_ends_the_waiting_game_all_the_same(
    tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    go = tmp_path / "go"
    game = Terminal(
        *("--player1", "Ada", "--player2", "Bob", "--no-save", str(go), sig.name),
        code=SIGNAL_TO_ANOTHER_THREAD,
    )
    game.read_until(b"choose your mark")
    time.sleep(0.3)  # drawn: the game's main thread sleeps until something happens
    go.touch()

    assert game.finish() == status
    assert_restored(game)
    assert b"Final score" in game.after_the_game


@pytest.mark.parametrize("then", ["", "SIGTERM"], ids=["closed", "closed then SIGTERM"])
@pytest.mark.parametrize("finished", [False, True], ids=["at the mark dialog", "after a win"])
def test_closing_the_terminal_ends_the_game_with_129_keeping_the_match(
    tmp_path: Path, finished: bool, then: str
) -> None:
    record = tmp_path / "record.sqlite3"
    game = Terminal("--player1", "Ada", "--player2", "Bob", "--record", str(record))
    if finished:
        play_a_win_for_ada(game)
    else:
        game.read_until(b"choose your mark")
    game.close()
    if then:
        os.kill(game.pid, signal.SIGTERM)

    # (a SIGTERM may overtake the kernel's SIGHUP: then it is the first reason to leave)
    assert game.finish() in ({129, 143} if then else {129})
    if finished:
        assert wins_saved(record) == {"Ada": 1, "Bob": 0}


def test_closing_the_terminal_leaves_no_word_on_standard_error(tmp_path: Path) -> None:
    errors = tmp_path / "errors.txt"
    with errors.open("wb") as stderr:
        game = Terminal("--player1", "Ada", "--player2", "Bob", "--no-save", stderr=stderr.fileno())
    play_a_win_for_ada(game)  # drawn on standard output, standard error being a file
    game.close()

    assert game.finish() == 129
    assert errors.read_bytes() == b""


def test_without_a_terminal_it_refuses_at_once_in_one_sentence() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tictactoe", "--player1", "Ada", "--player2", "Bob", "--no-save"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=EVENT_LIMIT,
        check=False,
    )
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr.decode().startswith("tictactoe needs a terminal")
    assert result.stderr.decode().count(".") == 1 and result.stderr.endswith(b".\n")


def test_with_standard_input_not_a_terminal_it_refuses_even_in_one() -> None:
    null = os.open(os.devnull, os.O_RDONLY)
    game = Terminal("--player1", "Ada", "--player2", "Bob", "--no-save", stdin=null)
    os.close(null)

    assert game.finish() == 2
    assert ENTER_ALTERNATE_SCREEN not in game.output
    assert game.output.startswith(b"tictactoe needs a terminal: standard input is not one")


def test_with_standard_output_piped_it_fills_the_real_terminal() -> None:
    score, piped = os.pipe()
    game = Terminal(
        "--player1", "Ada", "--player2", "Bob", "--no-save", size=(100, 32), stdout=piped
    )
    os.close(piped)
    game.read_until(b"choose your mark")

    def footer_row() -> int:
        """The row the footer was last drawn on (its words follow the cursor's move there)."""
        game.drain()
        footer = game.output[: game.output.rfind(b"Take X")]
        moves = re.findall(rb"\x1b\[(\d+);\d+H", footer)
        return int(moves[-1]) if b"Take X" in game.output and moves else 0

    # the bottom line of the 100 x 32 window, not of 80 x 24, once any resize has been drawn
    wait_until(lambda: footer_row() == 32, footer_row, "the footer on row 32")
    game.type(b"q", screen_after=LEAVE_ALTERNATE_SCREEN)

    assert game.finish() == 0
    with os.fdopen(score, "rb") as pipe:
        assert pipe.read().startswith(b"Final score\n  Ada    0\n")


CPYTHON_START_DEATHS = (
    b"Could not import runpy module",
    b"Fatal Python error: init_import_site",
)
"""What CPython itself prints when Ctrl-C lands while it starts, before it runs `-m`'s module."""


def died_in_the_interpreters_own_start(output: bytes) -> bool:
    return output.startswith(CPYTHON_START_DEATHS)


@pytest.mark.parametrize("moment", [0.0, 0.15, 0.3, 0.45, 0.6, 0.8, 1.0])
def test_ctrl_c_at_any_moment_of_the_start_leaves_130_quietly(moment: float) -> None:
    """`moment` counts from the start of the interpreter, whose own first milliseconds
    answer Ctrl-C by dying of it: quiet too, and the shell reports 130 all the same."""
    game = Terminal("--player1", "Ada", "--player2", "Bob", "--no-save")
    time.sleep(max(0.0, game.started + moment - time.monotonic()))
    os.kill(game.pid, signal.SIGINT)

    status = game.finish()
    if died_in_the_interpreters_own_start(game.output):
        # Ctrl-C while CPython itself was still starting (its site module, `-m`'s runner),
        # before any of the game's code could run (how long that takes depends on the
        # machine's load): CPython's own words, and no frame of the game's
        assert b"tictactoe" not in game.output, game.output
        return
    assert b"Traceback" not in game.output and b"KeyboardInterrupt" not in game.output
    assert status == 130 or (status == -signal.SIGINT and game.output == b""), game.output
    if ENTER_ALTERNATE_SCREEN in game.output:
        assert_restored(game)


SLOW_PROCESS_MODULE = """
import importlib.machinery, sys, time

class Slow(importlib.machinery.PathFinder):
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        spec = super().find_spec(name, path, target)
        if name == "tictactoe.process" and spec is not None:
            load = spec.loader.exec_module
            def exec_module(module):
                sys.stdout.write("loading tictactoe.process\\r\\n")
                sys.stdout.flush()
                time.sleep(60)
                load(module)
            spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, Slow)
from tictactoe.__main__ import main
raise SystemExit(main())
"""
"""The game, its module of the process's edges loading slowly: in `sys.modules`, half made."""


def test_ctrl_c_while_the_game_s_own_modules_still_load_leaves_130_quietly() -> None:
    game = Terminal("--player1", "Ada", "--player2", "Bob", "--no-save", code=SLOW_PROCESS_MODULE)
    game.read_until(b"loading tictactoe.process")
    os.kill(game.pid, signal.SIGINT)

    assert game.finish() == 130
    assert b"Traceback" not in game.output, game.output


CRASH_ON_HINT = (
    "import tictactoe.core.series as series;"
    "series.Series.hint = lambda self: 1 / 0;"
    "from tictactoe.__main__ import main;"
    "raise SystemExit(main())"
)
"""The game, with a bug planted behind the hint key."""


def test_an_unexpected_error_leaves_1_restores_the_terminal_and_prints_the_score(
    tmp_path: Path,
) -> None:
    record = tmp_path / "record.sqlite3"
    game = Terminal(
        "--player1",
        "Ada",
        "--player2",
        "Bob",
        "--record",
        str(record),
        code=CRASH_ON_HINT,
        env={"XDG_STATE_HOME": str(tmp_path / "state")},
    )
    play_a_win_for_ada(game)
    os.write(game.fd, b"h")

    assert game.finish() == 1
    assert_restored(game)
    after = game.after_the_game
    assert b"Traceback" not in game.output and b"ZeroDivisionError" not in game.output
    assert b"stopped after an unexpected error" in after
    assert b"Final score" in after and b"Ada    1" in after
    assert wins_saved(record) == {"Ada": 1, "Bob": 0}
    assert b"ZeroDivisionError" in next((tmp_path / "state").rglob("crash.log")).read_bytes()


class BrokenApp(TicTacToeApp):
    """Fails as soon as the game is on screen."""

    CSS_PATH = str(Path(tictactoe.tui.app.__file__).with_name("app.tcss"))

    def on_ready(self) -> None:
        raise RuntimeError("a bug the player should not have to read about")


def test_an_unexpected_error_is_told_in_plain_words_and_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "logs" / "crash.log"
    monkeypatch.setattr(tictactoe.tui.app, "CRASH_LOG", log)

    BrokenApp(GameConfig(player1="Ada", player2="Bob", save=False)).run(headless=True)

    printed = capsys.readouterr()
    assert "Traceback" not in printed.err + printed.out
    assert "a bug the player" not in printed.err + printed.out
    assert "stopped after an unexpected error" in printed.err
    assert str(log) in printed.err
    assert "RuntimeError" in log.read_text(encoding="utf-8")
