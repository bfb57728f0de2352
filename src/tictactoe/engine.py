"""The rules of one game of tic-tac-toe, as pure immutable values.

A `GameState` never changes: `play` and `undo` return new states. Internally the
board is two 9-bit masks (one per mark) and every question the rules ask (is there
a line? which cells are free?) is answered from tables built once at import, so a
full walk of the game tree through this public API is fast despite immutability.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

__all__ = ["CELL_NAMES", "LINES", "GameState", "IllegalMove", "Mark"]


class Mark(StrEnum):
    """A player's mark. `Mark.X == "X"`; `Mark.X.other is Mark.O`."""

    X = "X"
    O = "O"  # noqa: E741 - the mark is called O

    @property
    def other(self) -> Mark:
        """The opponent's mark."""
        return _OTHER[self]


_OTHER: Final = {Mark.X: Mark.O, Mark.O: Mark.X}


class IllegalMove(ValueError):
    """A move the rules do not allow; the message says why in plain words."""


LINES: Final[tuple[tuple[int, int, int], ...]] = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)
"""The eight winning lines: three rows, three columns, two diagonals."""

CELL_NAMES: Final[tuple[str, ...]] = (
    "top-left",
    "top",
    "top-right",
    "left",
    "centre",
    "right",
    "bottom-left",
    "bottom",
    "bottom-right",
)
"""How a person names each cell, by index."""

FULL: Final = 0b111111111
"""The mask of a full board."""

_LINE_MASKS: Final = tuple(sum(1 << cell for cell in line) for line in LINES)


def _line_in(mask: int) -> tuple[int, int, int] | None:
    for line, line_mask in zip(LINES, _LINE_MASKS, strict=True):
        if mask & line_mask == line_mask:
            return line
    return None


LINE_IN: Final[tuple[tuple[int, int, int] | None, ...]] = tuple(
    _line_in(mask) for mask in range(FULL + 1)
)
"""For each 9-bit mask of one mark's cells, the first complete line in it, or None."""

HAS_LINE: Final[tuple[bool, ...]] = tuple(line is not None for line in LINE_IN)
"""For each 9-bit mask, whether it holds a complete line."""

FREE_CELLS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(cell for cell in range(9) if not occupied >> cell & 1) for occupied in range(FULL + 1)
)
"""For each mask of occupied cells, the free cells in ascending order."""

_BIT: Final = tuple(1 << cell for cell in range(9))

# The status of a state, computed once when the state is made.
_PLAYING: Final = 0
_WON: Final = 1
_DRAWN: Final = 2


class GameState:
    """One position of a game: the board, whose move it is and how it got here.

    Immutable, hashable and compared by value (board, mark to move and move order).
    """

    __slots__ = ("_moves", "_o", "_status", "_to_move", "_x")

    _x: int
    _o: int
    _to_move: Mark
    _moves: tuple[int, ...]
    _status: int

    def __init__(self) -> None:
        raise TypeError("use GameState.new() to start a game")

    @classmethod
    def new(cls, first: Mark = Mark.X) -> GameState:
        """An empty board with `first` to move (X unless told otherwise)."""
        return _make(0, 0, Mark(first), (), _PLAYING)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"GameState is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"GameState is immutable; cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return (
            self._x == other._x
            and self._o == other._o
            and self._to_move is other._to_move
            and self._moves == other._moves
        )

    def __hash__(self) -> int:
        return hash((self._x, self._o, self._to_move, self._moves))

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (self._x, self._o, str(self._to_move), self._moves, self._status))

    def __repr__(self) -> str:
        rows = "/".join(
            "".join(str(mark) if mark else "." for mark in self.board[row * 3 : row * 3 + 3])
            for row in range(3)
        )
        return f"GameState({rows!r}, to_move={self._to_move.value}, moves={self._moves})"

    @property
    def board(self) -> tuple[Mark | None, ...]:
        """The nine cells, row-major from the top-left: a Mark or None each."""
        x, o = self._x, self._o
        return tuple(
            Mark.X if x >> cell & 1 else Mark.O if o >> cell & 1 else None for cell in range(9)
        )

    @property
    def to_move(self) -> Mark:
        """The mark that plays next (after the game ends: the mark that would have)."""
        return self._to_move

    @property
    def moves(self) -> tuple[int, ...]:
        """The cells played so far, in order."""
        return self._moves

    @property
    def masks(self) -> tuple[int, int]:
        """The board as two 9-bit masks, (X's cells, O's cells); bit n is cell n."""
        return self._x, self._o

    def legal_moves(self) -> tuple[int, ...]:
        """The free cells in ascending order; empty once the game is over."""
        if self._status:
            return ()
        return FREE_CELLS[self._x | self._o]

    def play(self, cell: int) -> GameState:
        """The state after the mark to move takes `cell`; `self` is unchanged.

        Raises IllegalMove for a taken cell, a cell outside 0..8, anything that is
        not an int, or a finished game.
        """
        if type(cell) is not int:
            cell = _as_cell(cell)
        if not 0 <= cell <= 8:
            raise IllegalMove(f"there is no cell {cell}: cells are numbered 0 to 8")
        if self._status:
            raise IllegalMove("the game is over")
        bit = _BIT[cell]
        x, o = self._x, self._o
        if (x | o) & bit:
            raise IllegalMove(f"cell {cell} ({CELL_NAMES[cell]}) is taken")
        moves = (*self._moves, cell)
        if self._to_move is Mark.X:
            x |= bit
            status = _WON if HAS_LINE[x] else _DRAWN if x | o == FULL else _PLAYING
            return _make(x, o, Mark.O, moves, status)
        o |= bit
        status = _WON if HAS_LINE[o] else _DRAWN if x | o == FULL else _PLAYING
        return _make(x, o, Mark.X, moves, status)

    def undo(self) -> GameState:
        """The state before the last move. Raises IllegalMove on an empty board."""
        if not self._moves:
            raise IllegalMove("there is no move to take back")
        bit = _BIT[self._moves[-1]]
        mover = self._to_move.other
        if mover is Mark.X:
            return _make(self._x & ~bit, self._o, mover, self._moves[:-1], _PLAYING)
        return _make(self._x, self._o & ~bit, mover, self._moves[:-1], _PLAYING)

    @property
    def winner(self) -> Mark | None:
        """The mark that completed a line, or None."""
        if self._status != _WON:
            return None
        return self._to_move.other

    @property
    def winning_line(self) -> tuple[int, int, int] | None:
        """The three cells of the completed line, or None."""
        if self._status != _WON:
            return None
        return LINE_IN[self._x if self._to_move is Mark.O else self._o]

    @property
    def is_draw(self) -> bool:
        """True when the board is full and nobody has a line."""
        return self._status == _DRAWN

    @property
    def is_over(self) -> bool:
        """True once somebody has won or the board is full."""
        return self._status != _PLAYING


def _as_cell(cell: object) -> int:
    """Accept int-like values (not bools) as a cell index; refuse everything else."""
    if isinstance(cell, bool) or not isinstance(cell, int):
        raise IllegalMove(f"a cell is a whole number from 0 to 8, not {cell!r}")
    return int(cell)


def _rebuild(x: int, o: int, to_move: str, moves: tuple[int, ...], status: int) -> GameState:
    return _make(x, o, Mark(to_move), moves, status)


_new_state: Final = object.__new__
# Slot descriptors write past the immutable __setattr__, for construction only.
_slots: Final = GameState.__dict__
_set_x: Final = _slots["_x"].__set__
_set_o: Final = _slots["_o"].__set__
_set_to_move: Final = _slots["_to_move"].__set__
_set_moves: Final = _slots["_moves"].__set__
_set_status: Final = _slots["_status"].__set__


def _make(x: int, o: int, to_move: Mark, moves: tuple[int, ...], status: int) -> GameState:
    state: GameState = _new_state(GameState)
    _set_x(state, x)
    _set_o(state, o)
    _set_to_move(state, to_move)
    _set_moves(state, moves)
    _set_status(state, status)
    return state
