"""Network addresses as the doors and servers need them: loopback or not, and in a URL."""

from __future__ import annotations

import ipaddress

__all__ = ["canonical_host", "global_ipv6", "is_loopback", "url_host"]

_UNUSABLE = 0x08 | 0x20 | 0x40
"""Linux's flags of an address that does not take connections: its duplicate address detection
failed, it is deprecated, or it is still being checked (tentative)."""


def is_loopback(host: str) -> bool:
    """True for a name or address that only this machine can reach."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    """`host` as the host part of a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host


def canonical_host(host: str) -> str:
    """`host` as one spelling: an IP address in its short form (an IPv4-mapped IPv6 address as
    IPv4), without brackets; a name in lower case."""
    host = host.strip("[]").lower()
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def global_ipv6(if_inet6: str) -> list[str]:
    """The global IPv6 addresses that take connections, from the text of Linux's
    `/proc/net/if_inet6` (an address, interface, prefix length, scope and flags a line)."""
    found = []
    for line in if_inet6.splitlines():
        fields = line.split()
        if len(fields) < 5 or len(fields[0]) != 32:
            continue
        try:
            ip = ipaddress.IPv6Address(int(fields[0], 16))
            flags = int(fields[4], 16)
        except ValueError:
            continue
        if ip.is_global and not flags & _UNUSABLE:
            found.append(str(ip))
    return found
