"""The SSH door: plain `ssh -p PORT CODE@HOST` opens a game in the person's own terminal.

asyncssh is the SSH server. There is no password: the SSH user name is the series' code.
Each session with a terminal gets a game process of its own, as each browser tab does
under `tictactoe serve`:

- the game runs in a new pseudo-terminal whose slave end is its standard input, output
  and error, in a session of its own, and takes it as its controlling terminal as it starts
  (`tictactoe.process.take_terminal`; nothing runs between fork and exec): the terminal type and
  size the person's `ssh` reports, every change of that size, and the hang-up when they
  leave reach the game as they would in a terminal of its own;
- bytes pass both ways unchanged. While the game's terminal is full, the door stops taking
  the person's input (SSH's flow control then holds the sender back); while the person's
  link is slow, it stops reading the game's output: nothing grows without bound;
- when the person leaves, the game's process group gets SIGHUP, and SIGKILL if it is
  still there `within` seconds later; when the game ends, its last output is sent, then
  its exit status, and the session closes. Every process is waited for;
- the code is checked as the person logs in, before anything else is spent: a wrong one is
  counted by the `Throttle` (per network), told in the login banner, and the login fails, so no
  session, terminal or game can be asked for; past the throttle's limit the answer comes late.
  One code is tried per connection;
- a session without a terminal, and a full door, are told why in a sentence: no game starts;
- what a client sends is bounded: connections (in all, per address, and those still logging in),
  `env` requests (`tictactoe.adapters.ssh_channel`), the terminal size, and input (`INPUT_RATE`
  bytes a second; past that, reading pauses and SSH's flow control holds the sender back);
- everything else a client may ask is refused: commands, subsystems (SFTP), forwarding
  of ports, sockets, tunnels, the agent, X11;
- keepalives notice a vanished client; logins, connections (in all and per address) and
  games are bounded in time or number. A refused or failed connection is one line in the
  `tictactoe.online` log, never a traceback.

The host key is made once (ed25519) and kept with mode 0600 in the user data folder; its
fingerprint is shown in the invitation so the friend can check what `ssh` asks.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("the SSH door runs games in pseudo-terminals: it needs Linux or macOS")

import asyncio
import contextlib
import errno
import fcntl
import ipaddress
import logging
import os
import re
import signal
import stat
import struct
import tempfile
import termios
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import asyncssh
import platformdirs

from tictactoe.adapters.ssh_channel import limit_environment
from tictactoe.online.codes import Throttle, normalise_code

__all__ = [
    "HostKeyError",
    "SessionInfo",
    "SshDoor",
    "fingerprint",
    "host_key_path",
    "load_host_key",
]

log = logging.getLogger("tictactoe.online")

WRONG_CODE: Final = "That is not the code of this series. Check the line you were given."
NO_TERMINAL: Final = "This door opens a game in a terminal: run ssh without -T"
FULL: Final = "Too many games are open here: try again later."
CANNOT_START: Final = "The game could not start here; the host's log says why."

MAX_SIZE: Final = (1000, 500)
"""The largest terminal a client may report, in columns and rows; a larger one is ignored."""

OUTPUT_GRACE: Final = 0.5
"""Seconds the door waits for the rest of a game's output once the game has ended (a process
it left behind may still hold its terminal)."""

CHANNEL_WINDOW: Final = 16 * 1024
"""Bytes of a person's input the door takes before waiting for the game to read them: far more
than typing needs, and little for a game to catch up with after a flood."""

READ_SIZE: Final = 64 * 1024
"""The most of a game's output read at once."""

INPUT_RATE: Final = 16 * 1024
"""Bytes of a person's input a session takes a second, in bursts of `CHANNEL_WINDOW`: far more
than anyone types or pastes, far less than a flood."""

SESSIONS_PER_CONNECTION: Final = 4
"""Sessions one SSH connection may open (OpenSSH can share one connection between several)."""

_BIND_TRIES: Final = 5
"""Draws of a free port before giving up on one free on every address asked for."""

_NAME_LIMIT: Final = 64
"""What a client sent is shown cut to this many characters in the log."""

_CLIENT_ENV: Final = re.compile(r"LANG|LC_[A-Z]+|COLORTERM")
"""Variables a client may send (`SendEnv`) that the game takes: its language and colours."""

_SAFE_VALUE: Final = re.compile(r"[A-Za-z0-9_.:@+-]{1,64}")

_HOST_TERMINAL_ENV: Final = frozenset(
    {
        "COLORTERM",
        "COLUMNS",
        "ITERM_SESSION_ID",
        "KITTY_WINDOW_ID",
        "LINES",
        "SSH_AUTH_SOCK",
        "SSH_CLIENT",
        "SSH_CONNECTION",
        "SSH_TTY",
        "STY",
        "TERM",
        "TERM_PROGRAM",
        "TERM_PROGRAM_VERSION",
        "TMUX",
        "TMUX_PANE",
        "VTE_VERSION",
        "WINDOW",
        "WT_SESSION",
    }
)
"""What the host's environment says about the host's own terminal: not given to a game
that runs in someone else's."""


class HostKeyError(Exception):
    """The SSH host key cannot be used; the message says why, in a sentence for the host."""


def host_key_path() -> Path:
    """Where the door's SSH host key is kept: the user data folder."""
    return platformdirs.user_data_path("tictactoe") / "ssh_host_key"


def load_host_key(path: Path | None = None) -> asyncssh.SSHKey:
    """The door's host key: made once (ed25519), with mode 0600 from the start, reused after.

    A key file others may read is tightened to 0600; one of another user, or that is not
    a key, is refused with `HostKeyError` (and left as it is).
    """
    path = host_key_path() if path is None else path
    try:
        return _read_host_key(path)
    except FileNotFoundError:
        pass
    key = asyncssh.generate_private_key("ssh-ed25519", comment="tictactoe host key")
    try:
        _write_new_host_key(path, key.export_private_key())
    except FileExistsError:  # another host made it meanwhile: theirs is the one
        return _read_host_key(path)
    except OSError as error:
        raise HostKeyError(f"Cannot write the SSH host key {path}: {_reason(error)}.") from None
    return key


def _read_host_key(path: Path) -> asyncssh.SSHKey:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise HostKeyError(f"Cannot read the SSH host key {path}: {_reason(error)}.") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise HostKeyError(f"The SSH host key {path} is not a file.")
        if status.st_uid != os.getuid():
            raise HostKeyError(
                f"The SSH host key {path} belongs to another user: move it away,"
                " and a new key is made."
            )
        if status.st_mode & 0o077:
            os.fchmod(fd, 0o600)
            log.warning("the SSH host key %s was readable by others: now only by you", path)
        with os.fdopen(os.dup(fd), "rb") as file:
            data = file.read()
    except OSError as error:
        raise HostKeyError(f"Cannot read the SSH host key {path}: {_reason(error)}.") from None
    finally:
        os.close(fd)
    try:
        return asyncssh.import_private_key(data)
    except (asyncssh.KeyImportError, ValueError) as error:
        raise HostKeyError(
            f"The SSH host key {path} is not a key this door can use ({error}):"
            " move it away, and a new key is made."
        ) from None


def _write_new_host_key(path: Path, data: bytes) -> None:
    """Write the key beside its place (mkstemp makes it 0600), then link it into place: no
    moment when the key is readable by others or only half written; FileExistsError if a
    key is there already."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.link(name, path)
    finally:
        with contextlib.suppress(OSError):
            Path(name).unlink()


def fingerprint(key: asyncssh.SSHKey) -> str:
    """The key's fingerprint as OpenSSH shows it on first contact: "SHA256:" and base64."""
    return key.get_fingerprint("sha256")


def _reason(error: OSError) -> str:
    return os.strerror(error.errno) if error.errno else str(error)


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """What the door knows of a session when it starts its game."""

    code: str
    """The series' code (normalised), or the user name when the door takes any."""
    peer: str
    """The client's address."""
    term_type: str
    """The terminal type the client reported (its TERM)."""
    size: tuple[int, int]
    """The terminal's size in columns and rows (0 when the client did not say)."""


class SshDoor:
    """An SSH server that gives each session with a terminal a game process of its own."""

    def __init__(
        self,
        *,
        host_key: asyncssh.SSHKey,
        command: Callable[[SessionInfo], Sequence[str]],
        accepts: Callable[[str], bool] | None = None,
        throttle: Throttle | None = None,
        env: Mapping[str, str] | None = None,
        max_sessions: int = 64,
        max_connections: int = 128,
        max_per_address: int = 16,
        max_logging_in: int = 32,
        max_logging_in_per_address: int = 4,
        login_timeout: float = 30.0,
        keepalive: float = 10.0,
        keepalive_count: int = 2,
    ) -> None:
        self.host_key = host_key
        """The server's key: clients check its fingerprint."""
        self.command = command
        """The game's command for a session."""
        self.accepts = accepts
        """Whether a code is this series'; None: any user name is welcome."""
        self.throttle = throttle if throttle is not None else Throttle()
        """Counts wrong codes per address; an address past its limit waits."""
        self.env = dict(env or {})
        """Added to every game's environment."""
        self.max_sessions = max_sessions
        """Games open at once, at most."""
        self.max_connections = max_connections
        """Connections open at once, at most (logging in, refused or playing)."""
        self.max_per_address = max_per_address
        """Connections open at once from one address, at most."""
        self.max_logging_in = max_logging_in
        """Connections not yet logged in, at most (a wrong code is answered late: those wait)."""
        self.max_logging_in_per_address = max_logging_in_per_address
        """Connections not yet logged in from one network (see `Throttle.network`), at most: with
        the throttle's delay, this bounds how fast one network can guess."""
        self.login_timeout = login_timeout
        """Seconds a connection has to log in, and then to open a game."""
        self.keepalive = keepalive
        """Seconds between keepalives to a silent client."""
        self.keepalive_count = keepalive_count
        """Keepalives left unanswered before the connection counts as lost: a vanished client
        is noticed within `keepalive * (keepalive_count + 1)` seconds."""
        self.relayed: dict[tuple[str, int], str] = {}
        """Connections a relay (`tictactoe.online.relay`) passes on to this door, by their own
        address and port on this machine, and the address each came to the relay from: the one
        the door counts, throttles and logs for them."""
        self._acceptor: asyncssh.SSHAcceptor | None = None
        self._connections: set[_Connection] = set()
        self._per_address: Counter[str] = Counter()
        self._logging_in: Counter[str] = Counter()
        self._games: set[_Game] = set()
        self._open: set[_Session] = set()
        self._starting: set[asyncio.Task[None]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = False

    @property
    def logging_in(self) -> int:
        """Connections that have not logged in yet."""
        return self._logging_in.total()

    @property
    def sessions(self) -> int:
        """Games open now (started, or being started)."""
        return len(self._open)

    async def start(self, host: str | Sequence[str] | None = None, port: int = 2222) -> int:
        """Listen on `host` (all of this machine's addresses when None); the bound port, the
        same on every address (port 0: any free one)."""
        where = "" if host is None else host
        acceptor = await self._listen(where, port)
        for _ in range(_BIND_TRIES):
            ports = {address[1] for address in acceptor.get_addresses()}
            if len(ports) == 1:
                break
            # Port 0 on several addresses gave each its own: ask for one of them on all.
            acceptor.close()
            await acceptor.wait_closed()
            try:
                acceptor = await self._listen(where, min(ports))
            except OSError:  # taken on another address meanwhile: draw again
                acceptor = await self._listen(where, 0)
        else:
            acceptor.close()
            raise OSError(errno.EADDRINUSE, "no port is free on every address")
        self._acceptor = acceptor
        return acceptor.get_port()

    async def _listen(self, host: str | Sequence[str], port: int) -> asyncssh.SSHAcceptor:
        return await asyncssh.create_server(
            lambda: _Connection(self),
            host,
            port,
            server_host_keys=[self.host_key],
            config=None,
            rdns_lookup=False,
            gss_host=None,
            public_key_auth=False,
            password_auth=False,
            kbdint_auth=False,
            host_based_auth=False,
            login_timeout=self.login_timeout,
            keepalive_interval=self.keepalive,
            keepalive_count_max=self.keepalive_count,
            allow_pty=True,
            line_editor=False,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            encoding=None,
            window=CHANNEL_WINDOW,
        )

    async def stop(self, within: float = 2.0) -> None:
        """Stop listening, end every game (SIGHUP, then SIGKILL after `within` seconds), close
        every connection; return once no game process is left."""
        self._stopping = True
        if self._acceptor is not None:
            self._acceptor.close()
        await _settle(self._starting)  # games being started are then in `_games`
        await asyncio.gather(*(game.end(within) for game in list(self._games)))
        await _settle(self._tasks)
        for connection in list(self._connections):
            connection.close()
        if self._acceptor is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._acceptor.wait_closed(), within)
            self._acceptor = None

    def _spawn(
        self, work: Callable[[], Coroutine[object, object, None]], *, starting: bool = False
    ) -> None:
        tasks = self._starting if starting else self._tasks
        task = asyncio.create_task(work())
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    def peer_of(self, peername: object) -> str:
        """The address a connection from `peername` counts as: the one it came to the relay from
        when a relay passed it on, else its own."""
        address = _address(peername)
        if isinstance(peername, tuple) and len(peername) >= 2:
            return self.relayed.get((address, peername[1]), address)
        return address

    def _admit(self, connection: _Connection) -> str | None:
        """Count a new connection in; why not, when it may not come in."""
        if self._stopping:
            return "the door is closing"
        if len(self._connections) >= self.max_connections:
            return f"{len(self._connections)} connections are open"
        if self._per_address[connection.peer] >= self.max_per_address:
            return f"{self._per_address[connection.peer]} connections from that address are open"
        if self._logging_in.total() >= self.max_logging_in:
            return f"{self._logging_in.total()} connections are logging in"
        network = self.throttle.network(connection.peer)
        if self._logging_in[network] >= self.max_logging_in_per_address:
            return f"{self._logging_in[network]} connections from {network} are logging in"
        self._connections.add(connection)
        self._per_address[connection.peer] += 1
        self._logging_in[network] += 1
        connection.logging_in = True
        return None

    def _logged_in(self, connection: _Connection) -> None:
        """`connection` has logged in, or left: it no longer counts as logging in."""
        if connection.logging_in:
            connection.logging_in = False
            network = self.throttle.network(connection.peer)
            self._logging_in[network] -= 1
            if self._logging_in[network] <= 0:
                del self._logging_in[network]

    def _forget(self, connection: _Connection) -> None:
        if connection in self._connections:
            self._logged_in(connection)
            self._connections.discard(connection)
            self._per_address[connection.peer] -= 1
            if self._per_address[connection.peer] <= 0:
                del self._per_address[connection.peer]

    def _environment(self, info: SessionInfo, sent: Mapping[str, str]) -> dict[str, str]:
        environment = {
            name: value for name, value in os.environ.items() if name not in _HOST_TERMINAL_ENV
        }
        for name, value in sent.items():
            if _CLIENT_ENV.fullmatch(name) and _SAFE_VALUE.fullmatch(value):
                environment[name] = value
        environment["TERM"] = info.term_type
        environment.update(self.env)
        return environment


class _Connection(asyncssh.SSHServer):
    """One client's SSH connection: the code it gave, and the sessions it opened."""

    def __init__(self, door: SshDoor) -> None:
        self.door = door
        self.connection: asyncssh.SSHServerConnection | None = None
        self.peer = "?"
        self.user = ""
        self.code = ""
        """The series' code (normalised) the connection logged in with, or its user name when
        the door takes any."""
        self.tried = False
        """Whether this connection has tried a code: it may try one."""
        self.logging_in = False
        """Whether the door counts this connection as logging in."""
        self.sessions: set[_Session] = set()
        self.logged = False
        """Whether this connection has had its line in the log."""
        self._idle: asyncio.TimerHandle | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.connection = conn
        self.peer = self.door.peer_of(conn.get_extra_info("peername"))
        why = self.door._admit(self)
        if why is not None:
            self.note("refused a connection from %s: %s", self.peer, why)
            conn.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self.door._forget(self)
        self._cancel_idle()
        if exc is not None:
            reason = _printable(str(exc), 120) or type(exc).__name__
            self.note("a connection from %s failed: %s", self.peer, reason)

    def note(self, message: str, *args: object) -> None:
        """Log why this connection was refused or failed: its first reason, in one line."""
        if not self.logged:
            self.logged = True
            log.warning(message, *args)

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()

    async def begin_auth(self, username: str) -> bool:
        """No password: the user name is the code. The right one logs in at once; a wrong one
        is counted, told in the login banner (late, past the throttle's limit), and fails."""
        self.user = username
        if self.door.accepts is None:
            self.code = username
            return False
        if self.tried:  # one code a connection
            self.note("closed a connection from %s: a second code", self.peer)
            self.close()
            return True
        self.tried = True
        code = normalise_code(username)
        if code is not None and self.door.accepts(code):
            self.code = code
            return False
        late = self.door.throttle.failed(self.peer)
        if late:
            self.note(
                "a wrong code from %s, answered %d s late: %r",
                self.peer,
                late,
                _printable(username),
            )
            await asyncio.sleep(late)
        else:
            self.note("a wrong code from %s: %r", self.peer, _printable(username))
        if self.connection is not None:
            with contextlib.suppress(OSError, asyncssh.Error):
                self.connection.send_auth_banner(WRONG_CODE + "\n")
        return True

    def auth_completed(self) -> None:
        self.door._logged_in(self)
        self._watch_idle()

    def session_requested(
        self,
    ) -> tuple[asyncssh.SSHServerChannel[bytes], _Session] | bool:
        if self.door._stopping or len(self.sessions) >= SESSIONS_PER_CONNECTION:
            return False
        assert self.connection is not None
        channel = self.connection.create_server_channel(encoding=None, window=CHANNEL_WINDOW)
        limit_environment(
            channel, lambda why: self.note("closed a session of %s: %s", self.peer, why)
        )
        return channel, _Session(self)

    def session_ended(self, session: _Session) -> None:
        self.sessions.discard(session)
        self._watch_idle()

    def _watch_idle(self) -> None:
        """A connection without a session for `login_timeout` seconds is closed."""
        self._cancel_idle()
        if not self.sessions:
            loop = asyncio.get_running_loop()
            self._idle = loop.call_later(self.door.login_timeout, self._close_if_idle)

    def _cancel_idle(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    def _close_if_idle(self) -> None:
        self._idle = None
        if not self.sessions:
            self.note("closed a connection from %s: no session opened", self.peer)
            self.close()

    def connection_requested(
        self, dest_host: str, dest_port: int, orig_host: str, orig_port: int
    ) -> bool:
        self.note(
            "refused forwarding to %s port %d from %s", _printable(dest_host), dest_port, self.peer
        )
        return False

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        self.note("refused a forwarded port %d for %s", listen_port, self.peer)
        return False

    def unix_connection_requested(self, dest_path: str) -> bool:
        self.note("refused forwarding to a socket from %s", self.peer)
        return False

    def unix_server_requested(self, listen_path: str) -> bool:
        self.note("refused a forwarded socket for %s", self.peer)
        return False

    def tun_requested(self, unit: int | None) -> bool:
        self.note("refused a tunnel for %s", self.peer)
        return False

    def tap_requested(self, unit: int | None) -> bool:
        self.note("refused a tunnel for %s", self.peer)
        return False


class _Session(asyncssh.SSHServerSession[bytes]):
    """One SSH session: a game in a terminal, or a sentence saying why not."""

    def __init__(self, connection: _Connection) -> None:
        self.connection = connection
        self.door = connection.door
        self.channel: asyncssh.SSHServerChannel[bytes] | None = None
        self.term_type: str | None = None
        self.size = (0, 0)
        self.game: _Game | None = None
        self.closed = False
        self._unstarted: asyncio.TimerHandle | None = None
        self._input = _Bucket(INPUT_RATE, CHANNEL_WINDOW)
        self._input_paused: asyncio.TimerHandle | None = None

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.channel = chan
        self.connection.sessions.add(self)
        self.connection._cancel_idle()
        loop = asyncio.get_running_loop()
        self._unstarted = loop.call_later(self.door.login_timeout, self._close_unstarted)

    def _close_unstarted(self) -> None:
        """A session that asks for nothing to run within `login_timeout` seconds is closed."""
        self._unstarted = None
        self.connection.note("closed a session from %s: nothing asked", self.connection.peer)
        if self.channel is not None:
            self.channel.close()

    def pty_requested(
        self,
        term_type: str,
        term_size: tuple[int, int, int, int],
        term_modes: Mapping[int, int],
    ) -> bool:
        self.term_type = term_type if _SAFE_VALUE.fullmatch(term_type) else "xterm"
        self.size = _fitted(term_size[0], term_size[1]) or (0, 0)
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.connection.note("refused a command from %s", self.connection.peer)
        return False

    def subsystem_requested(self, subsystem: str) -> bool:
        self.connection.note(
            "refused the subsystem %r from %s", _printable(subsystem), self.connection.peer
        )
        return False

    def break_received(self, msec: int) -> bool:
        return False

    def session_started(self) -> None:
        if self._unstarted is not None:
            self._unstarted.cancel()
            self._unstarted = None
        refusal: str | None = None
        peer = self.connection.peer
        if self.term_type is None:
            self.connection.note("refused a session without a terminal from %s", peer)
            refusal = NO_TERMINAL
        if refusal is None and self.door.sessions >= self.door.max_sessions:
            self.connection.note("refused a game to %s: %d are open", peer, self.door.sessions)
            refusal = FULL
        if refusal is not None:
            self._say_and_exit(refusal)
            return
        self.door._open.add(self)
        self.door._spawn(self._start_game, starting=True)

    async def _start_game(self) -> None:
        channel, term_type = self.channel, self.term_type
        if self.closed or channel is None or term_type is None:
            self.door._open.discard(self)
            return
        info = SessionInfo(self.connection.code, self.connection.peer, term_type, self.size)
        try:
            argv = list(self.door.command(info))
            environment = self.door._environment(info, channel.get_environment())
            game = await _Game.start(argv, environment, self.size, self)
        except Exception as error:  # a broken command is the host's problem: said, then logged
            self.door._open.discard(self)
            self.connection.note("the game for %s could not start: %s", info.peer, error)
            self._say_and_exit(CANNOT_START)
            return
        self.game = game
        self.door._games.add(game)
        self.door._spawn(game.run)
        if self.closed or self.door._stopping:
            await game.end()

    def _say_and_exit(self, sentence: str) -> None:
        if self.channel is None or self.closed:
            return
        newline = "\n" if self.term_type is None else "\r\n"
        with contextlib.suppress(OSError):
            self.channel.write_stderr((sentence + newline).encode())
            self.channel.exit(1)

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if self.game is None or datatype is not None:
            return
        self.game.send(data)
        late = self._input.take(len(data))
        if late > 0 and self._input_paused is None and self.channel is not None:
            # Past the rate: take no more until the bucket has refilled.
            self.channel.pause_reading()
            self._input_paused = asyncio.get_running_loop().call_later(late, self._resume_input)

    def _resume_input(self) -> None:
        self._input_paused = None
        self.resume_input()

    def eof_received(self) -> bool:
        return True  # the game's terminal stays open: the game decides when to end

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        size = _fitted(width, height)
        if size is None:
            log.warning(
                "ignored a terminal of %d by %d from %s", width, height, self.connection.peer
            )
            return
        self.size = size
        if self.game is not None:
            self.game.resize(size)

    def pause_writing(self) -> None:
        if self.game is not None:
            self.game.pause_output()

    def resume_writing(self) -> None:
        if self.game is not None:
            self.game.resume_output()

    def connection_lost(self, exc: Exception | None) -> None:
        """The channel has closed (the person left, or the game ended): the game ends too."""
        self.closed = True
        for timer in (self._unstarted, self._input_paused):
            if timer is not None:
                timer.cancel()
        self._unstarted = self._input_paused = None
        self.connection.session_ended(self)
        if self.game is not None:
            self.door._spawn(self.game.end)

    # What the game asks of its session

    def show(self, data: bytes) -> None:
        if self.channel is not None and not self.closed:
            with contextlib.suppress(OSError):
                self.channel.write(data)

    def pause_input(self) -> None:
        if self.channel is not None and not self.closed:
            self.channel.pause_reading()

    def resume_input(self) -> None:
        """Take input again, unless the door's pace or the game's full terminal still holds it."""
        holding = self.game is not None and self.game.holding
        if self.channel is not None and not self.closed and not self._input_paused and not holding:
            self.channel.resume_reading()

    def game_ended(self, status: int | None) -> None:
        """The game has ended, its output sent: the session ends with its exit status."""
        self.door._open.discard(self)
        if self.game is not None:
            self.door._games.discard(self.game)
        if self.channel is not None and not self.closed:
            with contextlib.suppress(OSError):
                if status is None:
                    self.channel.close()
                else:
                    self.channel.exit(status)


class _Game:
    """A game process in a pseudo-terminal of its own, relayed to and from one session."""

    def __init__(self, process: asyncio.subprocess.Process, master: int, session: _Session):
        self.process = process
        self.master: int | None = master
        self.session = session
        self._pending = bytearray()
        self._output_paused = False
        self._output_ended = asyncio.Event()
        self._ended = asyncio.Event()
        loop = asyncio.get_running_loop()
        self._loop = loop
        loop.add_reader(master, self._read)

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        environment: Mapping[str, str],
        size: tuple[int, int],
        session: _Session,
    ) -> _Game:
        master, slave = os.openpty()
        try:
            _set_size(master, size)
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=dict(environment),
                start_new_session=True,  # the game takes the terminal as its own
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        return cls(process, master, session)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def holding(self) -> bool:
        """Whether input waits here for the game's terminal to take it."""
        return bool(self._pending)

    def send(self, data: bytes) -> None:
        """Pass the person's input on; while the terminal is full, hold it and take no more."""
        if self.master is None:
            return
        if self._pending:
            self._pending += data
            return
        written = self._write(data)
        if written < len(data):
            self._pending += data[written:]
            self.session.pause_input()
            self._loop.add_writer(self.master, self._write_pending)

    def _write(self, data: bytes | bytearray) -> int:
        assert self.master is not None
        try:
            return os.write(self.master, data)
        except BlockingIOError:
            return 0
        except OSError:  # the game has gone: nobody reads its terminal
            return len(data)

    def _write_pending(self) -> None:
        if self.master is None:
            return
        written = self._write(self._pending)
        del self._pending[:written]
        if not self._pending:
            self._loop.remove_writer(self.master)
            self.session.resume_input()

    def _read(self) -> None:
        assert self.master is not None
        try:
            data = os.read(self.master, READ_SIZE)
        except BlockingIOError:
            return
        except OSError as error:  # EIO: every process holding the terminal has ended
            if error.errno != errno.EIO:
                log.warning("the terminal of game %d failed: %s", self.pid, _reason(error))
            data = b""
        if not data:
            self._loop.remove_reader(self.master)
            self._output_ended.set()
            return
        self.session.show(data)

    def pause_output(self) -> None:
        if self.master is not None and not self._output_paused and not self._output_ended.is_set():
            self._output_paused = True
            self._loop.remove_reader(self.master)

    def resume_output(self) -> None:
        if self.master is not None and self._output_paused and not self._output_ended.is_set():
            self._output_paused = False
            self._loop.add_reader(self.master, self._read)

    def resize(self, size: tuple[int, int]) -> None:
        """Set the terminal's size; the kernel tells the game with SIGWINCH."""
        if self.master is not None:
            with contextlib.suppress(OSError):
                _set_size(self.master, size)

    async def run(self) -> None:
        """Wait for the game to end, send the rest of its output, then its exit status."""
        status: int | None = None
        try:
            returncode = await self.process.wait()
            status = returncode if returncode >= 0 else 128 - returncode
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._output_ended.wait(), OUTPUT_GRACE)
        finally:
            self._close()
            self._ended.set()
            self.session.game_ended(status)

    def _close(self) -> None:
        if self.master is not None:
            self._loop.remove_reader(self.master)
            self._loop.remove_writer(self.master)
            os.close(self.master)
            self.master = None
        self._pending.clear()

    async def end(self, within: float = 2.0) -> None:
        """Hang up: SIGHUP to the game's process group, SIGKILL if it is still there `within`
        seconds later; return once it has been waited for."""
        self._signal(signal.SIGHUP)
        try:
            await asyncio.wait_for(self._ended.wait(), within)
        except TimeoutError:
            self._signal(signal.SIGKILL)
            await self._ended.wait()

    def _signal(self, number: int) -> None:
        if self.process.returncode is not None:
            return
        try:
            os.killpg(self.process.pid, number)
        except ProcessLookupError:  # the game left its group: the game alone, then
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, number)
        except PermissionError:
            pass


class _Bucket:
    """A token bucket of bytes: `rate` a second, at most `burst` kept."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self, amount: int) -> float:
        """Take `amount`; the seconds until the bucket is out of debt (0 when it is not)."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate) - amount
        self.stamp = now
        return max(0.0, -self.tokens / self.rate)


async def _settle(tasks: set[asyncio.Task[None]]) -> None:
    """Wait until `tasks` is empty (a task may add more as it ends)."""
    while tasks:
        await asyncio.gather(*list(tasks), return_exceptions=True)


def _set_size(fd: int, size: tuple[int, int]) -> None:
    columns, rows = size
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


def _fitted(width: int, height: int) -> tuple[int, int] | None:
    """A terminal size a client may report (0 for unknown), else None."""
    if 0 <= width <= MAX_SIZE[0] and 0 <= height <= MAX_SIZE[1]:
        return width, height
    return None


def _printable(text: str, limit: int = _NAME_LIMIT) -> str:
    """What a client sent, fit for one line of the log: no control characters, cut short."""
    return "".join(char if char.isprintable() else "?" for char in text[:limit])


def _address(peername: object) -> str:
    """The client's IP address, an IPv4 one as such even when it came in over IPv6."""
    if not isinstance(peername, tuple) or not peername:
        return "?"
    host = str(peername[0])
    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)
