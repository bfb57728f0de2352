"""Play one match with an installed `tictactoe` command, in a pseudo-terminal, as a person would.

Usage: python play_installed.py PATH-OF-THE-COMMAND FOLDER

FOLDER holds everything the game writes (its HOME, data, config and the record), so nothing of
the user's is touched. Standard library only: it runs with any Python 3.11.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import sqlite3
import struct
import sys
import termios
import time
from pathlib import Path

KEYS = (b"x", b"7", b"4", b"8", b"5", b"9")
"""Ada takes X and the top row (keypad layout: 7 8 9) while Bob plays 4 and 5."""


def main(command: str, folder: Path) -> int:
    record = folder / "record.sqlite3"
    pid, fd = pty.fork()
    if pid == 0:  # the child: the installed command, in a 80x24 terminal
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
            env = {"PATH": os.environ.get("PATH", ""), "TERM": "xterm-256color"}
            env |= {"HOME": str(folder), "XDG_DATA_HOME": str(folder / "data")}
            env |= {"XDG_CONFIG_HOME": str(folder / "config"), "XDG_STATE_HOME": str(folder)}
            argv = [command, "--player1", "Ada", "--player2", "Bob", "--record", str(record)]
            os.execve(command, argv, env)
        finally:
            os._exit(127)
    screen = Screen(fd)
    screen.wait_for(b"choose your mark")
    for key in KEYS:
        os.write(fd, key)
        time.sleep(0.1)
    screen.wait_for(b"Ada wins!")
    os.write(fd, b"q")
    status = screen.wait_for_exit(pid)
    if status != 0 or b"Ada    1" not in screen.output:
        raise SystemExit(f"the installed game ended with status {status}, without Ada's win")
    with sqlite3.connect(record) as db:
        (matches,) = db.execute("SELECT count(*) FROM matches").fetchone()
    if matches != 1:
        raise SystemExit(f"the record holds {matches} matches, not the one played")
    print(f"The installed {command} played a match: Ada won, status 0, the match recorded.")
    return 0


class Screen:
    """What the game wrote to its terminal so far."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.output = b""

    def read(self, timeout: float) -> bool:
        """Read what has come within `timeout` seconds; False once the terminal has closed."""
        if select.select([self.fd], [], [], timeout)[0]:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # EIO: the game, and every process it started, has closed it
                return False
            self.output += chunk
            return bool(chunk)
        return True

    def wait_for(self, text: bytes, seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while text not in self.output:
            if time.monotonic() > deadline or not self.read(0.05):
                raise SystemExit(f"the installed game never showed {text.decode()!r}")

    def wait_for_exit(self, pid: int, seconds: float = 30) -> int:
        """Read to the end; the game's exit status."""
        deadline = time.monotonic() + seconds
        while self.read(0.05):
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                raise SystemExit("the installed game was still running after q")
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], Path(sys.argv[2])))
