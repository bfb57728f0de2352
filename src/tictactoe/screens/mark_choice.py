"""The modal before every game: the choosing player picks X or O, or quits."""

from __future__ import annotations

from typing import ClassVar, Final

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from tictactoe.engine import Mark
from tictactoe.widgets.too_small import TooSmall

__all__ = ["MarkChoiceScreen"]

_ANSWERING_KEYS: Final = frozenset(
    {"x", "o", "q", "X", "O", "Q", "tab", "shift+tab", "enter", "space", "left", "right"}
    | {"question_mark", "f1", "ctrl+q", "ctrl+p"}
)
"""Keys this dialog uses itself; any other key earns a reminder."""


class MarkChoiceScreen(ModalScreen[Mark | None]):
    """Asks `name` for a mark. Dismisses with the Mark, or None to quit the game."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "choose('X')", "Take X"),
        Binding("o", "choose('O')", "Take O"),
        Binding("q", "quit_game", "Quit"),
        Binding("question_mark,f1", "app.help", "Help", key_display="?"),
        Binding("left", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
    ]

    def __init__(self, name: str) -> None:
        super().__init__()
        self.chooser = name
        """The name of the player who chooses."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(Content(f"{self.chooser}, choose your mark"), id="question")
            yield Static("The other player gets the other one.", id="explain")
            with Horizontal(id="choices"):
                yield Button("X", id="x", classes="mark -x")
                yield Button("O", id="o", classes="mark -o")
                yield Button("Quit", id="quit", variant="error")
            yield Static("", id="notice")
        yield TooSmall()

    @on(Button.Pressed, "#x")
    def take_x(self) -> None:
        self.action_choose("X")

    @on(Button.Pressed, "#o")
    def take_o(self) -> None:
        self.action_choose("O")

    @on(Button.Pressed, "#quit")
    def action_quit_game(self) -> None:
        self.dismiss(None)

    def action_choose(self, mark: str) -> None:
        self.dismiss(Mark(mark))

    def on_key(self, event: events.Key) -> None:
        if event.key not in _ANSWERING_KEYS:
            self._remind()

    def on_click(self, event: events.Click) -> None:
        if event.widget is self:
            self._remind()

    def _remind(self) -> None:
        """Input meant for the board: say why it does nothing yet."""
        self.query_one("#notice", Static).update(
            "The board waits: press X or O to choose (Q quits)."
        )
