"""Games started from a warm parent: a process that has imported a game's modules once, and forks
a copy of itself for each session instead of starting a fresh interpreter.

A fresh interpreter per game costs every session its own copy of every module; a fork shares them
with the warm parent until written to (`benchmarks/README.md`, "Memory per player"). Each game is
still a process of its own (a crash or a hang touches one person), started as `TerminalGame`
starts one by exec:

- the door's side (`WarmParent`) starts the warm parent (`python -m tictactoe.doors.warm`),
  which imports the modules it is given, starts no thread and plays nothing, and freezes what it
  made (`gc.freeze`: the collector of a child never writes to those objects), and lets the
  kernel merge its pages and its games' with identical ones, where KSM is on (`_mergeable`);
- for each game the door sends it, over a Unix socket, the slave end of the game's new
  pseudo-terminal (`SCM_RIGHTS`), the game's argv and environment, and one end of a socket of the
  game's own. The warm parent forks a child that leads a new session, takes the terminal as its
  controlling terminal, makes it its standard input, output and error, takes the environment and
  runs the argv's module as `python -m MODULE ARGS` would; then it says the child's pid on the
  game's socket, and later its exit status (as `subprocess` gives it: -N for signal N);
- the door waits for that status (`WarmGame.wait`) and signals the game's process group itself,
  as it does a game it started by exec (the warm parent, not the door, reaps it: between its end
  and the door hearing of it, a moment, a signal would go to a pid no longer the game's). The
  warm parent ends once the door has closed its socket and the games it started have ended.

Only `python -m MODULE ...` of the door's own interpreter can be started warm; anything else, or a
warm parent that is not there, is started by exec (`WarmParent.spawn` falls back by itself).
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("a game in a pseudo-terminal needs Linux or macOS")

import asyncio
import collections
import contextlib
import ctypes
import errno
import gc
import importlib
import io
import json
import logging
import os
import select
import signal
import socket
import struct
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, NoReturn

__all__ = ["KSM_RUN", "WarmGame", "WarmParent", "merging_off"]

log = logging.getLogger("tictactoe.online")

READY: Final = b"ready"
"""What the warm parent says once its modules are imported."""
READY_WITHIN: Final = 60.0
"""Seconds the warm parent has to import its modules."""
FORK_WITHIN: Final = 10.0
"""Seconds the warm parent has to say it has started a game; past it, games start by exec."""
HEADER: Final = struct.Struct("!I")
"""A request's length, before it."""
MAX_REQUEST: Final = 256 * 1024
"""The largest request (argv and environment, as JSON) the warm parent reads."""
STATUS_UNKNOWN: Final = 1
"""The exit status of a game whose warm parent vanished before saying it."""
PR_SET_MEMORY_MERGE: Final = 67
"""prctl(2): the process's pages may be merged by the kernel's same-page merging (Linux 6.4)."""
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
                __name__,
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


# The warm parent itself.


def _serve(control: socket.socket) -> None:
    """Start a game for each request on `control` until it closes; tell each game's socket its
    pid, then its exit status."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda number, frame: None)
    games: dict[int, socket.socket] = {}
    """Each running game's socket, by pid."""
    poller = select.poll()
    poller.register(control, select.POLLIN)
    poller.register(wake_read, select.POLLIN)
    pending = bytearray()
    """What has come of the requests not yet whole (a byte stream)."""
    asked: collections.deque[_Request] = collections.deque()
    """The terminals and sockets that came with them, in order (each request brings its own)."""
    held = [control.fileno(), wake_read, wake_write]
    taking = True
    while taking or games:
        try:
            events = poller.poll()
        except InterruptedError:
            continue
        for fd, _ in events:
            if fd == wake_read:
                with contextlib.suppress(BlockingIOError):
                    while os.read(wake_read, 512):
                        pass
                _reap(games)
                continue
            try:
                data, fds, _flags, _address = socket.recv_fds(control, 64 * 1024, 16)
            except InterruptedError:
                continue
            if not data:  # the door has gone: the warm parent goes once its games have
                poller.unregister(control)
                taking = False
                break
            pending += data
            for terminal, reply in zip(fds[::2], fds[1::2], strict=False):
                asked.append(_Request(terminal, socket.socket(fileno=reply)))
            if len(fds) % 2:
                os.close(fds[-1])
            while len(pending) >= HEADER.size:
                (length,) = HEADER.unpack_from(pending)
                if length > MAX_REQUEST or not asked:  # not the door's: nothing more is read
                    poller.unregister(control)
                    taking = False
                    break
                if len(pending) < HEADER.size + length:
                    break
                body = bytes(pending[HEADER.size : HEADER.size + length])
                del pending[: HEADER.size + length]
                _start_game(asked.popleft(), body, games, held)


class _Request:
    """A game asked for: its terminal, and its socket."""

    def __init__(self, terminal: int, reply: socket.socket) -> None:
        self.terminal = terminal
        self.reply = reply

    def close(self) -> None:
        os.close(self.terminal)
        self.reply.close()


def _start_game(
    request: _Request, body: bytes, games: dict[int, socket.socket], held: list[int]
) -> None:
    try:
        asked = json.loads(body)
        argv, environment = asked["argv"], asked["env"]
        if not (isinstance(argv, list) and len(argv) >= 3 and isinstance(environment, dict)):
            raise ValueError("a request is an argv of python -m MODULE and an environment")
    except ValueError:
        request.close()
        return
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        others = [reply.fileno() for reply in games.values()]
        _become(argv, environment, request.terminal, [*held, *others])
    os.close(request.terminal)
    request.reply.setblocking(False)  # a line or two, never more: a door that reads none
    with contextlib.suppress(OSError):  # is not waited for
        request.reply.send(b"pid %d\n" % pid)
    games[pid] = request.reply


def _reap(games: dict[int, socket.socket]) -> None:
    """Tell the door each game that has ended, and how."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        reply = games.pop(pid, None)
        if reply is not None:
            with contextlib.suppress(OSError):
                reply.send(b"exit %d\n" % os.waitstatus_to_exitcode(status))
            reply.close()


def _become(
    argv: list[str], environment: dict[str, str], terminal: int, held: list[int]
) -> NoReturn:
    """In the forked child: become the game, as `exec` of `argv` on `terminal` would have."""
    status = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in held:
            with contextlib.suppress(OSError):
                os.close(fd)
        os.setsid()
        import fcntl
        import termios

        fcntl.ioctl(terminal, termios.TIOCSCTTY, 0)
        for target in (0, 1, 2):
            os.dup2(terminal, target)
        if terminal > 2:
            os.close(terminal)
        os.environ.clear()
        os.environ.update(environment)
        _standard_streams()
        status = _run(argv)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(status)


def _standard_streams() -> None:
    """Standard input, output and error made anew, as a fresh interpreter in a UTF-8 terminal
    makes them (the warm parent's own were made for /dev/null and the club's log). Textual reads
    `sys.__stdin__` and `sys.__stderr__`, so those are replaced too (typeshed calls them final:
    they are plain attributes of `sys`)."""
    streams = (
        ("stdin", open(0, encoding="utf-8", errors="surrogateescape", closefd=False)),  # noqa: SIM115
        ("stdout", _writer(1, "surrogateescape")),
        ("stderr", _writer(2, "backslashreplace")),
    )
    for name, stream in streams:
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _writer(fd: int, errors: str) -> io.TextIOWrapper:
    return io.TextIOWrapper(
        open(fd, "wb", closefd=False), encoding="utf-8", errors=errors, line_buffering=True
    )


def _run(argv: list[str]) -> int:
    """Run `python -m MODULE ARGS` (`argv`) in this process; its exit status."""
    import runpy

    sys.argv = [argv[0], *argv[3:]]
    try:
        runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
    except SystemExit as leaving:
        code = leaving.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    return 0


KSM_RUN: Final[Path] = Path("/sys/kernel/mm/ksm/run")
"""Whether the kernel's same-page merging runs: 1 when it does (the machine owner's setting)."""


def merging_off(run: Path = KSM_RUN) -> bool:
    """Whether this kernel could merge the games' pages (KSM) and does not, its owner not having
    turned it on: the club then says what turning it on would save."""
    try:
        return run.read_text().strip() == "0"
    except (OSError, UnicodeDecodeError):
        return False


def _mergeable() -> None:
    """Let the kernel merge this process's pages, and its games', with identical ones (KSM,
    `PR_SET_MEMORY_MERGE`, which a fork keeps): the pages a game copied from the warm parent
    and wrote back as they were, and the pages games have alike. Once the machine's owner has
    turned KSM on, a game's own memory shrinks to about a third (benchmarks/README.md, "Memory
    per player"); with KSM off, or on a kernel older than 6.4 (which refuses it), nothing
    changes."""
    if sys.platform == "linux":
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0)


def main(argv: Sequence[str]) -> int:
    """`python -m tictactoe.doors.warm FD MODULE[:FUNCTION]...`: import the modules (and
    call each function named after one: a warm-up, run before any fork), say so on the socket
    `FD`, and start the games asked for on it until it closes."""
    control = socket.socket(fileno=int(argv[0]))
    gc.disable()
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    for name in argv[1:]:
        module, _, function = name.partition(":")
        imported = importlib.import_module(module)
        if function:
            getattr(imported, function)()
    gc.disable()  # a warm-up may have turned it on
    if threading.active_count() > 1:  # a fork copies one thread of them: games start by exec
        print("the warm parent has threads running: it forks no game", file=sys.stderr)
        return 1
    # Frozen as they are (no collection first, which would leave holes in pages that a game's
    # objects would fill, copying them): never walked, nor written to, by a game's collector.
    gc.freeze()
    _mergeable()
    control.sendall(READY)
    _serve(control)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
