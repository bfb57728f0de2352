"""`tictactoe host`: the authority of one series and the doors a friend comes in by.

- the authority listens on this machine's loopback only (`server`): every game process a door
  starts talks to it there; the host's own seat, in this process, reaches it with no socket
  (`AuthorityServer.open_local`);
- the SSH door (`tictactoe.doors.ssh`, port 2222 by default) starts a `tictactoe join` game process
  in a pseudo-terminal for each SSH session whose user name is the code;
- the browser door (textual-serve's page, as `tictactoe serve`, port 8000 by default) asks for
  the code on a page of its own, and starts one for each tab that gave it. It is plain,
  unencrypted HTTP;
- with `relay`, a port of an SSH server the host can log into is forwarded to the SSH door
  (`relay`), for friends on other networks.

Both doors check the code before they start anything. A game they start is given the code and
the doors' key (`JOIN_ENVIRONMENT`) in its environment, never on its command line; the authority
takes a friend's hello only with that key, so no other local program can join, guess codes or
speak for an address.

Both doors listen on every address of this machine unless `listen` narrows them.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import ipaddress
import secrets
import socket
import struct
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final

import platformdirs

from tictactoe.core.codes import new_code
from tictactoe.core.rules import CLASSIC, Variant
from tictactoe.core.series import FirstMove
from tictactoe.doors.addresses import canonical_host, global_ipv6, is_loopback
from tictactoe.doors.log import log_to_file as door_log
from tictactoe.doors.relay import Relay
from tictactoe.doors.relay_target import RelayTarget
from tictactoe.doors.ssh import SessionInfo, SshDoor, fingerprint, load_host_key
from tictactoe.doors.throttle import Throttle
from tictactoe.doors.web.code_gate import CodeGate
from tictactoe.host.invitation import Invitation
from tictactoe.link.server import AuthorityServer
from tictactoe.online.authority import MAX_WATCHERS, Authority

if TYPE_CHECKING:
    from tictactoe.doors.web.server import GameServer

__all__ = ["HostConfig", "Hosting", "join_command", "own_addresses"]

_SIOCGIFADDR: Final = 0x8915

JOIN_CODE: Final = "TICTACTOE_JOIN_CODE"
"""The variable that carries the series' code to a game a door starts."""
JOIN_DOOR_KEY: Final = "TICTACTOE_JOIN_DOOR_KEY"
"""The variable that carries the doors' key to a game a door starts."""

SEATS_LEAVE_WITHIN: Final = 1.0
"""Seconds the seats' games have to end by themselves when the series ends, before the
doors close on them (the whole stop stays within two seconds)."""


@dataclass(frozen=True, slots=True)
class HostConfig:
    """What `tictactoe host` was asked for."""

    listen: str | None = None
    """The one address the doors listen on; None for all of this machine's."""
    ssh_port: int = 2222
    web_port: int | None = 8000
    """The browser door's port; None for no browser door."""
    grace: float = 120.0
    """Seconds a dropped player has to come back before the host may end the series."""
    first_move: FirstMove = FirstMove.CHOOSER
    variant: Variant = CLASSIC
    """The game of the series."""
    relay: RelayTarget | None = None
    """An SSH server whose port is forwarded to the SSH door (`tictactoe.doors.relay`)."""
    relay_port: int = 0
    """The relay's port for friends; 0: one the relay chooses."""
    max_watchers: int = MAX_WATCHERS
    """How many may watch the series at once."""


def host_log_path() -> Path:
    """The host's log: the user log folder's `host.log`."""
    return platformdirs.user_log_path("tictactoe") / "host.log"


def log_to_file(path: Path | None = None) -> Path | None:
    """Send the doors' and the authority's lines to the host's log (`tictactoe.doors.log`);
    the file, or None when it cannot be opened."""
    return door_log(host_log_path() if path is None else path)


def _door_host(listen: str | None) -> str:
    """The address of this machine at which the SSH door, listening on `listen`, is reached."""
    if listen in (None, "", "0.0.0.0"):
        return "127.0.0.1"
    return "::1" if listen == "::" else listen


def join_command(link_url: str, *args: str) -> list[str]:
    """The game process a door starts: this Python, `tictactoe join`, the link."""
    return [sys.executable, "-m", "tictactoe", "join", "--link", link_url, *args]


def own_addresses(listen: str | None = None) -> list[str]:
    """The addresses a friend may use to reach this machine: IPv4 ones, then global IPv6 ones
    (unless `listen` is IPv4's any address); loopback only when there is nothing else."""
    if listen not in (None, "", "0.0.0.0", "::"):
        return [listen] if listen is not None else []
    found = _own_ipv4() if listen != "::" else []
    if listen != "0.0.0.0":
        found += _own_ipv6()
    unique = list(dict.fromkeys(found))
    outside = [a for a in unique if not ipaddress.ip_address(a).is_loopback]
    return outside or ["127.0.0.1" if listen != "::" else "::1"]


def _own_ipv4() -> list[str]:
    found: list[str] = []
    if sys.platform.startswith("linux"):
        for _index, name in socket.if_nameindex():
            with (
                contextlib.suppress(OSError),
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe,
            ):
                request = struct.pack("256s", name.encode()[:15])
                answer = fcntl.ioctl(probe.fileno(), _SIOCGIFADDR, request)
                found.append(socket.inet_ntoa(answer[20:24]))
    with contextlib.suppress(OSError):
        for *_rest, address in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(address[0]))
    return found


def _own_ipv6() -> list[str]:
    """This machine's global IPv6 addresses: Linux lists them in /proc; elsewhere, those its
    name resolves to and the one it would send from to the IPv6 internet (no packet is sent)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            return global_ipv6(Path("/proc/net/if_inet6").read_text())
    found: list[str] = []
    with contextlib.suppress(OSError):
        for *_rest, address in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET6):
            found.append(str(address[0]))
    with (
        contextlib.suppress(OSError),
        socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as probe,
    ):
        probe.connect(("2001:4860:4860::8888", 53))
        found.append(str(probe.getsockname()[0]))
    return [a for a in found if ipaddress.ip_address(a.split("%")[0]).is_global]


class Hosting:
    """One hosted series: its code, its authority and the doors, open until `stop`."""

    def __init__(self, host_name: str, config: HostConfig) -> None:
        self.host_name = host_name
        self.config = config
        self.code = new_code()
        self.host_token = secrets.token_urlsafe(24)
        """What the host's own app shows the authority to take seat 0."""
        self.door_key = secrets.token_urlsafe(24)
        """What the doors' games show the authority: only they may join."""
        self.authority = Authority(
            self.code,
            host_name,
            host_token=self.host_token,
            grace=config.grace,
            first_move=config.first_move,
            variant=config.variant,
            max_watchers=config.max_watchers,
        )
        self.throttle = Throttle()
        """Wrong codes, counted at both doors."""
        self.server = AuthorityServer(self.authority, self.throttle, door_key=self.door_key)
        self.ssh_door: SshDoor | None = None
        self.relay: Relay | None = None
        self.invitation_changed: Callable[[Invitation], None] | None = None
        """Told of every change of the invitation after `start` (the relay opened, moved, or
        cannot be opened)."""
        self._web: GameServer | None = None
        self.ssh_port = config.ssh_port
        self.web_port = config.web_port
        self.invitation = Invitation(
            self.code, (), config.ssh_port, config.web_port, "", game=config.variant.title
        )

    @property
    def link_url(self) -> str:
        return self.server.url

    async def start(self) -> Hosting:
        """Open the authority on loopback, then the doors; an OSError if a port is taken."""
        await self.server.start("127.0.0.1", 0)
        try:
            key = load_host_key()
            self.ssh_door = SshDoor(
                host_key=key,
                command=self._ssh_command,
                accepts=self.accepts,
                throttle=self.throttle,
                env=self.join_environment,
            )
            self.ssh_port = await self.ssh_door.start(self.config.listen, self.config.ssh_port)
            if self.config.web_port is not None:
                self.web_port = await self._open_web(self.config.web_port)
        except BaseException:
            await self.stop("The host could not open the doors.")
            raise
        self.invitation = Invitation(
            code=self.code,
            addresses=tuple(own_addresses(self.config.listen)),
            ssh_port=self.ssh_port,
            web_port=self.web_port if self.config.web_port is not None else None,
            fingerprint=fingerprint(key),
            game=self.config.variant.title,
        )
        if self.config.relay is not None:
            self.relay = Relay(
                self.config.relay,
                self.ssh_door,
                (_door_host(self.config.listen), self.ssh_port),
                listen_port=self.config.relay_port,
                changed=self._relay_changed,
            )
            self.relay.start()
        return self

    def _relay_changed(self, place: tuple[str, int] | None, notice: str, anywhere: bool) -> None:
        self.invitation = replace(
            self.invitation, relay=place, relay_notice=notice, relay_anywhere=anywhere
        )
        if self.invitation_changed is not None:
            self.invitation_changed(self.invitation)

    def accepts(self, code: str) -> bool:
        """Whether `code` (normalised) is this series' code."""
        return secrets.compare_digest(code.encode(), self.code.encode())

    @property
    def join_environment(self) -> dict[str, str]:
        """What a door adds to the environment of a game it starts: the code and its key."""
        return {JOIN_CODE: self.code, JOIN_DOOR_KEY: self.door_key}

    def _ssh_command(self, info: SessionInfo) -> Sequence[str]:
        plain = ("--plain",) if info.plain else ()
        return join_command(self.link_url, "--peer", info.peer, *plain)

    async def _open_web(self, port: int) -> int:
        from tictactoe.doors.web.server import GameServer  # textual-serve, when asked

        self._web = GameServer(
            ("join", "--link", self.link_url),
            host=self.config.listen or "0.0.0.0",
            port=port,
            spare=False,
            tab_args=lambda request: ("--peer", request.remote or "?"),
            environment=self.join_environment,
            gate=CodeGate(self.accepts, self.throttle),
            own_host=self.own_host,
        )
        return await self._web.start(self.config.listen or None)

    def own_host(self, host: str) -> bool:
        """Whether `host` (a request's Host, without its port) names this machine: one of its
        addresses or its own names. A page elsewhere whose name was made to point here (DNS
        rebinding) is refused."""
        host = canonical_host(host)
        if is_loopback(host) or host in map(canonical_host, own_addresses(self.config.listen)):
            return True
        name = socket.gethostname().lower()
        return host in {name, f"{name}.local", socket.getfqdn().lower()}

    async def stop(self, text: str) -> None:
        """End the series for every seat and watcher with `text`, then close the doors."""
        await self.server.stop(text)
        if self.ssh_door is not None:
            # Each seat's game ends by itself on the news, printing it: a moment for that,
            # then the door hangs up on whatever is left.
            loop = asyncio.get_running_loop()
            deadline = loop.time() + SEATS_LEAVE_WITHIN
            while self.ssh_door.sessions and loop.time() < deadline:
                await asyncio.sleep(0.05)
            await self.ssh_door.stop()
        if self.relay is not None:  # after the door: the last words reach those it relays
            await self.relay.stop()
        if self._web is not None:
            await self._web.close()
            self._web = None
