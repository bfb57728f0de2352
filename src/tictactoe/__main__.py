"""`tictactoe` and `python -m tictactoe`: the signals are taken first, then the game loads."""

from __future__ import annotations

import gc
import signal
import sys
from typing import Final

SWITCH_INTERVAL: Final = 0.0002
"""Seconds a thread waiting for the interpreter waits before the running one must hand it
over (Python's default is 0.005). Textual writes each frame to the terminal from a thread of
its own, and the main thread goes straight on with the next piece of work: the frame then
waits for the interpreter, twice or more (its write gives it up again). With the default, the
first frame reached the terminal 7 to 25 ms after it was made; with this, in 1 to 2 ms. The
other threads here wait on the terminal, a queue or the database, so the handing over is rare
and cheap (benchmarks/README.md, issue 10's eighth round)."""


def _leave_quietly(number: int, _frame: object) -> None:
    raise SystemExit(128 + number)


def main() -> int:
    """Run the command; a signal while its modules import ends it quietly, with 128 + number.

    Nothing is on screen or to be kept yet. (Before this first line, the interpreter's
    own start-up, a few milliseconds, answers Ctrl-C as every Python program does.)
    """
    # Importing and starting make some 60,000 objects that live all session; Python's
    # collector would walk them again and again (~90 ms of the first paint here). It is
    # off until the game is on screen (`TicTacToeApp.on_ready`), or `serve` starts.
    gc.disable()
    sys.setswitchinterval(SWITCH_INTERVAL)
    for name in ("SIGHUP", "SIGINT", "SIGTERM"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _leave_quietly)
    from tictactoe.cli import main as run  # after the signals: importing takes half a second

    return run()


if __name__ == "__main__":
    sys.exit(main())
