"""In a child the warm parent has just forked: become the game, as `exec` of its argv on its
terminal would have made it.

The child leaves the warm parent's descriptors and signal handling behind, leads a new session
with the terminal as its controlling terminal and its standard input, output and error, takes
the game's environment, and runs `python -m MODULE ARGS` in this process; its exit status is the
game's.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("a game in a pseudo-terminal needs Linux or macOS")

import contextlib
import io
import os
import signal
from typing import NoReturn

__all__ = ["become"]


def become(
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
