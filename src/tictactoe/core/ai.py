"""The computer player: three strengths, and the perfect-play solver behind hints.

Pure functions of a `GameState` (or of an `UltimateState`, whose levels live in
`ultimate_ai`); randomness comes in through an `rng` argument.
The solver works on the engine's bit masks (`GameState.sides`, `has_line`,
`free_cells`) with a memo filled lazily, so the first question costs a few
milliseconds and every later one is a dictionary look-up.
"""

from __future__ import annotations

import random
from enum import StrEnum
from typing import Final, NamedTuple

from tictactoe.core.engine import GameState, IllegalMove, Mark, free_cells, has_line
from tictactoe.core.ultimate import UltimateState
from tictactoe.core.ultimate_ai import hard_move, medium_candidates

__all__ = [
    "Analysis",
    "Level",
    "analyse",
    "candidate_moves",
    "choose_mark",
    "choose_move",
    "move_values",
]


class Level(StrEnum):
    """How well the computer plays."""

    EASY = "easy"
    """A uniformly random free cell."""
    MEDIUM = "medium"
    """Win, else block, else a corner, else the centre, else a side."""
    HARD = "hard"
    """Perfect play: never loses, wins whenever it can, as quickly as it can."""


CORNERS: Final = (0, 2, 6, 8)
CENTRE: Final = 4

_values: dict[int, int] = {}
"""Memo of `_value`, keyed by `mine << 9 | theirs`."""


def _value(mine: int, theirs: int) -> int:
    """The value of a position for the side to move, with perfect play from both.

    Positive: the side to move wins; negative: it loses; 0: a draw. The size is
    the number of empty cells left when the game ends, plus one, so a quicker win
    scores higher and a slower loss scores less badly.
    """
    key = mine << 9 | theirs
    known = _values.get(key)
    if known is not None:
        return known
    free = free_cells(mine | theirs)
    if has_line(theirs):
        best = -len(free) - 1
    elif not free:
        best = 0
    else:
        best = -10
        for cell in free:
            score = -_value(theirs, mine | 1 << cell)
            if score > best:
                best = score
    _values[key] = best
    return best


def move_values(state: GameState) -> dict[int, int]:
    """Each legal move's value for the side to move (see `_value` for the scale)."""
    mine, theirs = state.sides
    return {cell: -_value(theirs, mine | 1 << cell) for cell in state.legal_moves()}


class Analysis(NamedTuple):
    """What perfect play makes of a position."""

    best_moves: tuple[int, ...]
    """Every move that keeps the best result, ascending; empty once the game is over."""
    outcome: Mark | None
    """The mark that wins with best play from here, or None for a draw."""
    plies_left: int
    """How many more moves best play takes to finish the game."""

    @property
    def summary(self) -> str:
        """In words: "X wins with best play" or "draw with best play"."""
        if self.outcome is None:
            return "draw with best play"
        return f"{self.outcome} wins with best play"


def analyse(state: GameState) -> Analysis:
    """The best moves of `state` and where best play leads."""
    if state.is_over:
        return Analysis((), state.winner, 0)
    value = _value(*state.sides)
    empties = len(state.legal_moves())
    values = move_values(state)
    best = tuple(cell for cell, score in values.items() if score == value)
    if value > 0:
        return Analysis(best, state.to_move, empties - value + 1)
    if value < 0:
        return Analysis(best, state.to_move.other, empties + value + 1)
    return Analysis(best, None, empties)


def _medium_candidates(state: GameState) -> tuple[int, ...]:
    mine, theirs = state.sides
    free = state.legal_moves()
    for rule in (
        tuple(cell for cell in free if has_line(mine | 1 << cell)),
        tuple(cell for cell in free if has_line(theirs | 1 << cell)),
        tuple(cell for cell in free if cell in CORNERS),
        tuple(cell for cell in free if cell == CENTRE),
    ):
        if rule:
            return rule
    return free


def candidate_moves(state: GameState, level: Level) -> tuple[int, ...]:
    """Every move `level` might choose in `state`; it picks uniformly among them."""
    if state.is_over:
        raise IllegalMove("the game is over")
    level = Level(level)
    if level is Level.EASY:
        return state.legal_moves()
    if level is Level.MEDIUM:
        return _medium_candidates(state)
    return analyse(state).best_moves


def choose_move(
    state: GameState | UltimateState, level: Level, rng: random.Random | None = None
) -> int:
    """A legal move for the side to move, chosen as `level` plays: a cell of a classic
    game, or `board * 9 + cell` of an Ultimate one."""
    rng = rng or random.Random()
    if isinstance(state, UltimateState):
        if state.is_over:
            raise IllegalMove("the game is over")
        level = Level(level)
        if level is Level.HARD:
            return hard_move(state, rng)
        if level is Level.MEDIUM:
            return rng.choice(medium_candidates(state))
        return rng.choice(state.legal_moves())
    return rng.choice(candidate_moves(state, level))


def choose_mark(rng: random.Random | None = None) -> Mark:
    """The mark the computer takes when it is the one choosing: either, at random."""
    return (rng or random.Random()).choice((Mark.X, Mark.O))
