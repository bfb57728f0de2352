"""Who comes in at a door where the SSH user name is a name and the key says who (the club).

With a `Gate`, the door (`tictactoe.doors.ssh.door.SshDoor`) asks the gate about each public key
the client offers (`Gate.fits`): a key that cannot be this name's (another key's name, a banned
key) is declined, so that the client offers its next one; a key that fits is taken (asyncssh
checks the client holds it). A login without a key (keyboard-interactive with no prompt) is taken
too. Once the login is over the door asks the gate what the person is (`Gate.enter`): an
`Admission`. A refusal is said in one sentence when the session starts, and no game starts; when
every key offered was declined, that sentence is the last key's refusal. A name no key can
log in as (`NameRefused`) takes the first key offered, to be told so the same way.

The gate's answers may take a while (a record on disk): they are coroutines, and the door's
other connections go on meanwhile.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["Admission", "Gate", "NameRefused"]


class NameRefused(str):
    """A refusal of `Gate.fits` that no key can change: the user name itself cannot log in (it
    is no handle). The door takes the key offered, so that the client logs in whatever methods
    it may fall back on, and says the refusal once the login is over, as any other: not only
    the client's "Permission denied"."""


@dataclass(frozen=True, slots=True)
class Admission:
    """What the gate decided about one logged-in connection."""

    name: str
    """Who the connection is (a handle): the session's `SessionInfo.code`."""
    refusal: str | None = None
    """One sentence saying why no game starts; None to let the connection play."""
    environment: Mapping[str, str] = field(default_factory=dict)
    """Added to the environment of each game the connection's sessions start (its secrets)."""
    games: int | None = None
    """The most games the connection may have open at once; None: as many as the door lets one
    connection open (a guest has one: the guests' share of the door counts connections)."""


class Gate(Protocol):
    """What the door asks about a connection's keys and, once its login is over, who it is;
    and what it tells the gate when the connection goes."""

    async def fits(self, user: str, key: str, peer: str) -> str | None:
        """Why the public key `key` (an OpenSSH public key line) offered by `peer` cannot log in
        as `user`, in one sentence; None when it may (asked before the client proves it holds
        the key: nothing is decided or kept here)."""

    async def enter(self, user: str, key: str | None, peer: str) -> Admission:
        """The connection of `user` from `peer` logged in with the public key `key` (an
        OpenSSH public key line), or without one (None)."""

    def left(self, admission: Admission) -> None:
        """The connection admitted as `admission` has closed."""
