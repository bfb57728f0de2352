"""The door's side of a warm parent: starting it, starting games from it, and each game's exit
status as the warm parent tells it.

A game is asked for over the warm parent's control socket: a request (argv and environment, as
JSON, after its length), with the game's terminal and one end of a socket of the game's own
passed along (`SCM_RIGHTS`). The warm parent says the game's pid on that socket, and later its
exit status. A request that cannot be made, or a warm parent that does not answer, closes the
warm parent for good: every game from then on starts by exec.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("a game in a pseudo-terminal needs Linux or macOS")

import asyncio
import contextlib
import errno
import json
import logging
import os
import socket
from collections.abc import Mapping, Sequence
from typing import Final

from tictactoe.doors.warm.parent import HEADER, MAX_REQUEST, READY

__all__ = ["WarmGame", "WarmParent"]

log = logging.getLogger("tictactoe.online")

PARENT_MODULE: Final = "tictactoe.doors.warm"
"""What `python -m` runs as the warm parent (the package's `__main__`)."""
READY_WITHIN: Final = 60.0
"""Seconds the warm parent has to import its modules."""
FORK_WITHIN: Final = 10.0
"""Seconds the warm parent has to say it has started a game; past it, games start by exec."""
STATUS_UNKNOWN: Final = 1
"""The exit status of a game whose warm parent vanished before saying it."""
GONE_POLL: Final = 0.5
"""Seconds between looks at a game whose warm parent vanished, until it has ended."""


class WarmGame:
    """A game a warm parent started: its pid, and its exit status once it has ended (as
    `asyncio.subprocess.Process` has them)."""

    def __init__(self, pid: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.pid = pid
        self.returncode: int | None = None
        self._reader = reader
        self._writer = writer

    async def wait(self) -> int:
        """The game's exit status, once it has ended: -N when signal N ended it."""
        if self.returncode is not None:
            return self.returncode
        try:
            line = await self._reader.readline()
        finally:
            self._writer.close()
        try:
            self.returncode = int(line.split(b" ", 1)[1]) if line.startswith(b"exit ") else None
        except ValueError:
            self.returncode = None
        if self.returncode is None:  # the warm parent has gone: wait for the game to go too
            log.warning("the warm parent of game %d has gone; its exit status is lost", self.pid)
            while _alive(self.pid):
                await asyncio.sleep(GONE_POLL)
            self.returncode = STATUS_UNKNOWN
        return self.returncode


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class WarmParent:
    """The door's side of a warm parent: starting it, and starting games from it."""

    def __init__(self, preload: Sequence[str], environment: Mapping[str, str] | None = None):
        self.preload = tuple(preload)
        """The modules the warm parent imports before it forks any game, in order; one named
        `module:function` is imported and its function called (a warm-up: it may start no
        thread that outlives it)."""
        self.environment = dict(os.environ if environment is None else environment)
        """The warm parent's environment: what modules read as they are imported."""
        self._process: asyncio.subprocess.Process | None = None
        self._control: socket.socket | None = None
        self._lock = asyncio.Lock()

    @property
    def pid(self) -> int | None:
        """The warm parent's pid while it runs."""
        return self._process.pid if self._process is not None else None

    @property
    def ready(self) -> bool:
        """Whether games can be started warm now."""
        return (
            self._control is not None
            and self._process is not None
            and (self._process.returncode is None)
        )

    async def start(self) -> None:
        """Start the warm parent and wait until it has imported its modules; on failure, log it
        and start every game by exec."""
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                PARENT_MODULE,
                str(theirs.fileno()),
                *self.preload,
                pass_fds=[theirs.fileno()],
                env=self.environment,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                start_new_session=True,  # the club's terminal's signals are the club's alone
            )
        except OSError as error:
            mine.close()
            log.warning("the warm parent could not start: %s", error)
            return
        finally:
            theirs.close()
        mine.setblocking(False)
        loop = asyncio.get_running_loop()
        try:
            said = await asyncio.wait_for(loop.sock_recv(mine, len(READY)), READY_WITHIN)
        except (TimeoutError, OSError):
            said = b""
        if said != READY:
            log.warning("the warm parent did not start: every game starts by exec")
            mine.close()
            await self._end()
            return
        self._control = mine

    def can_start(self, argv: Sequence[str]) -> bool:
        """Whether `argv` can be started warm: `python -m MODULE ...` of this interpreter."""
        return len(argv) >= 3 and argv[0] == sys.executable and argv[1] == "-m" and self.ready

    async def spawn(
        self, argv: Sequence[str], environment: Mapping[str, str], terminal: int
    ) -> WarmGame | asyncio.subprocess.Process:
        """Start `argv` with `environment` on `terminal` (a pseudo-terminal's slave end, still
        the caller's to close): forked from the warm parent when it can, else by exec."""
        if self.can_start(argv):
            try:
                return await self._fork(argv, environment, terminal)
            except OSError as error:
                log.warning("the warm parent failed (%s): games start by exec", error)
                self.close()
        return await asyncio.create_subprocess_exec(
            *argv,
            stdin=terminal,
            stdout=terminal,
            stderr=terminal,
            env=dict(environment),
            start_new_session=True,
        )

    async def _fork(
        self, argv: Sequence[str], environment: Mapping[str, str], terminal: int
    ) -> WarmGame:
        control = self._control
        assert control is not None
        request = json.dumps({"argv": list(argv), "env": dict(environment)}).encode()
        if len(request) > MAX_REQUEST:
            raise OSError(errno.E2BIG, "the game's argv and environment are too long")
        frame = HEADER.pack(len(request)) + request
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            async with self._lock:  # one request at a time on the control socket
                await _send_with_fds(control, frame, [terminal, theirs.fileno()])
        except BaseException:
            mine.close()
            raise
        finally:
            theirs.close()
        reader, writer = await asyncio.open_unix_connection(sock=mine)
        try:
            line = await asyncio.wait_for(reader.readline(), FORK_WITHIN)
        except TimeoutError:
            line = b""
        if not line.startswith(b"pid "):
            writer.close()
            raise OSError(errno.ECHILD, "the warm parent started no game")
        return WarmGame(int(line[4:]), reader, writer)

    def close(self) -> None:
        """No more games start warm: the warm parent ends once the games it started have."""
        if self._control is not None:
            self._control.close()
            self._control = None

    async def stop(self, within: float = 2.0) -> None:
        """Close, and wait for the warm parent to end; `within` seconds later it is killed (the
        games it started then go on, their exit status lost)."""
        self.close()
        await self._end(within)

    async def _end(self, within: float = 2.0) -> None:
        process = self._process
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), within)
        if process.returncode is None:
            log.warning("the warm parent was stopped with games running: their statuses are lost")
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
        self._process = None


async def _send_with_fds(control: socket.socket, frame: bytes, fds: list[int]) -> None:
    """Send `frame` on `control` (non-blocking), `fds` with its first byte."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            sent = socket.send_fds(control, [frame], fds)
            break
        except BlockingIOError:
            writable = loop.create_future()
            loop.add_writer(control, writable.set_result, None)
            try:
                await writable
            finally:
                loop.remove_writer(control)
    if sent < len(frame):
        await loop.sock_sendall(control, frame[sent:])
