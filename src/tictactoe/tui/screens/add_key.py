"""The dialog that shows a player signed in at the club how to add another key (`k` in the lobby):
the one-time word the club gave, as the line to type on the machine that holds the other key.

A key is the player's because they sign in with it: there is nothing to paste here.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from tictactoe.core.key_words import SEPARATOR
from tictactoe.online.lobby import KeyWord
from tictactoe.tui.widgets.too_small import MinimumSize, TooSmall

__all__ = ["AddKeyScreen", "login_line"]


def login_line(word: KeyWord) -> str:
    """The command that comes in once with the word: "ssh -p 2222 alice+k7qm2x9p@HOST"."""
    port = "" if word.port is None or word.port == 22 else f"-p {word.port} "
    return f"ssh {port}{word.login}@HOST"


class AddKeyScreen(MinimumSize, ModalScreen[None]):
    """Shows the one-time word `word` as the line to type. Escape, Enter or Done close it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", priority=True),
    ]

    def __init__(self, word: KeyWord) -> None:
        super().__init__()
        self.word = word
        self.answered = False

    def compose(self) -> ComposeResult:
        handle = self.word.login.partition(SEPARATOR)[0]
        with Vertical(id="key-dialog", classes="dialog"):
            yield Static(Text(f"Add a key to {handle}"), id="key-title")
            yield Static(
                Text(
                    f"On the machine that holds the other key, within {self.word.minutes}"
                    f" minutes, come in once as {self.word.login} (HOST: this club's address):"
                ),
                id="key-explain",
            )
            yield Static(Text(login_line(self.word)), id="key-line")
            yield Static(
                Text(
                    f"That login adds the key it signs in with to {handle}; the word works once."
                    " A key is yours because you sign in with it: a pasted public key adds"
                    " nothing."
                ),
                id="key-notice",
            )
            with Horizontal(id="key-buttons"):
                yield Button("Done", id="done", variant="primary")
        yield Footer()
        yield TooSmall()

    def on_mount(self) -> None:
        self.query_one("#done", Button).focus()

    @on(Button.Pressed, "#done")
    def action_close(self) -> None:
        if not self.answered:
            self.answered = True
            self.dismiss(None)
