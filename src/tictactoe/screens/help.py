"""The help screen: every key, from the sibling help.md."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Final

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from tictactoe.widgets.too_small import TooSmall

_OWN_KEYS: Final = frozenset(
    {
        "escape",
        "q",
        "question_mark",
        "f1",
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

__all__ = ["HelpScreen"]

HELP_TEXT: Final = Path(__file__).with_name("help.md")


class HelpScreen(ModalScreen[None]):
    """Lists every key of the game; any of Escape, q, ? or F1 closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "close", "Close"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Markdown(HELP_TEXT.read_text(encoding="utf-8"))
        yield TooSmall()

    def action_close(self) -> None:
        self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        if event.key not in _OWN_KEYS:
            self.notify("The game waits: press Escape to close the help first.", timeout=3)
