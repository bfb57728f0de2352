"""The scoreboard sidebar: both players, their marks and wins, draws, and whose turn it is."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.reactive import var
from textual.widgets import Label, Static

from tictactoe.match import Match

__all__ = ["PlayerCard", "Scoreboard"]


class PlayerCard(Vertical):
    """One player's name, mark and wins; highlighted while it is their turn."""

    def compose(self) -> ComposeResult:
        yield Label(classes="name", markup=False)
        with Horizontal(classes="detail"):
            yield Label(classes="mark")
            yield Label(classes="wins")
            yield Label(classes="level")

    def show(self, match: Match, index: int) -> None:
        """Show player `index` of `match`."""
        player = match.players[index]
        to_move = match.to_move == index
        winner = match.winner == index
        self.update_classes({"-to-move": to_move, "-winner": winner})
        marker = "▶ " if to_move else "★ " if winner else "  "
        self.query_one(".name", Label).update(Content(marker + player.name))
        mark = match.marks[index] if match.marks else None
        mark_label = self.query_one(".mark", Label)
        mark_label.update(Content(f" {mark or '·'} "))
        mark_label.update_classes({"-x": mark == "X", "-o": mark == "O"})
        wins = match.wins[index]
        self.query_one(".wins", Label).update(Content(f" {wins} win{'' if wins == 1 else 's'}"))
        self.query_one(".level", Label).update(
            Content(f" · {player.level}" if player.level else "")
        )


class Scoreboard(Vertical):
    """Renders a `Match`; it never changes one."""

    match: var[Match | None] = var(None, always_update=True)
    """The match on show."""

    def compose(self) -> ComposeResult:
        yield Static("Scoreboard", classes="title")
        yield PlayerCard(id="player-1")
        yield PlayerCard(id="player-2")
        yield Static(id="tally")

    def watch_match(self, match: Match | None) -> None:
        if match is None or not self.is_mounted:
            return
        self.query_one("#player-1", PlayerCard).show(match, 0)
        self.query_one("#player-2", PlayerCard).show(match, 1)
        self.query_one("#tally", Static).update(
            Content(f"Draws    {match.draws}\nPlayed   {match.played}")
        )

    def on_mount(self) -> None:
        self.watch_match(self.match)
