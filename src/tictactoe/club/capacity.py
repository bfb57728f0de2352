"""How many players the club's door lets in at once, how many of them guests, and how fast.

Each player's session is a game process of its own, about `PLAYER_MEMORY` of this machine's
memory, so the players at once are what the memory available as the club starts can hold
(`players_for`), less `KEPT_MEMORY` for the club itself and the rest of the machine, never more
than `MOST_PLAYERS` and never fewer than `FEWEST_PLAYERS`; `tictactoe club --max-players N` sets
it instead. Every bound of the door follows from it (`door_bounds`).

Players with keys always find room: guests (keyless logins and browser tabs alike) take at most
`GUEST_SHARE` of the places (`GuestDoor`), one game each, and come in at a pace over the whole
club (`GUESTS_A_SECOND` for each core, in bursts of `GUEST_BURST` for each core), because starting
a game takes a good part of a core for a moment: a flood of guests from many addresses would
otherwise take the CPU a keyed player's login needs. A guest past the pace waits its turn when it
comes within `GUEST_WAIT` seconds, and is refused in one sentence when it would not.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = [
    "FEWEST_PLAYERS",
    "GUESTS_A_SECOND",
    "GUESTS_FULL",
    "GUESTS_WAIT_TOO_LONG",
    "GUEST_BURST",
    "GUEST_SHARE",
    "GUEST_WAIT",
    "KEPT_MEMORY",
    "LOGINS",
    "MOST_PLAYERS",
    "PLAYER_MEMORY",
    "DoorBounds",
    "GuestDoor",
    "Turn",
    "available_memory",
    "door_bounds",
    "guest_places",
    "machine_cores",
    "players_for",
]

MIB: Final = 1024 * 1024

PLAYER_MEMORY: Final = 22 * MIB
"""What one player's session takes (its game, forked from the club's warm parent)."""
KEPT_MEMORY: Final = 256 * MIB
"""Memory left to the club's own process, its warm parent and the rest of the machine."""
MOST_PLAYERS: Final = 500
"""Players at once on any machine, however much memory it has: the most the club has been
tried with (benchmarks/README.md)."""
FEWEST_PLAYERS: Final = 2
"""Players at once on a machine with little memory: one match."""
UNKNOWN_MEMORY_PLAYERS: Final = 64
"""Players at once when the machine does not say how much memory is available (`host`'s bound)."""

GUEST_SHARE: Final = 0.5
"""The part of the places guests may take at once: the rest is kept for players with keys."""
GUESTS_A_SECOND: Final = 1.0
"""New guests a second for each core, past a burst."""
GUEST_BURST: Final = 4
"""New guests let in at once for each core, before the pace."""
GUEST_WAIT: Final = 10.0
"""Seconds a new guest may wait for its turn; past that it is refused."""
LOGINS: Final = 256
"""Connections logging in at once (4 of them from one network, as at `host`'s door): past it the
door drops the oldest silent one from the network with the most, so a flood from fewer than 64
networks at once never drops a newcomer's login."""
TOLD_ROOM: Final = 64
"""Connections besides the players', those logging in and the guests waiting their turn: those
being told why they may not play."""

GUESTS_FULL: Final = "The club is full for guests now: come back with a key, or later."
GUESTS_WAIT_TOO_LONG: Final = (
    "Many guests are coming in just now: try again in a minute, or come with a key."
)


def available_memory(meminfo: Path = Path("/proc/meminfo")) -> int | None:
    """Bytes of memory this machine can give new processes now: Linux's `MemAvailable`, else
    the free pages the system reports; None when neither says."""
    try:
        for line in meminfo.read_text().splitlines():
            name, _, value = line.partition(":")
            if name == "MemAvailable":
                return int(value.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    if sys.platform == "win32":  # a club runs on Linux or macOS
        return None
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError):
        return None


def players_for(available: int | None) -> int:
    """Players at once in a club on a machine with `available` bytes of memory free."""
    if available is None or available < 0:
        return UNKNOWN_MEMORY_PLAYERS
    held = (available - KEPT_MEMORY) // PLAYER_MEMORY
    return max(FEWEST_PLAYERS, min(MOST_PLAYERS, held))


def guest_places(players: int) -> int:
    """Guests at once in a club of `players` places (at least one)."""
    return max(1, math.floor(players * GUEST_SHARE))


@dataclass(frozen=True, slots=True)
class DoorBounds:
    """The SSH door's bounds for a club of `players`."""

    players: int
    """Games open at once: one per session."""
    guests: int
    """Guests at once (keyless logins and browser tabs)."""
    logging_in: int
    """Connections logging in at once."""
    connections: int
    """Connections open at once: the players', those logging in, the guests waiting their
    turn, and those being refused."""


def door_bounds(players: int, cores: int) -> DoorBounds:
    """Every bound of the door that follows from the players at once and the cores."""
    waiting = math.ceil(GUEST_BURST * cores + GUESTS_A_SECOND * cores * GUEST_WAIT)
    connections = players + LOGINS + waiting + TOLD_ROOM
    return DoorBounds(players, guest_places(players), LOGINS, connections)


def machine_cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


@dataclass(frozen=True, slots=True)
class Turn:
    """A new guest's answer: when it comes in, or why it may not."""

    refusal: str | None = None
    """One sentence; None when the guest comes in."""
    wait: float = 0.0
    """Seconds the guest waits for its turn first."""


class GuestDoor:
    """The guests' share of the club's places, and their pace over the whole club."""

    def __init__(
        self,
        places: int | None = None,
        *,
        cores: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from tictactoe.doors.bounds import Bucket  # asyncio: not for the command line's help

        many = cores if cores is not None else machine_cores()
        self.places = places if places is not None else guest_places(MOST_PLAYERS)
        """Guests at once, at most."""
        self.pace = Bucket(GUESTS_A_SECOND * many, GUEST_BURST * many, clock)
        """New guests a second over the whole club, past a burst."""

    def turn(self, guests: int) -> Turn:
        """A new guest asks to come in while `guests` are in or waiting: its turn is taken
        (and it waits for it) unless the guests' places are full, or its turn is too far."""
        if guests >= self.places:
            return Turn(GUESTS_FULL)
        if self.pace.late() > GUEST_WAIT:
            return Turn(GUESTS_WAIT_TOO_LONG)
        return Turn(wait=self.pace.take())
