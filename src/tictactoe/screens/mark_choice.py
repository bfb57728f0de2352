"""The dialog before every match: the choosing player picks X or O, or quits."""

from __future__ import annotations

from typing import ClassVar, Final

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from tictactoe.engine import Mark
from tictactoe.names import short
from tictactoe.widgets.too_small import MinimumSize, TooSmall, too_small

__all__ = ["MarkChoiceScreen"]

_PASSING_KEYS: Final = frozenset(
    {"tab", "shift+tab", "left", "right", "enter", "space", "ctrl+q", "ctrl+p"}
)
"""Keys that move between the buttons, press one, or that the app answers anywhere."""

QUESTION_WIDTH: Final = 38
"""Cells the question may take: the name is shortened so that the sentence stays whole."""

REMINDER: Final = "The board waits: press X or O to choose (Q quits)."
"""What the dialog says to input meant for the board."""


class MarkChoiceScreen(MinimumSize, ModalScreen[Mark | None]):
    """Asks `name` for a mark. Dismisses with the Mark, or None to quit the game.

    Its answer keys are priority bindings: they act as they come off the app's queue, so
    keys typed right after them already reach the board, in order.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "choose('X')", "Take X", priority=True),
        Binding("o", "choose('O')", "Take O", priority=True),
        Binding("q", "quit_game", "Quit", priority=True),
        Binding("s", "app.show_record", "Record", priority=True),
        Binding("question_mark,f1", "app.help", "Help", key_display="?", priority=True),
        Binding("left", "app.focus_previous", "Previous button", show=False),
        Binding("right", "app.focus_next", "Next button", show=False),
    ]

    def __init__(self, name: str) -> None:
        super().__init__()
        self.chooser = name
        """The name of the player who chooses."""

    def compose(self) -> ComposeResult:
        ask = ", choose your mark"
        question = short(self.chooser, QUESTION_WIDTH - len(ask)) + ask
        with Vertical(id="dialog", classes="dialog"):
            yield Static(Content(question), id="question")
            yield Static("The other player gets the other one.", id="explain")
            with Horizontal(id="choices"):
                yield Button("X", id="x", classes="mark -x")
                yield Button("O", id="o", classes="mark -o")
                yield Button("Quit", id="quit", variant="error")
            yield Static(id="notice")
        yield Footer()
        yield TooSmall()

    @on(Button.Pressed, "#x")
    def _x(self) -> None:
        self.action_choose("X")

    @on(Button.Pressed, "#o")
    def _o(self) -> None:
        self.action_choose("O")

    @on(Button.Pressed, "#quit")
    def action_quit_game(self) -> None:
        self.dismiss(None)

    def action_choose(self, mark: str) -> None:
        self.dismiss(Mark(mark))

    def on_key(self, event: events.Key) -> None:
        """A key that is not the dialog's: say why it does nothing yet."""
        if event.key not in _PASSING_KEYS and not too_small(self):
            self.query_one("#notice", Static).update(REMINDER)

    def on_click(self, event: events.Click) -> None:
        if event.widget is self:
            self.query_one("#notice", Static).update(REMINDER)
