"""The line shown instead of a garbled screen while the terminal is too small."""

from __future__ import annotations

from typing import Any, Final
from weakref import WeakKeyDictionary

from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from tictactoe.tui.dismissal import DismissedOnce

__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "TOO_SMALL", "MinimumSize", "TooSmall", "too_small"]

MIN_WIDTH: Final = 50
MIN_HEIGHT: Final = 16
TOO_SMALL: Final = f"Enlarge to {MIN_WIDTH}×{MIN_HEIGHT}"
"""The one line shown below the minimum size: short, so that the size shows at 20x6."""


def too_small(screen: Screen[Any]) -> bool:
    """Whether `screen` is below the minimum size (the app's breakpoints say so)."""
    return screen.has_class("-too-narrow") or screen.has_class("-too-short")


def _below(size: Size) -> bool:
    """Whether a terminal of `size` is below the minimum size (as the breakpoints will say)."""
    return size.width < MIN_WIDTH or size.height < MIN_HEIGHT


class TooSmall(Static):
    """Hidden until the screen is below the minimum size; then it is all that shows.

    The app's breakpoints give the screen the classes that reveal it (see app.tcss), so
    what is underneath stays intact and returns as it was. Every screen yields one last.
    """

    def __init__(self) -> None:
        super().__init__(TOO_SMALL, markup=False)


class MinimumSize(DismissedOnce):
    """For a screen: below the minimum size its keys do nothing, and the focus that hiding
    its widgets took away comes back once the terminal is large enough again. Every screen of
    the game takes it, and with it `DismissedOnce`: it is dismissed once."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Below the minimum size only the "enlarge" line shows: the keys do nothing."""
        assert isinstance(self, Screen)
        return not too_small(self)

    def on_resize(self) -> None:
        assert isinstance(self, Screen)
        small = _below(self.app.size)  # the terminal's new size (the screen's is set after)
        if small != _SMALL.get(self, False):  # the footer's keys: none below, all above
            _SMALL[self] = small
            self.refresh_bindings()
        if too_small(self):
            if self.focused is not None:
                _FOCUSED[self] = self.focused
            return
        widget = _FOCUSED.pop(self, None)
        if widget is not None and self.focused is None:
            self.call_after_refresh(_refocus, widget)


_FOCUSED: WeakKeyDictionary[Screen[Any], Widget] = WeakKeyDictionary()
"""The focused widget of each screen made too small, to give the focus back to."""
_SMALL: WeakKeyDictionary[Screen[Any], bool] = WeakKeyDictionary()
"""Whether each screen's footer was last made below the minimum size: its keys are asked for
again (a footer made again, 2 of 6 times as the lobby comes up) only when that changes."""


def _refocus(widget: Widget) -> None:
    if widget.is_attached and widget.screen.focused is None:
        widget.focus()
