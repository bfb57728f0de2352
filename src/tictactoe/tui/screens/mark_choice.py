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

from tictactoe.core.engine import Mark
from tictactoe.core.names import short
from tictactoe.tui.widgets.too_small import MinimumSize, TooSmall, too_small

__all__ = ["MarkChoiceScreen"]

QUESTION_WIDTH: Final = 38
"""Cells the question may take: the name is shortened so that the sentence stays whole."""

REMINDER: Final = "The board waits: press X or O to choose (Q quits)."
"""What the dialog says to input meant for the board."""


_ANSWERS: Final[dict[str | None, Mark | None]] = {"x": Mark.X, "o": Mark.O, "quit": None}
"""What each button answers, by its id."""


class MarkChoiceScreen(MinimumSize, ModalScreen[Mark | None]):
    """Asks `name` for a mark. Dismisses with the Mark, or None to quit the game.

    Its answer keys (Enter and Space on the focused button too) are priority bindings: they act
    as they come off the app's queue, so keys typed right after them already reach the board,
    in order. The dialog answers once: whatever comes after its answer (a button's press still
    on its way, a key of the same burst) is not a second answer, which would close the screen
    under it.
    """

    # Priority: each answers or opens a screen, and the keys typed after it go there, in order.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "choose('X')", "Take X", priority=True),
        Binding("o", "choose('O')", "Take O", priority=True),
        Binding("q", "quit_game", "Quit", priority=True),
        Binding("s", "app.show_record", "Record", priority=True),
        Binding("question_mark,f1", "app.help", "Help", key_display="?", priority=True),
        Binding("enter,space", "press", "Press the focused button", show=False, priority=True),
        Binding("left", "app.focus_previous", "Previous button", show=False),
        Binding("right", "app.focus_next", "Next button", show=False),
    ]

    def __init__(self, name: str) -> None:
        super().__init__()
        self.chooser = name
        """The name of the player who chooses."""
        self.answered = False
        """Whether the dialog has given its answer: it gives no other."""

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

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self._answer(_ANSWERS[event.button.id])

    def action_press(self) -> None:
        """Enter or Space: the focused button's answer, as the key comes off the queue."""
        if isinstance(self.focused, Button) and self.focused.id in _ANSWERS:
            self._answer(_ANSWERS[self.focused.id])

    def action_quit_game(self) -> None:
        self._answer(None)

    def action_choose(self, mark: str) -> None:
        self._answer(Mark(mark))

    def _answer(self, answer: Mark | None) -> None:
        if not self.answered:
            self.answered = True
            self.dismiss(answer)

    def on_key(self, event: events.Key) -> None:
        """A key that nothing here answers (no binding of a button, the dialog or the app):
        say why it does nothing yet."""
        if event.key not in self.active_bindings and not too_small(self):
            self.query_one("#notice", Static).update(REMINDER)

    def on_click(self, event: events.Click) -> None:
        if event.widget is self:
            self.query_one("#notice", Static).update(REMINDER)
