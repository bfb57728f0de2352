"""The help screen: every key, from the sibling help.md."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Final

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Footer, Markdown

from tictactoe.tui.screens.info import InfoScreen
from tictactoe.tui.widgets.too_small import TooSmall

__all__ = ["HelpScreen"]

HELP_TEXT: Final = Path(__file__).with_name("help.md")


class HelpScreen(InfoScreen):
    """Lists every key of the game; any of Escape, q, ? or F1 closes it, as the key is read
    (a priority binding), so the keys typed after it are the game's."""

    WHAT = "the help"
    # Priority: the keys typed after the closing one are the game's, in order.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "close", "Close", priority=True),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help", classes="dialog"):
            yield Markdown(HELP_TEXT.read_text(encoding="utf-8"))
        yield Footer()  # its own keys, over the game's (which wait)
        yield TooSmall()
