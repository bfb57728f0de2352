"""The dialog where a player signed in at the club pastes another public key (`k` in the lobby):
its line is handed to the club, whose answer the lobby shows."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Static

from tictactoe.online.lobby import MAX_KEY_LINE
from tictactoe.tui.widgets.too_small import MinimumSize, TooSmall

__all__ = ["AddKeyScreen"]


class AddKeyScreen(MinimumSize, ModalScreen[str | None]):
    """Asks for a public key line for `handle`. Dismisses with the line (Enter, Add), or None
    (Escape, Cancel)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", priority=True),
    ]

    def __init__(self, handle: str) -> None:
        super().__init__()
        self.handle = handle
        """Whose key it is."""
        self.answered = False

    def compose(self) -> ComposeResult:
        with Vertical(id="key-dialog", classes="dialog"):
            yield Static(Text(f"Add a key to {self.handle}"), id="key-title")
            yield Static(
                Text(
                    "Paste the line of your other public key (the .pub file, "
                    f'"ssh-ed25519 AAAA…"): it will sign in as {self.handle} too.'
                ),
                id="key-explain",
            )
            yield Input(
                placeholder="ssh-ed25519 AAAA…",
                max_length=MAX_KEY_LINE,
                id="key-line",
                select_on_focus=False,
            )
            yield Static(id="key-notice", markup=False)
            with Horizontal(id="key-buttons"):
                yield Button("Add", id="add", variant="primary")
                yield Button("Cancel", id="cancel")
        yield Footer()
        yield TooSmall()

    def on_mount(self) -> None:
        self.query_one("#key-line", Input).focus()

    @on(Input.Submitted, "#key-line")
    @on(Button.Pressed, "#add")
    def _add(self) -> None:
        line = self.query_one("#key-line", Input).value.strip()
        if not line:
            self.query_one("#key-notice", Static).update("Paste a public key line first.")
            return
        self._answer(line)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self._answer(None)

    def _answer(self, answer: str | None) -> None:
        if not self.answered:
            self.answered = True
            self.dismiss(answer)
