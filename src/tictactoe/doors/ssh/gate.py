"""Who comes in at a door where the SSH user name is a name and the key says who (the club).

With a `Gate`, the door (`tictactoe.doors.ssh.door.SshDoor`) takes any public key the client
offers (asyncssh checks the signature) and a login without a key (keyboard-interactive with no
prompt), and asks the gate, once the login is over, what the person is: an `Admission`. A
refusal is said in one sentence when the session starts, and no game starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["Admission", "Gate"]


@dataclass(frozen=True, slots=True)
class Admission:
    """What the gate decided about one logged-in connection."""

    name: str
    """Who the connection is (a handle): the session's `SessionInfo.code`."""
    refusal: str | None = None
    """One sentence saying why no game starts; None to let the connection play."""
    environment: Mapping[str, str] = field(default_factory=dict)
    """Added to the environment of each game the connection's sessions start (its secrets)."""


class Gate(Protocol):
    """What the door asks about a connection once its login is over, and tells when it goes."""

    def enter(self, user: str, key: str | None, peer: str) -> Admission:
        """The connection of `user` from `peer` logged in with the public key `key` (an
        OpenSSH public key line), or without one (None)."""

    def left(self, admission: Admission) -> None:
        """The connection admitted as `admission` has closed."""
