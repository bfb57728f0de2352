"""How many wrong codes a network may try at the doors, and how late the rest are answered."""

from __future__ import annotations

import ipaddress
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Throttle"]


@dataclass(eq=False)
class Throttle:
    """Wrong codes from one network are answered slowly; the right code is never held up.

    Up to `limit` wrong codes within `window` seconds from one network (an IPv4 address, or an
    IPv6 /64: one home's or one phone's share of addresses) are answered at once; after that,
    each wrong code is answered only `delay` seconds later. The doors let each network have only
    a few attempts under way at once, so one network can try only a few codes every `delay`
    seconds; the right code is let in at once whatever came before it from the same network, so a
    stranger who shares the friend's address can slow the guessing, never lock the friend out.
    """

    limit: int = 5
    window: float = 60.0
    delay: float = 10.0
    """Seconds a wrong code is answered late once its network is past `limit`."""
    clock: Callable[[], float] = time.monotonic
    max_addresses: int = 10_000
    """Past this many networks, the oldest are forgotten (memory stays bounded)."""
    _failures: dict[str, deque[float]] = field(default_factory=dict, init=False, repr=False)

    @staticmethod
    def network(address: str) -> str:
        """Whom `address` counts as: itself for IPv4, its /64 for IPv6."""
        try:
            ip = ipaddress.ip_address(address.split("%")[0])
        except ValueError:
            return address
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None:
            return str(ipaddress.IPv6Network((ip, 64), strict=False))
        return str(ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else ip)

    def _recent(self, network: str) -> int:
        failures = self._failures.get(network)
        if failures is None:
            return 0
        cutoff = self.clock() - self.window
        while failures and failures[0] <= cutoff:
            failures.popleft()
        if not failures:
            del self._failures[network]
        return len(failures)

    def penalty(self, address: str) -> float:
        """Seconds a wrong code from `address` is answered late now (0 until past `limit`)."""
        return self.delay if self._recent(self.network(address)) >= self.limit else 0.0

    def failed(self, address: str) -> float:
        """Count a wrong code from `address`; the seconds its answer is held back."""
        penalty = self.penalty(address)
        network = self.network(address)
        failures = self._failures.get(network)
        if failures is None:
            if len(self._failures) >= self.max_addresses:
                del self._failures[next(iter(self._failures))]
            failures = self._failures[network] = deque(maxlen=self.limit)
        failures.append(self.clock())
        return penalty
