"""A row of the record in full, over the record screen: the names its tables shorten."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Static

from tictactoe.tui.screens.info import InfoScreen
from tictactoe.tui.widgets.too_small import TooSmall

__all__ = ["DetailsScreen"]


class DetailsScreen(InfoScreen):
    """Shows `fields` under `title`, each a heading and its value in full (names are user
    text: shown literally, wrapped, never cut). Escape, q, i or Enter closes it."""

    WHAT = "the details"
    # Priority: the keys typed after the closing one are the record's, in order.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,i,enter", "close", "Close", key_display="esc", priority=True),
    ]

    def __init__(self, title: str, fields: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        """What the dialog shows: "Player" or "Match"."""
        self.fields = tuple(fields)
        """The headings and values, in the order of the table's columns."""

    def compose(self) -> ComposeResult:
        with Vertical(id="details", classes="dialog"):
            yield Static(self.title_text, id="details-title", markup=False)
            for heading, value in self.fields:
                with Horizontal(classes="detail"):
                    yield Static(heading, classes="detail-heading", markup=False)
                    yield Static(value, classes="detail-value", markup=False)
            yield Static("Escape closes.", id="details-hint", markup=False)
        yield Footer()  # its own key, over the record's (which wait)
        yield TooSmall()
