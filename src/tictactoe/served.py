"""How the game knows it is being played in a browser, through `tictactoe serve`.

`tictactoe serve` starts one game process per browser tab with `TICTACTOE_SERVED=1` in its
environment (and Textual's driver set to `DRIVER`). Such a process has pipes to the server instead
of a terminal, so whatever checks for a terminal, or prints to one after the app has ended, asks
`is_served()` first. This module imports nothing heavy: the command line asks it before Textual
is loaded.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

__all__ = ["DRIVER", "SERVED_ENV", "is_served"]

SERVED_ENV: Final = "TICTACTOE_SERVED"
"""Set to "1" by the server for every game process it starts."""

DRIVER: Final = "tictactoe.adapters.served_driver:ServedDriver"
"""Textual's web driver, taught to end the game when the server goes away (`TEXTUAL_DRIVER`)."""


def is_served(environ: Mapping[str, str] = os.environ) -> bool:
    """True in a game process started by `tictactoe serve` for a browser tab."""
    return environ.get(SERVED_ENV) == "1"
