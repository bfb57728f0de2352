"""Whether a series could have been reached by play: the check a series received whole passes.

A series that arrives from elsewhere (the authority's state on a friend's machine, an intent's
series on the host's) is only ever taken once the core has said that `Series.new` and legal
steps lead to it: names as the core keeps them, the chooser taking turns, each match begun by
the rule of the series, the score counted from the finished matches, every match of the series'
game. A match itself is a position of that game, which only legal moves can make.
"""

from __future__ import annotations

from tictactoe.core.engine import IllegalMove, Mark
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.rules import Position, Variant
from tictactoe.core.series import FirstMove, Series, SeriesError

__all__ = ["Unreachable", "check_reachable"]


class Unreachable(SeriesError):
    """A series that no play from `Series.new` leads to; the message says what gives it away."""


def check_reachable(series: Series) -> Series:
    """`series` itself when play could have reached it, else `Unreachable` saying why."""
    first, second = series.players
    variant = series.variant.name
    try:
        start = Series.new(first, second, series.first_move, series.opens, series.variant)
    except SeriesError as error:
        raise Unreachable(f"players: {error}") from None
    if start.players != series.players:
        raise Unreachable("players: a name is not as the core keeps it")
    for index, done in enumerate(series.finished):
        _check_marks(done.marks)
        final = _final(series.variant, done)
        if done != FinishedMatch.of(series.players, final, done.marks, variant=variant):
            raise Unreachable("a finished match is not as its moves say")
        _check_first(series, final.first, done.marks, chooser=(series.opens + index) % 2)
    winners = [done.winner for done in series.finished]
    if series.wins != (winners.count(0), winners.count(1)):
        raise Unreachable("wins do not match the finished matches")
    if series.draws != winners.count(None):
        raise Unreachable("draws do not match the finished matches")
    marks, match = series.marks, series.match
    if (marks is None) != (match is None):
        raise Unreachable("marks and match go together")
    over = match is not None and match.is_over
    if series.chooser != (series.opens + len(series.finished) - over) % 2:
        raise Unreachable("chooser out of turn")
    if marks is not None and match is not None:
        _check_marks(marks)
        _check_first(series, match.first, marks, chooser=series.chooser)
        last = FinishedMatch.of(series.players, match, marks, variant=variant)
        if over and series.finished[-1:] != (last,):
            raise Unreachable("a finished match is missing from finished")
    return series


def _final(variant: Variant, done: FinishedMatch) -> Position:
    """The position a finished match of a series of `variant` ended at: every move legal, and
    over."""
    try:
        final = variant.replay(done.moves, done.marks[done.first_mover])
    except IllegalMove:
        raise Unreachable("a finished match has a move its game does not allow") from None
    if not final.is_over:
        raise Unreachable("a finished match is not over")
    return final


def _check_marks(marks: tuple[Mark, Mark]) -> None:
    if marks[0] is marks[1]:
        raise Unreachable("both players hold one mark")


def _check_first(series: Series, first: Mark, marks: tuple[Mark, Mark], chooser: int) -> None:
    """`first`, the mark that began a match whose chooser was `chooser`, is one that the
    series' rule lets begin it."""
    if first not in series.first_move.firsts(marks[chooser]):
        who = "the chooser" if series.first_move is FirstMove.CHOOSER else "X"
        raise Unreachable(f"{who} did not move first")
