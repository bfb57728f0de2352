"""The size classes a screen carries from the moment it is made."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App
from textual.screen import Screen

__all__ = ["size_classes", "skip_echoed_resize"]


def size_classes(app: App[Any]) -> str:
    """The app's breakpoint classes for its size now, such as "-wide -tall".

    Textual adds these classes when a new screen first learns its size, after its first
    layout, and then restyles every widget on it and lays it out again. A screen made
    with them (`super().__init__(classes=size_classes(self.app))`) finds nothing to
    change, and is drawn one layout sooner.
    """
    width, height = app.size
    found = []
    for breakpoints, dimension in (
        (app.HORIZONTAL_BREAKPOINTS or [], width),
        (app.VERTICAL_BREAKPOINTS or [], height),
    ):
        for breakpoint, name in sorted(breakpoints, reverse=True):
            if dimension >= breakpoint:
                found.append(name)
                break
    return " ".join(found)


def skip_echoed_resize(screen: Screen[Any], event: events.Resize) -> None:
    """Let Textual skip a Resize that only echoes the screen's own first layout.

    After laying a new screen out, Textual sends the screen a Resize of the size it has
    just used; its handler then lays the screen out again and every screen below it too,
    and the first frame is drawn three times over. When the screen already has that size
    and its size classes, there is nothing to redo. A real resize finds the screen at its
    old size and is handled as ever. Call it from the screen's `on_resize`, which Textual
    runs before its own handler.
    """
    app = screen.app
    if event.size == screen.outer_size and screen.classes >= set(size_classes(app).split()):
        event.prevent_default()
