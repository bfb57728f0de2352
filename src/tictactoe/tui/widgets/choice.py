"""A radio button whose mark says whether it is chosen without colour: ● chosen, ○ not.

Textual's `RadioButton` draws ● for both and tells them apart by colour alone, which a plain
capture, a screen reader's text or a terminal without colour loses. This one changes only the
mark Textual draws (`BUTTON_INNER`), as its value changes.
"""

from __future__ import annotations

from typing import Any, Final

from textual.widgets import RadioButton

__all__ = ["CHOSEN", "NOT_CHOSEN", "Choice"]

CHOSEN: Final = "●"
NOT_CHOSEN: Final = "○"


class Choice(RadioButton):
    """A `RadioButton` showing ● when chosen and ○ when not."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.BUTTON_INNER = CHOSEN if self.value else NOT_CHOSEN

    def watch_value(self) -> None:
        self.BUTTON_INNER = CHOSEN if self.value else NOT_CHOSEN
        super().watch_value()
