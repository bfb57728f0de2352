"""A series in sentences a screen reader speaks whole: what the line view says.

Each sentence is plain text of at most `LINE` characters, with no escape sequence: names are
cleaned (`names.short`) before they are said. A cell's key is a slot the view fills
(`KeyFor`): the core knows cells, the view knows which digit a person presses for one.

- `narrate(before, after, key_for)`: what changed from one series to the next (a mark chosen,
  each move taken or taken back, a match won or drawn, the next match begun), then whose turn;
- `prompt(series)`: what is asked of the person who acts now ("Ada, choose X or O:");
- `board`, `score`: the board and the score in words, on request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from tictactoe.core.engine import LINES, Mark
from tictactoe.core.labels import side_by_side
from tictactoe.core.series import CHOOSING, THINKING, TO_MOVE, Phase, Series

__all__ = ["LINE", "KeyFor", "board", "cell_words", "narrate", "prompt", "score", "who"]

LINE: Final = 80
"""The longest sentence, in characters: one line of a braille display or a terminal."""

KeyFor = Callable[[int], str]
"""The key a person presses for a cell (0 = top left), in the layout in force."""

_CELL_WORDS: Final = (
    "the top left",
    "the top",
    "the top right",
    "the left",
    "the centre",
    "the right",
    "the bottom left",
    "the bottom",
    "the bottom right",
)

_LINE_WORDS: Final = dict(
    zip(
        LINES,
        (
            "the top row",
            "the middle row",
            "the bottom row",
            "the left column",
            "the middle column",
            "the right column",
            "the diagonal from the top left",
            "the diagonal from the top right",
        ),
        strict=True,
    )
)

_NAME_ROOM: Final = 20
"""Characters of a name said in a sentence: long ones are shortened, so lines stay short."""


def cell_words(cell: int, key_for: KeyFor) -> str:
    """A cell as said: "the centre, 5"."""
    return f"{_CELL_WORDS[cell]}, {key_for(cell)}"


def _names(series: Series) -> tuple[str, str]:
    return side_by_side(series.players, _NAME_ROOM)


def who(series: Series, index: int) -> str:
    """A player as said: "Ada (X)" once marks are chosen, "Computer (hard)" for the computer."""
    name = _names(series)[index]
    player = series.players[index]
    if player.level is not None:
        name = f"{name} ({player.level.value})" if "(" not in name else name
    if series.marks is not None and player.level is None:
        return f"{name} ({series.marks[index]})"
    return name


def _turn(series: Series, key_for: KeyFor) -> str:
    """Where the series stands now, in one sentence."""
    match = series.match
    if match is None:
        chooser = series.players[series.chooser]
        if chooser.level is not None:
            return CHOOSING.format(who(series, series.chooser)) + "."
        return f"{who(series, series.chooser)} chooses a mark."
    if match.winner is not None:
        assert match.winning_line is not None and series.marks is not None
        winner = series.marks.index(match.winner)
        keys = ", ".join(key_for(cell) for cell in match.winning_line)
        return f"{who(series, winner)} wins: {keys}, {_LINE_WORDS[match.winning_line]}."
    if match.is_draw:
        return "A draw: the board is full."
    mover = series.to_move
    assert mover is not None
    if series.players[mover].level is not None:
        return THINKING.format(who(series, mover)) + "."
    return TO_MOVE.format(who(series, mover)) + "."


def narrate(before: Series, after: Series, key_for: KeyFor) -> list[str]:
    """What happened between `before` and `after`, a sentence a line, then where it stands."""
    said: list[str] = []
    if before.phase is Phase.OVER and after.match is None:
        said.append(f"Match {after.played + 1}.")
    if after.marks is not None and before.marks is None:
        chooser, other = after.chooser, 1 - after.chooser
        names = _names(after)
        said.append(
            f"{names[chooser]} takes {after.marks[chooser]}; {names[other]} plays"
            f" {after.marks[other]}."
        )
    same_match = before.match is not None and _number(before) == _number(after)
    old = before.history() if same_match else ()
    new = after.history()
    common = 0
    while common < min(len(old), len(new)) and old[common] == new[common]:
        common += 1
    for _player, _mark, cell in reversed(old[common:]):
        said.append(f"Taken back: {cell_words(cell, key_for)}.")
    for player, _mark, cell in new[common:]:
        said.append(f"{who(after, player)} takes {cell_words(cell, key_for)}.")
    if said or before.phase is not after.phase:
        said.append(_turn(after, key_for))
    return said


def _number(series: Series) -> int:
    """Which match of the series is on show (1 for the first), finished or not."""
    return series.played + (0 if series.phase is Phase.OVER else 1)


def prompt(series: Series) -> str | None:
    """What is asked of the person who acts now; None when no person acts (the computer is
    due, or the match is over: the view offers the next match)."""
    actor = series.actor
    if actor is None or series.players[actor].level is not None:
        return None
    if series.match is None:
        return f"{_names(series)[actor]}, choose X or O:"
    return f"{who(series, actor)}, your move:"


def board(series: Series, key_for: KeyFor) -> list[str]:
    """The board as three lines (a mark, or the key of a free cell), then who holds what."""
    if series.match is None:
        return ["No match is being played: a mark is being chosen."]
    cells = series.match.board
    rows = [
        "  ".join(str(cells[cell]) if cells[cell] else key_for(cell) for cell in range(r, r + 3))
        for r in (0, 3, 6)
    ]
    held = []
    for mark in (Mark.X, Mark.O):
        keys = [key_for(cell) for cell in series.match.moves if cells[cell] is mark]
        held.append(f"{mark}: {', '.join(keys) or 'none'}.")
    free = sorted(key_for(cell) for cell in range(9) if cells[cell] is None)
    held.append(f"Free: {', '.join(free) or 'none'}.")
    return [*rows, " ".join(held)]


def score(series: Series) -> str:
    """The score in one sentence: "Ada 1, Bob 0, draws 0; 1 match played."."""
    first, second = (who(series, index) for index in (0, 1))
    played = series.played
    return (
        f"{first} {series.wins[0]}, {second} {series.wins[1]}, draws {series.draws};"
        f" {played} match{'' if played == 1 else 'es'} played."
    )
