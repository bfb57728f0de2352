"""A modal that shows information over the game and closes on its own keys."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.screen import ModalScreen

from tictactoe.tui.widgets.too_small import MinimumSize, too_small

__all__ = ["InfoScreen"]


class InfoScreen(MinimumSize, ModalScreen[None]):
    """Closes with its bound keys; any key meant for the game earns a reminder."""

    WHAT: ClassVar[str] = "this screen"
    """What the reminder calls the screen ("the help")."""

    def action_close(self) -> None:
        self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        """A key that nothing here answers (no binding of the focused widget, the screen or
        the app): say why the game does not take it yet."""
        if event.key not in self.active_bindings and not too_small(self):
            self.notify(f"The game waits: press Escape to close {self.WHAT} first.", timeout=3)
