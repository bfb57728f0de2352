"""A series in sentences a screen reader speaks whole: what the line view says, of either game.

Each sentence is plain text of at most `LINE` characters, with no escape sequence: names are
cleaned (`names.short`) before they are said. A cell's key is a slot the view fills
(`KeyFor`): the core knows cells, the view knows which digit a person presses for one.

- `introduce(series)`: who plays whom, the computer's level said once, here;
- `narrate(before, after, key_for)`: what changed from one series to the next (a mark chosen,
  each move taken or taken back, a match won or drawn and the score, the next match begun),
  then whose turn;
- `prompt(series)`: what is asked of the person who acts now ("Ada, choose X or O:");
- `board`, `score`: the board and the score in words, on request (Ultimate's position, or one
  of its small boards: `tictactoe.core.ultimate_words`);
- `replay(players, marks, positions, key_for)`: a recorded match, move by move.

One wording for each thing: a move is named as its variant names it ("the top-right", "the
top-left of the centre board") with the keys that take it ("9", "5 7"), the computer is
"Computer" with its mark, as a person is, and the final score says the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from itertools import pairwise
from typing import Final

from tictactoe.core import ultimate_words
from tictactoe.core.engine import Mark
from tictactoe.core.labels import LINE, LINE_WORDS, side_by_side
from tictactoe.core.rules import CLASSIC, ULTIMATE, Position, Variant
from tictactoe.core.series import CHOOSING, THINKING, TO_MOVE, Phase, Player, Series
from tictactoe.core.ultimate import UltimateState

__all__ = [
    "LINE",
    "NO_CELL",
    "KeyFor",
    "board",
    "introduce",
    "move_said",
    "narrate",
    "prompt",
    "replay",
    "score",
    "who",
]

KeyFor = Callable[[int], str]
"""The key a person presses for a cell (0 = top-left), in the layout in force."""

NO_CELL: Final = "{} is no cell: the cells are 1 to 9."
"""A number typed that names no cell (its slot: what was typed)."""

_NAME_ROOM: Final = 20
"""Characters of a name said in a sentence: long ones are shortened, so lines stay short."""


def move_said(variant: Variant, move: int, key_for: KeyFor) -> str:
    """A move of `variant` as said, with the keys that take it: "the centre, 5", "the
    top-left of the centre board, 5 7"."""
    return f"{variant.move_words(move)}, {variant.move_keys(move, key_for)}"


def _names(series: Series) -> tuple[str, str]:
    return side_by_side(series.players, _NAME_ROOM)


def who(series: Series, index: int) -> str:
    """A player as said: "Ada (X)" once marks are chosen, the computer "Computer (O)"."""
    name = _names(series)[index]
    if series.marks is not None:
        return f"{name} ({series.marks[index]})"
    return name


def introduce(series: Series) -> str:
    """Who plays whom, at which game: "Tic-tac-toe: Ada against Computer, at the hard
    level.", "Ultimate tic-tac-toe: Ada against Bob."."""
    first, second = _names(series)
    levels = [player.level for player in series.players if player.level is not None]
    level = f", at the {levels[0].value} level" if len(levels) == 1 else ""
    game = "Tic-tac-toe" if series.variant is CLASSIC else f"{series.variant.title} tic-tac-toe"
    return f"{game}: {first} against {second}{level}."


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
    if isinstance(match, UltimateState):
        return ultimate_words.result(match, partial(_named, marks, names), key_for)
    if match.winner is None or match.winning_line is None:
        return "A draw: the board is full."
    winner = marks.index(match.winner)
    keys = ", ".join(key_for(cell) for cell in match.winning_line)
    return f"{names[winner]} ({match.winner}) wins: {keys}, {LINE_WORDS[match.winning_line]}."


def _named(marks: tuple[Mark, Mark], names: Sequence[str], mark: Mark) -> str:
    """The player holding `mark` as said: "Ada (X)"."""
    return f"{names[marks.index(mark)]} ({mark})"


def _news(
    marks: tuple[Mark, Mark] | None,
    names: Sequence[str],
    before: Position,
    after: Position,
    key_for: KeyFor,
) -> list[str]:
    """What became of Ultimate's small boards from `before` to `after`; nothing for classic."""
    if not isinstance(before, UltimateState) or not isinstance(after, UltimateState):
        return []
    assert marks is not None
    return ultimate_words.news(before, after, partial(_named, marks, names), key_for)


def _trail(match: Position, moves: int) -> list[Position]:
    """The positions of `match` after each of its last `moves` moves, the one before them
    first."""
    trail = [match]
    for _ in range(moves):
        trail.append(trail[-1].undo())
    return trail[::-1]


def narrate(before: Series, after: Series, key_for: KeyFor, *, prompted: bool = False) -> list[str]:
    """What happened between `before` and `after`, a sentence a line, then where it stands:
    once a match is over, how it ended and the score. With `prompted` (the person who acts
    now is asked next, `prompt`), whose turn it is goes unsaid: the question says it. At
    Ultimate, the small boards a move finished are said after it, and the board the next
    player is sent to after the moves."""
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
    variant = after.variant
    trail = [] if after.match is None else _trail(after.match, len(new) - common)
    for _player, _mark, cell in reversed(old[common:]):
        said.append(f"Taken back: {move_said(variant, cell, key_for)}.")
    if old[common:] and before.match is not None:
        said.extend(_news(after.marks, _names(after), before.match, trail[0], key_for))
    for (player, _mark, cell), (was, now) in zip(new[common:], pairwise(trail), strict=True):
        said.append(f"{who(after, player)} takes {move_said(variant, cell, key_for)}.")
        said.extend(_news(after.marks, _names(after), was, now, key_for))
    if isinstance(after.match, UltimateState) and (old[common:] or new[common:]):
        mover = after.to_move
        if mover is not None and (where := ultimate_words.sent(after.match, _names(after)[mover])):
            said.append(where)
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


def board(series: Series, key_for: KeyFor, small: int | None = None) -> list[str]:
    """The board as three lines (a mark, or the key of a free cell), then who holds what. At
    Ultimate, the position in words (`ultimate_words.position`), or with `small` that one
    small board."""
    if series.match is None:
        return ["No match is being played: a mark is being chosen."]
    if isinstance(series.match, UltimateState):
        if small is not None:
            return [ultimate_words.small_board(series.match, small, key_for)]
        mover = series.to_move
        name = "" if mover is None else _names(series)[mover]
        return ultimate_words.position(series.match, name, key_for)
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
    positions: Sequence[Position],
    key_for: KeyFor,
) -> list[str]:
    """A recorded match move by move, from the board before the first move (`positions`, one
    a move, of either game): "1. Ada (X) takes the centre, 5.", and how it ended (at
    Ultimate, each small board a move finished after it)."""
    names = side_by_side(players, _NAME_ROOM)
    variant = ULTIMATE if isinstance(positions[0], UltimateState) else CLASSIC
    said = []
    for number, (position, then) in enumerate(pairwise(positions), 1):
        mover = marks.index(position.to_move)
        cell = then.moves[-1]
        taken = move_said(variant, cell, key_for)
        said.append(f"{number}. {names[mover]} ({marks[mover]}) takes {taken}.")
        said.extend(_news(marks, names, position, then, key_for))
    last = positions[-1]
    if last.is_over:
        said.append(_result(last, marks, names, key_for))
    else:
        said.append("The record of this match stops here.")
    return said
