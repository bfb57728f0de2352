"""The scoreboard sidebar: both players, their marks and wins, draws, and whose turn it is."""

from __future__ import annotations

from typing import Final, NamedTuple

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import var
from textual.widgets import Static

from tictactoe.core.series import Series

__all__ = ["Card", "PlayerCard", "Scoreboard"]

_MARK_STYLE: Final[dict[str | None, str]] = {"X": "$text-accent", "O": "$text-primary"}


class Card(NamedTuple):
    """What one player's card shows."""

    name: str
    mark: str | None
    wins: int
    level: str | None
    to_move: bool
    """Highlighted: it is this player's turn."""
    winner: bool
    """Highlighted: this player won the match on show."""

    @classmethod
    def of(cls, series: Series, index: int) -> Card:
        player = series.players[index]
        return cls(
            name=player.name,
            mark=str(series.marks[index]) if series.marks else None,
            wins=series.wins[index],
            level=str(player.level) if player.level else None,
            to_move=series.to_move == index,
            winner=series.winner == index,
        )

    @property
    def content(self) -> Content:
        """The card's two lines: the name, then the mark, the wins and the level."""
        marker = "▶ " if self.to_move else "★ " if self.winner else "  "
        return Content.assemble(
            (marker + self.name, "bold"),
            "\n",
            (f" {self.mark or '·'} ", f"bold {_MARK_STYLE.get(self.mark, '')} on $boost"),
            f" {self.wins} win{'' if self.wins == 1 else 's'}",
            (f" · {self.level}" if self.level else "", "$text-muted"),
        )


class PlayerCard(Static):
    """One player's card; `-to-move` and `-winner` classes highlight it (app.tcss)."""

    card: var[Card | None] = var(None)
    """What the card shows."""

    def watch_card(self, card: Card | None) -> None:
        if card is None:
            return
        self.update(card.content, layout=False)  # two lines, in a height app.tcss sets
        self.update_classes({"-to-move": card.to_move, "-winner": card.winner})


class Scoreboard(Vertical):
    """Renders a `Series`; it never changes one."""

    series: var[Series | None] = var(None)
    """The series on show."""

    def compose(self) -> ComposeResult:
        yield Static("Scoreboard", id="score-title")
        yield PlayerCard(id="player-1", classes="card")
        yield PlayerCard(id="player-2", classes="card")
        yield Static(id="tally")

    def watch_series(self, series: Series | None) -> None:
        if series is None or not self.is_mounted:
            return
        for index in (0, 1):
            self.query_one(f"#player-{index + 1}", PlayerCard).card = Card.of(series, index)
        tally = self.query_one("#tally", Static)
        counts = f"Draws    {series.draws}\nPlayed   {series.played}"
        if tally.content != counts:  # they change once a match: two lines, in a height
            tally.update(Content(counts), layout=False)  # app.tcss sets, so no layout

    def on_mount(self) -> None:
        self.watch_series(self.series)

    def card(self, index: int) -> Card | None:
        """What player `index`'s card shows (None before a series is set)."""
        return self.query_one(f"#player-{index + 1}", PlayerCard).card
