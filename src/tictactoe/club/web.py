"""The club's web door (`tictactoe club --web-port PORT`): a browser tab is a guest.

It is the browser door `tictactoe host` opens (`tictactoe.doors.web.server.GameServer`: its
admission bounds, its guard against other sites' pages, its bounds on what a tab sends), with no
code to ask for: the club is open. Each tab is let in as a keyless SSH login is (`Club.enter`
with no key): a fresh `guest-…` handle, unrated, not kept, and the club's bound on guests at once
from one network counts tabs and SSH guests alike. The tab's game, a process of its own, runs the
same session as an SSH login's (`tictactoe club-session`: the lobby), with the tab's own secret
in its environment (`CLUB_TOKEN`); when the game ends the club forgets the guest.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Final

from tictactoe.club.lobby import CLUB_TOKEN, Club
from tictactoe.doors.addresses import canonical_host, is_loopback
from tictactoe.doors.ssh.gate import Admission
from tictactoe.doors.web.code_gate import Refusal
from tictactoe.host.hosting import own_addresses

if TYPE_CHECKING:
    from tictactoe.doors.web.server import GameServer

__all__ = ["GuestTabs", "names_this_machine", "open_web_door"]

TAB_USER: Final = "guest"
"""The name a tab comes in under: a guest's, whatever the club then calls it."""


class GuestTabs:
    """The club's answer about each browser tab (`tictactoe.doors.web.server.TabGate`): a guest
    of its own, or the club's sentence why not."""

    def __init__(self, club: Club) -> None:
        self.club = club
        self._admitted: dict[str, Admission] = {}
        """By the tab's secret: what the club let in."""

    async def enter(self, peer: str) -> Mapping[str, str]:
        admission = await self.club.enter(TAB_USER, None, peer)
        if admission.refusal is not None:
            raise Refusal(admission.refusal, 429)
        self._admitted[admission.environment[CLUB_TOKEN]] = admission
        return admission.environment

    def left(self, environment: Mapping[str, str]) -> None:
        admission = self._admitted.pop(environment.get(CLUB_TOKEN, ""), None)
        if admission is not None:
            self.club.left(admission)


def names_this_machine(listen: str | None, names: Sequence[str] = ()) -> Callable[[str], bool]:
    """Whether a request's Host (without its port) names this machine: one of the addresses
    listened on, its own names, or one of the `names` the club is reached by (`--web-name`). A
    page elsewhere whose name was made to point here (DNS rebinding) is refused."""
    given = {canonical_host(name) for name in names}

    def own(host: str) -> bool:
        host = canonical_host(host)
        if is_loopback(host) or host in given:
            return True
        if host in map(canonical_host, own_addresses(listen)):
            return True
        name = socket.gethostname().lower()
        return host in {name, f"{name}.local", socket.getfqdn().lower()}

    return own


async def open_web_door(
    club: Club, listen: str | None, port: int, names: Sequence[str] = ()
) -> GameServer:
    """The club's web door, listening on `listen` (every address when None) at `port`,
    answering to this machine's names and addresses and to `names`."""
    from tictactoe.doors.web.server import GameServer  # textual-serve, when asked

    door = GameServer(
        ("club-session", "--link", club.url),
        host=listen or "0.0.0.0",
        port=port,
        spare=False,
        tab_args=lambda request: ("--peer", request.remote or "?"),
        own_host=names_this_machine(listen, names),
        tab_gate=GuestTabs(club),
    )
    await door.start(listen)
    return door
