"""The checks of the command line's values, one for each kind (a port, a number of seconds, a
pace, a length of time, a relay...): each turns the text into its value or refuses it in
words, for argparse to say."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from tictactoe.club.capacity import FEWEST_PLAYERS
from tictactoe.online.authority import MAX_WATCHERS

if TYPE_CHECKING:
    from tictactoe.doors.relay_target import RelayTarget

__all__ = [
    "GRACE_MOST",
    "MOST_PLAYERS_ASKED",
    "delay",
    "grace",
    "length",
    "pace",
    "players",
    "port",
    "port_option",
    "relay",
    "watchers",
]

GRACE_MOST = 3600.0
"""The longest grace a dropped player may be given, in seconds: an hour."""
MOST_PLAYERS_ASKED = 100_000
"""The most players a club may be asked to have room for."""

Number = TypeVar("Number", int, float)


def _between(
    convert: Callable[[str], Number], low: Number, high: Number, *, not_one: str, outside: str
) -> Callable[[str], Number]:
    """A check of a number from `low` to `high`: `not_one` ends the sentence refusing text
    that is no number ("is not a port number"), `outside` is the one refusing any other."""

    def check(text: str) -> Number:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} {not_one}") from None
        if not low <= value <= high:  # NaN is neither
            raise argparse.ArgumentTypeError(outside)
        return value

    return check


port = _between(
    int,
    0,
    65535,
    not_one="is not a port number",
    outside="a port is a number from 1 to 65535 (0: any free one)",
)
"""A port to listen on, 0 for any free one."""
delay = _between(
    float,
    0.0,
    10.0,
    not_one="is not a number of seconds",
    outside="the delay must be between 0 and 10 seconds",
)
"""How long the computer appears to think."""
grace = _between(
    float,
    0.0,
    GRACE_MOST,
    not_one="is not a number of seconds",
    outside=f"the grace must be between 0 and {GRACE_MOST:.0f} seconds",
)
"""How long a dropped player has to come back."""
watchers = _between(
    int,
    0,
    MAX_WATCHERS,
    not_one="is not a whole number",
    outside=f"the watchers must be between 0 and {MAX_WATCHERS}",
)
"""How many may watch a hosted series at once."""
pace = _between(
    float,
    1.0,
    100_000.0,
    not_one="is not a number",
    outside="a pace is from 1 to 100000 lobby changes a second",
)
"""The most lobby changes a club sends a second."""
players = _between(
    int,
    FEWEST_PLAYERS,
    MOST_PLAYERS_ASKED,
    not_one="is not a number of players",
    outside=f"a club has room for {FEWEST_PLAYERS} players or more",
)
"""How many players a club has room for at once."""


def length(text: str) -> float:
    """A length of time such as 30m, 1h or 2d, in seconds."""
    from tictactoe.core.club import BadDuration, duration_of  # the ratings' library: late

    try:
        return duration_of(text)
    except BadDuration as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def relay(text: str) -> RelayTarget:
    """An SSH server to relay through, USER@HOST[:PORT]."""
    from tictactoe.doors.relay_target import parse_relay

    try:
        return parse_relay(text)
    except ValueError as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None


def port_option(
    add_argument: Callable[..., argparse.Action], flag: str, default: int | None, words: str
) -> None:
    """Adds the port option `flag` (checked by `port`; 0 asks for any free one), its help
    `words`, with `add_argument` (a parser's or a group's)."""
    add_argument(flag, type=port, default=default, metavar="PORT", help=words)
