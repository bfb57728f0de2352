"""Textual hides the terminal's cursor for good and has no way to show it; drop when it has one.

Textual moves the terminal's cursor where `App.cursor_position` says, after each frame, but its
drivers hide it as they start (`ESC [ ? 25 l`) and only show it again as they stop. A magnifier
or a braille display follows that cursor, so a player may ask to see it (`--show-cursor`, or
the command palette): this writes the terminal's show and hide sequences through the app's
driver.

Private part of Textual relied on (pinned by `tests/unit/test_adapters_contract.py`): the app's
driver, `App._driver`, and that its `write` reaches the terminal.
"""

from __future__ import annotations

from typing import Any, Final

from textual.app import App

__all__ = ["show_terminal_cursor"]

SHOW: Final = "\x1b[?25h"
HIDE: Final = "\x1b[?25l"


def show_terminal_cursor(app: App[Any], shown: bool) -> None:
    """Show (or hide again) the terminal's cursor, where Textual keeps it; nothing without a
    terminal (a test's headless app)."""
    driver = app._driver
    if driver is not None and not app.is_headless:
        driver.write(SHOW if shown else HIDE)
        driver.flush()
