"""What the game says once its screen is restored: the final score, who won the series, the
matches the record lost. In a browser tab's game (`tictactoe serve`) the tab shows it instead.
"""

from __future__ import annotations

import os
import sys
from contextlib import suppress
from pathlib import Path

from rich.cells import cell_len

from tictactoe.core.labels import side_by_side
from tictactoe.core.names import NAME_WIDTH
from tictactoe.core.series import Series
from tictactoe.served import is_served, say_farewell

__all__ = ["final_score", "tell_the_end", "unsaved_note", "verdict"]


def tell_the_end(
    series: Series | None, farewell: str, unsaved: int, record_path: Path | None
) -> None:
    """After the game: `farewell` (why an online series ended, if it did), the final score, and
    a note of the `unsaved` matches the record at `record_path` lost."""
    if is_served():  # stdout is the server's pipe: the tab shows who ended it and the score
        if series is not None:
            say_farewell(final_score(series), f"{farewell} {verdict(series)}".strip())
    else:
        if farewell:
            _print(farewell)
        if series is not None:
            _print(final_score(series))
    if unsaved:
        with suppress(OSError):  # the terminal has gone: nobody is left to tell
            print(unsaved_note(unsaved, record_path), file=sys.stderr)


def final_score(series: Series) -> str:
    """The scoreboard as plain text, printed after the screen is restored.

    Names are shortened as on screen, and the counts line up in terminal cells (a
    character of 山田 takes two).
    """
    (first, second), (wins1, wins2) = side_by_side(series.players, NAME_WIDTH), series.wins
    rows = [(first, wins1), (second, wins2), ("Draws", series.draws)]
    width = max(cell_len(label) for label, _ in rows)
    lines = [
        "Final score",
        *(f"  {label}{' ' * (width - cell_len(label))}  {count}" for label, count in rows),
        f"  ({series.played} match{'' if series.played == 1 else 'es'} played)",
    ]
    return "\n".join(lines)


def verdict(series: Series) -> str:
    """Who won the series, in a sentence."""
    (first, second), (wins1, wins2) = side_by_side(series.players, NAME_WIDTH), series.wins
    if not series.played:
        return "No match was finished."
    if wins1 == wins2:
        return "The series ended level."
    return f"{first if wins1 > wins2 else second} won the series."


def unsaved_note(count: int, path: Path | None) -> str:
    """The last word when finished matches could not be written to the record."""
    if count == 1:
        return f"1 finished match could not be saved to the game record {path}; it is lost."
    return f"{count} finished matches could not be saved to the game record {path}; they are lost."


def _print(text: str) -> None:
    try:
        print(text, flush=True)
    except OSError:  # the terminal or the pipe has gone: nobody is left to read it
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
