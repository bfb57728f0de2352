"""The scoreboard sidebar: both players, their marks and wins, draws, and whose turn it is."""

from __future__ import annotations

from typing import Final

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import var
from textual.widgets import Static

from tictactoe.series import Series

__all__ = ["PlayerCard", "Scoreboard"]


class PlayerCard(Static):
    """One player's name, mark and wins; highlighted while it is their turn.

    A single widget drawing two styled lines: restyling it on every turn is cheap.
    """

    DEFAULT_CSS = """
    PlayerCard {
        height: 4;
        padding: 0 1;
        margin-bottom: 1;
        border: round $panel-lighten-2;
        text-wrap: nowrap;
        text-overflow: ellipsis;

        &.-to-move {
            border: heavy $secondary;
            background: $secondary 15%;
        }
        &.-winner {
            border: double $success;
            background: $success 15%;
        }
    }
    """

    def show(self, series: Series, index: int) -> None:
        """Show player `index` of `series`."""
        player = series.players[index]
        to_move = series.to_move == index
        winner = series.winner == index
        self.update_classes({"-to-move": to_move, "-winner": winner})
        marker = "▶ " if to_move else "★ " if winner else "  "
        mark = series.marks[index] if series.marks else None
        wins = series.wins[index]
        content = Content.assemble(
            (marker + player.name, "bold"),
            "\n",
            (f" {mark or '·'} ", f"bold {_MARK_STYLE.get(mark, '')} on $boost"),
            f" {wins} win{'' if wins == 1 else 's'}",
            (f" · {player.level}" if player.level else "", "$text-muted"),
        )
        if self.content != content:
            self.update(content, layout=False)  # always two lines: no new layout


_MARK_STYLE: Final[dict[str | None, str]] = {"X": "$text-accent", "O": "$text-primary"}


def _show(label: Static, text: str) -> None:
    """Put `text` (literally) in a label of fixed size, repainting only if it changed."""
    content = Content(text)
    if label.content != content:
        label.update(content, layout=False)


class Scoreboard(Vertical):
    """Renders a `Series`; it never changes one."""

    DEFAULT_CSS = """
    Scoreboard {
        height: auto;

        .title {
            text-style: bold;
            color: $text-muted;
            margin-bottom: 1;
        }
        #tally {
            height: 2;
            margin-top: 1;
            color: $text-muted;
        }
    }
    """

    series: var[Series | None] = var(None, always_update=True)
    """The series on show."""

    def compose(self) -> ComposeResult:
        yield Static("Scoreboard", classes="title")
        yield PlayerCard(id="player-1")
        yield PlayerCard(id="player-2")
        yield Static(id="tally")

    def watch_series(self, series: Series | None) -> None:
        if series is None or not self.is_mounted:
            return
        self.query_one("#player-1", PlayerCard).show(series, 0)
        self.query_one("#player-2", PlayerCard).show(series, 1)
        _show(
            self.query_one("#tally", Static), f"Draws    {series.draws}\nPlayed   {series.played}"
        )

    def on_mount(self) -> None:
        self.watch_series(self.series)
