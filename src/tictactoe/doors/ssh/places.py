"""The SSH door's places: connections open in all and per address, and each network's places
for logging in.

Connections that have not logged in are admitted by behaviour, as OpenSSH's `MaxStartups` and
`LoginGraceTime` do, but never at a newcomer's expense: they are bounded per network and in all,
and when a bound is reached the oldest connection that has said no code yet (from the network
with the most of them) is dropped to make room. Silence never keeps anyone out; only a network's
own late answers (wrong codes the throttle answers late) can fill that network's places.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("the SSH door runs games in pseudo-terminals: it needs Linux or macOS")

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Protocol

from tictactoe.doors.ssh.connection import Connection
from tictactoe.doors.throttle import Throttle

__all__ = ["Bounds", "Places"]


class Bounds(Protocol):
    """The door's bounds the places keep (`tictactoe.doors.ssh.door.SshDoor`'s)."""

    max_connections: int
    max_per_address: int
    max_logging_in: int
    max_logging_in_per_address: int
    throttle: Throttle


class Places:
    """Who holds the door's places: each connection open, and the late answers still owed."""

    def __init__(self, bounds: Bounds) -> None:
        self.bounds = bounds
        self._connections: set[Connection] = set()
        self._per_address: Counter[str] = Counter()
        self._pending: dict[Connection, None] = {}
        """Connections not yet logged in, oldest first."""
        self._owed: dict[str, list[float]] = {}
        """Per network, when each of its late answers is due (`loop.time()`)."""

    @property
    def logging_in(self) -> int:
        """Connections that have not logged in yet."""
        return len(self._pending)

    @property
    def connections(self) -> list[Connection]:
        """The connections open now."""
        return list(self._connections)

    def admit(self, connection: Connection) -> str | None:
        """Count a new connection in, dropping the oldest silent ones it needs room from; why
        not, when it may not come in."""
        bounds = self.bounds
        if len(self._connections) >= bounds.max_connections:
            return f"{len(self._connections)} connections are open"
        peer, network = connection.peer, connection.network
        if self._per_address[peer] >= bounds.max_per_address and not self._drop_silent(
            lambda other: other.peer == peer, connection
        ):
            return f"{self._per_address[peer]} connections from that address are open"
        if self._places_taken(network) >= bounds.max_logging_in_per_address and not (
            self._drop_silent(lambda other: other.network == network, connection)
        ):
            return f"{self._places_taken(network)} codes from {network} wait for their answer"
        if len(self._pending) >= bounds.max_logging_in:
            crowded = Counter(other.network for other in self._pending)
            most = max(crowded.values())
            biggest = {name for name, count in crowded.items() if count == most}
            if not self._drop_silent(lambda other: other.network in biggest, connection):
                self._drop_oldest(lambda other: other.network in biggest, connection)
        self._connections.add(connection)
        self._per_address[peer] += 1
        self._pending[connection] = None
        return None

    def _places_taken(self, network: str) -> int:
        """Login places `network` holds: connections that said no code, and late answers."""
        now = asyncio.get_running_loop().time()
        owed = [due for due in self._owed.get(network, ()) if due > now]
        if owed:
            self._owed[network] = owed
        else:
            self._owed.pop(network, None)
        silent = sum(1 for other in self._pending if other.network == network and not other.tried)
        return silent + len(owed)

    def owe(self, network: str, late: float) -> None:
        """A wrong code from `network` is answered `late` seconds late: it holds one of the
        network's places until then, even if its connection goes."""
        if len(self._owed) >= self.bounds.throttle.max_addresses:
            del self._owed[next(iter(self._owed))]
        self._owed.setdefault(network, []).append(asyncio.get_running_loop().time() + late)

    def _drop_silent(self, among: Callable[[Connection], bool], newcomer: Connection) -> bool:
        """Drop the oldest connection `among` that has said no code yet; whether there was one."""
        return self._drop_oldest(lambda other: among(other) and not other.tried, newcomer)

    def _drop_oldest(self, among: Callable[[Connection], bool], newcomer: Connection) -> bool:
        oldest = next((other for other in self._pending if among(other)), None)
        if oldest is None:
            return False
        oldest.note(
            "dropped a connection from %s that had not logged in, to let one from %s in",
            oldest.peer,
            newcomer.peer,
        )
        oldest.abort()
        self.forget(oldest)
        return True

    def logged_in(self, connection: Connection) -> None:
        """`connection` has logged in, or left: it no longer counts as logging in."""
        self._pending.pop(connection, None)

    def forget(self, connection: Connection) -> None:
        """`connection` has closed, or been dropped."""
        if connection in self._connections:
            self.logged_in(connection)
            self._connections.discard(connection)
            self._per_address[connection.peer] -= 1
            if self._per_address[connection.peer] <= 0:
                del self._per_address[connection.peer]
