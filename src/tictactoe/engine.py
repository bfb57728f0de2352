"""The rules of one game of tic-tac-toe, as pure immutable values.

A `GameState` never changes: `play` and `undo` return new states. Internally the
board is two 9-bit masks (one per mark) and every question the rules ask (is there
a line? which cells are free?) is answered from tables built once at import, so a
full walk of the game tree through this public API is fast despite immutability.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Final

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

WIN_CELLS: Final[tuple[frozenset[int], ...]] = tuple(
    frozenset(cell for line in LINES if all(mask >> c & 1 for c in line) for cell in line)
    for mask in range(FULL + 1)
)
"""For each 9-bit mask, every cell on a complete line in it (a move can finish two lines)."""

# `play` and `legal_moves` run at every node of a search, so each state carries what
# they need ready-made, shared by every state with the same occupied cells:
# - a C-level callable that returns the precomputed tuple of free cells;
# - a dict from each free cell to what taking it makes: (its bit, the next dict,
#   the next callable, whether the board is then full).
_Step = tuple[int, "dict[int, _Step]", Callable[[], tuple[int, ...]], bool]
_LEGAL: Final = tuple(repeat(cells).__next__ for cells in FREE_CELLS)
_NO_MOVES: Final = repeat(()).__next__
_STEPS: Final[list[dict[int, _Step]]] = [{} for _ in range(FULL + 1)]
for _occupied in range(FULL + 1):
    for _cell in FREE_CELLS[_occupied]:
        _after = _occupied | 1 << _cell
        _STEPS[_occupied][_cell] = (1 << _cell, _STEPS[_after], _LEGAL[_after], _after == FULL)
_NO_STEPS: Final[dict[int, _Step]] = {}

# A state is a tuple laid out as below; the layout is private. Keeping the masks from
# the point of view of the side to move lets `play` swap fields instead of branching.
_MINE: Final = 0
_THEIRS: Final = 1
_TO_MOVE: Final = 2
_WAITING: Final = 3
_PARENT: Final = 4
_LAST: Final = 5
_OVER: Final = 6
_LEGAL_MOVES: Final = 7
_NEXT_STEPS: Final = 8

_Layout = tuple[
    int,
    int,
    Mark,
    Mark,
    "GameState | None",
    int,
    bool,
    Callable[[], tuple[int, ...]],
    dict[int, _Step],
]


class GameState(_Layout):
    """One position of a game: the board, whose move it is and how it got here.

    Immutable, hashable and compared by value (board, mark to move and move order).
    Start one with `GameState.new()`; `play` and `undo` give the others. Calling the
    class directly is internal: it takes the private layout below, unchecked.

    It is built for speed: a state is a small tuple (made in one C call) holding two
    9-bit masks, the mark to move, the state before it, the last cell and whether
    the game is over; the rules are answered from tables built once at import.
    """

    __slots__ = ()

    @classmethod
    def new(cls, first: Mark = Mark.X) -> GameState:
        """An empty board with `first` to move (X unless told otherwise)."""
        first = Mark(first)
        return GameState((0, 0, first, _OTHER[first], None, -1, False, _LEGAL[0], _STEPS[0]))

    if TYPE_CHECKING:

        @property
        def is_over(self) -> bool:
            """True once somebody has won or the board is full."""

        def legal_moves(self) -> tuple[int, ...]:
            """The free cells in ascending order; empty once the game is over."""

    else:
        is_over = property(
            itemgetter(_OVER), doc="True once somebody has won or the board is full."
        )
        legal_moves = property(
            itemgetter(_LEGAL_MOVES),
            doc="legal_moves() -> the free cells in ascending order; () once the game is over.",
        )

    def play(self, cell: int) -> GameState:
        """The state after the mark to move takes `cell`; `self` is unchanged.

        Raises IllegalMove for a taken cell, a cell outside 0..8, anything that is
        not an int, or a finished game.
        """
        mine, theirs, to_move, waiting, _, _, _, _, steps = self
        try:
            bit, steps, legal, full = steps[cell]
        except (KeyError, TypeError):
            raise IllegalMove(self._why_not(cell)) from None
        if cell.__class__ is not int:
            if isinstance(cell, bool) or not isinstance(cell, int):
                raise IllegalMove(self._why_not(cell))
            cell = int(cell)  # an IntEnum or the like: its value is the cell
        mine |= bit
        if HAS_LINE[mine]:
            return GameState(
                (theirs, mine, waiting, to_move, self, cell, True, _NO_MOVES, _NO_STEPS)
            )
        return GameState((theirs, mine, waiting, to_move, self, cell, full, legal, steps))

    def _why_not(self, cell: object) -> str:
        """Why `play(cell)` is refused, in words a player understands."""
        if isinstance(cell, bool) or not isinstance(cell, int):
            return f"a cell is a whole number from 0 to 8, not {cell!r}"
        if not 0 <= cell <= 8:
            return f"there is no cell {cell}: cells are numbered 0 to 8"
        if self[_OVER]:
            return "the game is over"
        return f"cell {cell} ({CELL_NAMES[cell]}) is taken"

    def undo(self) -> GameState:
        """The state before the last move. Raises IllegalMove on an empty board."""
        parent = self[_PARENT]
        if parent is None:
            raise IllegalMove("there is no move to take back")
        return parent

    @property
    def to_move(self) -> Mark:
        """The mark that plays next (after the game ends: the mark that would have)."""
        return self[_TO_MOVE]

    @property
    def masks(self) -> tuple[int, int]:
        """The board as two 9-bit masks, (X's cells, O's cells); bit n is cell n."""
        if self[_TO_MOVE] is Mark.X:
            return self[_MINE], self[_THEIRS]
        return self[_THEIRS], self[_MINE]

    @property
    def board(self) -> tuple[Mark | None, ...]:
        """The nine cells, row-major from the top-left: a Mark or None each."""
        x, o = self.masks
        return tuple(
            Mark.X if x >> cell & 1 else Mark.O if o >> cell & 1 else None for cell in range(9)
        )

    @property
    def moves(self) -> tuple[int, ...]:
        """The cells played so far, in order."""
        cells = []
        state: GameState | None = self
        while state is not None and state[_PARENT] is not None:
            cells.append(state[_LAST])
            state = state[_PARENT]
        return tuple(reversed(cells))

    @property
    def winner(self) -> Mark | None:
        """The mark that completed a line, or None."""
        if self[_OVER] and HAS_LINE[self[_THEIRS]]:
            return self[_WAITING]
        return None

    @property
    def winning_line(self) -> tuple[int, int, int] | None:
        """The three cells of the completed line, or None (the first, if a move made two)."""
        return LINE_IN[self[_THEIRS]] if self[_OVER] else None

    @property
    def winning_cells(self) -> frozenset[int]:
        """Every cell on a completed line: usually three, five when one move made two lines."""
        return WIN_CELLS[self[_THEIRS]] if self[_OVER] else frozenset()

    @property
    def is_draw(self) -> bool:
        """True when the board is full and nobody has a line."""
        return self[_OVER] and not HAS_LINE[self[_THEIRS]]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:_OVER])  # the rest follows from these

    def __reduce__(self) -> tuple[object, ...]:
        first = self[_TO_MOVE] if len(self.moves) % 2 == 0 else self[_WAITING]
        return (_replay, (first.value, self.moves))

    def __repr__(self) -> str:
        rows = "/".join(
            "".join(str(mark) if mark else "." for mark in self.board[row * 3 : row * 3 + 3])
            for row in range(3)
        )
        return f"GameState({rows!r}, to_move={self.to_move.value}, moves={self.moves})"


def _replay(first: str, moves: tuple[int, ...]) -> GameState:
    state = GameState.new(Mark(first))
    for cell in moves:
        state = state.play(cell)
    return state
