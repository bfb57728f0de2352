"""`tictactoe` and `python -m tictactoe`: the signals are taken first, then the game loads."""

from __future__ import annotations

import gc
import os
import signal
import sys


def _leave_quietly(number: int, _frame: object) -> None:
    """Leave at once: nothing is on screen or to be kept yet. (Raising SystemExit instead is not
    quiet: one raised while a module makes a class comes out as a RuntimeError and its
    traceback, "Error calling __set_name__".)"""
    process = sys.modules.get("tictactoe.process")  # (no import in a signal's handler)
    echo_back = getattr(process, "echo_back", None)  # None while the module is still loading:
    if echo_back is not None:  # the echo is not off before it has loaded
        echo_back()
    os._exit(128 + number)


def main() -> int:
    """Run the command; a signal while its modules import ends it quietly, with 128 + number.

    Nothing is on screen or to be kept yet. (Before this first line, the interpreter's
    own start-up answers Ctrl-C as every Python program does.)
    """
    # Importing and starting make tens of thousands of objects that live all session, which
    # Python's collector would walk again and again: it is off until the game is on screen
    # (`TicTacToeApp.on_ready` freezes them and turns it back on), or `serve` starts.
    gc.disable()
    for name in ("SIGHUP", "SIGINT", "SIGTERM"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _leave_quietly)
    from tictactoe.process import echo_back, echo_off, take_terminal

    take_terminal()
    echo_off()  # keys typed while the game loads are not shown on the terminal
    try:
        from tictactoe.cli import main as run  # after the signals: the imports take a while

        return run()
    finally:
        echo_back()


if __name__ == "__main__":
    sys.exit(main())
