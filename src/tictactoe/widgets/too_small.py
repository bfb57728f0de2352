"""The line shown instead of a garbled screen while the terminal is too small."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from textual.widgets import Static

if TYPE_CHECKING:
    from textual.screen import Screen

__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "TooSmall", "too_small"]

MIN_WIDTH: Final = 50
MIN_HEIGHT: Final = 16


def too_small(screen: Screen[Any]) -> bool:
    """Whether `screen` is below the minimum size (the app's breakpoints say so)."""
    return screen.has_class("-too-narrow") or screen.has_class("-too-short")


class TooSmall(Static):
    """Hidden until the screen is below the minimum size; then it is all that shows.

    The app's breakpoints give the screen the classes that reveal it (see app.tcss), so
    what is underneath stays intact and returns as it was. Every screen yields one last.
    """

    def __init__(self) -> None:
        super().__init__(f"Enlarge the terminal to {MIN_WIDTH}×{MIN_HEIGHT}", markup=False)
