"""An unexpected error's details, written to a log file instead of onto the player's screen."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console, RenderableType

__all__ = ["append_details"]


def append_details(log_file: Path, details: Sequence[RenderableType]) -> bool:
    """Add an unexpected error's `details` to `log_file`, as plain text; whether they could be
    written."""
    try:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        with log_file.open("a", encoding="utf-8") as log:
            console = Console(file=log, width=100, color_system=None, force_terminal=False)
            for renderable in details:
                console.print(renderable)
    except OSError:
        return False
    return True
