"""What the host passes on to a friend: which game the series is, the lines that join it, and
from where each one works.

A line through a relay works from anywhere when the relay was seen listening beyond its own
loopback (else its heading says what the relay needs); one to a public address (IPv4, or a
global IPv6 address) from anywhere a firewall lets it through (over IPv6, only from networks
that have it); one to a private address only on this network; one to loopback only on this
machine.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from enum import Enum

from tictactoe.core.rules import CLASSIC
from tictactoe.doors.addresses import url_host

__all__ = ["Invitation", "Reach", "reach_of", "ssh_line"]


class Reach(Enum):
    """From where a line works, as its heading in the invitation says it; in the order shown."""

    RELAY = "From anywhere, through the relay:"
    RELAY_UNSURE = (
        "Through the relay, from anywhere if its sshd has GatewayPorts clientspecified (or yes):"
    )
    PUBLIC = "From anywhere a firewall lets it through:"
    IPV6 = "From networks with IPv6, where a firewall lets it through:"
    NETWORK = "On this network:"
    MACHINE = "On this machine only:"


def reach_of(address: str) -> Reach:
    """From where `address` of this machine can be reached."""
    try:
        ip = ipaddress.ip_address(address.strip("[]").split("%")[0])
    except ValueError:
        return Reach.NETWORK  # a name: as far as its resolver goes, at least here
    if ip.is_loopback:
        return Reach.MACHINE
    if not ip.is_global:
        return Reach.NETWORK
    return Reach.IPV6 if ip.version == 6 else Reach.PUBLIC


def ssh_line(port: int, code: str, host: str) -> str:
    """The line a friend types: `ssh -p PORT CODE@HOST` (an IPv6 address bare, as `ssh` takes
    it after the `@`)."""
    return f"ssh -p {port} {code}@{host.strip('[]')}"


@dataclass(frozen=True, slots=True)
class Invitation:
    """What the host passes on to a friend: the lines that join this series."""

    code: str
    addresses: tuple[str, ...]
    """This machine's addresses the doors listen on."""
    ssh_port: int
    web_port: int | None
    """The browser door's port; None when there is no browser door."""
    fingerprint: str
    """The SSH host key's fingerprint, as `ssh` shows it on first contact."""
    relay: tuple[str, int] | None = None
    """The relay's host and the port it forwards to the SSH door, while the relay is open."""
    relay_notice: str = field(default="")
    """What to know about the relay now, in a sentence (it is being opened, it refused, ...);
    empty when all is well or there is no relay."""
    relay_anywhere: bool = True
    """Whether the relay was seen listening beyond its own loopback; False when it could not be
    asked (its line is then headed with what it needs)."""
    game: str = CLASSIC.title
    """The game of the series, as a person names it ("Classic", "Ultimate")."""

    def places(self) -> list[tuple[Reach, str]]:
        """Every address a friend's `ssh` may use, with its reach, in the order shown."""
        found = [(reach_of(address), address) for address in self.addresses]
        found.sort(key=lambda place: list(Reach).index(place[0]))
        return found

    @property
    def ssh_lines(self) -> tuple[str, ...]:
        """Every `ssh` line, the relay's first."""
        lines = [] if self.relay is None else [ssh_line(self.relay[1], self.code, self.relay[0])]
        lines += [ssh_line(self.ssh_port, self.code, address) for _, address in self.places()]
        return tuple(lines)

    @property
    def first_line(self) -> str:
        """The line that works from furthest away: the one to pass on."""
        return self.ssh_lines[0]

    @property
    def web_addresses(self) -> tuple[str, ...]:
        """The browser door's addresses (the page asks for the code)."""
        if self.web_port is None:
            return ()
        return tuple(f"http://{url_host(address)}:{self.web_port}/" for _, address in self.places())

    def text(self) -> str:
        """The invitation as plain lines, each `ssh` line under the heading of its reach."""
        lines = [f"{self.game} tic-tac-toe. To join from any terminal, paste one of these lines:"]
        if self.relay is not None:
            relay = Reach.RELAY if self.relay_anywhere else Reach.RELAY_UNSURE
            lines += ["", relay.value, f"  {self.first_line}"]
        heading = None
        for reach, address in self.places():
            if reach is not heading:
                lines += ["", reach.value]
                heading = reach
            lines.append(f"  {ssh_line(self.ssh_port, self.code, address)}")
        if self.web_addresses:
            lines += ["", f"Or open in a web browser, then give the code {self.code}:"]
            lines += [f"  {address}" for address in self.web_addresses]
        lines += [
            "",
            "The first time, ssh asks whether to trust this host; its key's fingerprint is",
            f"  {self.fingerprint}",
        ]
        return "\n".join(lines)
