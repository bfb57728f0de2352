"""Who is in the club, and their lobby links: each logged-in connection (`Member`), each of its
lobby websockets with the news waiting for it (`Lobby`), and all of them by secret (`Members`).

A lobby's news waits in a bounded queue (`OUTBOX`): a lobby that does not read is closed, never
a reason for the club to hold memory or wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

from aiohttp import web

from tictactoe.doors.bounds import printable
from tictactoe.doors.throttle import Throttle
from tictactoe.online.lobby import LobbyNews, PastMatch, Said, You

__all__ = ["OUTBOX", "Lobby", "Member", "Members", "Own"]

log = logging.getLogger("tictactoe.online")

OUTBOX: Final = 16
"""Messages waiting for a lobby that does not read them; past this, it is closed."""

Own = tuple[You, tuple[PastMatch, ...]]
"""What a lobby shows of its player alone (`Publisher.own_part`)."""


@dataclass(eq=False)
class Member:
    """One logged-in connection: who it is, and its lobbies."""

    handle: str
    guest: bool
    peer: str
    lobbies: set[Lobby] = field(default_factory=set)
    said: str | None = None
    """What its first lobby is told once it opens (the key its login added, a guest's welcome)."""

    @property
    def network(self) -> str:
        """Whom the club's bounds count the member as (`Throttle.network`)."""
        return Throttle.network(self.peer)


@dataclass(eq=False)
class Lobby:
    """One lobby websocket, and what it is owed."""

    member: Member
    ws: web.WebSocketResponse
    outbox: asyncio.Queue[LobbyNews | None] = field(
        default_factory=lambda: asyncio.Queue(maxsize=OUTBOX + 2)
    )
    stale: bool = False
    """A snapshot is owed (sent with what is true when it goes)."""
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    closing: bool = False
    shown: str = ""
    """The last snapshot sent, as sent: one the same is not sent again (a move at a table, or
    an arrival, changes nothing most lobbies show)."""
    own: Own | None = None
    """What the last snapshot sent showed of the player alone: a change in it is sent at once,
    others' changes in turn (`Publisher.pace`)."""
    due: asyncio.TimerHandle | None = None
    """The wake-up at this lobby's turn, for the snapshot it is owed."""
    turn: bool = False
    """Its turn has come: the snapshot owed goes."""

    def send(self, news: LobbyNews) -> None:
        """Queue `news`; a lobby too far behind is closed (a word among many is left out)."""
        if self.closing:
            return
        if isinstance(news, Said) and self.outbox.qsize() >= OUTBOX // 2:
            return  # a word among many already waiting: left out, never a reason to close
        try:
            self.outbox.put_nowait(news)
        except asyncio.QueueFull:
            self.close()
            return
        if self.outbox.qsize() > OUTBOX:
            log.warning("closed the lobby of %s: it does not read", self.member.handle)
            self.close()
        self.wake.set()

    def close(self) -> None:
        """The lobby's writer sends what waits, then closes it."""
        if not self.closing:
            self.closing = True
            with contextlib.suppress(asyncio.QueueFull):
                self.outbox.put_nowait(None)
            self.wake.set()

    def owed(self) -> None:
        """A snapshot is owed: it goes, soon."""
        self.stale = True
        self.wake.set()

    def take_turn(self) -> None:
        """This lobby's turn has come: the snapshot it is owed goes."""
        self.due = None
        self.turn = True
        self.wake.set()


class Members:
    """The members of the club, by the secret each was given."""

    def __init__(self) -> None:
        self.by_token: dict[str, Member] = {}

    def __iter__(self) -> Iterator[Member]:
        return iter(list(self.by_token.values()))

    def lobbies(self) -> Iterator[Lobby]:
        """Every lobby open now."""
        for member in self:
            yield from list(member.lobbies)

    def online(self, handle: str) -> bool:
        """Whether a session of `handle` is logged in."""
        return any(member.handle == handle for member in self)

    def present(self, handle: str) -> bool:
        """Whether `handle` has a lobby open."""
        return any(member.handle == handle and member.lobbies for member in self)

    def tell(self, handle: str, text: str) -> None:
        """Say `text` in every lobby of `handle`'s."""
        for lobby in self.lobbies():
            if lobby.member.handle == handle:
                lobby.send(Said(printable(text, 200)))
