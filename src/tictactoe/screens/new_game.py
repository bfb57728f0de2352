"""The first screen: both names and the opponent, then Start."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, RadioButton, RadioSet, Static

from tictactoe.ai import Level
from tictactoe.match import COMPUTER_NAME, DEFAULT_NAMES, FirstMove, Match, NameClash, Player
from tictactoe.widgets.too_small import TooSmall

__all__ = ["NewGameScreen"]

_OPPONENTS: dict[str, Level | None] = {
    "vs-person": None,
    "vs-easy": Level.EASY,
    "vs-medium": Level.MEDIUM,
    "vs-hard": Level.HARD,
}


class NewGameScreen(Screen[Match]):
    """Collects the players; dismisses with a new `Match` once the names are valid."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", "Start"),
    ]

    def __init__(self, first_move: FirstMove = FirstMove.CHOOSER) -> None:
        super().__init__()
        self.first_move = first_move
        """The first-move rule the match will use."""

    def compose(self) -> ComposeResult:
        with Vertical(id="new-game"):
            yield Static("Tic-tac-toe", id="new-title")
            yield Static("Three in a row wins. Who is playing?", id="new-subtitle")
            with Horizontal(classes="field"):
                yield Label("Player 1", classes="field-label")
                yield Input(
                    placeholder=DEFAULT_NAMES[0], id="name-1", max_length=60, select_on_focus=False
                )
            with Horizontal(classes="field"):
                yield Label("Player 2", classes="field-label")
                yield Input(
                    placeholder=DEFAULT_NAMES[1], id="name-2", max_length=60, select_on_focus=False
                )
            yield Label("Opponent", id="opponent-label")
            with RadioSet(id="opponent"):
                yield RadioButton("Another person (hot seat)", id="vs-person", value=True)
                yield RadioButton("Computer: easy", id="vs-easy")
                yield RadioButton("Computer: medium", id="vs-medium")
                yield RadioButton("Computer: hard", id="vs-hard")
            yield Static("", id="new-error")
            yield Button("Start", id="start", variant="primary")
        yield Footer()
        yield TooSmall()

    @property
    def level(self) -> Level | None:
        """The computer's level chosen, or None for a person."""
        pressed = self.query_one("#opponent", RadioSet).pressed_button
        return _OPPONENTS.get(pressed.id or "") if pressed else None

    @on(RadioSet.Changed)
    def opponent_changed(self) -> None:
        second = self.query_one("#name-2", Input)
        second.disabled = self.level is not None
        second.placeholder = COMPUTER_NAME if self.level else DEFAULT_NAMES[1]

    @on(Input.Submitted)
    @on(Button.Pressed, "#start")
    def action_start(self) -> None:
        level = self.level
        first = self.query_one("#name-1", Input).value
        second: Player | str = self.query_one("#name-2", Input).value
        if level is not None:
            second = Player(COMPUTER_NAME, level)
        try:
            match = Match.new(first, second, first_move=self.first_move)
        except NameClash as clash:
            self.query_one("#new-error", Static).update(Content(f"{clash}."))
            self.query_one("#name-2" if level is None else "#name-1", Input).focus()
            return
        self.dismiss(match)
