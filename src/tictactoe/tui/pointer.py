"""Presses of the pointer on what has just left the screen are dropped.

A widget removed (a panel closed, a dialog's part) stays under the pointer until the next frame
is laid out; Textual's text selection, starting on a press there, looks for the removed widget's
parent and fails, which ended the game. Nothing shown is lost: the press lands on nothing the
player can still see.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App

__all__ = ["on_a_widget_gone"]


def on_a_widget_gone(app: App[Any], event: events.Event) -> bool:
    """Whether `event` presses a button of the pointer on a widget that has left `app`'s screen."""
    if not isinstance(event, events.MouseDown):
        return False
    screen = app.screen
    widget, _ = screen.get_widget_and_offset_at(event.x, event.y)
    return widget is not None and widget is not screen and not widget.is_attached
