"""The help screen: every key, from the sibling help.md; at a club, its section first."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Final

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Footer, Markdown

from tictactoe.tui.screens.info import InfoScreen
from tictactoe.tui.widgets.too_small import TooSmall

__all__ = ["CLUB_SECTION", "HelpScreen", "section_first"]

HELP_TEXT: Final = Path(__file__).with_name("help.md")
CLUB_SECTION: Final = "At a club"
"""The section of help.md a player in a club's lobby reads first."""


def section_first(text: str, heading: str) -> str:
    """`text` (Markdown) with its `## heading` section, up to the next `##` or `#` heading, put
    before everything else as a section of its own (`# heading`); `text` as it is without one."""
    lines = text.splitlines(keepends=True)
    start = next((n for n, line in enumerate(lines) if line.strip() == f"## {heading}"), None)
    if start is None:
        return text
    end = next(
        (n for n in range(start + 1, len(lines)) if lines[n].startswith(("# ", "## "))),
        len(lines),
    )
    section = "".join([f"# {heading}\n", *lines[start + 1 : end]]).rstrip("\n")
    return f"{section}\n\n{''.join(lines[:start] + lines[end:])}"


class HelpScreen(InfoScreen):
    """Lists every key of the game; any of Escape, q, ? or F1 closes it, as the key is read
    (a priority binding), so the keys typed after it are the game's."""

    WHAT = "the help"
    # Priority: the keys typed after the closing one are the game's, in order.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "close", "Close", priority=True),
    ]

    def __init__(self, first: str | None = None) -> None:
        super().__init__()
        self.first = first
        """The section shown first (`CLUB_SECTION` in a club's lobby), or None."""

    def compose(self) -> ComposeResult:
        text = HELP_TEXT.read_text(encoding="utf-8")
        if self.first is not None:
            text = section_first(text, self.first)
        with VerticalScroll(id="help", classes="dialog"):
            yield Markdown(text)
        yield Footer()  # its own keys, over the game's (which wait)
        yield TooSmall()
