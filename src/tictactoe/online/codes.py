"""The code of a hosted series, and how many wrong codes an address may try.

A code is the only secret of a hosted series: whoever has it may take the free seat or
watch. It is 6 characters from an alphabet with no look-alikes (no 0/O, no 1/I), 5 bits
each: 30 bits from `secrets`, typed in any case.
"""

from __future__ import annotations

import secrets
import time
from collections import deque
from collections.abc import Callable
from typing import Final

__all__ = ["ALPHABET", "CODE_LENGTH", "Throttle", "new_code", "normalise_code"]

ALPHABET: Final = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
"""32 characters that cannot be taken for one another: 5 bits each."""
CODE_LENGTH: Final = 6


def new_code() -> str:
    """A fresh code: 30 random bits from `secrets`."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(text: str) -> str | None:
    """`text` as a code (upper case, spaces and dashes dropped), or None if it cannot be one."""
    code = "".join(text.split()).replace("-", "").upper()
    if len(code) != CODE_LENGTH or any(char not in ALPHABET for char in code):
        return None
    return code


class Throttle:
    """After `limit` wrong codes from one address within `window` seconds, that address waits.

    The doors ask `allowed(address)` before checking a code, and call `failed(address)`
    when it is wrong; a right code does not reset the count (a guesser may know one).
    """

    def __init__(
        self,
        limit: int = 5,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        max_addresses: int = 10_000,
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self.max_addresses = max_addresses
        """Past this many addresses, the oldest are forgotten (memory stays bounded)."""
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, address: str) -> deque[float]:
        failures = self._failures.get(address)
        if failures is None:
            return deque()
        cutoff = self.clock() - self.window
        while failures and failures[0] <= cutoff:
            failures.popleft()
        if not failures:
            del self._failures[address]
        return failures

    def allowed(self, address: str) -> bool:
        """Whether `address` may try a code now."""
        return len(self._recent(address)) < self.limit

    def wait(self, address: str) -> float:
        """Seconds until `address` may try again (0 when it may now)."""
        failures = self._recent(address)
        if len(failures) < self.limit:
            return 0.0
        return max(0.0, failures[0] + self.window - self.clock())

    def failed(self, address: str) -> None:
        """Count a wrong code from `address`."""
        failures = self._failures.get(address)
        if failures is None:
            if len(self._failures) >= self.max_addresses:
                del self._failures[next(iter(self._failures))]
            failures = self._failures[address] = deque(maxlen=self.limit)
        failures.append(self.clock())
