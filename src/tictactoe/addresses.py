"""Network addresses as the doors and servers need them: loopback or not, and in a URL."""

from __future__ import annotations

import ipaddress

__all__ = ["is_loopback", "url_host"]


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
