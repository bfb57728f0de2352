"""The warm parent itself: it imports a game's modules once, then forks a game for each request
the door sends on its control socket, and tells each game's own socket its pid, then its exit
status (as `subprocess` gives it: -N for signal N).

It starts no thread (a fork copies one thread of them), plays nothing, and freezes the objects it
made before the first fork (`gc.freeze`), so that no game's collector walks or writes to them.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("a game in a pseudo-terminal needs Linux or macOS")

import collections
import contextlib
import gc
import importlib
import json
import os
import select
import signal
import socket
import struct
import threading
from collections.abc import Sequence
from typing import Final

from tictactoe.doors.warm.child import become
from tictactoe.doors.warm.merging import mergeable

__all__ = ["HEADER", "MAX_REQUEST", "READY", "main"]

READY: Final = b"ready"
"""What the warm parent says once its modules are imported."""
HEADER: Final = struct.Struct("!I")
"""A request's length, before it."""
MAX_REQUEST: Final = 256 * 1024
"""The largest request (argv and environment, as JSON) the warm parent reads."""


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
        become(argv, environment, request.terminal, [*held, *others])
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
    mergeable()
    control.sendall(READY)
    _serve(control)
    return 0
