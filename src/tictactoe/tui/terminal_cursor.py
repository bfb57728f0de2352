"""The terminal's own cursor shown on the board's cursor cell, when the player asks for it.

The board always stands the terminal's cursor on its cursor cell (`Board.place_terminal_cursor`),
but Textual keeps that cursor hidden. A player who follows it with a magnifier asks to see it
(`--show-cursor`, or the command palette, remembered in the settings): it shows while the board
has the keys, and hides under a dialog or on another screen, where it would stand on nothing.
"""

from __future__ import annotations

from typing import Any

from textual.app import App

from tictactoe.adapters.terminal_cursor import show_terminal_cursor
from tictactoe.tui.widgets.board import Board

__all__ = ["TerminalCursor"]


class TerminalCursor:
    """Whether the terminal's cursor is wanted, and showing it exactly while the board has the
    keys. `update` is called whenever the focus or the screen may have changed."""

    def __init__(self, app: App[Any], *, wanted: bool) -> None:
        self._app = app
        self.wanted = wanted
        """Whether the player asked to see the terminal's cursor."""
        self.shown = False
        """Whether the terminal's cursor is shown now."""

    def update(self, *_: object) -> None:
        """Show the cursor if it is wanted and the board has the keys; hide it otherwise. The
        board stands it on its cursor cell again: a screen shown over it (the palette's field)
        moved it, and the board keeps the focus it had, so it is not told by a focus of its own."""
        board = self._app.focused
        if isinstance(board, Board):
            board.call_after_refresh(board.place_terminal_cursor)
        shown = self.wanted and isinstance(board, Board)
        if shown != self.shown:
            self.shown = shown
            show_terminal_cursor(self._app, shown)

    def toggle(self) -> bool:
        """Want the cursor if it was not wanted, and the other way round; whether it is now."""
        self.wanted = not self.wanted
        self.update()
        return self.wanted

    def told(self) -> str:
        """What the player is told of the cursor as it is wanted now."""
        if self.wanted:
            return "The terminal's cursor now shows on the board's cursor cell."
        return "The terminal's cursor is hidden again."
