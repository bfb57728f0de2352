"""The SSH door: plain `ssh -p PORT CODE@HOST` opens a game in the person's own terminal.

asyncssh is the SSH server. There is no password: the SSH user name is the series' code.
Each session with a terminal gets a game process of its own, as each browser tab does
under `tictactoe serve`:

- the game runs in a new pseudo-terminal whose slave end is its standard input, output
  and error and its controlling terminal, in a session of its own: the terminal type and
  size the person's `ssh` reports, every change of that size, and the hang-up when they
  leave reach the game as they would in a terminal of its own;
- bytes pass both ways unchanged. While the game's terminal is full, the door stops taking
  the person's input (SSH's flow control then holds the sender back); while the person's
  link is slow, it stops reading the game's output: nothing grows without bound;
- when the person leaves, the game's process group gets SIGHUP, and SIGKILL if it is
  still there `within` seconds later; when the game ends, its last output is sent, then
  its exit status, and the session closes. Every process is waited for;
- a wrong code is counted by the `Throttle` (per address) and told in a sentence, as is a
  throttled address, a session without a terminal, and a full door: no game starts;
- everything else a client may ask is refused: commands, subsystems (SFTP), forwarding
  of ports, sockets, tunnels, the agent, X11;
- keepalives notice a vanished client; logins, connections (in all and per address) and
  games are bounded in time or number. A refused or failed connection is one line in the
  `tictactoe.online` log, never a traceback.

The host key is made once (ed25519) and kept with mode 0600 in the user data folder; its
fingerprint is shown in the invitation so the friend can check what `ssh` asks.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import ipaddress
import logging
import math
import os
import re
import signal
import stat
import struct
import tempfile
import termios
from collections import Counter
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import asyncssh
import platformdirs

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
THROTTLED: Final = "Too many wrong codes from your address: try again in {wait}."
NO_TERMINAL: Final = "This door opens a game in a terminal: run ssh without -T"
FULL: Final = "Too many games are open here: try again later."
CANNOT_START: Final = "The game could not start here; the host's log says why."

MAX_SIZE: Final = (1000, 500)
"""The largest terminal a client may report, in columns and rows; a larger one is ignored."""

OUTPUT_GRACE: Final = 0.5
"""Seconds the door waits for the rest of a game's output once the game has ended (a process
it left behind may still hold its terminal)."""

CHANNEL_WINDOW: Final = 64 * 1024
"""Bytes of a person's input the door takes before waiting for the game to read them."""

READ_SIZE: Final = 64 * 1024
"""The most of a game's output read at once."""

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
        self.login_timeout = login_timeout
        """Seconds a connection has to log in, and then to open a game."""
        self.keepalive = keepalive
        """Seconds between keepalives to a silent client."""
        self.keepalive_count = keepalive_count
        """Keepalives left unanswered before the connection counts as lost: a vanished client
        is noticed within `keepalive * (keepalive_count + 1)` seconds."""
        self._acceptor: asyncssh.SSHAcceptor | None = None
        self._connections: set[_Connection] = set()
        self._per_address: Counter[str] = Counter()
        self._games: set[_Game] = set()
        self._open: set[_Session] = set()
        self._starting: set[asyncio.Task[None]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = False

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

    def _admit(self, connection: _Connection) -> str | None:
        """Count a new connection in; why not, when it may not come in."""
        if self._stopping:
            return "the door is closing"
        if len(self._connections) >= self.max_connections:
            return f"{len(self._connections)} connections are open"
        if self._per_address[connection.peer] >= self.max_per_address:
            return f"{self._per_address[connection.peer]} connections from that address are open"
        self._connections.add(connection)
        self._per_address[connection.peer] += 1
        return None

    def _forget(self, connection: _Connection) -> None:
        if connection in self._connections:
            self._connections.discard(connection)
            self._per_address[connection.peer] -= 1
            if self._per_address[connection.peer] <= 0:
                del self._per_address[connection.peer]

    def _check_code(self, connection: _Connection, user: str) -> tuple[str, str | None]:
        """The code (or user name) the connection's games would play under, and the sentence
        that refuses them, or None."""
        if self.accepts is None:
            return user, None
        peer = connection.peer
        if not self.throttle.allowed(peer):
            seconds = max(1, math.ceil(self.throttle.wait(peer)))
            connection.note("refused %s for %d s: too many wrong codes", peer, seconds)
            wait = f"{seconds} second" if seconds == 1 else f"{seconds} seconds"
            return user, THROTTLED.format(wait=wait)
        code = normalise_code(user)
        if code is None or not self.accepts(code):
            self.throttle.failed(peer)
            connection.note("a wrong code from %s: %r", peer, _printable(user))
            return user, WRONG_CODE
        return code, None

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
        self.refusal: str | None = None
        """Why a session of this connection gets no game, as said to the person."""
        self.code = ""
        self.sessions: set[_Session] = set()
        self.logged = False
        """Whether this connection has had its line in the log."""
        self._idle: asyncio.TimerHandle | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.connection = conn
        self.peer = _address(conn.get_extra_info("peername"))
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

    def begin_auth(self, username: str) -> bool:
        """No password: the user name is the code; whether it is right, the session says."""
        self.user = username
        self.code, self.refusal = self.door._check_code(self, username)
        return False

    def auth_completed(self) -> None:
        self._watch_idle()

    def session_requested(self) -> _Session | bool:
        if self.door._stopping or len(self.sessions) >= SESSIONS_PER_CONNECTION:
            return False
        return _Session(self)

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
        refusal = self.connection.refusal
        peer = self.connection.peer
        if refusal is None and self.term_type is None:
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
        if self.game is not None and datatype is None:
            self.game.send(data)

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
        if self._unstarted is not None:
            self._unstarted.cancel()
            self._unstarted = None
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
        if self.channel is not None and not self.closed:
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
                start_new_session=True,
                preexec_fn=_take_terminal,
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


async def _settle(tasks: set[asyncio.Task[None]]) -> None:
    """Wait until `tasks` is empty (a task may add more as it ends)."""
    while tasks:
        await asyncio.gather(*list(tasks), return_exceptions=True)


def _take_terminal() -> None:
    """In the new game process, before its command runs: its standard input, a terminal, becomes
    its controlling terminal (the process already leads a session of its own)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


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
