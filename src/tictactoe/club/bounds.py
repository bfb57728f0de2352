"""What the club lets one player, one address, do: on top of what its SSH door bounds already.

The door (`tictactoe.doors.ssh.door`) bounds connections, logins, sessions and bytes; the record
bounds the new handles one address claims in an hour (`CLAIMS_PER_HOUR`). The club adds:

- `GUESTS_PER_NETWORK` guests at once from one network (an IPv4 address, an IPv6 /64): a flood
  of keyless logins from one place cannot fill the club, and anyone else still gets in;
- the lobby's asks (open, sit, pair, watch, close) at most `ASKS_PER_HANDLE` a second for one
  handle, whatever the number of its sessions, and `ASKS_PER_NETWORK` for one network
  (`Paces`); each lobby has its own pace too (`tictactoe.club.lobby.ASKS`);
- one table waiting per player (`tictactoe.club.lobby.Club`).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Final

__all__ = [
    "ASKS_PER_HANDLE",
    "ASKS_PER_NETWORK",
    "GUESTS_PER_NETWORK",
    "TOO_MANY_GUESTS",
    "Paces",
]

GUESTS_PER_NETWORK: Final = 4
"""Guests in the club at once from one network."""
TOO_MANY_GUESTS: Final = (
    "Too many guests from your address are in the club already; come back later, or come in"
    " with a key."
)
ASKS_PER_HANDLE: Final = 5.0
"""What all the lobbies of one handle may ask a second, in bursts of as many."""
ASKS_PER_NETWORK: Final = 20.0
"""What all the lobbies from one network may ask a second, in bursts of as many."""
KEPT: Final = 4096
"""Paces kept at once; past it the one used longest ago is forgotten (a new one starts full)."""


class Paces:
    """A token bucket for each name (a handle, a network), `rate` tokens a second and at most
    `rate` kept; at most `kept` names, the one used longest ago forgotten first.

    Unlike `tictactoe.doors.bounds.Bucket`, an ask past the pace takes nothing: one name's flood
    costs it only its own tokens, so the names it shares a pace with are not kept waiting for
    long after it stops."""

    def __init__(
        self, rate: float, *, kept: int = KEPT, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.kept = kept
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        """By name: tokens, and when they were counted."""

    def has(self, name: str) -> bool:
        """Whether `name` has a token now (nothing is taken)."""
        return self._tokens(name) >= 1

    def take(self, name: str) -> None:
        """Take one of `name`'s tokens (it may run one short: `has` says so first)."""
        self._buckets[name] = (self._tokens(name) - 1, self.clock())
        self._buckets.move_to_end(name)
        while len(self._buckets) > self.kept:
            self._buckets.popitem(last=False)

    def _tokens(self, name: str) -> float:
        tokens, stamp = self._buckets.get(name, (self.rate, self.clock()))
        return min(self.rate, tokens + (self.clock() - stamp) * self.rate)
