"""The rules of a series played from seats, as online: what a seat, a watcher and a pause allow.

Online, one series is shared by two seats (0 the host's, 1 the guest's) and any watchers.
The series' own rules decide every intent for the seat that gives it (`Series.apply_as`);
on top of them, here: a watcher only watches, nothing moves while a seat is away, moves are
final, and a hint is for the mover's own turn. The authority asks these before it applies
an intent, and a seat's screen asks them before it sends one, so both say the same words;
and while a seat is away, what the others read about it is worded here too.
"""

from __future__ import annotations

import random
from typing import Final

from tictactoe.core.names import short
from tictactoe.core.notices import Notice
from tictactoe.core.series import Intent, NotYourTurn, Series, SeriesError, Undo

__all__ = [
    "HOST_SEAT",
    "MovesAreFinal",
    "Paused",
    "Watching",
    "act",
    "acting_seat",
    "away_notice",
    "check_hint",
    "chooses_now",
]

HOST_SEAT: Final = 0
"""The host's seat; the guest's is 1."""


class Watching(SeriesError):
    """Something asked of a watcher's screen: only the two seats act."""

    def __init__(self) -> None:
        super().__init__("You are watching:", "only the players move.")


class Paused(SeriesError):
    """Anything asked while a seat is away: the series waits for it."""

    def __init__(self, away: str) -> None:
        super().__init__("The series is paused:", f"waiting for {short(away)}.")
        self.away = away
        """The name of the seat that is away."""


class MovesAreFinal(SeriesError):
    """A move taken back online, where the other player has seen it made."""

    def __init__(self) -> None:
        super().__init__("Moves are final online.")


def act(
    series: Series,
    seat: int | None,
    intent: Intent,
    *,
    away: str | None = None,
    rng: random.Random | None = None,
) -> Series:
    """The series after `intent` from `seat` (None: a watcher) while the seat named `away`
    is away (None: nobody is), or a `SeriesError` saying why not."""
    player = acting_seat(seat, away=away)
    if isinstance(intent, Undo):
        raise MovesAreFinal
    return series.apply_as(player, intent, rng)


def check_hint(series: Series, seat: int | None, *, away: str | None = None) -> None:
    """Refuse, with a `SeriesError` saying why, a hint that `seat` may not ask for now: a
    hint is for the mover, on their own turn (the other seat is told it was asked for)."""
    player = acting_seat(seat, away=away)
    mover = series.to_move
    if mover is None:
        series.hint()  # refused by the core, with its reason: nobody is to move
    elif mover != player:
        raise NotYourTurn(f"It is {short(series.players[mover].name)}'s turn.")


def chooses_now(series: Series, seat: int | None, *, away: str | None = None) -> bool:
    """Whether `seat` is to choose a mark now (its screen asks): the chooser, unless the
    series is paused."""
    return away is None and series.person_choosing is not None and series.chooser == seat


def away_notice(away: str, seconds_left: float, *, seat: int | None) -> Notice:
    """What `seat` (None: a watcher) reads while the seat named `away` is away, with
    `seconds_left` of its grace (as the authority counts it)."""
    name = short(away)
    if seconds_left > 0:
        minutes, seconds = divmod(int(seconds_left + 0.999), 60)
        waiting = f"Waiting for {name} to come back"
        dropped = Notice.of(f"{name}'s connection dropped.")
        return dropped.then((f"{waiting} ({minutes}:{seconds:02d}).", f"{waiting}."))
    gone = Notice.of(f"{name} has not come back.")
    if seat == HOST_SEAT:
        return gone + Notice.keyed(
            "quit", "Keep waiting, or press {keys} to end the series.", joiner="\n"
        )
    return gone.then("The host may end the series.")


def acting_seat(seat: int | None, *, away: str | None = None) -> int:
    """`seat`, when it may act at all now; else a `SeriesError` saying why: a watcher never
    acts, and nobody does while the seat named `away` is away."""
    if seat is None:
        raise Watching
    if away is not None:
        raise Paused(away)
    return seat
