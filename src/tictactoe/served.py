"""How the game knows it is being played in a browser, through `tictactoe serve`.

`tictactoe serve` starts one game process per browser tab with `TICTACTOE_SERVED=1` in its
environment (and Textual's driver set to `DRIVER`). Such a process has pipes to the server instead
of a terminal, so whatever checks for a terminal, or prints to one after the app has ended, asks
`is_served()` first, and tells the server its last words instead (`say_farewell`). This module
imports nothing heavy: the command line asks it before Textual is loaded.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Final

__all__ = ["DRIVER", "FAREWELL", "SERVED_ENV", "is_served", "say_farewell"]

SERVED_ENV: Final = "TICTACTOE_SERVED"
"""Set to "1" by the server for every game process it starts."""

DRIVER: Final = "tictactoe.adapters.served_driver:ServedDriver"
"""Textual's web driver, taught to end the game when the server goes away (`TEXTUAL_DRIVER`)."""

FAREWELL: Final = "farewell"
"""The type of the game's last message to the server: its final score, for the tab to show."""


def is_served(environ: Mapping[str, str] = os.environ) -> bool:
    """True in a game process started by `tictactoe serve` for a browser tab."""
    return environ.get(SERVED_ENV) == "1"


def say_farewell(score: str, verdict: str) -> None:
    """Tell the server, once the app has ended, the series' final score and who won it.

    It goes where the server reads the game, standard output, as a meta packet of Textual's web
    protocol (type, length, JSON), after the packets of the app's screen. A server that has gone
    is not told.
    """
    payload = json.dumps({"type": FAREWELL, "score": score, "verdict": verdict}).encode("utf-8")
    packet = b"M" + len(payload).to_bytes(4, "big") + payload
    try:
        while packet:
            packet = packet[os.write(1, packet) :]
    except OSError:
        pass
