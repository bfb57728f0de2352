"""The lifetime statistics screen: a table of every player, most wins first."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from tictactoe.screens.info import InfoScreen
from tictactoe.stats import Stats
from tictactoe.widgets.too_small import TooSmall

__all__ = ["StatsScreen"]


class StatsScreen(InfoScreen):
    """Shows `Stats`; Escape, q or s closes it."""

    WHAT = "the statistics"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,s", "close", "Close"),
    ]

    def __init__(self, stats: Stats, where: str) -> None:
        super().__init__()
        self.stats = stats
        """The statistics on show."""
        self.where = where
        """Where they are kept, in words."""

    def compose(self) -> ComposeResult:
        with Vertical(id="stats", classes="dialog"):
            yield Static("Lifetime statistics", id="stats-title")
            yield DataTable(id="stats-table", cursor_type="row", zebra_stripes=True)
            yield Static(self.where, id="stats-where", markup=False)
        yield TooSmall()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("Player", key="player")
        for heading in ("Matches", "Wins", "Losses", "Draws"):
            table.add_column(heading, key=heading.lower())
        for name, record in self.stats.ranked():
            table.add_row(
                Text(name, no_wrap=True, overflow="ellipsis"),
                *(
                    Text(str(count), justify="right")
                    for count in (record.matches, record.wins, record.losses, record.draws)
                ),
            )
        if not self.stats:
            table.add_row(Text("No matches recorded yet", style="dim"), "", "", "", "")
