"""How a second key joins a handle: only through a login made with that key, authorised from a
session of the handle.

A public key line proves nothing (anyone can copy another's `.pub` file); signing in with the key
does, since the SSH login checks the client holds its private half. So a signed-in player asks
for a one-time word (`k` in the lobby), and the next login as `HANDLE+WORD` adds the key it signs
in with to the handle, once, within `WORD_LIFETIME`. A key belongs to at most one handle.

Pure: the club's store keeps the words (only their digests) and the keys, and asks these rules.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Final

from tictactoe.core.club import handle_of

__all__ = [
    "KEYS_PER_PLAYER",
    "SEPARATOR",
    "WORD_LIFETIME",
    "KeyRow",
    "WordLogin",
    "key_added",
    "key_elsewhere",
    "new_word",
    "too_many_keys",
    "word_digest",
    "word_login",
    "word_refused",
]

KEYS_PER_PLAYER: Final = 8
"""The most keys one handle may hold."""

WORD_LIFETIME: Final = 600.0
"""Seconds a one-time word is good for: long enough to reach the other machine."""

SEPARATOR: Final = "+"
"""What joins a handle and a one-time word in the login's user name (`alice+k7qm2x9p`): no
handle holds it, and `ssh` passes it as it is."""

_ALPHABET: Final = "abcdefghjkmnpqrstuvwxyz23456789"
"""Letters and digits that cannot be misread for one another (no i, l, o, 0, 1)."""
_LENGTH: Final = 8
"""Characters a word: 31**8, about 8.5 * 10**11 words, each good once for a few minutes."""


@dataclass(frozen=True, slots=True)
class WordLogin:
    """A login that brings a one-time word: the handle it is for, and the word."""

    handle: str
    word: str


@dataclass(frozen=True, slots=True)
class KeyRow:
    """One key of a handle, as the owner sees it."""

    type: str
    fingerprint: str
    added_at: float
    """When it joined the handle (seconds since the epoch)."""


def new_word() -> str:
    """A fresh one-time word, from the system's source of randomness."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(_LENGTH))


def word_digest(word: str) -> str:
    """What the store keeps of a word: its SHA-256, so that reading the store gives no word."""
    return hashlib.sha256(word.strip().lower().encode("ascii", "replace")).hexdigest()


def word_login(user: str) -> WordLogin | None:
    """The handle and word a user name `HANDLE+WORD` brings; None for a user name without the
    separator. BadHandle, in one sentence, when the part before it cannot be a handle."""
    if SEPARATOR not in user:
        return None
    handle, _, word = user.partition(SEPARATOR)
    return WordLogin(handle_of(handle), word.lower())


def word_refused(handle: str) -> str:
    """The sentence for a word that does not let a key join `handle`."""
    return (
        f"That one-time word does not add a key to {handle}: it was used, it ran out, or it was"
        f" mistyped; press k in {handle}'s lobby for a new one."
    )


def key_elsewhere(holder: str) -> str:
    """The sentence for a key that already signs in as another handle, `holder`."""
    return f"This key already signs in as {holder}: a key belongs to one handle."


def too_many_keys(handle: str) -> str:
    return (
        f"{handle} holds {KEYS_PER_PLAYER} keys, the most a handle may: the owner can remove one."
    )


def key_added(fingerprint: str, handle: str) -> str:
    """What the lobby says after a word's login added its key."""
    return (
        f"The key {fingerprint} now signs in as {handle}: from now on, come in as {handle} with it."
    )
