"""What the doors take from a client, and how much: a terminal's size, a rate, a line of text.

Both doors (SSH and the browser's) bound what a stranger may send with these, so a limit is
said once.
"""

from __future__ import annotations

import asyncio
import ipaddress
import time
from collections.abc import Callable
from typing import Final

__all__ = ["MAX_SIZE", "Bucket", "fits", "peer_address", "printable"]

MAX_SIZE: Final = (1000, 500)
"""The largest terminal a client may ask for, in columns and rows (a wall of 8K screens is
less); a larger one is ignored."""

NAME_LIMIT: Final = 64
"""What a client sent is shown cut to this many characters in the log."""


def fits(width: int, height: int, *, unknown: bool = False) -> bool:
    """Whether a client may ask for a terminal of `width` by `height`: from one cell to
    `MAX_SIZE`, or 0 for a side it does not know when `unknown` allows it."""
    least = 0 if unknown else 1
    return least <= width <= MAX_SIZE[0] and least <= height <= MAX_SIZE[1]


def printable(text: str, limit: int = NAME_LIMIT) -> str:
    """What a client sent, fit for one line of the log: no control characters, cut short."""
    return "".join(char if char.isprintable() else "?" for char in text[:limit])


def peer_address(peername: object) -> str:
    """A client's IP address from its socket's `peername`, an IPv4 one as such even when it
    came in over IPv6: the address the doors count and log."""
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


class Bucket:
    """A token bucket: `rate` tokens a second, at most `burst` kept (`rate` when not given).

    Taking more than is there runs into debt: the answer is how late the taker is, and it
    waits that long (`wait`) or stops reading for that long."""

    def __init__(
        self, rate: float, burst: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = rate if burst is None else burst
        self.clock = clock
        self.tokens = self.burst
        self.stamp = clock()

    def late(self, amount: float = 1) -> float:
        """How late taking `amount` now would be, in seconds (0 when it would not), taking
        nothing."""
        now = self.clock()
        tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate) - amount
        return max(0.0, -tokens / self.rate)

    def take(self, amount: float = 1) -> float:
        """Take `amount`; the seconds until the bucket is out of debt (0 when it is not)."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate) - amount
        self.stamp = now
        return max(0.0, -self.tokens / self.rate)

    async def wait(self, amount: float = 1) -> None:
        """Take `amount`, and wait until the bucket is out of debt."""
        late = self.take(amount)
        if late:
            await asyncio.sleep(late)
