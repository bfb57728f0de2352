"""The status line under the board: whose turn it is, the result, or a short notice."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from tictactoe.names import short
from tictactoe.series import Series

__all__ = ["StatusLine", "describe"]


def describe(series: Series) -> str:
    """The status line for a series as it stands, in words."""
    match, actor = series.match, series.actor
    if match is None:
        chooser = series.players[series.chooser]
        return f"{short(chooser.name)} is choosing a mark…"
    winner = series.winner
    if winner is not None:
        return f"{short(series.players[winner].name)} wins!\nn or Enter: next match · q: quit"
    if actor is None:
        return "It's a draw.\nn or Enter: next match · q: quit"
    player = series.players[actor]
    if player.is_computer:
        return f"{short(player.name)} is thinking…"
    return f"{short(player.name)} ({match.to_move}) to move"


class StatusLine(Static):
    """A notice about the last input when there is one (class `-notice`), else `describe`."""

    def show(self, series: Series, notice: str) -> None:
        """Show `notice`, or the state of `series` when there is none."""
        self.set_class(bool(notice), "-notice")
        self.update(Content(notice or describe(series)))
