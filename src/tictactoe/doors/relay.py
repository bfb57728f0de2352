"""The relay: a port of an SSH server the host can log into, forwarded to the host's SSH door, so
that a friend on another network joins with one plain `ssh -p PORT CODE@RELAY` line.

The host logs into the relay with asyncssh's client, as OpenSSH's `ssh` would: `~/.ssh/config`,
the keys `~/.ssh/id_*`, the agent (`SSH_AUTH_SOCK`), and `~/.ssh/known_hosts`, where the relay's
key must already be (an unknown key is refused: the host is told to run `ssh` once to accept
it). It asks the relay to listen on all of its addresses (the relay's sshd needs
`GatewayPorts clientspecified` or `yes` for that) on a port the relay chooses, or the one given.

An sshd without that setting still says yes, and listens on its own loopback only: SSH's answer
to a forward names the port, never the address bound. So the host asks the relay's kernel, as
the user it logged in as: its table of listening sockets (`/proc/net/tcp` and `tcp6`, read with
`cat`). A relay found listening on its loopback only is no line for a friend: the host is told
what to set, and the relay is tried again now and then. A relay that cannot be asked (not Linux,
no shell for that user) is offered under a heading saying what it needs.

Each connection to that port reaches the host as a channel of this SSH link and is passed on,
byte for byte, to the SSH door on this machine: the friend's SSH session ends at the door, so
the relay carries only encrypted bytes. The door sees such a connection come from this machine;
the relay says where it came from (the channel's originator address), and the door counts,
throttles and logs that address instead (`SshDoor.relayed`).

When the link drops, the host logs in again, at once and then with a growing pause, and the
invitation shows the new line; closing the relay (when the host ends) closes its port.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("the relay passes connections to the SSH door: it needs Linux or macOS")

import asyncio
import contextlib
import ipaddress
import logging
import socket
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Final

import asyncssh

from tictactoe.doors.addresses import canonical_host
from tictactoe.doors.relay_target import RelayTarget
from tictactoe.doors.ssh import CHANNEL_WINDOW, SshDoor

__all__ = ["Relay", "RelayChanged", "listening_addresses"]

log = logging.getLogger("tictactoe.online")

CONNECT_WITHIN: Final = 15.0
"""Seconds to reach the relay and log in."""
KEEPALIVE: Final = 10.0
"""Seconds between keepalives on a silent link; three unanswered ones end it."""
RETRY_FIRST: Final = 1.0
RETRY_MOST: Final = 30.0
"""Seconds between tries to open the relay again: doubled after each failure, up to this."""
STOP_WITHIN: Final = 2.0
"""Seconds the link has to close when the host ends."""
ASK_WITHIN: Final = 5.0
"""Seconds the relay has to say where it listens."""
LISTENING_TABLES: Final = "cat /proc/net/tcp /proc/net/tcp6"
"""The command run on the relay to read its listening sockets (Linux's own tables)."""
_LISTEN: Final = "0A"
"""A socket's state in those tables when it listens."""

RelayChanged = Callable[[tuple[str, int] | None, str, bool], None]
"""Told where the relay forwards from now (its host and port; None while it does not), a
sentence for the host when something is wrong ("" when nothing is), and whether the relay was
seen listening beyond its own loopback (False when it could not be asked)."""


class _Refused(Exception):
    """The relay cannot be opened until the host does something: no use trying again."""


@dataclass(eq=False)
class Relay:
    """A remote port forward on `target` to `door`, kept open until `stop`."""

    target: RelayTarget
    door: SshDoor
    door_address: tuple[str, int]
    """Where the door listens on this machine: what the relay's connections are passed to."""
    _: KW_ONLY
    changed: RelayChanged
    listen_port: int = 0
    """The relay's port for the friend; 0: one the relay chooses."""
    place: tuple[str, int] | None = field(default=None, init=False)
    """The relay's host and port while it forwards to the door."""
    _link: asyncssh.SSHClientConnection | None = field(default=None, init=False, repr=False)
    _task: asyncio.Task[None] | None = field(default=None, init=False, repr=False)
    _open: set[_DoorSide] = field(default_factory=set, init=False, repr=False)

    def start(self) -> None:
        """Open the relay, and keep it open, in the background."""
        self._say(None, f"Opening the relay {self.target}…", problem=False)
        self._task = asyncio.create_task(self._keep_open())

    async def stop(self) -> None:
        """Close the link, and with it the relay's port."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        link, self._link = self._link, None
        if link is not None:
            link.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(link.wait_closed(), STOP_WITHIN)
        self.place = None

    def _say(
        self,
        place: tuple[str, int] | None,
        notice: str,
        *,
        problem: bool = True,
        anywhere: bool = False,
    ) -> None:
        """Tell of a change; a problem (and the relay opening) is a line in the host's log."""
        self.place = place
        if place is not None:
            log.info(
                "relay %s: forwarding port %d to the SSH door (%s)",
                self.target,
                place[1],
                "beyond its loopback" if anywhere else "where it listens is not known",
            )
        elif problem:
            log.warning("relay %s: %s", self.target, notice)
        self.changed(place, notice, anywhere)

    async def _keep_open(self) -> None:
        pause, opened = RETRY_FIRST, False
        while True:
            try:
                link = await self._open_link(opened)
            except _Refused as refusal:
                self._say(None, str(refusal))
                return
            except _Retry as failure:
                self._say(None, str(failure))
                await asyncio.sleep(pause)
                pause = min(2 * pause, RETRY_MOST)
                continue
            opened, pause = True, RETRY_FIRST
            await link.wait_closed()
            self._link = None
            self._say(None, f"The link to the relay {self.target} dropped: opening it again…")

    async def _open_link(self, opened: bool) -> asyncssh.SSHClientConnection:
        """Log into the relay and have it listen; the link, once it forwards."""
        target = self.target
        try:
            link = await asyncssh.connect(
                target.host,
                target.port if target.port is not None else (),
                username=target.user if target.user is not None else (),
                connect_timeout=CONNECT_WITHIN,
                keepalive_interval=KEEPALIVE,
                keepalive_count_max=3,
            )
        except asyncssh.HostKeyNotVerifiable:
            raise _Retry(
                f"The relay's key is not known here: run {target.ssh_command} once in another"
                " terminal and accept it, and the relay opens by itself."
            ) from None
        except asyncssh.PermissionDenied:
            raise _Refused(
                f"The relay {target} did not let you log in with your SSH keys or agent:"
                f" {target.ssh_command} must work without a password."
            ) from None
        except (OSError, asyncssh.Error, TimeoutError) as error:
            raise _Retry(
                f"The relay {target} cannot be reached ({_reason(error)}): trying again."
            ) from None
        except Exception as error:  # a file of ~/.ssh it cannot use, say: said, not retried
            raise _Refused(f"The relay {target} cannot be opened: {_reason(error)}.") from None
        try:
            listener = await link.create_server(
                self._forwarded, "", self.listen_port, encoding=None, window=CHANNEL_WINDOW
            )
        except (asyncssh.ChannelListenError, asyncssh.Error, OSError):
            link.close()
            refusal = (
                f"The relay {target} refused to forward a port to this game (its sshd needs"
                " AllowTcpForwarding yes and GatewayPorts clientspecified"
                + (f", and port {self.listen_port} free)." if self.listen_port else ").")
            )
            raise (_Retry if opened else _Refused)(refusal) from None
        port = listener.get_port()
        bound = await _listening(link, port)
        if bound and all(address.is_loopback for address in bound):
            link.close()
            raise _Retry(
                f"The relay {target} listens on port {port} of its own loopback only, so friends"
                " elsewhere cannot reach it: set GatewayPorts clientspecified (or yes) in its"
                " sshd_config and reload sshd. Trying again meanwhile."
            )
        self._link = link
        host = str(link.get_extra_info("host") or target.host)
        self._say((host, port), "", anywhere=bool(bound))
        return link

    async def _forwarded(self, orig_host: str, orig_port: int) -> asyncssh.SSHTCPSession[bytes]:
        """A connection to the relay's port: passed on to the door from an address of this
        machine that the door is told came from `orig_host`."""
        if len(self._open) >= self.door.max_connections:
            raise asyncssh.ChannelOpenError(asyncssh.OPEN_RESOURCE_SHORTAGE, "the door is full")
        host, port = self.door_address
        loop = asyncio.get_running_loop()
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.bind((host, 0))
            bound = sock.getsockname()
        except OSError as error:
            sock.close()
            raise _unreachable(error) from None
        key = (canonical_host(bound[0]), int(bound[1]))
        # Said before connecting: the door asks as soon as it accepts.
        self.door.relayed[key] = _origin(orig_host, self.target)
        door_side = _DoorSide(lambda: self._closed(door_side, key))
        self._open.add(door_side)
        try:
            sock.setblocking(False)
            await loop.sock_connect(sock, (host, port))
            await loop.create_connection(lambda: door_side, sock=sock)
        except OSError as error:
            sock.close()
            self._closed(door_side, key)
            raise _unreachable(error) from None
        return _RelaySide(door_side)

    def _closed(self, door_side: _DoorSide, key: tuple[str, int]) -> None:
        self._open.discard(door_side)
        self.door.relayed.pop(key, None)


class _Retry(Exception):
    """The relay could not be opened now: try again later."""


class _DoorSide(asyncio.Protocol):
    """One relayed connection's end at the door: what the door sends goes into its channel."""

    def __init__(self, ended: Callable[[], None]) -> None:
        self.transport: asyncio.Transport | None = None
        self.channel: asyncssh.SSHTCPChannel[bytes] | None = None
        self.ended = ended
        """Told once the connection to the door has closed."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.pause_reading()  # until the channel is there to take it

    def joined(self, channel: asyncssh.SSHTCPChannel[bytes]) -> None:
        self.channel = channel
        if self.transport is None or self.transport.is_closing():
            channel.close()  # the door has already closed this connection
        else:
            self.transport.resume_reading()

    def data_received(self, data: bytes) -> None:
        if self.channel is not None:
            with contextlib.suppress(OSError):
                self.channel.write(data)

    def eof_received(self) -> bool:
        if self.channel is not None:
            with contextlib.suppress(OSError):
                self.channel.write_eof()
        return True

    def pause_writing(self) -> None:
        if self.channel is not None:
            self.channel.pause_reading()

    def resume_writing(self) -> None:
        if self.channel is not None:
            self.channel.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended()
        if self.channel is not None:
            self.channel.close()


class _RelaySide(asyncssh.SSHTCPSession[bytes]):
    """One relayed connection's end at the relay: what comes through the channel goes to the
    door; while either side cannot take more, the other is not read."""

    def __init__(self, door_side: _DoorSide) -> None:
        self.door_side = door_side

    @property
    def _door(self) -> asyncio.Transport | None:
        transport = self.door_side.transport
        return None if transport is None or transport.is_closing() else transport

    def connection_made(self, chan: asyncssh.SSHTCPChannel[bytes]) -> None:
        self.door_side.joined(chan)

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if (door := self._door) is not None:
            door.write(data)

    def eof_received(self) -> bool:
        if (door := self._door) is not None and door.can_write_eof():
            door.write_eof()
        return True

    def pause_writing(self) -> None:
        if (door := self._door) is not None:
            door.pause_reading()

    def resume_writing(self) -> None:
        if (door := self._door) is not None:
            door.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.door_side.transport is not None:
            self.door_side.transport.close()


async def _listening(
    link: asyncssh.SSHClientConnection, port: int
) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """The addresses the relay listens on at `port`, as its kernel says; none when it cannot
    be asked."""
    try:
        done = await link.run(LISTENING_TABLES, check=False, timeout=ASK_WITHIN)
    except (OSError, asyncssh.Error, TimeoutError):
        return []
    table = done.stdout
    if isinstance(table, bytes):
        table = table.decode("ascii", "replace")
    return listening_addresses(table or "", port)


def listening_addresses(
    table: str, port: int
) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """The local addresses of the sockets listening on `port` in `table`, the lines of Linux's
    `/proc/net/tcp` and `/proc/net/tcp6` (each address in hex, in the kernel's little-endian
    words); lines that are not such rows are passed over."""
    found: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for line in table.splitlines():
        fields = line.split()
        if len(fields) < 4 or fields[3] != _LISTEN or ":" not in fields[1]:
            continue
        address, _, hex_port = fields[1].partition(":")
        try:
            if int(hex_port, 16) != port or len(address) not in (8, 32):
                continue
            raw = bytes.fromhex(address)
        except ValueError:
            continue
        words = b"".join(raw[at : at + 4][::-1] for at in range(0, len(raw), 4))
        ip = ipaddress.ip_address(words)
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        found.append(ip)
    return found


def _unreachable(error: OSError) -> asyncssh.ChannelOpenError:
    return asyncssh.ChannelOpenError(
        asyncssh.OPEN_CONNECT_FAILED, f"the door cannot be reached: {_reason(error)}"
    )


def _origin(orig_host: str, target: RelayTarget) -> str:
    """The address a relayed connection counts as at the door: the one the relay says it came
    from; when the relay says none, one address for all that come through it."""
    try:
        ipaddress.ip_address(orig_host.split("%")[0])
    except ValueError:
        return f"the relay {target.host}"
    return canonical_host(orig_host.split("%")[0])


def _reason(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return "no answer"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__
