"""The club's rules at its tables: who may sit where, who quick pair seats whom, which tables are
rated, who chooses first in a rematch. (Leaving a match is `tictactoe.core.club`'s
`loses_by_leaving`.)

Pure: the club's tables room (`tictactoe.club.tables`) asks these, and keeps what they decide.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, TypeVar

from tictactoe.core.club import Rating, closest

__all__ = [
    "NOT_OPEN",
    "WAITING_ALREADY",
    "Waiting",
    "pair_with",
    "rated_table",
    "rematch_opens",
    "sit_refusal",
]

T = TypeVar("T")

NOT_OPEN: Final = "That table is not open any more."
WAITING_ALREADY: Final = "You are waiting at your own table already (c takes it back)."

Waiting = tuple[T, Rating, bool]
"""A table someone waits at, for quick pair: the table, its opener's rating, whether rated."""


def rated_table(asked: bool, *guests: bool) -> bool:
    """Whether a table is rated: asked so, and every player at it has a handle (a guest's
    matches are unrated, and a guest sitting makes the table unrated)."""
    return asked and not any(guests)


def sit_refusal(handle: str, opener: str, kept_for: str | None) -> str | None:
    """Why `handle` may not sit at the open table of `opener` (kept for `kept_for` when it is a
    rematch), or None when they may."""
    if opener == handle:
        return "That is your own table: wait there for someone to sit."
    if kept_for not in (None, handle):
        return f"That table is kept for {kept_for}: a rematch."
    return None


def pair_with(mine: Rating, guest: bool, waiting: Sequence[Waiting[T]]) -> tuple[T | None, bool]:
    """Quick pair: the waiting table to sit at, and whether a player with a handle is seated at
    an unrated one (to be told so). Rated tables first for a player with a handle, unrated ones
    for a guest, then the closest rating; None when nobody waits."""
    alike = closest(mine, [(table, rating) for table, rating, rated in waiting if rated != guest])
    if alike is not None:
        return alike, False
    other = closest(mine, [(table, rating) for table, rating, _rated in waiting])
    return other, other is not None and not guest


def rematch_opens(chose_first: str, offerer: str) -> int:
    """Which seat of a rematch's table (0: the offerer's) chooses the first mark: whoever did not
    choose first last time (`chose_first`)."""
    return 1 if chose_first == offerer else 0
