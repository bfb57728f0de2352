"""A game variant as a value: the one seam between the rules and everything above them.

A `Variant` says what a game is without anyone above the core counting cells: its name, how
many cells it has, its empty position, how a move is said in words and written in the
record, and the computer's levels. The positions it starts (`GameState` for classic,
`UltimateState` for Ultimate) answer the rest alike: the legal moves, `play`, `undo`, the
mark to move, the winner and winning cells, whether the game is over.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final, Protocol

from tictactoe.core import ai
from tictactoe.core.engine import CELL_NAMES, GameState, IllegalMove, Mark
from tictactoe.core.ultimate import (
    UltimateState,
    move_words,
    short_move_phrases,
    short_move_words,
)
from tictactoe.core.ultimate_ai import Estimate, estimate

__all__ = [
    "CLASSIC",
    "ULTIMATE",
    "VARIANTS",
    "Position",
    "Variant",
    "variant",
]


class Position(Protocol):
    """What every variant's position answers (classic's `GameState`, `UltimateState`)."""

    is_over: bool
    """True once somebody has won or no move is left."""

    def legal_moves(self) -> tuple[int, ...]:
        """The moves the mark to move may make, ascending; empty once the game is over."""
        ...

    def play(self, move: int) -> Position:
        """The position after the mark to move makes `move` (IllegalMove otherwise)."""
        ...

    def undo(self) -> Position:
        """The position before the last move (IllegalMove at the start)."""
        ...

    @property
    def to_move(self) -> Mark:
        """The mark that plays next."""
        ...

    @property
    def first(self) -> Mark:
        """The mark that moved first."""
        ...

    @property
    def moves(self) -> tuple[int, ...]:
        """The moves played so far, in order."""
        ...

    @property
    def winner(self) -> Mark | None:
        """The mark that won, or None."""
        ...

    @property
    def winning_cells(self) -> frozenset[int]:
        """The cells to show as the win: a line of classic's, the winning boards' of
        Ultimate; empty without a winner."""
        ...

    @property
    def is_draw(self) -> bool:
        """True when the game is over without a winner."""
        ...

    @property
    def winning_line(self) -> tuple[int, int, int] | None:
        """The line of the win: three cells of classic's, three small boards of Ultimate's;
        None without a winner."""
        ...

    @property
    def board(self) -> tuple[Mark | None, ...]:
        """Every cell, by move number: the mark on it, or None."""
        ...


@dataclass(frozen=True)
class Variant:
    """A game variant: its rules' entry point, its words and its computer."""

    name: str
    """How the command line, the settings and the record name it: "classic", "ultimate"."""
    title: str
    """How a person names it: "Classic", "Ultimate"."""
    cells: int
    """How many cells the board has: moves are numbered from 0 to `cells - 1`."""
    start: Callable[[Mark], Position]
    """The empty position with the given mark to move."""
    move_words: Callable[[int], str]
    """A move in words, for a sentence: "the centre", "the top-left of the centre board"."""
    short_move_words: Callable[[int], str]
    """A move in a few words, for a list: "centre", "centre board, top-left"."""
    digits_a_move: int
    """How many digits write one move in the record (and how many keys a person presses)."""
    levels: tuple[ai.Level, ...] = tuple(ai.Level)
    """The computer's levels, weakest first."""
    searches: bool = False
    """Whether its hint and its computer's moves search for a while (up to a second): a
    screen works them out off its own thread, so that it stays live meanwhile."""
    short_move_phrases: Callable[[int], tuple[str, ...]] | None = None
    """`short_move_words` in the pieces a narrow list may put on lines of their own
    ("centre board,", "top-left"); None: the words are one piece."""

    def new(self, first: Mark = Mark.X) -> Position:
        """The empty position, `first` to move (X unless told otherwise)."""
        return self.start(Mark(first))

    def write_moves(self, moves: tuple[int, ...]) -> str:
        """The moves as the record keeps them: the digits of each, one move after another
        ("4021" is classic's centre, top-left, top-right, top; Ultimate's centre board's
        top-left, then the top-left board's top)."""
        width = self.digits_a_move
        return "".join(_digits(move, width) for move in moves)

    def read_moves(self, text: str) -> tuple[int, ...]:
        """The moves `write_moves` wrote; IllegalMove, in words, for anything else."""
        width = self.digits_a_move
        if len(text) % width or not all("0" <= char <= "8" for char in text):
            raise IllegalMove(f"{text!r} is not a list of {self.title} moves")
        return tuple(
            _number(int(char) for char in text[start : start + width])
            for start in range(0, len(text), width)
        )

    def replay(self, moves: tuple[int, ...], first: Mark = Mark.X) -> Position:
        """The position after `moves` from the start; IllegalMove if one breaks the rules."""
        state = self.new(first)
        for move in moves:
            state = state.play(move)
        return state

    def choose_move(
        self, state: Position, level: ai.Level, rng: random.Random | None = None
    ) -> int:
        """The computer's move at `level` in `state`, a position of this variant."""
        if not isinstance(state, (GameState, UltimateState)):
            raise TypeError(f"{state!r} is not a position of a known variant")
        return ai.choose_move(state, level, rng)

    def analyse(self, state: Position, rng: random.Random | None = None) -> ai.Analysis | Estimate:
        """Where best play goes from `state`: classic's solver, or Ultimate's hard search
        (its move and its estimate; a while, as the computer's hard move takes)."""
        if isinstance(state, GameState):
            return ai.analyse(state)
        if isinstance(state, UltimateState):
            return estimate(state, rng or random.Random())
        raise TypeError(f"{state!r} is not a position of a known variant")

    def move_phrases(self, move: int) -> tuple[str, ...]:
        """`short_move_words` in the pieces a narrow list may break between lines."""
        if self.short_move_phrases is None:
            return (self.short_move_words(move),)
        return self.short_move_phrases(move)

    def open_boards(self, state: Position) -> tuple[int, ...]:
        """The small boards the mark to move may play in (Ultimate's); none for classic."""
        return state.open_boards if isinstance(state, UltimateState) else ()

    def forced_board(self, state: Position | None) -> int | None:
        """The small board the mark to move must play in (Ultimate's), or None."""
        return state.forced_board if isinstance(state, UltimateState) else None

    def move_keys(self, move: int, key_for: Callable[[int], str]) -> str:
        """The keys a person types for `move`, each the digit `key_for` gives a cell of three
        rows of three: "5" for classic's centre, "5 7" for Ultimate's centre board's top-left
        (the board's digit, then the cell's)."""
        return " ".join(key_for(int(digit)) for digit in _digits(move, self.digits_a_move))

    def move_of(self, cells: tuple[int, ...], state: Position | None) -> int | None:
        """The move that the cells typed (each 0-8, the board's then the cell's) name: as
        many as `digits_a_move`, or one fewer while the board is forced (`forced_board`);
        None for another count."""
        if (
            len(cells) == self.digits_a_move - 1
            and (forced := self.forced_board(state)) is not None
        ):
            cells = (forced, *cells)
        if len(cells) != self.digits_a_move or not all(0 <= cell <= 8 for cell in cells):
            return None
        return _number(cells)


def _digits(move: int, width: int) -> str:
    """`move` in base nine, `width` digits: a cell, or a board then its cell."""
    digits = ""
    for _ in range(width):
        move, digit = divmod(move, 9)
        digits = str(digit) + digits
    return digits


def _number(digits: Iterable[int]) -> int:
    """The move whose base-nine digits are `digits` (`_digits` the other way)."""
    move = 0
    for digit in digits:
        move = move * 9 + digit
    return move


def _classic(first: Mark) -> Position:
    return GameState.new(first)


def _ultimate(first: Mark) -> Position:
    return UltimateState.new(first)


CLASSIC: Final = Variant(
    name="classic",
    title="Classic",
    cells=9,
    start=_classic,
    move_words=lambda cell: f"the {CELL_NAMES[cell]}",
    short_move_words=lambda cell: CELL_NAMES[cell],
    digits_a_move=1,
)
"""Tic-tac-toe on one board of nine cells."""

ULTIMATE: Final = Variant(
    name="ultimate",
    title="Ultimate",
    cells=81,
    start=_ultimate,
    move_words=move_words,
    short_move_words=short_move_words,
    short_move_phrases=short_move_phrases,
    digits_a_move=2,
    searches=True,
)
"""Nine small boards in three rows of three; the cell taken names the next player's board."""

VARIANTS: Final = {variant.name: variant for variant in (CLASSIC, ULTIMATE)}
"""Every variant, by name."""


def variant(name: str) -> Variant:
    """The variant called `name` ("classic" or "ultimate"); ValueError, in words, otherwise."""
    try:
        return VARIANTS[name]
    except KeyError:
        raise ValueError(f"there is no variant {name!r}: choose {' or '.join(VARIANTS)}") from None
