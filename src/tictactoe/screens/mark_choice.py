"""The dialog before every match: the choosing player picks X or O, or quits."""

from __future__ import annotations

from typing import ClassVar, Final

from rich.console import RenderableType
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from tictactoe.engine import Mark
from tictactoe.names import short
from tictactoe.screens.backdrop import dimmed
from tictactoe.screens.sizing import size_classes, skip_echoed_resize
from tictactoe.widgets.button import Button
from tictactoe.widgets.drawn import KeptHorizontal, KeptVertical
from tictactoe.widgets.too_small import TooSmall

__all__ = ["MarkChoiceScreen"]

_PASSING_KEYS: Final = frozenset(
    {"tab", "shift+tab", "enter", "space", "left", "right", "ctrl+q", "ctrl+p"}
)
"""Keys that move between the buttons, press one, or that the app answers anywhere."""

QUESTION_WIDTH: Final = 38
"""Cells the question may take: the name is shortened so that the sentence stays whole."""


class MarkChoiceScreen(ModalScreen[Mark | None]):
    """Asks `name` for a mark. Dismisses with the Mark, or None to quit the game.

    Its answer keys are priority bindings: they act the moment they arrive, so keys
    typed right after them already reach the board, in order.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "choose('X')", "Take X", priority=True),
        Binding("o", "choose('O')", "Take O", priority=True),
        Binding("q", "quit_game", "Quit", priority=True),
        Binding("question_mark,f1", "app.help", "Help", key_display="?"),
        Binding("left", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
    ]

    def __init__(self, name: str) -> None:
        super().__init__(classes=size_classes(self.app))
        self.chooser = name
        """The name of the player who chooses."""

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        if self.stack_updates == 0:
            # As for the game screen: every widget here was styled as it mounted,
            # moments before; Textual's restyle of all of them on top finds nothing new.
            event.refresh_styles = False

    def on_resize(self, event: events.Resize) -> None:
        TooSmall.mount_on(self, event.size)
        skip_echoed_resize(self, event)

    def render(self) -> RenderableType:
        return dimmed(super().render())

    def compose(self) -> ComposeResult:
        ask = ", choose your mark"
        question = short(self.chooser, QUESTION_WIDTH - len(ask)) + ask
        with KeptVertical(id="dialog", classes="dialog"):
            yield Static(Content(question), id="question")
            yield Static("The other player gets the other one.", id="explain")
            with KeptHorizontal(id="choices"):
                yield Button("X", id="x", classes="mark -x", action="screen.choose('X')")
                yield Button("O", id="o", classes="mark -o", action="screen.choose('O')")
                yield Button("Quit", id="quit", variant="error", action="screen.quit_game")
        yield from TooSmall.for_screen(self)

    def action_quit_game(self) -> None:
        self.dismiss(None)

    def action_choose(self, mark: str) -> None:
        self.dismiss(Mark(mark))

    def reminder(self) -> str:
        """What to press, from the bindings: "press X or O to choose (Q quits)"."""
        keys = {
            binding.action: binding.key.upper()
            for binding in self.BINDINGS
            if isinstance(binding, Binding) and binding.priority
        }
        take_x, take_o, leave = keys["choose('X')"], keys["choose('O')"], keys["quit_game"]
        return f"The board waits: press {take_x} or {take_o} to choose ({leave} quits)."

    def on_key(self, event: events.Key) -> None:
        own = {
            key.strip()
            for binding in self.BINDINGS
            if isinstance(binding, Binding)
            for key in binding.key.split(",")
        }
        if event.key not in own and event.key.lower() not in own and event.key not in _PASSING_KEYS:
            self._remind()

    def on_click(self, event: events.Click) -> None:
        if event.widget is self:
            self._remind()

    def _remind(self) -> None:
        """Input meant for the board: say why it does nothing yet, under the buttons (the
        line is made the first time it is needed, as most dialogs never show it)."""
        notices = self.query("#notice").results(Static)
        notice = next(notices, None)
        if notice is None:
            dialog = self.query_one("#dialog")
            dialog.add_class("-noticed")  # the notice takes the line kept for it
            dialog.mount(Static(self.reminder(), id="notice"))
        else:
            notice.update(self.reminder())
