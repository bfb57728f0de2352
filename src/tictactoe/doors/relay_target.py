"""Where the relay is: `USER@HOST[:PORT]`, as the host gives it (`tictactoe host --relay`, or the
new-game screen's field), read the way `ssh` reads it."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Final

__all__ = ["RelayTarget", "parse_relay"]

_NAME: Final = re.compile(r"[A-Za-z0-9._-]+")
"""A host name or an IPv4 address (an IPv6 address is checked as such)."""
_USER: Final = re.compile(r"[A-Za-z0-9._-][A-Za-z0-9._@+-]*")
"""A login name: nothing a shell or ssh's options would read otherwise."""

FORM: Final = "USER@HOST or USER@HOST:PORT, as you would give it to ssh"


@dataclass(frozen=True, slots=True)
class RelayTarget:
    """An SSH server the host can log into, to forward a port of it to the host's SSH door."""

    host: str
    """Its name or address, as given (an alias of `~/.ssh/config` too)."""
    user: str | None = None
    """The login name; None: as `~/.ssh/config` says, else this machine's user name."""
    port: int | None = None
    """Its SSH port; None: as `~/.ssh/config` says, else 22."""

    def __str__(self) -> str:
        user = f"{self.user}@" if self.user else ""
        host = f"[{self.host}]" if ":" in self.host and self.port else self.host
        return f"{user}{host}:{self.port}" if self.port else f"{user}{host}"

    @property
    def ssh_command(self) -> str:
        """The `ssh` command that logs into it, as a person types it."""
        user = f"{self.user}@" if self.user else ""
        port = f"-p {self.port} " if self.port else ""
        return f"ssh {port}{user}{self.host}"


def parse_relay(text: str) -> RelayTarget:
    """`text` (`USER@HOST[:PORT]`, an IPv6 HOST in brackets when a port follows) as a relay;
    ValueError with a sentence saying what is wrong."""
    text = text.strip()
    user, at, rest = text.rpartition("@")
    if at and not _USER.fullmatch(user):
        raise ValueError(f"{user!r} is not a user name: the relay is {FORM}.")
    host, port_text = rest, ""
    if rest.startswith("["):
        host, bracket, after = rest[1:].partition("]")
        if not bracket or (after and not after.startswith(":")):
            raise ValueError(f"{rest!r} is not a host: the relay is {FORM}.")
        port_text = after[1:]
    elif rest.count(":") == 1:
        host, _, port_text = rest.partition(":")
    if not (_NAME.fullmatch(host) or _is_ipv6(host)) or host.startswith("-"):
        raise ValueError(f"{host!r} is not a host: the relay is {FORM}.")
    port = None
    if port_text or rest.endswith(":"):
        if not port_text.isdecimal() or not 1 <= int(port_text) <= 65535:
            raise ValueError(f"{port_text!r} is not a port: a port is a number from 1 to 65535.")
        port = int(port_text)
    return RelayTarget(host=host, user=user or None, port=port)


def _is_ipv6(text: str) -> bool:
    try:
        return ipaddress.ip_address(text).version == 6
    except ValueError:
        return False
