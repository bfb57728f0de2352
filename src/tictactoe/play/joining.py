"""How a seat reaches an online series, for the full-screen seat and the line-by-line one alike.

A friend's seat links to the host's authority over its loopback websocket, with the code and the
doors' key the door carried; the host's seat opens the doors first, and links in this process.
A friend's seat that is given no name in time ends, so a door left open holds no game for long.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from tictactoe.host.hosting import Hosting

__all__ = ["JOIN_WITHIN", "NOBODY_JOINED", "JoinSetup"]

JOIN_WITHIN: Final = 180.0
"""Seconds a friend's game waits for a name before it ends: a door left open with nobody at it
holds no game for long."""

NOBODY_JOINED: Final = "Nobody joined in time: this game has closed. Open the door again to join."


@dataclass(frozen=True, slots=True)
class JoinSetup:
    """How this seat reaches the series."""

    link_url: str = ""
    """The authority's loopback websocket (a friend's seat); empty for the host, whose
    doors are opened by this seat's game."""
    code: str | None = None
    """The series' code, as the door that started this game carried it."""
    door_key: str | None = None
    """The doors' key, as the door that started this game carried it."""
    peer: str = "127.0.0.1"
    """The address the friend came from, as the door saw it (for the throttle and logs)."""
    host: Callable[[str], Awaitable[Hosting]] | None = None
    """For the host: opens the doors for a series hosted under this name."""
