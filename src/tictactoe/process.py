"""The edges of the process: the terminal it needs (its echo off while the game loads), the
signals that end it, the way it ends a child of its own (`end_in_steps`), and the files it may
have open (`open_files_limit`).

Standard library only. (Before the game runs, `tictactoe.__main__` has the signals
end the process quietly: Ctrl-C while the modules import leaves no traceback.)
"""

from __future__ import annotations

import asyncio
import os
import select
import signal
import socket
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, Final, TextIO

from tictactoe.served import is_served

if TYPE_CHECKING:
    from asyncio import AbstractEventLoop

__all__ = [
    "GRACE",
    "SIGNALS",
    "echo_back",
    "echo_off",
    "end_in_steps",
    "open_files_limit",
    "screen_file",
    "signals_stop",
    "signals_wake",
    "terminal_problem",
]

SIGNALS: Final = tuple(
    getattr(signal, name) for name in ("SIGHUP", "SIGINT", "SIGTERM") if hasattr(signal, name)
)
"""The signals that end the game cleanly; each leaves the exit status 128 + its number."""

GRACE: Final = 5.0
"""Seconds the game has to leave after a signal before the process leaves without it."""

_stop: Callable[[int], None] | None = None
"""What a signal asks of the running game: leave with this status."""

_deadline: threading.Timer | None = None

_wakeup: tuple[socket.socket, socket.socket] | None = None
"""While the game runs: the pair of sockets through which a signal wakes its loop."""

_relay: threading.Thread | None = None
"""While the game runs on a loop that watches no sockets: the thread that wakes it instead."""


def open_files_limit() -> int | None:
    """Let the process have as many files open as the system lets it (its soft limit raised to
    its hard one: a shell's or a tool's `ulimit -Sn 1024` is not the doors' bound, theirs are);
    the limit now, or None where there is none to read (Windows)."""
    if sys.platform == "win32":
        return None
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != soft:
        with suppress(ValueError, OSError):  # macOS refuses more than OPEN_MAX: keep the soft one
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    return None if soft == resource.RLIM_INFINITY else soft


def terminal_problem() -> str | None:
    """Why the game cannot run here, as one sentence; None when it can.

    It reads keys from standard input and draws on `screen_file()`, so both must be a
    terminal; standard output may be a pipe (the final score goes there). A game served
    to a browser has pipes to the server instead, and so may any other driver chosen
    through TEXTUAL_DRIVER: those need no terminal.
    """
    if is_served() or os.environ.get("TEXTUAL_DRIVER"):
        return None
    if not _is_terminal(sys.__stdin__):
        return "tictactoe needs a terminal: standard input is not one, so no key could reach it."
    if screen_file() is None:
        return (
            "tictactoe needs a terminal: neither standard error nor standard output is one,"
            " so it has nowhere to draw."
        )
    return None


def take_terminal() -> None:
    """Make standard input, a terminal, the controlling terminal of a process that leads a
    session of its own and has none: a game the SSH door starts in a new pseudo-terminal. (The
    door cannot do it between fork and exec, where a process with threads may deadlock.) The
    terminal's size changes and its hang-up then reach the game as in a terminal of its own."""
    if sys.platform == "win32":
        return
    import fcntl
    import termios

    try:
        if os.getsid(0) != os.getpid() or not os.isatty(0):
            return
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:  # no controlling terminal: standard input becomes it
        with suppress(OSError):
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        return
    os.close(fd)


_echoing: list[Any] | None = None
"""The terminal's settings before `echo_off`, while its echo is off; None otherwise."""


def echo_off() -> None:
    """Stop the terminal (standard input) echoing what is typed, from the very start: keys typed
    while the game loads are its type-ahead, not text left on the terminal (they showed before
    the score once the game had left: "x51Final score"). `echo_back` puts the settings back."""
    global _echoing
    if sys.platform == "win32" or _echoing is not None:
        return
    import termios

    try:
        if not os.isatty(0):
            return
        before = termios.tcgetattr(0)
        quiet = list(before)
        quiet[3] &= ~termios.ECHO
        termios.tcsetattr(0, termios.TCSANOW, quiet)
    except (OSError, termios.error):
        return
    _echoing = before


def echo_back() -> None:
    """The terminal's settings as they were before `echo_off` (Textual restores them as it found
    them: with the echo off); nothing if its echo was not turned off."""
    global _echoing
    if _echoing is None or sys.platform == "win32":
        return
    import termios

    before, _echoing = _echoing, None
    with suppress(OSError, termios.error):
        termios.tcsetattr(0, termios.TCSANOW, before)


def screen_file() -> TextIO | None:
    """The terminal the game draws on: standard error (Textual's choice), else standard output."""
    for stream in (sys.__stderr__, sys.__stdout__):
        if stream is not None and _is_terminal(stream):
            return stream
    return None


def _is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):  # closed, or gone
        return False


@contextmanager
def signals_stop(stop: Callable[[int], None]) -> Iterator[None]:
    """While the game runs, a signal asks it to leave: `stop(status)`, called on its loop.

    There the game records what is finished, restores the terminal and leaves; should
    the process still be here `GRACE` seconds after the signal, it leaves without the
    game. Outside the game's loop (before it starts, after it ends) there is nothing
    to keep or restore: a signal ends the process at once, quietly.
    """
    global _stop, _wakeup, _relay
    before = {number: signal.getsignal(number) for number in SIGNALS}
    _stop = stop
    _wakeup = socket.socketpair()
    for end in _wakeup:
        end.setblocking(False)
    wakeup_before = signal.set_wakeup_fd(_wakeup[1].fileno(), warn_on_full_buffer=False)
    for number in SIGNALS:
        signal.signal(number, _on_signal)
    try:
        yield
    finally:
        _stop = None
        for number, handler in before.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        signal.set_wakeup_fd(wakeup_before)
        if _relay is not None:  # it ends on the next byte, now that `_stop` is None
            with suppress(OSError):
                _wakeup[1].send(b"\0")
            _relay.join()
            _relay = None
        for end in _wakeup:
            end.close()
        _wakeup = None


def signals_wake(loop: AbstractEventLoop) -> None:
    """Have a signal wake the game's `loop`, whichever thread of the process it reached.

    Python runs a signal's handler in the main thread, between two steps of its work;
    the system may hand the signal to any thread (Textual reads the keys and writes the
    screen in two more). While the game waits for a key, the main thread sleeps in the
    loop's wait for input, and the handler would wait with it, for the next key. Python
    also writes a byte for each signal to a socket (`signals_stop` sets it): the loop
    watches it, and waking is enough for the handler to run. A loop that watches no
    sockets (Windows' own) is woken by a thread that waits for that byte. (Nothing to do
    when no `signals_stop` is in force, as when tests run the app.)
    """
    global _relay
    if _wakeup is None:
        return
    wakeups = _wakeup[0]
    try:
        loop.add_reader(wakeups.fileno(), _drain, wakeups)
    except NotImplementedError:
        _relay = threading.Thread(
            target=_wake_on_signals, args=(wakeups, loop), name="signal-wakeup", daemon=True
        )
        _relay.start()


def _drain(wakeups: socket.socket) -> None:
    with suppress(OSError):  # nothing more to read
        while wakeups.recv(512):
            pass


def _wake_on_signals(wakeups: socket.socket, loop: AbstractEventLoop) -> None:
    """Wake `loop` whenever a signal's byte reaches `wakeups`, until `signals_stop` ends."""
    while True:
        select.select([wakeups], [], [])
        _drain(wakeups)
        if _stop is None:
            return
        with suppress(RuntimeError):  # the loop has closed: nothing left to wake
            loop.call_soon_threadsafe(_awake)


def _awake() -> None:
    """Nothing: the loop's waking up is what matters (the signal's handler runs then)."""


def _on_signal(number: int, _frame: object) -> None:
    status = 128 + number
    loop = _running_loop()
    if loop is None or _stop is None:
        raise SystemExit(status)
    loop.call_soon_threadsafe(_stop, status)
    _leave_anyway(status)


def _running_loop() -> AbstractEventLoop | None:
    asyncio = sys.modules.get("asyncio")  # not imported yet: no loop can be running
    if asyncio is None:
        return None
    try:
        loop: AbstractEventLoop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return loop


def _leave_anyway(status: int) -> None:
    """The last resort: the process ends `GRACE` seconds from the first signal, whatever happens."""
    global _deadline
    if _deadline is None:
        _deadline = threading.Timer(GRACE, os._exit, (status,))
        _deadline.daemon = True
        _deadline.start()


async def end_in_steps(
    ended: Callable[[], Awaitable[object]],
    steps: Sequence[tuple[Callable[[], object], float]],
    last: Callable[[], object],
) -> None:
    """End a child process by steps: each is an action (asking it to quit, a signal) and the
    seconds it is given to take effect, before the next one; `last` (SIGKILL) is waited for
    without a bound. `ended` waits for the child to have ended."""
    for action, grace in steps:
        action()
        with suppress(TimeoutError):
            await asyncio.wait_for(ended(), grace)
            return
    last()
    await ended()
