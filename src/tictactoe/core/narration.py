"""A series in sentences a screen reader speaks whole: what the line view says.

Each sentence is plain text of at most `LINE` characters, with no escape sequence: names are
cleaned (`names.short`) before they are said. A cell's key is a slot the view fills
(`KeyFor`): the core knows cells, the view knows which digit a person presses for one.

- `introduce(series)`: who plays whom, the computer's level said once, here;
- `narrate(before, after, key_for)`: what changed from one series to the next (a mark chosen,
  each move taken or taken back, a match won or drawn and the score, the next match begun),
  then whose turn;
- `prompt(series)`: what is asked of the person who acts now ("Ada, choose X or O:");
- `board`, `score`: the board and the score in words, on request;
- `replay(players, marks, positions, key_for)`: a recorded match, move by move.

One wording for each thing: a cell is named as the engine names it ("the top-right"), the
computer is "Computer" with its mark, as a person is, and the final score says the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Final

from tictactoe.core.engine import CELL_NAMES, LINES, GameState, Mark
from tictactoe.core.labels import side_by_side
from tictactoe.core.rules import Position
from tictactoe.core.series import CHOOSING, THINKING, TO_MOVE, Phase, Player, Series

__all__ = [
    "LINE",
    "NO_CELL",
    "KeyFor",
    "board",
    "cell_words",
    "introduce",
    "narrate",
    "prompt",
    "replay",
    "score",
    "who",
]

LINE: Final = 80
"""The longest sentence, in characters: one line of a braille display or a terminal."""

KeyFor = Callable[[int], str]
"""The key a person presses for a cell (0 = top-left), in the layout in force."""

NO_CELL: Final = "{} is no cell: the cells are 1 to 9."
"""A number typed that names no cell (its slot: what was typed)."""

_CELL_WORDS: Final = tuple(f"the {name}" for name in CELL_NAMES)

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
            "the diagonal from the top-left",
            "the diagonal from the top-right",
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
    """A player as said: "Ada (X)" once marks are chosen, the computer "Computer (O)"."""
    name = _names(series)[index]
    if series.marks is not None:
        return f"{name} ({series.marks[index]})"
    return name


def introduce(series: Series) -> str:
    """Who plays whom: "Tic-tac-toe: Ada against Computer, at the hard level."."""
    first, second = _names(series)
    levels = [player.level for player in series.players if player.level is not None]
    level = f", at the {levels[0].value} level" if len(levels) == 1 else ""
    return f"Tic-tac-toe: {first} against {second}{level}."


def _turn(series: Series, key_for: KeyFor) -> str:
    """Where the series stands now, in one sentence."""
    match = series.match
    if match is None:
        chooser = series.players[series.chooser]
        if chooser.level is not None:
            return CHOOSING.format(who(series, series.chooser)) + "."
        return f"{who(series, series.chooser)} chooses a mark."
    if match.is_over:
        assert series.marks is not None
        return _result(match, series.marks, _names(series), key_for)
    mover = series.to_move
    assert mover is not None
    if series.players[mover].level is not None:
        return THINKING.format(who(series, mover)) + "."
    return TO_MOVE.format(who(series, mover)) + "."


def _result(
    match: Position, marks: tuple[Mark, Mark], names: Sequence[str], key_for: KeyFor
) -> str:
    """How a finished match ended: "Ada (X) wins: 7, 8, 9, the top row."."""
    if match.winner is None or match.winning_line is None:
        return "A draw: the board is full."
    winner = marks.index(match.winner)
    keys = ", ".join(key_for(cell) for cell in match.winning_line)
    return f"{names[winner]} ({match.winner}) wins: {keys}, {_LINE_WORDS[match.winning_line]}."


def narrate(before: Series, after: Series, key_for: KeyFor, *, prompted: bool = False) -> list[str]:
    """What happened between `before` and `after`, a sentence a line, then where it stands:
    once a match is over, how it ended and the score. With `prompted` (the person who acts
    now is asked next, `prompt`), whose turn it is goes unsaid: the question says it."""
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
        over = after.phase is Phase.OVER
        if over or not (prompted and prompt(after) is not None):
            said.append(_turn(after, key_for))
        if over and before.phase is not Phase.OVER:
            said.append(score(after))
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


def replay(
    players: tuple[Player, Player],
    marks: tuple[Mark, Mark],
    positions: Sequence[GameState],
    key_for: KeyFor,
) -> list[str]:
    """A recorded match move by move, from the board before the first move (`positions`, one
    a move): "1. Ada (X) takes the centre, 5.", and how it ended."""
    names = side_by_side(players, _NAME_ROOM)
    said = []
    for number, (position, then) in enumerate(pairwise(positions), 1):
        mover = marks.index(position.to_move)
        cell = then.moves[-1]
        said.append(f"{number}. {names[mover]} ({marks[mover]}) takes {cell_words(cell, key_for)}.")
    last = positions[-1]
    if last.is_over:
        said.append(_result(last, marks, names, key_for))
    else:
        said.append("The record of this match stops here.")
    return said
