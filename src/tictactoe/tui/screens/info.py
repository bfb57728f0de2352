"""A modal that shows information over the game and closes on its own keys."""

from __future__ import annotations

from typing import ClassVar, Final

from textual import events
from textual.binding import Binding
from textual.screen import ModalScreen

from tictactoe.tui.widgets.too_small import MinimumSize, too_small

__all__ = ["InfoScreen"]

_PASSING_KEYS: Final = frozenset(
    {"up", "down", "left", "right", "pageup", "pagedown", "home", "end", "enter"}
    | {"tab", "shift+tab", "ctrl+q", "ctrl+p"}
)
"""Keys that scroll or move within the screen, or that the app answers anywhere."""


class InfoScreen(MinimumSize, ModalScreen[None]):
    """Closes with its bound keys; any key meant for the game earns a reminder."""

    WHAT: ClassVar[str] = "this screen"
    """What the reminder calls the screen ("the help")."""

    def action_close(self) -> None:
        self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        own = {
            key
            for binding in self.BINDINGS
            if isinstance(binding, Binding)
            for key in binding.key.split(",")
        }
        if event.key not in own and event.key not in _PASSING_KEYS and not too_small(self):
            self.notify(f"The game waits: press Escape to close {self.WHAT} first.", timeout=3)
