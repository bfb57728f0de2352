"""A screen dismissed once: a second dismissal while the first is under way does nothing.

Textual's `Screen.dismiss` pops whatever screen is on top, whichever screen asks. A dialog that
input reaches twice before it has gone (two clicks in one read on the command palette's
background, a key and a click on a dialog's button) took the screen under it away too: the game
without its footer, or no screen at all and the game ended.
"""

from __future__ import annotations

from typing import Any

from textual.await_complete import AwaitComplete
from textual.command import CommandPalette
from textual.screen import Screen

__all__ = ["DismissedOnce", "Palette"]


class DismissedOnce:
    """For a screen: `dismiss` acts only while the screen is the one on top (the first dismissal
    pops it at once, so input still queued for it closes nothing else)."""

    def dismiss(self, result: Any = None) -> AwaitComplete:
        assert isinstance(self, Screen)
        if not self.is_active:
            return AwaitComplete()  # nothing to wait for
        return Screen.dismiss(self, result)


class Palette(DismissedOnce, CommandPalette):
    """Textual's command palette, dismissed once (it closes on a click on its background)."""
