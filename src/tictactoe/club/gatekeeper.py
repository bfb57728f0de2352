"""Who comes into the club (`Gatekeeper`): what the SSH door and the web door ask of it (a
`tictactoe.doors.ssh.gate.Gate`).

The club's record decides from the handle and the key (`ClubStore.enter`); a player let in gets a
secret of its own (`CLUB_TOKEN`, in its game's environment), which its game shows the lobby to be
known. Guests are bounded: at most `GUESTS_PER_NETWORK` at once from one network, and the
guests' share of the club's places, at their pace (`tictactoe.club.capacity.GuestDoor`).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import Final

from tictactoe.club.bounds import GUESTS_PER_NETWORK, TOO_MANY_GUESTS
from tictactoe.club.capacity import GuestDoor
from tictactoe.club.guidance import guest_welcome
from tictactoe.club.lobbies import Member, Members
from tictactoe.club.names import about_the_name
from tictactoe.core.club import Entry, Rating, is_guest
from tictactoe.doors.bounds import printable
from tictactoe.doors.ssh.gate import Admission
from tictactoe.doors.throttle import Throttle
from tictactoe.record.club_store import ClubStore

__all__ = ["CLUB_TOKEN", "Gatekeeper"]

CLUB_TOKEN: Final = "TICTACTOE_CLUB_TOKEN"
"""The variable that carries a player's secret to the game the door starts for them."""


class Gatekeeper:
    """Lets players in as the record decides, and keeps them in `members` while they are in."""

    def __init__(
        self,
        record: ClubStore,
        members: Members,
        *,
        clock: Callable[[], float],
        rated: Callable[[str, Rating], None],
    ) -> None:
        self.record = record
        self.members = members
        self.clock = clock
        self.rated = rated
        """Told the rating of each player let in, as the record read it."""
        self.guest_door = GuestDoor()
        """The guests' share of the club's places and their pace (`tictactoe.club.capacity`)."""
        self.ssh_port: int | None = None
        """The port players come in at, for the lines the club tells them to type."""
        self._guests_entering: dict[str, int] = {}
        """By network: guests whose entry the record is making."""

    async def fits(self, user: str, key: str, peer: str) -> str | None:
        refusal = await asyncio.to_thread(self.record.would_refuse, user, key, peer, self.clock())
        return about_the_name(user, refusal)  # a name no key can have is said to any client

    async def enter(self, user: str, key: str | None, peer: str) -> Admission:
        guest = key is None or is_guest(user)
        network = Throttle.network(peer)
        if guest:
            entering = self._guests_entering.get(network, 0)
            here = sum(1 for m in self.members if m.guest and m.network == network)
            if entering + here >= GUESTS_PER_NETWORK:
                return Admission(printable(user, 40), refusal=TOO_MANY_GUESTS)
            # The guests' share of the club's places, and their pace (`club.capacity`).
            guests = sum(m.guest for m in self.members)
            turn = self.guest_door.turn(guests + sum(self._guests_entering.values()))
            if turn.refusal is not None:
                return Admission(printable(user, 40), refusal=turn.refusal)
            self._guests_entering[network] = entering + 1
        try:
            if guest and turn.wait:
                await asyncio.sleep(turn.wait)
            entry = await asyncio.to_thread(self._enter, user, key, peer)
        finally:
            if guest:
                self._guests_entering[network] -= 1
                if not self._guests_entering[network]:
                    del self._guests_entering[network]
        if entry.refusal is not None:
            return Admission(printable(user, 40), refusal=entry.refusal)
        token = secrets.token_urlsafe(24)
        said = guest_welcome(user, self.ssh_port) if entry.guest and key is None else entry.said
        self.members.by_token[token] = Member(entry.handle, entry.guest, peer, said=said)
        self.rated(entry.handle, entry.rating)
        games = 1 if entry.guest else None  # a guest's one game counts in the guests' share
        return Admission(entry.handle, environment={CLUB_TOKEN: token}, games=games)

    def _enter(self, user: str, key: str | None, peer: str) -> Entry:
        """The record's entry (in a thread): a guest's handle is none of those in the club."""
        online = {member.handle for member in self.members}
        return self.record.enter(user, key, peer, self.clock(), taken=online)

    def left(self, admission: Admission) -> Member | None:
        """The connection admitted as `admission` has closed: the member it was, if any."""
        token = admission.environment.get(CLUB_TOKEN)
        return self.members.by_token.pop(token, None) if token is not None else None
