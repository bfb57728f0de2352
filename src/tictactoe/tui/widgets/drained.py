"""Waiting for a widget to catch up: its messages are handled in order, so a call sent after
them runs once they all have been."""

from __future__ import annotations

import asyncio

from textual.widget import Widget

__all__ = ["drained"]


async def drained(widget: Widget) -> None:
    """Wait until `widget` has handled every message already sent to it (keys included)."""
    done = asyncio.Event()
    widget.call_later(done.set)
    await done.wait()
