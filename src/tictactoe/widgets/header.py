"""Textual's header, keeping its lines."""

from __future__ import annotations

from textual import widgets

from tictactoe.widgets.drawn import KeptLines

__all__ = ["Header"]


class Header(widgets.Header, KeptLines):
    """The same header, drawn the same. Textual asks it for its lines on every frame of
    its screen, wherever the change was: it keeps them (`KeptLines`) until it changes."""
