"""The SSH door: `ssh -p PORT CODE@HOST` opens a game in the person's own terminal.

- `door`: the server: listening, its bounds, its games, stopping;
- `connection`: one connection, its login (a code, or a gate's keys), what it may ask;
- `places`: connections bounded in all, per address, and while logging in;
- `proxied`: connections that begin with a PROXY protocol header;
- `gate`: who comes in where the user name is a name and the key says who;
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
