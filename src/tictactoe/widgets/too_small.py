"""The line shown instead of a garbled screen while the terminal is too small."""

from __future__ import annotations

from typing import Final

from textual.widgets import Static

__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "TooSmall"]

MIN_WIDTH: Final = 50
MIN_HEIGHT: Final = 16


class TooSmall(Static):
    """Hidden until the screen is below the minimum size; then it is all that shows.

    Every screen yields one; the app's breakpoints set the classes that reveal it
    (see app.tcss), so the game underneath stays intact and returns as it was.
    """

    DEFAULT_CSS = """
    TooSmall {
        display: none;
    }
    """

    def __init__(self) -> None:
        super().__init__(f"Enlarge the terminal to {MIN_WIDTH}×{MIN_HEIGHT}", markup=False)
