"""The rules of Ultimate tic-tac-toe, as pure immutable values.

Nine small boards sit in three rows of three. A move is `board * 9 + cell` (0 to 80),
boards and cells numbered row-major from the top-left as a classic board's cells are. The
first move is anywhere; a move in cell c sends the opponent to small board c, or anywhere
open when that board is won or full. A small board won or full takes no more moves; three
small boards in a row, won by the same mark, win the game; when no move is left without
that, it is a draw. A drawn small board belongs to nobody.

Inside, each mark's cells are one 81-bit mask (bit `board * 9 + cell`), and the boards each
mark has won, and those that are closed (won or full), are 9-bit masks: a move is a few
shifts and two look-ups in the classic engine's tables.
"""

from __future__ import annotations

from typing import Final, Literal

from tictactoe.core.engine import CELL_NAMES, LINES, IllegalMove, Mark, free_cells, has_line
from tictactoe.core.position import Position

__all__ = [
    "BOARD_NAMES",
    "IllegalMove",
    "Mark",
    "UltimateState",
    "move_words",
    "short_move_phrases",
    "short_move_words",
]

SmallWinner = Mark | Literal["draw"] | None
"""What became of a small board: the mark that won it, "draw" when it filled without a
line, or None while it is open."""

BOARD_NAMES: Final[tuple[str, ...]] = tuple(f"{name} board" for name in CELL_NAMES)
"""How a person names each small board, by index: "top-left board" ... "bottom-right board"."""

_FULL: Final = 0x1FF
"""A 9-bit mask with every cell (or board) in it."""

_BOARD_CELLS: Final = tuple(tuple(board * 9 + cell for cell in range(9)) for board in range(9))
"""The moves of each small board, ascending."""


def move_words(move: int) -> str:
    """A move in words: "the top-left of the centre board"."""
    board, cell = divmod(move, 9)
    return f"the {CELL_NAMES[cell]} of the {BOARD_NAMES[board]}"


def short_move_words(move: int) -> str:
    """A move in a few words, board first, for a list of moves: "centre board, top-left"."""
    return " ".join(short_move_phrases(move))


def short_move_phrases(move: int) -> tuple[str, str]:
    """`short_move_words` in the two pieces a narrow list may put on two lines: "centre
    board," and "top-left"."""
    board, cell = divmod(move, 9)
    return f"{BOARD_NAMES[board]},", CELL_NAMES[cell]


class UltimateState(Position):
    """One position of an Ultimate game: the nine small boards, whose move, the forced board.

    Immutable, hashable and compared by value (the mark to move and the moves). Start one
    with `UltimateState.new()`; `play` and `undo` give the others. The masks are kept from
    the side to move, so that `play` swaps them, and the state before, so that `undo`
    follows a pointer.
    """

    __slots__ = (
        "_closed",
        "_forced",
        "_legal",
        "_mine",
        "_mine_won",
        "_theirs",
        "_theirs_won",
        "is_over",
    )

    _mine: int
    """The cells of the mark to move, as an 81-bit mask."""
    _theirs: int
    """The cells of the other mark, which moved last."""
    _mine_won: int
    """The small boards the mark to move has won, as a 9-bit mask."""
    _theirs_won: int
    """The small boards the other mark has won: only it can hold a line of them."""
    _closed: int
    """The small boards that take no more moves (won or full), as a 9-bit mask."""
    _forced: int
    """The small board the mark to move must play in; -1 when any open board will do."""
    _legal: tuple[int, ...] | None
    """The legal moves, worked out on the first question."""
    is_over: bool
    """True once somebody has three small boards in a row or no move is left."""

    @classmethod
    def new(cls, first: Mark = Mark.X) -> UltimateState:
        """The nine empty boards with `first` to move (X unless told otherwise)."""
        return _make(0, 0, 0, 0, 0, -1, Mark(first), None, -1, False)

    def legal_moves(self) -> tuple[int, ...]:
        """The moves the mark to move may make, ascending; empty once the game is over."""
        legal = self._legal
        if legal is None:
            legal = ()
            if not self.is_over:
                occupied = self._mine | self._theirs
                forced = self._forced
                boards = (forced,) if forced >= 0 else _open_boards(self._closed)
                legal = tuple(
                    board * 9 + cell
                    for board in boards
                    for cell in free_cells(occupied >> board * 9 & _FULL)
                )
            object.__setattr__(self, "_legal", legal)
        return legal

    def play(self, move: int) -> UltimateState:
        """The state after the mark to move makes `move`; `self` is unchanged.

        Raises IllegalMove, saying why, for a move outside 0..80, a taken cell, a board
        that is closed or not the one the rules send the player to, or a finished game.
        """
        if move.__class__ is not int:
            move = self._checked(move)
        board, cell = divmod(move, 9)
        occupied = self._mine | self._theirs
        if (
            self.is_over
            or not 0 <= move <= 80
            or occupied >> move & 1
            or self._closed >> board & 1
            or (self._forced >= 0 and board != self._forced)
        ):
            self._checked(move)
        mine = self._mine | 1 << move
        small = mine >> board * 9 & _FULL
        mine_won = self._mine_won
        closed = self._closed
        if has_line(small):
            mine_won |= 1 << board
            closed |= 1 << board
        elif (small | self._theirs >> board * 9) & _FULL == _FULL:
            closed |= 1 << board
        over = closed == _FULL or (mine_won != self._mine_won and has_line(mine_won))
        forced = -1 if closed >> cell & 1 else cell
        return _make(
            self._theirs,
            mine,
            self._theirs_won,
            mine_won,
            closed,
            forced,
            self._to_move.other,
            self,
            move,
            over,
        )

    def _checked(self, move: object) -> int:
        """`move` as a plain int if the mark to move may make it; else IllegalMove, saying
        why in words a player understands."""
        move = self._numbered(move, "move", 80)
        board = move // 9
        if (self._mine | self._theirs) >> move & 1:
            raise IllegalMove(f"{move_words(move)} is taken")
        if self._closed >> board & 1:
            raise IllegalMove(f"the {BOARD_NAMES[board]} is finished: it takes no more moves")
        if self._forced >= 0 and board != self._forced:
            raise IllegalMove(f"the move must be in the {BOARD_NAMES[self._forced]}")
        return move

    @property
    def first(self) -> Mark:
        """The mark that moved first (at the start: the mark that moves first)."""
        moved = (self._mine | self._theirs).bit_count()
        return self._to_move if moved % 2 == 0 else self._to_move.other

    @property
    def last_move(self) -> int | None:
        """The last move, or None at the start."""
        return None if self._last < 0 else self._last

    @property
    def forced_board(self) -> int | None:
        """The small board the mark to move must play in, or None when any open board will
        do (and once the game is over)."""
        return None if self._forced < 0 or self.is_over else self._forced

    @property
    def open_boards(self) -> tuple[int, ...]:
        """The small boards the mark to move may play in, ascending; empty once it is over."""
        if self.is_over:
            return ()
        return (self._forced,) if self._forced >= 0 else _open_boards(self._closed)

    @property
    def sides(self) -> tuple[int, int, int, int, int]:
        """The position from the side to move, as masks: its cells, the other mark's cells
        (81 bits each, bit `board * 9 + cell`), the boards each has won (9 bits each), and
        the closed boards (9 bits). The other mark moved last: only it can have a line."""
        return self._mine, self._theirs, self._mine_won, self._theirs_won, self._closed

    @property
    def board(self) -> tuple[Mark | None, ...]:
        """The 81 cells, by move number: a Mark or None each."""
        marks = (self._to_move, self._to_move.other)
        return tuple(
            marks[0] if self._mine >> move & 1 else marks[1] if self._theirs >> move & 1 else None
            for move in range(81)
        )

    @property
    def small_winners(self) -> tuple[SmallWinner, ...]:
        """The nine small boards, row-major: the mark that won each, "draw" when it filled
        without a line, or None while it is open."""
        winners: list[SmallWinner] = []
        for board in range(9):
            if self._mine_won >> board & 1:
                winners.append(self._to_move)
            elif self._theirs_won >> board & 1:
                winners.append(self._to_move.other)
            elif self._closed >> board & 1:
                winners.append("draw")
            else:
                winners.append(None)
        return tuple(winners)

    def small_line(self, board: int) -> tuple[int, int, int] | None:
        """The three moves of the line that won small board `board`, or None."""
        for side in (self._mine, self._theirs):
            small = side >> board * 9 & _FULL
            for line in LINES:
                if all(small >> cell & 1 for cell in line):
                    a, b, c = line
                    return board * 9 + a, board * 9 + b, board * 9 + c
        return None

    @property
    def winner(self) -> Mark | None:
        """The mark with three small boards in a row, or None."""
        return self._to_move.other if has_line(self._theirs_won) else None

    @property
    def winning_line(self) -> tuple[int, int, int] | None:
        """The three small boards of the winning line, or None (the first, if there are two)."""
        if not has_line(self._theirs_won):
            return None
        return next(line for line in LINES if all(self._theirs_won >> b & 1 for b in line))

    @property
    def winning_boards(self) -> frozenset[int]:
        """Every small board on a winning line: three, or five when one move made two."""
        won = self._theirs_won
        return frozenset(b for line in LINES if all(won >> x & 1 for x in line) for b in line)

    @property
    def winning_cells(self) -> frozenset[int]:
        """Every cell (move number) of the small boards on a winning line."""
        return frozenset(m for board in self.winning_boards for m in _BOARD_CELLS[board])

    @property
    def is_draw(self) -> bool:
        """True when no move is left and nobody has three small boards in a row."""
        return self.is_over and not has_line(self._theirs_won)

    def __repr__(self) -> str:
        return f"UltimateState(to_move={self._to_move.value}, moves={self.moves})"


def _open_boards_table() -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(b for b in range(9) if not closed >> b & 1) for closed in range(512))


_OPEN_BOARDS: Final = _open_boards_table()
"""By mask of closed boards: the open ones, ascending."""


def _open_boards(closed: int) -> tuple[int, ...]:
    return _OPEN_BOARDS[closed]


_new: Final = object.__new__
_set: Final = object.__setattr__


def _make(
    mine: int,
    theirs: int,
    mine_won: int,
    theirs_won: int,
    closed: int,
    forced: int,
    to_move: Mark,
    parent: UltimateState | None,
    last: int,
    over: bool,
) -> UltimateState:
    """A state with these fields; the only way one is made."""
    state: UltimateState = _new(UltimateState)
    _set(state, "_mine", mine)
    _set(state, "_theirs", theirs)
    _set(state, "_mine_won", mine_won)
    _set(state, "_theirs_won", theirs_won)
    _set(state, "_closed", closed)
    _set(state, "_forced", forced)
    _set(state, "_to_move", to_move)
    _set(state, "_parent", parent)
    _set(state, "_last", last)
    _set(state, "_legal", None)
    _set(state, "is_over", over)
    return state
