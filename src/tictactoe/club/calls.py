"""The club's calls to its record, off its event loop: a slow disk or a busy database file delays
the answer, never every lobby and table the club serves.

- `Reads`: what the lobbies show (the ladder, ratings, recent matches), read in a thread once and
  kept until the record changes it; however many lobbies ask at once, one read of it is made; an
  answer that may have changed (`stale`) is still given while it is read again, so that a lobby
  is never kept waiting for a read of what it shows already (then `fresh` is called);
- `InOrder`: the writes (a finished match and its ratings), made in a thread one after another in
  the order they were handed over; `drain` waits until all are made.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["InOrder", "Reads"]

log = logging.getLogger("tictactoe.online")

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")


class Reads(Generic[K, V]):
    """Answers of `read` (called in a thread), kept by key until forgotten."""

    def __init__(self, read: Callable[[K], V], fresh: Callable[[], None] | None = None) -> None:
        self.read = read
        self.fresh = fresh
        """Called when an answer read again (`stale`) is kept."""
        self._values: dict[K, V] = {}
        self._reading: dict[K, asyncio.Future[V]] = {}
        self._stale: set[K] = set()
        """Keys whose kept answer may have changed: read again at the next `load`."""

    def get(self, key: K) -> V | None:
        """The answer kept for `key`, or None when it is not read yet."""
        return self._values.get(key)

    def known(self, key: K) -> V | None:
        """The answer kept for `key` while nothing says it has changed since it was read (not
        stale, not being read again); else None."""
        if key in self._stale or key in self._reading:
            return None
        return self._values.get(key)

    def put(self, key: K, value: V) -> None:
        """The answer for `key` is known without reading it (the record gave it back)."""
        self._reading.pop(key, None)  # a read begun before is older: it is not kept
        self._stale.discard(key)
        self._values[key] = value

    def forget(self, key: K) -> None:
        """The answer for `key` is not needed any more, or is wrong: the next `load` reads it
        again, and waits for it."""
        self._reading.pop(key, None)
        self._stale.discard(key)
        self._values.pop(key, None)

    def stale(self, key: K) -> None:
        """The answer for `key` may have changed: the next `load` reads it again, giving the one
        kept until the new one is (then `fresh` is called)."""
        if key not in self._values:
            self.forget(key)
            return
        self._reading.pop(key, None)  # a read begun before may be older than the change
        self._stale.add(key)

    def stale_all(self) -> None:
        """Every answer kept may have changed (`stale` for each)."""
        for key in list(self._values):
            self.stale(key)

    async def load(self, key: K) -> V:
        """The answer for `key`: the one kept (read again meanwhile if it is stale), or read now
        (once, whoever else waits for it)."""
        if key in self._values:
            if key in self._stale and key not in self._reading:
                self._stale.discard(key)
                self._begin(key)
            return self._values[key]
        reading = self._reading.get(key)
        if reading is None:
            reading = self._begin(key)
        return await asyncio.shield(reading)

    def _begin(self, key: K) -> asyncio.Future[V]:
        reading = asyncio.ensure_future(asyncio.to_thread(self.read, key))
        self._reading[key] = reading
        reading.add_done_callback(functools.partial(self._read, key))
        return reading

    def _read(self, key: K, reading: asyncio.Future[V]) -> None:
        if self._reading.get(key) is not reading:
            return  # forgotten, or put, while it was read
        del self._reading[key]
        if reading.cancelled() or reading.exception() is not None:
            if key in self._values:
                self._stale.add(key)  # read again at the next `load`
            return
        again = key in self._values
        self._values[key] = reading.result()
        if again and self.fresh is not None:
            self.fresh()


class InOrder:
    """Calls made in a thread, one after another, in the order they were handed over."""

    def __init__(self) -> None:
        self._jobs: deque[Callable[[], Awaitable[None]]] = deque()
        self._worker: asyncio.Task[None] | None = None

    def call(self, work: Callable[[], T], then: Callable[[T], None]) -> None:
        """Call `work` in a thread once every call handed over before it is made; then `then`
        with its answer, on the event loop. An error is logged, and the calls go on."""

        async def job() -> None:
            then(await asyncio.to_thread(work))

        self._jobs.append(job)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._work())

    @property
    def waiting(self) -> int:
        """Calls handed over and not made yet."""
        return len(self._jobs)

    async def drain(self) -> None:
        """Wait until every call handed over is made."""
        while self._worker is not None and not self._worker.done():
            await asyncio.shield(self._worker)

    async def _work(self) -> None:
        while self._jobs:
            try:
                await self._jobs[0]()
            except Exception as error:
                log.warning("the club's record failed: %s", error)
            finally:
                self._jobs.popleft()
