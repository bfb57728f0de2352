"""The SSH door: plain `ssh -p PORT CODE@HOST` opens a game in the person's own terminal.

asyncssh is the SSH server. `SshDoor` listens, holds the door's bounds and its open games, and
stops them all; each session with a terminal gets a game process of its own
(`tictactoe.doors.ssh.session`), as each browser tab does under `tictactoe serve`. The door's
other parts are rooms of their own:

- `tictactoe.doors.ssh.connection`: one client's connection, its login (a code, or a gate's
  keys) and the sessions it opens; everything else a client may ask is refused (forwarding of
  ports, sockets, tunnels, the agent, X11);
- `tictactoe.doors.ssh.places`: connections bounded in all, per address and while logging in,
  the oldest silent one dropped for a newcomer;
- `tictactoe.doors.ssh.proxied`: connections that begin with a PROXY protocol header.

What a client sends is bounded: connections, sessions per connection, `env` requests
(`tictactoe.adapters.ssh_channel`), and the terminal size and input of each session.
Keepalives notice a vanished client; logins, connections and games are bounded in time or
number. A refused or failed connection is one line in the `tictactoe.online` log, never a
traceback. A game is given the host's environment, less what describes the host's own terminal,
with the language and colours the client sent when they are sane.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("the SSH door runs games in pseudo-terminals: it needs Linux or macOS")

import asyncio
import contextlib
import errno
import os
import re
import socket
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Final

import asyncssh

from tictactoe.doors.bounds import Bucket, peer_address
from tictactoe.doors.ssh.connection import WRONG_CODE, Connection
from tictactoe.doors.ssh.gate import Gate
from tictactoe.doors.ssh.places import Places
from tictactoe.doors.ssh.proxied import Acceptor, Hearing, ProxiedAcceptor
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
        self._acceptor: Acceptor | None = None
        self._hearing = Hearing(self)
        self._places = Places(self)
        self._open: set[Session] = set()
        self._starting: set[asyncio.Task[None]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = False

    @property
    def logging_in(self) -> int:
        """Connections that have not logged in yet."""
        return self._places.logging_in

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

    async def _listen(self, host: str | Sequence[str], port: int) -> Acceptor:
        if self.proxy_protocol:
            return await ProxiedAcceptor.open(self._hearing.take, host, port)
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

    async def serve(self, sock: socket.socket) -> None:
        """Serve `sock`, a connection that came with a PROXY header, as asyncssh serves one it
        accepted itself."""
        await asyncssh.run_server(sock, server_factory=lambda: Connection(self), **self._options())

    async def stop(self, within: float = 2.0) -> None:
        """Stop listening, end every game (SIGHUP, then SIGKILL after `within` seconds), close
        every connection; return once no game process is left."""
        self._stopping = True
        if self._acceptor is not None:
            self._acceptor.close()
        self._hearing.stop_hearing()
        await _settle(self._starting)  # games being started then have their session's game
        games = [session.game for session in self._open if session.game is not None]
        await asyncio.gather(*(game.end(within) for game in games))
        await _settle(self._tasks)
        await self._last_words(within)
        for connection in self._places.connections:
            connection.close()
        await self._hearing.close()
        if self._acceptor is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._acceptor.wait_closed(), within)
            self._acceptor = None

    async def _last_words(self, within: float) -> None:
        """Wait, `within` seconds at most, until every session whose game has ended has closed
        its channel: what the game wrote last and its exit status reach a client that reads
        slowly (closing the connection drops whatever it still holds to send)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while loop.time() < deadline and any(
            session.game is not None and not session.closed
            for connection in self._places.connections
            for session in connection.sessions
        ):
            await asyncio.sleep(0.02)

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
        return self._places.admit(connection)

    def owe(self, network: str, late: float) -> None:
        """A wrong code from `network` is answered `late` seconds late: it holds one of the
        network's places until then, even if its connection goes."""
        self._places.owe(network, late)

    def logged_in(self, connection: Connection) -> None:
        """`connection` has logged in, or left: it no longer counts as logging in."""
        self._places.logged_in(connection)

    def forget(self, connection: Connection) -> None:
        """`connection` has closed, or been dropped."""
        self._places.forget(connection)

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


async def _settle(tasks: set[asyncio.Task[None]]) -> None:
    """Wait until `tasks` is empty (a task may add more as it ends)."""
    while tasks:
        await asyncio.gather(*list(tasks), return_exceptions=True)
