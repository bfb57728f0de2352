"""The SSH door: plain `ssh -p PORT CODE@HOST` opens a game in the person's own terminal.

asyncssh is the SSH server. There is no password: the SSH user name is the series' code.
Each session with a terminal gets a game process of its own (`tictactoe.doors.ssh.session`),
as each browser tab does under `tictactoe serve`:

- the code is checked as the person logs in, before anything else is spent: a wrong one is
  counted by the `Throttle` (per network), told in the login banner, and the login fails, so no
  session, terminal or game can be asked for; past the throttle's limit the answer comes late,
  and until it is due it holds one of its network's places, whether or not the connection
  waits for it. One code is tried per connection;
- connections that have not logged in are admitted by behaviour, as OpenSSH's `MaxStartups` and
  `LoginGraceTime` do, but never at a newcomer's expense: they are bounded per network and in
  all and have a short deadline, and when a bound is reached the oldest connection that has
  said no code yet (from the network with the most of them) is dropped to make room. Silence
  never keeps anyone out; only a network's own late answers can fill that network's places;
- what a client sends is bounded: connections (in all, per address, and those still logging in),
  sessions per connection, `env` requests (`tictactoe.adapters.ssh_channel`), and the terminal
  size and input of each session;
- everything else a client may ask is refused: forwarding of ports, sockets, tunnels, the
  agent, X11;
- keepalives notice a vanished client; logins, connections (in all and per address) and
  games are bounded in time or number. A refused or failed connection is one line in the
  `tictactoe.online` log, never a traceback;
- a game is given the host's environment, less what describes the host's own terminal, with
  the language and colours the client sent when they are sane.

With a `Gate` (`tictactoe.doors.ssh.gate`, the club's door) the user name is a name, not a code:
each public key the client offers is asked about (a key that cannot be this name's is declined,
and the client offers its next; asyncssh checks the signature of the one taken), a login without
a key is taken, and the gate decides, once the login is over, who the connection is, or why it may
not play (said in one sentence when its session starts, no game started; when every key was
declined, the last one's refusal). A user name no key can log in as (`NameRefused`) takes the first
key offered, so that the refusal is said the same way to a client that may not log in without one.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("the SSH door runs games in pseudo-terminals: it needs Linux or macOS")

import asyncio
import contextlib
import errno
import logging
import os
import re
import socket
from collections import Counter
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Final, Protocol, cast

import asyncssh

from tictactoe.adapters.ssh_channel import limit_environment
from tictactoe.core.codes import normalise_code
from tictactoe.doors.bounds import Bucket, peer_address, printable
from tictactoe.doors.proxy import BadHeader, read_header
from tictactoe.doors.ssh.gate import Admission, Gate, NameRefused
from tictactoe.doors.ssh.session import (
    CHANNEL_WINDOW,
    DOOR_INPUT_RATE,
    SAFE_VALUE,
    Session,
    SessionInfo,
    SessionsConnection,
)
from tictactoe.doors.ssh.terminal import Spawner
from tictactoe.doors.throttle import Throttle

__all__ = ["WRONG_CODE", "Connection", "SshDoor"]

log = logging.getLogger("tictactoe.online")

WRONG_CODE: Final = "That is not the code of this series. Check the line you were given."
CANNOT_ADMIT: Final = "The club cannot let you in just now; please try again in a minute."

SESSIONS_PER_CONNECTION: Final = 4
"""Sessions one SSH connection may open (OpenSSH can share one connection between several)."""

KEYS_PER_CONNECTION: Final = 10
"""Public keys one connection may offer a gate (OpenSSH's own `MaxAuthTries` is 6); the next
ones are declined unasked."""

_BIND_TRIES: Final = 5
"""Draws of a free port before giving up on one free on every address asked for."""

_CLIENT_ENV: Final = re.compile(r"LANG|LC_[A-Z]+|COLORTERM")
"""Variables a client may send (`SendEnv`) that the game takes: its language and colours."""

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


class SshDoor:
    """An SSH server that gives each session with a terminal a game process of its own."""

    def __init__(
        self,
        *,
        host_key: asyncssh.SSHKey,
        command: Callable[[SessionInfo], Sequence[str]],
        accepts: Callable[[str], bool] | None = None,
        gate: Gate | None = None,
        throttle: Throttle | None = None,
        env: Mapping[str, str] | None = None,
        max_sessions: int = 64,
        max_connections: int = 128,
        max_per_address: int = 16,
        max_logging_in: int = 32,
        max_logging_in_per_address: int = 4,
        login_timeout: float = 15.0,
        keepalive: float = 10.0,
        keepalive_count: int = 2,
        start_game: Spawner | None = None,
        proxy_protocol: bool = False,
        header_timeout: float = 5.0,
        input_rate: float = DOOR_INPUT_RATE,
    ) -> None:
        self.host_key = host_key
        """The server's key: clients check its fingerprint."""
        self.command = command
        """The game's command for a session."""
        self.accepts = accepts
        """Whether a code is this series'; None: any user name is welcome."""
        self.gate = gate
        """Who a connection is, from its user name and key, when the user name is not a code
        (`accepts` is then not asked)."""
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
        """Connections not yet logged in, at most; past it, the oldest silent one is dropped."""
        self.max_logging_in_per_address = max_logging_in_per_address
        """Places for logins from one network (see `Throttle.network`): its connections that
        have said no code yet, and its wrong codes whose late answer is not yet due. Past it, the
        network's oldest silent connection is dropped; with the throttle's delay, the late
        answers bound how fast one network can guess."""
        self.login_timeout = login_timeout
        """Seconds a connection has to log in, and then to open a game (longer than the
        throttle's delay: a late answer is given, not cut off)."""
        self.keepalive = keepalive
        """Seconds between keepalives to a silent client."""
        self.keepalive_count = keepalive_count
        """Keepalives left unanswered before the connection counts as lost: a vanished client
        is noticed within `keepalive * (keepalive_count + 1)` seconds."""
        self.start_game = start_game
        """How a game's process is started on its terminal: exec when None."""
        self.input_pace = Bucket(input_rate, 2 * input_rate)
        """The input of all the door's sessions together, `input_rate` bytes a second past a
        burst of twice as many (each session's own pace is `INPUT_RATE`)."""
        self.relayed: dict[tuple[str, int], str] = {}
        """Connections a relay (`tictactoe.doors.relay`) passes on to this door, by their own
        address and port on this machine, and the address each came to the relay from: the one
        the door counts, throttles and logs for them."""
        self.proxy_protocol = proxy_protocol
        """Whether every connection begins with a PROXY protocol header (`tictactoe.doors.proxy`)
        naming the address it is from, as a TCP load balancer's `send-proxy` sends: the door
        counts, throttles and logs that address. A connection without one is closed."""
        self.header_timeout = header_timeout
        """Seconds a connection has to send its PROXY header."""
        self._acceptor: _Acceptor | None = None
        self._unheard: dict[asyncio.Task[None], None] = {}
        """Connections waiting for their PROXY header, oldest first."""
        self._proxied: set[asyncio.Task[None]] = set()
        """Connections that came with a PROXY header, until asyncssh has logged them in."""
        self._connections: set[Connection] = set()
        self._per_address: Counter[str] = Counter()
        self._pending: dict[Connection, None] = {}
        """Connections not yet logged in, oldest first."""
        self._owed: dict[str, list[float]] = {}
        """Per network, when each of its late answers is due (`loop.time()`)."""
        self._open: set[Session] = set()
        self._starting: set[asyncio.Task[None]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = False

    @property
    def logging_in(self) -> int:
        """Connections that have not logged in yet."""
        return len(self._pending)

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

    async def _listen(self, host: str | Sequence[str], port: int) -> _Acceptor:
        if self.proxy_protocol:
            return await _ProxiedAcceptor.open(self, host, port)
        return await asyncssh.create_server(lambda: Connection(self), host, port, **self._options())

    def _options(self) -> dict[str, object]:
        """How asyncssh serves each connection: the same whether it listens itself or is given
        a socket that came with a PROXY header."""
        return {
            "server_host_keys": [self.host_key],
            "config": None,
            "rdns_lookup": False,
            "gss_host": None,
            "public_key_auth": self.gate is not None,
            "password_auth": False,
            "kbdint_auth": self.gate is not None,
            "host_based_auth": False,
            "login_timeout": self.login_timeout,
            "keepalive_interval": self.keepalive,
            "keepalive_count_max": self.keepalive_count,
            "allow_pty": True,
            "line_editor": False,
            "agent_forwarding": False,
            "x11_forwarding": False,
            "allow_scp": False,
            "encoding": None,
            "window": CHANNEL_WINDOW,
        }

    def proxied(self, sock: socket.socket) -> None:
        """A connection came to a door that takes the PROXY protocol: hear its header (at most
        `max_logging_in` wait for theirs, the oldest dropped for a newcomer), then serve it as
        from the address the header names."""
        try:
            peername = sock.getpeername()
        except OSError:  # gone already
            sock.close()
            return
        if self._stopping:
            sock.close()
            return
        if len(self._unheard) >= self.max_logging_in:
            oldest = next(iter(self._unheard))
            del self._unheard[oldest]
            oldest.cancel()
        task = asyncio.create_task(self._hear(sock, peername))
        self._unheard[task] = None
        self._proxied.add(task)
        task.add_done_callback(self._proxied.discard)

    async def _hear(self, sock: socket.socket, peername: tuple[object, ...]) -> None:
        balancer = peer_address(peername)
        task = asyncio.current_task()
        try:
            header = await asyncio.wait_for(read_header(sock), self.header_timeout)
        except (BadHeader, TimeoutError, OSError, asyncio.CancelledError) as error:
            sock.close()
            why = {
                BadHeader: str(error),
                TimeoutError: f"no PROXY header within {self.header_timeout:g} s",
                asyncio.CancelledError: "no PROXY header yet, to let a newer one in",
            }.get(type(error), "closed before its PROXY header")
            if isinstance(error, asyncio.CancelledError) and self._stopping:
                raise
            log.warning(
                "closed a connection from %s: %s",
                balancer,
                printable(why),
                extra={"peer": balancer},
            )
            return
        finally:
            if task is not None:
                self._unheard.pop(task, None)
        if _gone(sock):  # a health check: a header, and gone
            sock.close()
            return
        key = (balancer, int(cast(int, peername[1])))
        if header.source is not None:
            self.relayed[key] = header.source
        try:
            await asyncssh.run_server(
                sock, server_factory=lambda: Connection(self), **self._options()
            )
        except (OSError, asyncssh.Error, TimeoutError):
            pass  # the connection has logged why, if it came as far as being one
        finally:
            self.relayed.pop(key, None)

    async def stop(self, within: float = 2.0) -> None:
        """Stop listening, end every game (SIGHUP, then SIGKILL after `within` seconds), close
        every connection; return once no game process is left."""
        self._stopping = True
        if self._acceptor is not None:
            self._acceptor.close()
        for task in list(self._unheard):
            task.cancel()
        await _settle(self._starting)  # games being started then have their session's game
        games = [session.game for session in self._open if session.game is not None]
        await asyncio.gather(*(game.end(within) for game in games))
        await _settle(self._tasks)
        for connection in list(self._connections):
            connection.close()
        for task in list(self._proxied):
            task.cancel()
        await asyncio.gather(*list(self._proxied), return_exceptions=True)
        if self._acceptor is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._acceptor.wait_closed(), within)
            self._acceptor = None

    def spawn(
        self, work: Callable[[], Coroutine[object, object, None]], *, starting: bool = False
    ) -> None:
        tasks = self._starting if starting else self._tasks
        task = asyncio.create_task(work())
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    @property
    def stopping(self) -> bool:
        """Whether the door is closing: no session or game starts any more."""
        return self._stopping

    def opened(self, session: Session) -> None:
        """`session` is starting its game: it counts as open."""
        self._open.add(session)

    def closed(self, session: Session) -> None:
        """`session`'s game has ended, or never started."""
        self._open.discard(session)

    def games_of(self, connection: SessionsConnection) -> int:
        return sum(1 for session in self._open if session.connection is connection)

    def peer_of(self, peername: object) -> str:
        """The address a connection from `peername` counts as: the one it came to the relay from
        when a relay passed it on, else its own."""
        address = peer_address(peername)
        if isinstance(peername, tuple) and len(peername) >= 2:
            return self.relayed.get((address, peername[1]), address)
        return address

    def admit(self, connection: Connection) -> str | None:
        """Count a new connection in, dropping the oldest silent ones it needs room from; why
        not, when it may not come in."""
        if self._stopping:
            return "the door is closing"
        if len(self._connections) >= self.max_connections:
            return f"{len(self._connections)} connections are open"
        peer, network = connection.peer, connection.network
        if self._per_address[peer] >= self.max_per_address and not self._drop_silent(
            lambda other: other.peer == peer, connection
        ):
            return f"{self._per_address[peer]} connections from that address are open"
        if self._places_taken(network) >= self.max_logging_in_per_address and not (
            self._drop_silent(lambda other: other.network == network, connection)
        ):
            return f"{self._places_taken(network)} codes from {network} wait for their answer"
        if len(self._pending) >= self.max_logging_in:
            crowded = Counter(other.network for other in self._pending)
            most = max(crowded.values())
            biggest = {name for name, count in crowded.items() if count == most}
            if not self._drop_silent(lambda other: other.network in biggest, connection):
                self._drop_oldest(lambda other: other.network in biggest, connection)
        self._connections.add(connection)
        self._per_address[peer] += 1
        self._pending[connection] = None
        return None

    def _places_taken(self, network: str) -> int:
        """Login places `network` holds: connections that said no code, and late answers."""
        now = asyncio.get_running_loop().time()
        owed = [due for due in self._owed.get(network, ()) if due > now]
        if owed:
            self._owed[network] = owed
        else:
            self._owed.pop(network, None)
        silent = sum(1 for other in self._pending if other.network == network and not other.tried)
        return silent + len(owed)

    def owe(self, network: str, late: float) -> None:
        """A wrong code from `network` is answered `late` seconds late: it holds one of the
        network's places until then, even if its connection goes."""
        if len(self._owed) >= self.throttle.max_addresses:
            del self._owed[next(iter(self._owed))]
        self._owed.setdefault(network, []).append(asyncio.get_running_loop().time() + late)

    def _drop_silent(self, among: Callable[[Connection], bool], newcomer: Connection) -> bool:
        """Drop the oldest connection `among` that has said no code yet; whether there was one."""
        return self._drop_oldest(lambda other: among(other) and not other.tried, newcomer)

    def _drop_oldest(self, among: Callable[[Connection], bool], newcomer: Connection) -> bool:
        oldest = next((other for other in self._pending if among(other)), None)
        if oldest is None:
            return False
        oldest.note(
            "dropped a connection from %s that had not logged in, to let one from %s in",
            oldest.peer,
            newcomer.peer,
        )
        oldest.abort()
        self.forget(oldest)
        return True

    def logged_in(self, connection: Connection) -> None:
        """`connection` has logged in, or left: it no longer counts as logging in."""
        self._pending.pop(connection, None)

    def forget(self, connection: Connection) -> None:
        """`connection` has closed, or been dropped."""
        if connection in self._connections:
            self.logged_in(connection)
            self._connections.discard(connection)
            self._per_address[connection.peer] -= 1
            if self._per_address[connection.peer] <= 0:
                del self._per_address[connection.peer]

    def environment(self, info: SessionInfo, sent: Mapping[str, str]) -> dict[str, str]:
        environment = {
            name: value for name, value in os.environ.items() if name not in _HOST_TERMINAL_ENV
        }
        for name, value in sent.items():
            if _CLIENT_ENV.fullmatch(name) and SAFE_VALUE.fullmatch(value):
                environment[name] = value
        environment["TERM"] = info.term_type
        environment.update(self.env)
        return environment


class _Acceptor(Protocol):
    """What the door listens with: asyncssh's own, or one that hears PROXY headers first."""

    def get_addresses(self) -> list[tuple[str, int]]: ...
    def get_port(self) -> int: ...
    def close(self) -> None: ...
    async def wait_closed(self) -> None: ...


class _ProxiedAcceptor:
    """Listening sockets whose connections are given to `SshDoor.proxied`, not to asyncssh."""

    def __init__(self, door: SshDoor, sockets: list[socket.socket]) -> None:
        self._sockets = sockets
        self._tasks = [asyncio.create_task(self._accept(door, sock)) for sock in sockets]

    @classmethod
    async def open(cls, door: SshDoor, host: str | Sequence[str], port: int) -> _ProxiedAcceptor:
        loop = asyncio.get_running_loop()
        hosts = [host] if isinstance(host, str) else list(host)
        places: list[tuple[int, tuple[object, ...]]] = []
        for name in hosts:
            found = await loop.getaddrinfo(
                name or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
            )
            places += [(family, address) for family, *_, address in found]
        sockets: list[socket.socket] = []
        try:
            for family, address in dict.fromkeys(places):
                sock = socket.socket(family, socket.SOCK_STREAM)
                sockets.append(sock)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                sock.bind(address)
                sock.listen(100)
                sock.setblocking(False)
        except OSError:
            for sock in sockets:
                sock.close()
            raise
        return cls(door, sockets)

    async def _accept(self, door: SshDoor, listener: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                sock, _ = await loop.sock_accept(listener)
            except OSError as error:  # out of descriptors, for one: try again in a moment
                log.warning("could not take a connection: %s", printable(str(error), 120))
                await asyncio.sleep(0.1)
                continue
            sock.setblocking(False)
            door.proxied(sock)

    def get_addresses(self) -> list[tuple[str, int]]:
        return [cast(tuple[str, int], sock.getsockname()[:2]) for sock in self._sockets]

    def get_port(self) -> int:
        ports = {address[1] for address in self.get_addresses()}
        return ports.pop() if len(ports) == 1 else 0

    def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for sock in self._sockets:
            sock.close()

    async def wait_closed(self) -> None:
        await asyncio.gather(*self._tasks, return_exceptions=True)


class Connection(asyncssh.SSHServer):
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
        self.network = "?"
        """Whom the throttle counts this connection as (`Throttle.network` of its peer)."""
        self.sessions: set[Session] = set()
        self.logged = False
        """Whether this connection has had its line in the log."""
        self.key: str | None = None
        """The public key (an OpenSSH line) the connection is logging in with (a gate's door)."""
        self.admission: Admission | None = None
        """What the door's gate decided once the login was over."""
        self.admitting: asyncio.Task[None] | None = None
        """The gate deciding, once the login is over: sessions wait for it."""
        self.declined: str | None = None
        """Why the gate declined the last key it declined (said if no key is taken)."""
        self.name_refused = False
        """Whether the gate said no key can log in as the user name (`NameRefused`)."""
        self._answers: dict[str, str | None] = {}
        """The gate's answer about each key offered (asyncssh asks twice about the one used)."""
        self.lost = False
        self._idle: asyncio.TimerHandle | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.connection = conn
        self.peer = self.door.peer_of(conn.get_extra_info("peername"))
        self.network = self.door.throttle.network(self.peer)
        why = self.door.admit(self)
        if why is not None:
            self.note("refused a connection from %s: %s", self.peer, why)
            conn.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True  # an admission decided after this is let go at once
        self.door.forget(self)
        self._cancel_idle()
        if self.admission is not None and self.door.gate is not None:
            self.door.gate.left(self.admission)
        if exc is not None:
            reason = printable(str(exc), 120) or type(exc).__name__
            self.note("a connection from %s failed: %s", self.peer, reason)

    def note(self, message: str, *args: object) -> None:
        """Log why this connection was refused or failed: its first reason, in one line."""
        if not self.logged:
            self.logged = True
            log.warning(message, *args, extra={"peer": self.peer})

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()

    def abort(self) -> None:
        """Close at once, sending nothing more."""
        if self.connection is not None:
            self.connection.abort()

    async def begin_auth(self, username: str) -> bool:
        """No password: the user name is the code. The right one logs in at once; a wrong one
        is counted, told in the login banner (late, past the throttle's limit), and fails."""
        self.user = username
        if self.door.gate is not None:
            return True  # a key, or a login without one: the gate decides once it is over
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
        said = f"a wrong code ({len(username)} characters) from {self.peer}"  # never the code
        if late:
            self.door.owe(self.network, late)
            self.note("%s, answered %d s late", said, late)
            await asyncio.sleep(late)
        else:
            self.note("%s", said)
        if self.connection is not None:
            with contextlib.suppress(OSError, asyncssh.Error):
                self.connection.send_auth_banner(WRONG_CODE + "\n")
        return True

    def public_key_auth_supported(self) -> bool:
        return self.door.gate is not None

    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        """A key the gate says may be `username`'s is taken (asyncssh then checks the client
        holds it); another is declined, so that the client offers its next."""
        self.tried = True
        line = key.export_public_key("openssh").decode("ascii", "replace").strip()
        if line not in self._answers:
            if len(self._answers) >= KEYS_PER_CONNECTION or self.door.gate is None:
                return False
            self._answers[line] = await self.door.gate.fits(username, line, self.peer)
        refusal = self._answers[line]
        if isinstance(refusal, NameRefused):  # no key would do: the login says why once over
            self.declined = refusal
            self.key = None
            self.name_refused = True
            return True
        if refusal is not None:
            self.declined = refusal
            return False
        self.key = line
        return True

    def kbdint_auth_supported(self) -> bool:
        return self.door.gate is not None

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        """A login without a key needs no answer: the gate decides what it is (a guest)."""
        self.tried = True
        self.key = None  # a key offered earlier whose signature failed is not this login's
        return True

    def auth_completed(self) -> None:
        self.door.logged_in(self)
        gate = self.door.gate
        if self.name_refused:
            self.key = None  # whichever method ended the login, the name can log in as nobody
        if gate is not None and self.key is None and self.declined is not None:
            self._admitted(Admission(printable(self.user, 40), refusal=self.declined))
        elif gate is not None:
            self.admitting = asyncio.create_task(self._admit(gate))
            self.door.spawn(self._wait_admitted)
        self._watch_idle()

    async def _admit(self, gate: Gate) -> None:
        try:
            admission = await gate.enter(self.user, self.key, self.peer)
        except Exception as error:  # the gate's record failed: said to the player, and logged
            self.note("could not let %s in: %s", self.peer, printable(str(error), 120))
            admission = Admission(printable(self.user, 40), refusal=CANNOT_ADMIT)
        if self.lost:
            gate.left(admission)
            return
        self._admitted(admission)

    async def _wait_admitted(self) -> None:
        """The door's stop waits for the gate's answer (counted among its tasks)."""
        if self.admitting is not None:
            await asyncio.gather(self.admitting, return_exceptions=True)

    def _admitted(self, admission: Admission) -> None:
        self.admission = admission
        self.code = admission.name
        if admission.refusal is not None:
            self.note("refused %s: %s", self.peer, admission.refusal)

    def session_requested(
        self,
    ) -> tuple[asyncssh.SSHServerChannel[bytes], Session] | bool:
        if self.door.stopping or len(self.sessions) >= SESSIONS_PER_CONNECTION:
            return False
        assert self.connection is not None
        channel = self.connection.create_server_channel(encoding=None, window=CHANNEL_WINDOW)
        limit_environment(
            channel, lambda why: self.note("closed a session of %s: %s", self.peer, why)
        )
        return channel, Session(self)

    def session_opened(self, session: Session) -> None:
        self.sessions.add(session)
        self._cancel_idle()

    def session_ended(self, session: Session) -> None:
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
            "refused forwarding to %s port %d from %s", printable(dest_host), dest_port, self.peer
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


def _gone(sock: socket.socket) -> bool:
    """Whether the other end has closed `sock` already (nothing left to read but its end)."""
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


async def _settle(tasks: set[asyncio.Task[None]]) -> None:
    """Wait until `tasks` is empty (a task may add more as it ends)."""
    while tasks:
        await asyncio.gather(*list(tasks), return_exceptions=True)
