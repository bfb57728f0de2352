"""What a series says of itself as it stands: whose turn it is, who is choosing, the result,
and the keys after a match (slots the view fills, `tictactoe.core.notices`).

Each phrase comes with shorter wordings, a name cut to each of `NAME_WIDTHS`, so that the
status line can fit it at any size the game supports.
"""

from __future__ import annotations

from typing import Final

from tictactoe.core.labels import side_by_side
from tictactoe.core.names import NAME_WIDTH
from tictactoe.core.notices import Notice, Phrase
from tictactoe.core.series import CHOOSING, THINKING, TO_MOVE, Series

__all__ = ["NAME_WIDTHS", "state_notice", "status_notice"]

NAME_WIDTHS: Final = (NAME_WIDTH, 12, 8)
"""The widths a name is cut to, widest first, as the line narrows."""

_AFTER_A_MATCH: Final = Notice(
    (
        Phrase(("{keys}: next match", "{key}: next match", "{key}: next"), "\n", "next_match"),
        Phrase(("{key}: quit",), " · ", "quit"),
    )
)
"""The keys after a match, on a line of their own."""

_STOPS_WATCHING: Final = (
    "Any key ends the series and shows the score.",
    "Any key ends the series.",
    "Any key ends.",
)
"""What a key does while the computer plays itself, on a line of its own."""


def _named(template: str, series: Series, player: int) -> tuple[str, ...]:
    """`template` with the name of `series`' `player` cut to each of `NAME_WIDTHS` (against
    the computer, a person called like it is "Computer (person)": see `side_by_side`)."""
    names = (side_by_side(series.players, width)[player] for width in NAME_WIDTHS)
    return tuple(dict.fromkeys(template.format(name) for name in names))


def state_notice(series: Series) -> Notice:
    """The state of `series` as a notice: who is to choose or to move, or how the match ended
    and the keys for what comes next (while the computer plays itself: what a key does)."""
    if series.computers_only:
        return _playing(series).then(_STOPS_WATCHING)
    return _playing(series)


def status_notice(series: Series, notice: Notice) -> Notice:
    """What the status line says: `notice`, or the state of `series` when there is none; while
    the computer plays itself, what a key does stays under either."""
    if not notice:
        return state_notice(series)
    return notice.then(_STOPS_WATCHING) if series.computers_only else notice


def _playing(series: Series) -> Notice:
    match, actor = series.match, series.actor
    if match is None:
        chooser = series.chooser
        choosing = _named(CHOOSING + "…", series, chooser) + _named("{} chooses…", series, chooser)
        return Notice.of(choosing)
    after = Notice() if series.computers_only else _AFTER_A_MATCH
    winner = series.winner
    if winner is not None:
        return Notice.of(_named("{} wins!", series, winner)) + after
    if actor is None:
        return Notice.of("It's a draw.") + after
    if series.players[actor].is_computer:
        return Notice.of(_named(THINKING + "…", series, actor))
    return Notice.of(_named(TO_MOVE.format(f"{{}} ({match.to_move})"), series, actor))
