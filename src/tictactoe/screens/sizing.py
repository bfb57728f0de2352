"""The size classes a screen carries from the moment it is made."""

from __future__ import annotations

from typing import Any

from textual.app import App

__all__ = ["size_classes"]


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
