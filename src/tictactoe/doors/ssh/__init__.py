"""The SSH door: `ssh -p PORT CODE@HOST` opens a game in the person's own terminal.

- `door`: the server, who may come in, and what a connection may ask;
- `session`: one session, its terminal, its paced input;
- `terminal`: the game's process in a pseudo-terminal of its own;
- `host_key`: the door's key, made once and kept.
"""

from tictactoe.doors.ssh.door import WRONG_CODE, SshDoor
from tictactoe.doors.ssh.host_key import HostKeyError, fingerprint, host_key_path, load_host_key
from tictactoe.doors.ssh.session import CHANNEL_WINDOW, INPUT_RATE, NO_TERMINAL, SessionInfo

__all__ = [
    "CHANNEL_WINDOW",
    "INPUT_RATE",
    "NO_TERMINAL",
    "WRONG_CODE",
    "HostKeyError",
    "SessionInfo",
    "SshDoor",
    "fingerprint",
    "host_key_path",
    "load_host_key",
]
