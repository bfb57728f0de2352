"""The Ultimate board: nine small boards of nine Textual buttons, a cursor over all 81 cells,
and the digits that take a cell (the board's digit, then the cell's; one when the board is
forced)."""

from __future__ import annotations

from typing import Final

from textual import on
from textual.app import ComposeResult
from textual.containers import Grid
from textual.content import Content
from textual.geometry import Offset, Size
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import Button, Static

from tictactoe.core.engine import Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.rules import Position
from tictactoe.core.ultimate import UltimateState
from tictactoe.tui.widgets.board import Board, mark_art

__all__ = ["FULL_SIZE", "MIN_SIZE", "SmallBoard", "UltimateBoard", "UltimateCell"]

SIDE: Final = 3
"""Small boards (and cells of a small board) a row."""
CELLS: Final = SIDE * SIDE
"""Cells of a small board, and small boards of the game."""

FULL_SIZE: Final = Size(35, 15)
"""The room the board needs to draw a border round each small board."""
MIN_SIZE: Final = Size(20, 11)
"""The least room the board is drawn in: one column of gap between the small boards' cells
(two wide each) and one row between the boards, no borders (it fits the app's minimum)."""


class UltimateCell(Button, can_focus=False):
    """One of the 81 cells: a Textual button whose label is its mark, or its digit key while
    empty in a board one may play in. The board gives it classes (`-x`, `-o`, `-empty`,
    `-cursor`, `-last`, `-hint`); app.tcss styles them."""

    ALLOW_MAXIMIZE = False

    def __init__(self, move: int) -> None:
        super().__init__("", id=f"cell-{move}", classes="-empty")
        self.move = move
        """The move this cell takes: board * 9 + cell."""
        self._label: tuple[Mark | None, str] | None = None

    def show(self, mark: Mark | None, key: str) -> None:
        """Show `mark`, or `key` while empty (an empty key: nothing)."""
        self.update_classes({"-empty": mark is None, "-x": mark is Mark.X, "-o": mark is Mark.O})
        if (mark, key) != self._label:
            self._label = (mark, key)
            self.label = Content(key if mark is None else str(mark))


class SmallBoard(Widget):
    """One small board: its nine cells, and its mark drawn large once it is won. Classes:
    `-open` (the mover may play here), `-pending` (its digit was typed), `-won`, `-drawn`,
    `-win` (on the winning line)."""

    def __init__(self, board: int) -> None:
        super().__init__(id=f"small-{board}")
        self.board = board
        """Index of the small board, 0 = top-left."""
        self.cells: Final = tuple(UltimateCell(board * CELLS + cell) for cell in range(CELLS))
        self.big = Static("", classes="big")
        """Its winner's mark, drawn large over the cells once the board is won."""
        self._winner: Mark | str | None = None
        """What `show_winner` last showed."""

    def compose(self) -> ComposeResult:
        with Grid(classes="cells"):
            yield from self.cells
        yield self.big

    def show_winner(self, winner: Mark | str | None) -> None:
        """Show what became of the board: a mark won it, "draw", or None while open (only a
        change is drawn: the large mark's label would lay the screen out again)."""
        if winner == self._winner:
            return
        self._winner = winner
        won = isinstance(winner, Mark)
        self.update_classes({"-won": won, "-drawn": winner == "draw"})
        self.big.update(Content(mark_art(winner, Size(5, 3)) if isinstance(winner, Mark) else ""))
        self.big.set_class(winner is Mark.X, "-x")
        self.big.set_class(winner is Mark.O, "-o")


class UltimateBoard(Widget, can_focus=True):
    """The nine small boards. It shows an `UltimateState` and reports the cell a person
    clicks (as `Board.CellChosen`, so that a screen hears either board alike).

    It decides nothing about the game: the screen reads the keys, gives it the digits typed
    (`take_key`), and sets `match`, `cursor` and `hints` to whatever comes of them.
    """

    DEFAULT_CSS = """
    UltimateBoard {
        grid-size: 3 3;
        & > SmallBoard > .cells {
            layout: grid;
            grid-size: 3 3;
        }
    }
    """

    match: var[Position | None] = var(None)
    """The match on show; None before the marks are chosen."""
    cursor: var[int] = var(40)
    """The cell under the keyboard cursor (board * 9 + cell; -1: none)."""
    key_layout: var[KeyLayout] = var(KeyLayout.NUMPAD)
    """Which digit names which board, and which cell of a board."""
    hints: var[tuple[int, ...]] = var(())
    """Cells marked as the best moves."""
    pending: var[int | None] = var(None)
    """The board whose digit was typed, until the cell's digit comes."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.boards: Final = tuple(SmallBoard(board) for board in range(CELLS))
        """The nine small boards, 0 = top-left."""
        self.cells: Final = tuple(cell for board in self.boards for cell in board.cells)
        """The 81 cells, by move."""

    def compose(self) -> ComposeResult:
        yield from self.boards

    def on_mount(self) -> None:
        self._show()

    def on_resize(self) -> None:
        """Below the room for borders the small boards are `-flat`: gaps instead of borders."""
        width, height = self.size
        self.set_class(width < FULL_SIZE.width or height < FULL_SIZE.height, "-flat")
        self.call_after_refresh(self.place_terminal_cursor)

    @property
    def state(self) -> UltimateState | None:
        match = self.match
        return match if isinstance(match, UltimateState) else None

    # What the screen asks of a board.

    def key_for(self, move: int) -> str:
        """The digits a person presses to take `move`: the board's, then the cell's (only the
        cell's while the mover is sent to that board)."""
        board, cell = divmod(move, CELLS)
        state = self.state
        keys = self.key_layout.key_for
        if state is not None and state.forced_board == board:
            return keys(cell)
        return keys(board) + keys(cell)

    def take_key(self, key: str) -> int | None:
        """A digit typed: the move it completes, or None while it waits for the cell's digit
        (the board's shown pending). A first digit naming a board one may not play in gives a
        move there at once, for the rules to refuse in words."""
        digit = self.key_layout.cell_for(key)
        state = self.state
        if self.pending is not None:
            board, self.pending = self.pending, None
            return board * CELLS + digit
        if state is not None and state.forced_board is not None:
            return state.forced_board * CELLS + digit
        if state is None or digit not in state.open_boards:
            return digit * CELLS
        self.pending = digit
        return None

    def forget_key(self) -> None:
        """Drop a board's digit waiting for its cell's."""
        self.pending = None

    def move_cursor(self, rows: int, columns: int) -> None:
        """Move the cursor one cell across the 81 (into the next board at a board's edge);
        at the board's outer edge it stays put rather than wrap."""
        board, cell = divmod(max(0, self.cursor), CELLS)
        row = board // SIDE * SIDE + cell // SIDE
        column = board % SIDE * SIDE + cell % SIDE
        row = min(CELLS - 1, max(0, row + rows))
        column = min(CELLS - 1, max(0, column + columns))
        board = row // SIDE * SIDE + column // SIDE
        self.cursor = board * CELLS + row % SIDE * SIDE + column % SIDE

    # Drawing.

    def watch_match(self) -> None:
        self.pending = None
        self._show()

    def watch_key_layout(self) -> None:
        self._show()

    def watch_pending(self, pending: int | None) -> None:
        for small in self.boards:
            small.set_class(small.board == pending, "-pending")

    def watch_cursor(self, cursor: int) -> None:
        for cell in self.cells:
            cell.set_class(cell.move == cursor, "-cursor")
        self.place_terminal_cursor()

    def watch_hints(self, hints: tuple[int, ...]) -> None:
        for cell in self.cells:
            cell.set_class(cell.move in hints, "-hint")

    def on_focus(self) -> None:
        self.call_after_refresh(self.place_terminal_cursor)

    def place_terminal_cursor(self) -> None:
        """Stand the terminal's own cursor on the cursor cell while the board has the focus
        (a magnifier or a braille display follows it)."""
        if self.has_focus and 0 <= self.cursor < len(self.cells):
            region = self.cells[self.cursor].region
            if region.area:
                x, y = region.center
                self.app.cursor_position = Offset(int(x), int(y))

    def _show(self) -> None:
        state = self.state
        board = state.board if state else (None,) * len(self.cells)
        winners = state.small_winners if state else (None,) * CELLS
        open_boards = state.open_boards if state else ()
        winning = state.winning_boards if state else frozenset()
        last = state.last_move if state else None
        keys = self.key_layout.key_for
        for small in self.boards:
            here = small.board
            small.border_title = keys(here)
            small.show_winner(winners[here])
            small.update_classes({"-open": here in open_boards, "-win": here in winning})
            for cell in small.cells:
                playable = here in open_boards and board[cell.move] is None
                cell.show(board[cell.move], keys(cell.move % CELLS) if playable else "")
                cell.update_classes(
                    {"-last": cell.move == last, "-cursor": cell.move == self.cursor}
                )

    @on(Button.Pressed, "UltimateCell")
    def _clicked(self, event: Button.Pressed) -> None:
        event.stop()
        assert isinstance(event.button, UltimateCell)
        self.pending = None
        self.post_message(Board.CellChosen(event.button.move))
