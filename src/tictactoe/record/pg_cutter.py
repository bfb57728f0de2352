"""Connections to the club's PostgreSQL that are cut off rather than waited on (`Cutter`)."""

from __future__ import annotations

import contextlib
import itertools
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg

__all__ = ["Cutter"]

Connection = psycopg.Connection[tuple[Any, ...]]


class Cutter:
    """Cuts off a connection whose work outlasts its time (one thread a store, started at the
    first use). Where packets vanish (a network or a firewall dropping them), nothing answers a
    query, and its thread would wait as long as TCP retries, many minutes; cut (its socket shut
    down), the wait ends in OperationalError at once, and the pool discards the connection."""

    def __init__(self) -> None:
        self._due: dict[int, tuple[float, Connection]] = {}
        self._keys = itertools.count()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False

    @contextlib.contextmanager
    def within(self, conn: Connection, seconds: float) -> Iterator[None]:
        """What is done on `conn` inside, cut off after `seconds` (every caller gives the same
        `seconds`: a new deadline is the earliest only when it is the only one)."""
        with self._changed:
            key = next(self._keys)
            self._due[key] = (time.monotonic() + seconds, conn)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="tictactoe-club-cutter", daemon=True
                )
                self._thread.start()
            elif len(self._due) == 1:
                self._changed.notify()
        try:
            yield
        finally:
            with self._changed:  # never cut once done: the connection may be someone else's
                self._due.pop(key, None)

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify()
        if self._thread is not None:
            self._thread.join()

    def _watch(self) -> None:
        with self._changed:
            while not self._closed:
                now = time.monotonic()
                for key, (due, conn) in list(self._due.items()):
                    if due <= now:
                        del self._due[key]
                        _cut(conn)
                soonest = min((due for due, _conn in self._due.values()), default=None)
                self._changed.wait(None if soonest is None else soonest - now)


def _cut(conn: Connection) -> None:
    """Shut `conn`'s socket down, from another thread: its wait for an answer ends."""
    with (
        contextlib.suppress(OSError, psycopg.Error),
        socket.socket(fileno=os.dup(conn.fileno())) as sock,
    ):
        sock.shutdown(socket.SHUT_RDWR)
