"""The line shown instead of a garbled screen while the terminal is too small."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from textual.widgets import Static

if TYPE_CHECKING:
    from textual.geometry import Size
    from textual.screen import Screen

__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "TooSmall"]

MIN_WIDTH: Final = 50
MIN_HEIGHT: Final = 16


class TooSmall(Static):
    """Hidden until the screen is below the minimum size; then it is all that shows.

    The app's breakpoints give the screen the classes that reveal it (see app.tcss), so
    the game underneath stays intact and returns as it was. A screen has one only from
    the first time the terminal is too small (`for_screen`, `mount_on`): most sessions
    never need it, and each widget costs the first frame its share.
    """

    DEFAULT_CSS = """
    TooSmall {
        display: none;
    }
    """

    def __init__(self) -> None:
        super().__init__(f"Enlarge the terminal to {MIN_WIDTH}×{MIN_HEIGHT}", markup=False)

    @staticmethod
    def needed(size: Size) -> bool:
        """Whether a screen of `size` is below the minimum."""
        return size.width < MIN_WIDTH or size.height < MIN_HEIGHT

    @classmethod
    def for_screen(cls, screen: Screen[Any]) -> Iterator[TooSmall]:
        """What a screen's `compose` yields last: the line, if the terminal is too small now."""
        if cls.needed(screen.app.size):
            yield cls()

    @classmethod
    def mount_on(cls, screen: Screen[Any], size: Size) -> None:
        """Called from a screen's `on_resize`, with the new size: the line is mounted the
        first time the screen is too small (Textual's own handler then gives the screen
        the classes that reveal it)."""
        if cls.needed(size) and not screen.query_children(TooSmall):
            screen.mount(cls())
