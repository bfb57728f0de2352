"""One of a club player's recent matches replayed (Enter on it in the lobby), on the record
screen's own replay (`ReplayPane`, which draws the match's game), from the start as the
record's: ←/→ step, Home/End jump, Escape or q goes back. It says whether the match was rated,
and its game."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Footer, Static

from tictactoe.core.rules import VARIANTS
from tictactoe.online.lobby import PastMatch
from tictactoe.tui.screens.info import InfoScreen
from tictactoe.tui.screens.replay import ReplayPane
from tictactoe.tui.widgets.too_small import TooSmall

__all__ = ["PastMatchScreen"]


class PastMatchScreen(InfoScreen):
    """Replays `past`, a match of the player's at the club."""

    WHAT = "the replay"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Back", key_display="←", priority=True),
        Binding("right", "step(1)", "Next", key_display="→", priority=True),
        Binding("home", "first", "Start", show=False, priority=True),
        Binding("end", "last", "End", show=False, priority=True),
        Binding("escape,q", "close", "Close", priority=True),
    ]

    def __init__(self, past: PastMatch) -> None:
        super().__init__()
        self.past = past

    def compose(self) -> ComposeResult:
        kind = "A rated match" if self.past.rated else "An unrated match"
        game = VARIANTS[self.past.match.variant].title
        with Vertical(id="past", classes="dialog"):
            yield Static(Text(f"{kind} at the club · {game}"), id="past-kind")
            yield ReplayPane()
        yield Footer()
        yield TooSmall()

    async def on_mount(self) -> None:
        await self.query_one(ReplayPane).show(self.past.match, from_start=True)  # as it was played

    async def action_step(self, moves: int) -> None:
        await self.query_one(ReplayPane).run_action(f"step({moves})")

    async def action_first(self) -> None:
        await self.query_one(ReplayPane).run_action("first")

    async def action_last(self) -> None:
        await self.query_one(ReplayPane).run_action("last")
