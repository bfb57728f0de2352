"""One client's SSH connection to the door: its login, and the sessions it opens.

There is no password: at a door without a gate the SSH user name is the series' code. The code
is checked as the person logs in, before anything else is spent: a wrong one is counted by the
door's `Throttle` (per network), told in the login banner, and the login fails, so no session,
terminal or game can be asked for; past the throttle's limit the answer comes late (holding one
of its network's places at the door until it is due). One code is tried per connection.

With a `Gate` (`tictactoe.doors.ssh.gate`, the club's door) the user name is a name, not a code:
each public key the client offers is asked about (a key that cannot be this name's is declined,
and the client offers its next; asyncssh checks the signature of the one taken), a login without
a key is taken, and the gate decides, once the login is over, who the connection is, or why it may
not play (said in one sentence when its session starts, no game started; when every key was
declined, the last one's refusal). A user name no key can log in as (`NameRefused`) takes the first
key offered, so that the refusal is said the same way to a client that may not log in without one.

A connection opens a bounded number of sessions, is closed when it holds none for the door's
`login_timeout`, and is refused any forwarding (ports, sockets, tunnels); each refusal or failure
is one line in the `tictactoe.online` log.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("the SSH door runs games in pseudo-terminals: it needs Linux or macOS")

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Final, Protocol

import asyncssh

from tictactoe.adapters.ssh_channel import limit_environment
from tictactoe.core.codes import normalise_code
from tictactoe.doors.bounds import printable
from tictactoe.doors.ssh.gate import Admission, Gate, NameRefused
from tictactoe.doors.ssh.session import CHANNEL_WINDOW, Session
from tictactoe.doors.ssh.session import Door as SessionsDoor
from tictactoe.doors.throttle import Throttle

__all__ = ["CANNOT_ADMIT", "WRONG_CODE", "Connection", "Door"]

log = logging.getLogger("tictactoe.online")

WRONG_CODE: Final = "That is not the code of this series. Check the line you were given."
CANNOT_ADMIT: Final = "The club cannot let you in just now; please try again in a minute."

SESSIONS_PER_CONNECTION: Final = 4
"""Sessions one SSH connection may open (OpenSSH can share one connection between several)."""

KEYS_PER_CONNECTION: Final = 10
"""Public keys one connection may offer a gate (OpenSSH's own `MaxAuthTries` is 6); the next
ones are declined unasked."""


class Door(SessionsDoor, Protocol):
    """What a connection asks of the door it came in by (`tictactoe.doors.ssh.door.SshDoor`),
    besides what its sessions ask."""

    accepts: Callable[[str], bool] | None
    gate: Gate | None
    throttle: Throttle

    def peer_of(self, peername: object) -> str:
        """The address a connection from `peername` counts as."""

    def admit(self, connection: Connection) -> str | None:
        """Count a new connection in; why not, when it may not come in."""

    def logged_in(self, connection: Connection) -> None:
        """`connection` no longer counts as logging in."""

    def forget(self, connection: Connection) -> None:
        """`connection` has closed, or been dropped."""

    def owe(self, network: str, late: float) -> None:
        """A wrong code from `network` is answered `late` seconds late."""


class Connection(asyncssh.SSHServer):
    """One client's SSH connection: the code it gave, and the sessions it opened."""

    def __init__(self, door: Door) -> None:
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
