"""How long a test waits for something that comes when it comes, and how it says what it saw.

A club's start, a screen, a line, a process's exit: a test waits for the event itself, never
for a fixed time, and gives up only past `EVENT_LIMIT`, long enough for a machine four times
slower than a two-core one kept busy by other work (where a club's start or a game's first
screen took up to 15 s). Past the limit it says what it saw, not only that time ran out.

Waiting for something that must not happen is the other kind: that stays short, and comes
after an event showing that what was sent before it has been handled. No test reads a speed
off the clock: timings are benchmarks' figures (benchmarks/README.md).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

EVENT_LIMIT = 60.0
"""The longest a test waits for any one event before it fails, in seconds."""


def wait_until(
    condition: Callable[[], T],
    seen: Callable[[], object],
    what: str = "the event",
    limit: float = EVENT_LIMIT,
    every: float = 0.05,
) -> T:
    """Call `condition` every `every` seconds until it returns something true, and return that;
    past `limit`, fail saying `what` did not come and what `seen` shows then."""
    deadline = time.monotonic() + limit
    while not (found := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not come within {limit:.0f} s; seen: {seen()!r}")
        time.sleep(every)
    return found


async def eventually(
    condition: Callable[[], T],
    seen: Callable[[], object],
    what: str = "the event",
    limit: float = EVENT_LIMIT,
    every: float = 0.02,
) -> T:
    """`wait_until` for a test on an event loop: the loop runs on between the looks."""
    deadline = time.monotonic() + limit
    while not (found := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not come within {limit:.0f} s; seen: {seen()!r}")
        await asyncio.sleep(every)
    return found


async def within(
    awaitable: Awaitable[T],
    seen: Callable[[], object],
    what: str = "the event",
    limit: float = EVENT_LIMIT,
) -> T:
    """`awaitable`'s result; past `limit`, fail saying `what` did not come and what `seen`
    shows then (`asyncio.wait_for` says only that time ran out)."""
    try:
        return await asyncio.wait_for(awaitable, limit)
    except TimeoutError:
        raise AssertionError(
            f"{what} did not come within {limit:.0f} s; seen: {seen()!r}"
        ) from None
