"""A game process in a pseudo-terminal of its own, relayed to and from one person's session.

- the game runs in a new pseudo-terminal whose slave end is its standard input, output and
  error, in a session of its own, and takes it as its controlling terminal as it starts
  (`tictactoe.process.take_terminal`; nothing runs between fork and exec): the terminal's size,
  every change of it, and the hang-up when the person leaves reach the game as they would in a
  terminal of its own;
- bytes pass both ways unchanged. While the game's terminal is full, the session stops taking
  the person's input; while the person's link is slow, the game's output is not read: nothing
  grows without bound;
- ending the game is SIGHUP to its process group, then SIGKILL; its last output is sent, then
  its exit status. Every process is waited for.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("a game in a pseudo-terminal needs Linux or macOS")

import asyncio
import contextlib
import errno
import fcntl
import logging
import os
import signal
import struct
import termios
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import Final, Protocol

from tictactoe.process import end_in_steps

__all__ = ["GameProcess", "Spawner", "TerminalGame", "Viewer", "set_size"]

log = logging.getLogger("tictactoe.online")

OUTPUT_GRACE: Final = 0.5
"""Seconds to wait for the rest of a game's output once the game has ended (a process it left
behind may still hold its terminal)."""

READ_SIZE: Final = 64 * 1024
"""The most of a game's output read at once."""


class Viewer(Protocol):
    """The person's side of a game: where its output goes, and whose input it holds back."""

    def show(self, data: bytes) -> None: ...

    def pause_input(self) -> None: ...

    def resume_input(self) -> None: ...

    def game_ended(self, status: int | None) -> None: ...


class GameProcess(Protocol):
    """A game's process as `TerminalGame` waits for it (`asyncio.subprocess.Process` is one)."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int: ...


Spawner = Callable[[Sequence[str], Mapping[str, str], int], Awaitable[GameProcess]]
"""Starts a game's argv with its environment on a terminal (the slave end, the caller's to
close), in a session of its own that takes the terminal as its controlling terminal; exec by
default, a fork of a warm parent for the club (`tictactoe.doors.warm`)."""


class TerminalGame:
    """A game process in a pseudo-terminal of its own, relayed to and from one session."""

    def __init__(self, process: GameProcess, master: int, session: Viewer):
        self.process = process
        self.master: int | None = master
        self.session = session
        self._pending = bytearray()
        self._output_paused = False
        self._output_ended = asyncio.Event()
        self._ended = asyncio.Event()
        loop = asyncio.get_running_loop()
        self._loop = loop
        loop.add_reader(master, self._read)

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        environment: Mapping[str, str],
        size: tuple[int, int],
        session: Viewer,
        *,
        echo: bool = True,
        spawn: Spawner | None = None,
    ) -> TerminalGame:
        """Start `argv` in a new pseudo-terminal of `size` (by `spawn`, exec when None); without
        `echo`, the terminal does not echo what is typed (the person's own terminal does)."""
        master, slave = os.openpty()
        try:
            set_size(master, size)
            if not echo:
                modes = termios.tcgetattr(slave)
                modes[3] &= ~(termios.ECHO | termios.ECHONL)
                termios.tcsetattr(slave, termios.TCSANOW, modes)
            process: GameProcess
            if spawn is not None:
                process = await spawn(argv, environment, slave)
            else:
                process = await asyncio.create_subprocess_exec(
                    *argv,
                    stdin=slave,
                    stdout=slave,
                    stderr=slave,
                    env=dict(environment),
                    start_new_session=True,  # the game takes the terminal as its own
                )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        return cls(process, master, session)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def holding(self) -> bool:
        """Whether input waits here for the game's terminal to take it."""
        return bool(self._pending)

    def send(self, data: bytes) -> None:
        """Pass the person's input on; while the terminal is full, hold it and take no more."""
        if self.master is None:
            return
        if self._pending:
            self._pending += data
            return
        written = self._write(data)
        if written < len(data):
            self._pending += data[written:]
            self.session.pause_input()
            self._loop.add_writer(self.master, self._write_pending)

    def _write(self, data: bytes | bytearray) -> int:
        assert self.master is not None
        try:
            return os.write(self.master, data)
        except BlockingIOError:
            return 0
        except OSError:  # the game has gone: nobody reads its terminal
            return len(data)

    def _write_pending(self) -> None:
        if self.master is None:
            return
        written = self._write(self._pending)
        del self._pending[:written]
        if not self._pending:
            self._loop.remove_writer(self.master)
            self.session.resume_input()

    def _read(self) -> None:
        assert self.master is not None
        try:
            data = os.read(self.master, READ_SIZE)
        except BlockingIOError:
            return
        except OSError as error:  # EIO: every process holding the terminal has ended
            if error.errno != errno.EIO:
                log.warning("the terminal of game %d failed: %s", self.pid, error.strerror or error)
            data = b""
        if not data:
            self._loop.remove_reader(self.master)
            self._output_ended.set()
            return
        self.session.show(data)

    def pause_output(self) -> None:
        if self.master is not None and not self._output_paused and not self._output_ended.is_set():
            self._output_paused = True
            self._loop.remove_reader(self.master)

    def resume_output(self) -> None:
        if self.master is not None and self._output_paused and not self._output_ended.is_set():
            self._output_paused = False
            self._loop.add_reader(self.master, self._read)

    def resize(self, size: tuple[int, int]) -> None:
        """Set the terminal's size; the kernel tells the game with SIGWINCH."""
        if self.master is not None:
            with contextlib.suppress(OSError):
                set_size(self.master, size)

    async def run(self) -> None:
        """Wait for the game to end, send the rest of its output, then its exit status."""
        status: int | None = None
        try:
            returncode = await self.process.wait()
            status = returncode if returncode >= 0 else 128 - returncode
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._output_ended.wait(), OUTPUT_GRACE)
        finally:
            self._close()
            self._ended.set()
            self.session.game_ended(status)

    def _close(self) -> None:
        if self.master is not None:
            self._loop.remove_reader(self.master)
            self._loop.remove_writer(self.master)
            os.close(self.master)
            self.master = None
        self._pending.clear()

    async def end(self, within: float = 2.0) -> None:
        """Hang up: SIGHUP to the game's process group, SIGKILL if it is still there `within`
        seconds later; return once it has been waited for."""
        hang_up, kill = partial(self._signal, signal.SIGHUP), partial(self._signal, signal.SIGKILL)
        await end_in_steps(self._ended.wait, [(hang_up, within)], kill)

    def _signal(self, number: int) -> None:
        if self.process.returncode is not None:
            return
        try:
            os.killpg(self.process.pid, number)
        except ProcessLookupError:  # the game left its group: the game alone, then
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, number)
        except PermissionError:
            pass


def set_size(fd: int, size: tuple[int, int]) -> None:
    """Set the terminal `fd`'s size in columns and rows."""
    columns, rows = size
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
