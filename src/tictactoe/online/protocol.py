"""The messages between a seat's game process and the authority, as values.

A client (a seat or a watcher) sends `Hello` first, then `Act`, `AskHint` or `Leave`; the
authority answers with `Welcome` or `Denied`, then `State` after every change, `Refused` for
an intent it will not apply, and `Ended` when the series is over. How they travel (versioned
JSON text frames, read strictly) is `tictactoe.online.wire`'s business.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

from tictactoe.core.notices import Notice
from tictactoe.core.rules import CLASSIC, ULTIMATE
from tictactoe.core.series import Intent, Series

__all__ = [
    "OLDER_PROTOCOL",
    "PROTOCOL",
    "VARIANT_VERSIONS",
    "Act",
    "AskHint",
    "Away",
    "ClientMessage",
    "Denied",
    "Ended",
    "Hello",
    "Leave",
    "Refused",
    "ServerMessage",
    "State",
    "Welcome",
]

PROTOCOL: Final = 3
"""The version of these messages; a `Hello` and a `Welcome` carry it as `"v"`."""

OLDER_PROTOCOL: Final = 2
"""The version before this one, which knew classic alone: a game that speaks it is welcomed to a
classic series in its own words, and refused any other."""

VARIANT_VERSIONS: Final = {CLASSIC.name: 1, ULTIMATE.name: 1}
"""The games these messages carry, by name, each with the version of its moves on the wire (a
cell of classic's is 0 to 8; a move of Ultimate's is its board times nine plus its cell, 0 to 80).
A game that plays another version of a variant is another game."""


# Client → authority.


@dataclass(frozen=True, slots=True)
class Hello:
    """The first message of a link: the series' code, the name, and who is asking."""

    code: str
    """The code as typed; the authority normalises it."""
    name: str
    """The name as typed; the authority cleans it."""
    peer: str
    """The remote address the door saw: what wrong codes are counted by, and logged."""
    host_token: str | None = None
    """The secret only the host's own app knows: it claims seat 0."""
    door_key: str | None = None
    """The secret of this hosting that only the doors know (they start every friend's game with
    it): the authority takes a hello, and the address in it, only from the host or a door."""
    variants: tuple[tuple[str, int], ...] = tuple(VARIANT_VERSIONS.items())
    """The games the asking game plays, each with its version (`VARIANT_VERSIONS`): it is
    welcomed only to a series of one of them."""
    protocol: int = PROTOCOL
    """The version of the messages the asking game speaks, which the authority answers in."""

    def plays(self, variant: str) -> bool:
        """Whether the asking game plays `variant` (a name) as these messages carry it."""
        return (variant, VARIANT_VERSIONS.get(variant)) in self.variants


@dataclass(frozen=True, slots=True)
class Act:
    """An intent for the series at `version` (the version of the state it was made on)."""

    version: int
    intent: Intent


@dataclass(frozen=True, slots=True)
class AskHint:
    """The seat to move asks for a hint: the others are told."""


@dataclass(frozen=True, slots=True)
class Leave:
    """The seat leaves: the series ends for everyone. A watcher just goes."""


ClientMessage = Hello | Act | AskHint | Leave
"""What a seat's or a watcher's process sends."""


# Authority → client.


@dataclass(frozen=True, slots=True)
class Welcome:
    """A hello accepted: the link holds a seat (0 = the host, 1 = the guest) or watches."""

    role: Literal["seat", "watcher"]
    seat: int | None = None
    variant: str = CLASSIC.name
    """The game of the series, by name; its version is the one of `VARIANT_VERSIONS`."""
    protocol: int = PROTOCOL
    """The version of the messages the link is answered in: its hello's."""


@dataclass(frozen=True, slots=True)
class Away:
    """A seat whose link dropped, and how long its grace lasts (0 once it is over)."""

    seat: int
    name: str
    seconds_left: float


@dataclass(frozen=True, slots=True)
class State:
    """The series as it stands, for one link: sent after every change."""

    version: int
    """Grows on every change; an `Act` names the version it was made on."""
    series: Series | None
    """None until the guest has joined."""
    names: tuple[str, str | None]
    """The host's name and the guest's (None until the guest has joined)."""
    watchers: int
    away: Away | None
    """A seat whose link dropped: the series is paused while there is one."""
    notice: Notice = field(default_factory=Notice)
    """What this link is told about the last change (a hint asked for, a return), in its
    phrases; the empty notice when there is nothing to tell."""
    answered: int = 0
    """How many of this link's intents and hint requests the authority had answered when it
    sent this state (each is answered by a state or a `Refused`): a seat that gave several at
    once knows which state answers which."""


@dataclass(frozen=True, slots=True)
class Refused:
    """An intent not applied, and why, in a sentence given in its phrases."""

    notice: Notice


@dataclass(frozen=True, slots=True)
class Ended:
    """The series is over (a seat left, the host stopped): why, and the series as it ended."""

    text: str
    series: Series | None = None


@dataclass(frozen=True, slots=True)
class Denied:
    """A hello refused, and why; the link closes after it."""

    text: str
    final: bool = False
    """Whether asking again cannot help (the series has ended or has all the watchers it can
    take; the link did not come through a door): the game that asked ends, saying `text`. Else
    the person may try another name."""


ServerMessage = Welcome | State | Refused | Ended | Denied
"""What the authority sends."""
