"""Textual's driver spins once its terminal has gone (Textualize/textual#6690); drop when fixed.

`TerminalDriver` is Textual's Linux and macOS driver, fitted to the edges of a real terminal:

- It draws on `screen_file()` and measures that terminal, so `tictactoe | cat` still
  fills the window (Textual measures standard output, which is then a pipe).
- A terminal that goes away (its window closed, the link dropped) reads as the end of
  input and fails every write with EIO. Textual's own driver then reads nothing again
  and again at full speed, or blocks for good once its writer thread has died on a
  failed write. This one sends the process the SIGHUP that a hang-up stands for, once,
  and writes to the null device from then on.

- Its input is read by `KeyReader` (see `terminal_input`): no byte ends the game.

Private parts of Textual relied on (pinned by `tests/unit/test_adapters_contract.py`):
`LinuxDriver._get_terminal_size`,
`LinuxDriver._sigcont_application`, and the attributes `_file`, `_debug`, `_app` and
`_must_signal_resume` that `LinuxDriver.__init__` sets.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("this driver is for the terminals of Linux and macOS")

import os
import selectors
import signal
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from textual.drivers.linux_driver import LinuxDriver

from tictactoe.adapters.terminal_input import KeyReader
from tictactoe.process import screen_file

if TYPE_CHECKING:
    from textual.app import App

__all__ = ["TerminalDriver"]

READ_SIZE = 1024
"""Bytes read from the terminal at once: more than any typing or mouse sends between two reads
(a paste is one event), few enough that a flood held back leaves little for the game to catch
up with."""


class TerminalDriver(LinuxDriver):
    """Draws on the real terminal, and turns that terminal going away into SIGHUP."""

    def __init__(
        self,
        app: App[Any],
        *,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self._terminal = [fd for fd in (0, 1, 2) if os.isatty(fd)]
        """The standard streams that are the terminal, while it is there."""
        self._hung_up = threading.Lock()
        self._screen = screen_file() or sys.__stderr__
        """The terminal drawn on and measured."""
        if self._screen is not None:
            # Textual types this as the stream itself; its writer thread needs only write and flush.
            self._file = _Output(self._screen, self._hang_up)  # type: ignore[assignment, unused-ignore]

    def _get_terminal_size(self) -> tuple[int, int]:
        try:
            width, height = os.get_terminal_size(self._screen.fileno()) if self._screen else (0, 0)
        except (OSError, ValueError):
            width = height = 0
        if width and height:
            return width, height
        return super()._get_terminal_size()  # the environment's COLUMNS and LINES, else 80 by 25

    def _sigcont_application(self, *_: object) -> None:
        """Come back after ctrl+z only: a hang-up sends SIGCONT too, and no terminal is left."""
        if self._must_signal_resume:
            super()._sigcont_application()

    def run_input_thread(self) -> None:
        """Textual's input loop, except that reading nothing means the terminal has gone, any
        byte is survived and a flood is held back (`KeyReader`)."""
        reader = KeyReader(self._debug)
        with selectors.SelectSelector() as selector:  # kqueue cannot watch a terminal on macOS
            selector.register(self.fileno, selectors.EVENT_READ)
            while not self.exit_event.is_set():
                if selector.select(0.1):
                    try:
                        data = os.read(self.fileno, READ_SIZE)
                    except OSError:
                        data = b""
                    if not data:
                        self._hang_up()
                        return
                    for event in reader.feed(data):
                        self.process_message(event)
                for event in reader.tick():
                    self.process_message(event)
                reader.keep_up(self._app, self.exit_event)

    def _hang_up(self) -> None:
        """The terminal has gone: nothing more reaches it, and the game is told by SIGHUP."""
        if not self._hung_up.acquire(blocking=False):
            return
        null = os.open(os.devnull, os.O_RDWR)
        for fd in self._terminal:
            os.dup2(null, fd)
        os.close(null)
        os.kill(os.getpid(), signal.SIGHUP)


class _Output:
    """The terminal as Textual's writer thread sees it; a failed write is a hang-up."""

    def __init__(self, file: TextIO, hang_up: Callable[[], None]) -> None:
        self._file = file
        self._hang_up = hang_up

    def write(self, text: str) -> int:
        try:
            return self._file.write(text)
        except OSError:
            self._hang_up()
            return 0

    def flush(self) -> None:
        try:
            self._file.flush()
        except OSError:
            self._hang_up()

    def fileno(self) -> int:
        return self._file.fileno()
