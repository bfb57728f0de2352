"""The lifetime statistics screen: a table of every player, most wins first."""

from __future__ import annotations

from typing import ClassVar, Final

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from tictactoe.stats import Stats
from tictactoe.widgets.too_small import TooSmall

_OWN_KEYS: Final = frozenset(
    {
        "escape",
        "q",
        "s",
        "left",
        "right",
        "enter",
        "up",
        "down",
        "pageup",
        "pagedown",
        "home",
        "end",
        "tab",
        "shift+tab",
    }
    | {"ctrl+q", "ctrl+p"}
)
"""Keys this screen (or the app) answers; any other earns a reminder."""

__all__ = ["StatsScreen"]


class StatsScreen(ModalScreen[None]):
    """Shows `Stats`; Escape, q or s closes it."""

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
        with Vertical(id="stats"):
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

    def action_close(self) -> None:
        self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        if event.key not in _OWN_KEYS:
            self.notify("The game waits: press Escape to close the statistics first.", timeout=3)
