"""The club's rules: who a handle is, how a key is told, how a rating moves, who meets whom.

Pure and immutable: the club's store (`tictactoe.record.club`) keeps what these rules decide,
the club's server asks them. A player's identity is a handle (1-20 of `a-z 0-9 _ -`, case
folded, some reserved) bound to the SSH keys that claimed it; a player without a key is a
guest, `guest-…`, unrated and not kept. Ratings are openskill's Plackett-Luce model (a draw is
a tie), shown as one number with its uncertainty.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import re
import string
from collections.abc import Container, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from random import Random
from typing import Final, TypeVar

from openskill.models import PlackettLuce

__all__ = [
    "BOTH_AWAY",
    "CLAIMS_PER_HOUR",
    "GUEST_PREFIX",
    "HANDLE_LENGTH",
    "KEY_TYPES",
    "LEAVING_RULE",
    "RESERVED",
    "START",
    "BadDuration",
    "BadHandle",
    "BadKey",
    "Entry",
    "LadderRow",
    "PlayerRow",
    "PublicKey",
    "Rating",
    "closest",
    "duration_of",
    "guest_handle",
    "handle_of",
    "is_guest",
    "left_text",
    "loses_by_leaving",
    "public_key",
    "rated",
    "until_text",
]

T = TypeVar("T")

HANDLE_LENGTH: Final = 20
"""The longest handle, in characters (all of them ASCII)."""

_HANDLE: Final = re.compile(r"[a-z0-9_-]*", re.ASCII)

GUEST_PREFIX: Final = "guest"
"""Every handle beginning so is a guest's: none can be claimed."""

_GUEST_ALPHABET: Final = string.ascii_lowercase + string.digits
_GUEST_LENGTH: Final = 6
"""Characters after `guest-`: 36**6, about two thousand million handles."""

RESERVED: Final = frozenset(
    {
        "admin",
        "administrator",
        "club",
        "computer",
        "moderator",
        "nobody",
        "owner",
        "root",
        "sysop",
        "system",
    }
)
"""Handles nobody may claim (besides every `guest…`): they would pass for the club's own."""

CLAIMS_PER_HOUR: Final = 5
"""New handles one address may claim in an hour: a stranger cannot take every good name."""


class BadHandle(ValueError):
    """A handle that cannot be claimed; the message is one sentence for the player."""


def handle_of(user: str) -> str:
    """The handle `user` names (lowercase); BadHandle, in one sentence, if it cannot be one.

    Exactly 1-`HANDLE_LENGTH` of ASCII letters, digits, `_` and `-`, in any case, not
    beginning with `-` (`ssh` and the owner's commands would take it for an option); not a
    reserved name, not a guest's.
    """
    if not (user.isascii() and _HANDLE.fullmatch(user.lower())):
        raise BadHandle("A handle is made of the letters a-z, the digits 0-9, _ and -.")
    if not 1 <= len(user) <= HANDLE_LENGTH:
        raise BadHandle(f"A handle is 1 to {HANDLE_LENGTH} characters long.")
    if user.startswith("-"):
        raise BadHandle("A handle begins with a letter, a digit or _: ssh takes - for an option.")
    handle = user.lower()
    if handle in RESERVED or handle.startswith(GUEST_PREFIX):
        raise BadHandle(f"The handle {handle} is reserved; please choose another.")
    return handle


def is_guest(handle: str) -> bool:
    """Whether `handle` is a guest's (unrated, not kept)."""
    return handle.lower().startswith(GUEST_PREFIX)


def guest_handle(rng: Random, taken: Container[str] = ()) -> str:
    """A fresh guest handle, `guest-` and random letters and digits, none of `taken`."""
    while True:
        tail = "".join(rng.choice(_GUEST_ALPHABET) for _ in range(_GUEST_LENGTH))
        handle = f"{GUEST_PREFIX}-{tail}"
        if handle not in taken:
            return handle


# Keys.

KEY_TYPES: Final = frozenset(
    {
        "ssh-ed25519",
        "ssh-rsa",
        "ecdsa-sha2-nistp256",
        "ecdsa-sha2-nistp384",
        "ecdsa-sha2-nistp521",
        "sk-ssh-ed25519@openssh.com",
        "sk-ecdsa-sha2-nistp256@openssh.com",
    }
)
"""The public key types a handle can be claimed with (OpenSSH's names)."""

_KEY_BYTES: Final = 8192
"""The largest key blob accepted (an RSA key of 16384 bits is about 2 KiB)."""


class BadKey(ValueError):
    """Text that is not one OpenSSH public key line; the message is one sentence."""


@dataclass(frozen=True, slots=True)
class PublicKey:
    """A public key as the club keeps it: its type and its base64 blob, no comment."""

    type: str
    data: str
    """The key blob, in base64 as OpenSSH writes it."""

    @property
    def line(self) -> str:
        """The key as one line of `authorized_keys` (without a comment)."""
        return f"{self.type} {self.data}"

    @property
    def fingerprint(self) -> str:
        """`SHA256:` and the unpadded base64 of the blob's SHA-256, as `ssh-keygen -l` prints."""
        digest = hashlib.sha256(base64.b64decode(self.data)).digest()
        return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


def public_key(line: str) -> PublicKey:
    """The key of an OpenSSH public key line ("ssh-ed25519 AAAA… comment"); BadKey if none.

    The blob must be base64 of a key of the type the line names; the comment is dropped.
    """
    parts = line.strip().split(maxsplit=2)
    if len(parts) < 2 or parts[0] not in KEY_TYPES:
        raise BadKey("That is not a public key line: it begins with ssh-ed25519 or ssh-rsa.")
    kind, data = parts[0], parts[1]
    if len(data) > _KEY_BYTES * 4 // 3 + 4:
        raise BadKey("That public key is too long.")
    try:
        blob = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise BadKey("That public key is not written in base64.") from None
    name = kind.encode("ascii")
    if blob[:4] != len(name).to_bytes(4, "big") or blob[4 : 4 + len(name)] != name:
        raise BadKey(f"That public key is not an {kind} key.")
    return PublicKey(kind, base64.b64encode(blob).decode("ascii"))


# Ratings.

_MODEL: Final = PlackettLuce(limit_sigma=True)
"""openskill's Plackett-Luce model with its own defaults (mu 25, sigma 25/3); with
`limit_sigma`, a match never makes a rating less certain."""

_SCALE: Final = 60.0
"""Displayed points per unit of openskill's mu: a beginner shows 1500 ± 500."""

_SHOWN_AT: Final = 1500.0
"""The displayed rating of a beginner (mu 25)."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's skill as openskill holds it: a mean and its uncertainty."""

    mu: float
    sigma: float

    @property
    def shown(self) -> str:
        """One number with its uncertainty, as the ladder shows it: "1512 ± 96"."""
        centre = round(_SHOWN_AT + (self.mu - _MODEL.mu) * _SCALE)
        return f"{centre} ± {round(self.sigma * _SCALE)}"

    @property
    def points(self) -> int:
        """What the ladder sorts by: a rating its player is almost surely above (mu less
        three sigma, on the shown scale); a beginner has 0 and climbs by playing."""
        return round(_SHOWN_AT + (self.mu - 3 * self.sigma - _MODEL.mu) * _SCALE)


START: Final = Rating(_MODEL.mu, _MODEL.sigma)
"""Every new player's rating."""


def rated(a: Rating, b: Rating, winner: int | None) -> tuple[Rating, Rating]:
    """Both ratings after a match between `a` and `b`: `winner` 0 or 1, or None for a draw
    (a tie for openskill)."""
    ranks = [1.0, 1.0] if winner is None else [1.0 + winner, 2.0 - winner]
    first, second = _MODEL.rate(
        [[_MODEL.rating(a.mu, a.sigma)], [_MODEL.rating(b.mu, b.sigma)]], ranks=ranks
    )
    return Rating(first[0].mu, first[0].sigma), Rating(second[0].mu, second[0].sigma)


def moves_ratings(table_rated: bool, handles: tuple[str, str], computer: bool) -> bool:
    """Whether a finished match moves its players' ratings: played at a rated table by two
    different members (no guest), neither seat the computer. The store also needs both handles
    held by players before it rates them."""
    first, second = handles
    return (
        table_rated
        and first != second
        and not is_guest(first)
        and not is_guest(second)
        and not computer
    )


def closest(mine: Rating, waiting: Sequence[tuple[T, Rating]]) -> T | None:
    """Quick pair: the one of `waiting` whose rating is nearest `mine` (the first of equals,
    so the longest waiting when they are in the order they came); None when nobody waits."""
    best: T | None = None
    distance = math.inf
    for who, rating in waiting:
        gap = abs(rating.mu - mine.mu)
        if gap < distance:
            best, distance = who, gap
    return best


# Leaving a match.

LEAVING_RULE: Final = "leaving after both have moved loses"
"""What a club table's screen says of the leaving rule before it applies (`loses_by_leaving`):
every club match keeps it, rated or not."""


def loses_by_leaving(moves: int, over: bool) -> bool:
    """Whether a player who leaves a club match now (`q`, a closed `ssh`, a ban, the grace
    running out) loses it: once both players have moved in a match still in play (`moves` made
    so far). Before that the match is aborted, and nothing is written."""
    return not over and moves >= 2


def left_text(leaver: str, winner: str, lost: bool) -> str:
    """What both players' lobbies are told when `leaver` left a match against `winner`."""
    if lost:
        return f"{leaver} left the match after both had moved: it counts as {winner}'s win."
    return f"{leaver} left before both had moved: the match was aborted, nothing recorded."


BOTH_AWAY: Final = "Both players stayed away past the grace: the match was aborted."


# What the store answers.


@dataclass(frozen=True, slots=True)
class Entry:
    """Who came in at the door: the handle they play as, and whether they may."""

    handle: str
    guest: bool
    rating: Rating
    refusal: str | None = None
    """Why they may not come in, in one sentence; None when they may."""
    said: str | None = None
    """What their lobby says first (a key their login has just added to the handle)."""


@dataclass(frozen=True, slots=True)
class LadderRow:
    """One line of the ladder: only players with a rated match have one."""

    rank: int
    handle: str
    rating: Rating
    matches: int
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True, slots=True)
class PlayerRow:
    """One player as the owner sees them."""

    handle: str
    fingerprints: tuple[str, ...]
    """`SHA256:…` of each key that may sign in as the handle, oldest first."""
    last_seen: float
    """When they last came in (seconds since the epoch)."""


# Bans.


class BadDuration(ValueError):
    """A ban's length that cannot be read; the message is one sentence."""


_UNITS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION: Final = re.compile(r"(\d{1,9})([smhdw])", re.ASCII)


def duration_of(text: str) -> float:
    """Seconds in a length such as `30m`, `1h`, `2d` or `1w` (s, m, h, d, w); BadDuration."""
    found = _DURATION.fullmatch(text.strip().lower())
    if found is None or int(found[1]) == 0:
        raise BadDuration(
            f"{text!r} is not a length of time: give a number and a unit, such as 30m, 1h or 2d."
        )
    return float(int(found[1]) * _UNITS[found[2]])


def until_text(until: float) -> str:
    """When a ban ends, in words: "until 2026-11-28 14:05 UTC", or "for ever"."""
    if math.isinf(until):
        return "for ever"
    return "until " + datetime.fromtimestamp(until, UTC).strftime("%Y-%m-%d %H:%M UTC")
