"""The rules of one game of tic-tac-toe, as pure immutable values.

A `GameState` never changes: `play` and `undo` return new states. Inside, the board is
two 9-bit masks (bit n is cell n): the cells of the mark to move and those of the other
mark. The two questions every move asks (does this mark have a line? which cells are
free?) are answered from two small tables built at import, so that walking the whole
game tree through this public API is fast despite a new object per move.

Solvers that want to search on masks themselves ask the same questions through
`GameState.sides`, `has_line` and `free_cells`; the tables stay private.
"""

from __future__ import annotations

from typing import Final

from tictactoe.core.position import IllegalMove, Mark, Position

__all__ = [
    "CELL_NAMES",
    "LINES",
    "GameState",
    "IllegalMove",
    "Mark",
    "free_cells",
    "has_line",
]


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

_MASKS: Final = range(1 << 9)
"""Every 9-bit mask of cells, from the empty board to the full one."""

_LINE_MASKS: Final = tuple(sum(1 << cell for cell in line) for line in LINES)
"""Each of `LINES` as a mask."""


def _lines_in(cells: int) -> tuple[tuple[int, int, int], ...]:
    """The complete lines in the mask `cells`, in the order of `LINES`."""
    return tuple(
        line for line, mask in zip(LINES, _LINE_MASKS, strict=True) if cells & mask == mask
    )


def _has_line_table() -> tuple[bool, ...]:
    # A mask holds a line when it is the line's cells plus any of the other six: each
    # line marks its 64 masks (the tables are made at import, before the first frame).
    table = [False] * len(_MASKS)
    for line in _LINE_MASKS:
        rest = _MASKS[-1] ^ line
        others = rest
        while True:
            table[line | others] = True
            if not others:
                break
            others = (others - 1) & rest
    return tuple(table)


def _free_cells_table() -> tuple[tuple[int, ...], ...]:
    # The cells of each mask, ascending: its lowest cell, then those of the mask without it.
    cells: list[tuple[int, ...]] = [()]
    for mask in _MASKS[1:]:
        cells.append(((mask & -mask).bit_length() - 1, *cells[mask & (mask - 1)]))
    return tuple(cells[_MASKS[-1] ^ occupied] for occupied in _MASKS)


_HAS_LINE: Final = _has_line_table()
"""By mask: whether those cells hold a complete line."""

_FREE_CELLS: Final = _free_cells_table()
"""By mask of occupied cells: the free cells, ascending (a tuple shared by every state)."""


def has_line(cells: int) -> bool:
    """Whether `cells`, a 9-bit mask of one mark's cells (bit n is cell n), holds a line."""
    return _HAS_LINE[cells]


def free_cells(occupied: int) -> tuple[int, ...]:
    """The cells outside `occupied`, a 9-bit mask (bit n is cell n), ascending."""
    return _FREE_CELLS[occupied]


class GameState(Position):
    """One position of a game: the board, whose move it is and how it got here.

    Immutable, hashable and compared by value (board, mark to move and move order).
    Start one with `GameState.new()`; `play` and `undo` give the others.

    A state keeps the board as two masks seen from the side to move, so that `play`
    only swaps them; the state before it, so that `undo` and `moves` follow a pointer
    instead of copying; and the answers a search asks at every node (`is_over` and the
    legal moves) ready-made.
    """

    __slots__ = ("_free", "_mine", "_theirs", "_waiting", "is_over")

    _mine: int
    """The cells of the mark to move, as a mask."""
    _theirs: int
    """The cells of the other mark, which moved last: only they can hold a line."""
    _waiting: Mark
    """The other mark, kept so that `play` passes the turn by swapping the two."""
    _free: tuple[int, ...]
    """The legal moves: the free cells, or none once the game is over."""
    is_over: bool
    """True once somebody has won or the board is full. A field, not a property: a
    search asks it at every node."""

    @classmethod
    def new(cls, first: Mark = Mark.X) -> GameState:
        """An empty board with `first` to move (X unless told otherwise)."""
        first = Mark(first)
        state: GameState = _new(_Draft)
        state._mine = state._theirs = 0
        state._to_move = first
        state._waiting = first.other
        state._parent = None
        state._last = -1
        state._free = _FREE_CELLS[0]
        state.is_over = False
        state.__class__ = GameState
        return state

    def legal_moves(self) -> tuple[int, ...]:
        """The free cells in ascending order; empty once the game is over."""
        return self._free

    def play(self, cell: int) -> GameState:
        """The state after the mark to move takes `cell`; `self` is unchanged.

        Raises IllegalMove for a taken cell, a cell outside 0..8, anything that is
        not an int, or a finished game.
        """
        if cell.__class__ is not int or cell not in self._free:
            cell = self._checked(cell)
        mine = self._mine | 1 << cell
        theirs = self._theirs
        free = () if _HAS_LINE[mine] else _FREE_CELLS[mine | theirs]
        # The same fields as in `new`, set on a draft (see `_Draft`); the turn passes,
        # so the two masks and the two marks swap places.
        state: GameState = _new(_Draft)
        state._mine = theirs
        state._theirs = mine
        state._to_move = self._waiting
        state._waiting = self._to_move
        state._parent = self
        state._last = cell
        state._free = free
        state.is_over = not free
        state.__class__ = GameState
        return state

    def _checked(self, cell: object) -> int:
        """`cell` as a plain int if the mark to move may take it; else IllegalMove,
        saying why in words a player understands."""
        number = self._numbered(cell, "cell", 8)
        if number not in self._free:
            raise IllegalMove(f"cell {number} ({CELL_NAMES[number]}) is taken")
        return number

    @property
    def first(self) -> Mark:
        """The mark that moved first (on an empty board: the mark that moves first)."""
        moved = (self._mine | self._theirs).bit_count()
        return self._to_move if moved % 2 == 0 else self._waiting

    @property
    def sides(self) -> tuple[int, int]:
        """The board from the side to move: (its cells, the other mark's cells) as 9-bit
        masks, bit n for cell n. The other mark moved last: only it can have a line.

        With `has_line` and `free_cells` this is all a solver needs to search on masks.
        """
        return self._mine, self._theirs

    @property
    def masks(self) -> tuple[int, int]:
        """The board as two 9-bit masks, (X's cells, O's cells); bit n is cell n."""
        if self._to_move is Mark.X:
            return self._mine, self._theirs
        return self._theirs, self._mine

    @property
    def board(self) -> tuple[Mark | None, ...]:
        """The nine cells, row-major from the top-left: a Mark or None each."""
        x, o = self.masks
        return tuple(
            Mark.X if x >> cell & 1 else Mark.O if o >> cell & 1 else None for cell in range(9)
        )

    @property
    def winner(self) -> Mark | None:
        """The mark that completed a line, or None."""
        return self._waiting if _HAS_LINE[self._theirs] else None

    @property
    def winning_line(self) -> tuple[int, int, int] | None:
        """The three cells of the completed line, or None (the first, if a move made two)."""
        lines = _lines_in(self._theirs)
        return lines[0] if lines else None

    @property
    def winning_cells(self) -> frozenset[int]:
        """Every cell on a completed line: usually three, five when one move made two lines."""
        return frozenset(cell for line in _lines_in(self._theirs) for cell in line)

    @property
    def is_draw(self) -> bool:
        """True when the board is full and nobody has a line."""
        return self.is_over and not _HAS_LINE[self._theirs]

    def __repr__(self) -> str:
        rows = "/".join(
            "".join(str(mark) if mark else "." for mark in self.board[row * 3 : row * 3 + 3])
            for row in range(3)
        )
        return f"GameState({rows!r}, to_move={self.to_move.value}, moves={self.moves})"


class _Draft(GameState):
    """A state being filled in: `new` and `play` set its fields, then make it a GameState.

    A GameState refuses `setattr`, so filling one in would take an `object.__setattr__`
    call per field (what a frozen dataclass does), which made `play` several times
    slower. A draft has the same slots and ordinary attribute writes; turning it into a
    GameState is one assignment to `__class__`. No draft outlives the method making it.
    """

    __slots__ = ()
    __setattr__ = object.__setattr__
    __delattr__ = object.__delattr__


_new: Final = object.__new__
