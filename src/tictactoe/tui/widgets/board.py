"""The 3x3 board: nine Textual buttons in a grid, a keyboard cursor, the digits that take cells."""

from __future__ import annotations

from typing import Final

from textual import on
from textual.app import ComposeResult
from textual.containers import Grid
from textual.content import Content
from textual.css.scalar import Scalar
from textual.geometry import Offset, Size, Spacing
from textual.message import Message
from textual.reactive import var
from textual.widgets import Button

from tictactoe.core.engine import Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.rules import Position

__all__ = ["Board", "Cell", "mark_art"]

# Each mark drawn at three sizes: (min width, min height, lines).
_ART: Final[dict[Mark, tuple[tuple[int, int, tuple[str, ...]], ...]]] = {
    Mark.X: (
        (9, 5, ("██   ██", " ██ ██ ", "  ███  ", " ██ ██ ", "██   ██")),
        (5, 3, ("▀▄ ▄▀", "  █  ", "▄▀ ▀▄")),
        (3, 3, ("╲ ╱", " ╳ ", "╱ ╲")),
        (1, 1, ("X",)),
    ),
    Mark.O: (
        (9, 5, (" █████ ", "██   ██", "██   ██", "██   ██", " █████ ")),
        (5, 3, ("▄▀▀▀▄", "█   █", "▀▄▄▄▀")),
        (3, 3, ("╭─╮", "│ │", "╰─╯")),
        (1, 1, ("O",)),
    ),
}


FULL_HEIGHT: Final = 3
"""Rows a cell needs for its border above and below a line of mark."""


def mark_art(mark: Mark, size: Size) -> str:
    """The biggest drawing of `mark` that fits in `size`."""
    for width, height, lines in _ART[mark]:
        if size.width >= width and size.height >= height:
            return "\n".join(lines)
    return str(mark)


class Cell(Button, can_focus=False):
    """One square: a Textual button whose label is its mark, or its digit key while empty.

    The board gives it classes for what it shows (`-x`, `-o`, `-empty`, `-cursor`, `-win`,
    `-hint`); app.tcss styles them. It takes no focus: the board holds the keys.
    """

    ALLOW_MAXIMIZE = False

    art_room: var[Size] = var(Size(0, 0), init=False)
    """The room a mark's drawing has: the board gives every cell the room of its smallest
    one, so that all its marks are drawn at one size."""

    def __init__(self, cell: int) -> None:
        super().__init__("", id=f"cell-{cell}", classes="-empty")
        self.cell = cell
        """Index of the square, 0 = top-left."""
        self.mark: Mark | None = None
        """The mark on the square, or None."""
        self.key = ""
        """The digit that takes this square in the current key layout."""

    def show(self, mark: Mark | None, key: str, *, win: bool = False) -> None:
        """Show `mark` (or `key` while empty), and whether it is in the winning line."""
        # One restyle for all that changed (a mark placed: -empty off, -x on), none if nothing did.
        self.update_classes(
            {"-empty": mark is None, "-x": mark is Mark.X, "-o": mark is Mark.O, "-win": win}
        )
        if (mark, key) != (self.mark, self.key):
            self.mark, self.key = mark, key
            self._relabel()

    def watch_art_room(self) -> None:
        self._relabel()

    def on_resize(self) -> None:
        """The board's columns changed this cell's room (after the board's own resize, in a
        later layout): the board draws every mark for the smallest room again."""
        board = self.parent
        if isinstance(board, Board):
            board.fit_marks()

    def _relabel(self) -> None:
        if self.mark is None:
            self.label = Content(self.key)
        else:
            self.label = Content(mark_art(self.mark, self.art_room))

    @property
    def own_room(self) -> Size:
        """The room inside this cell: its content, less the label's padding at either side."""
        width, height = self.content_size
        return Size(max(0, width - 2 * self.styles.line_pad), height)


class Board(Grid, can_focus=True):
    """The classic board: the grid of nine cells. It shows a `GameState` and reports the cell
    a person clicks.

    It decides nothing about the game: the screen that owns the state reads the keys,
    hears `CellChosen` for a click, and sets `match`, `cursor` and `hints` to whatever
    comes of it.
    """

    match: var[Position | None] = var(None)
    """The match on show; None before the marks are chosen."""
    cursor: var[int] = var(4)
    """The cell under the keyboard cursor (-1: none, as in a replay)."""
    key_layout: var[KeyLayout] = var(KeyLayout.NUMPAD)
    """Which digit takes which cell."""
    hints: var[tuple[int, ...]] = var(())
    """Cells marked as the best moves."""

    class CellChosen(Message):
        """A person clicked a cell."""

        def __init__(self, cell: int) -> None:
            super().__init__()
            self.cell = cell
            """Index of the cell, 0 = top-left."""

    DEFAULT_CSS = """
    Board {
        grid-size: 3 3;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cells: Final = tuple(Cell(cell) for cell in range(9))
        """The nine cells, 0 = top-left."""

    def compose(self) -> ComposeResult:
        yield from self.cells

    def on_mount(self) -> None:
        self._show()

    def on_resize(self) -> None:
        """The columns take one odd width (`_centre_columns`); the rows, shares of the
        board, may differ by a cell: every mark is drawn for the smallest cell. (The cells
        have their new sizes by now.) A board too low for a cell's border above and below
        its mark (the replay's, in a small terminal) is `-flat`: app.tcss keeps one border
        line a cell, and every mark shows."""
        self._centre_columns()
        flat = min(cell.outer_size.height for cell in self.cells) < FULL_HEIGHT
        if flat != self.has_class("-flat"):
            self.set_class(flat, "-flat")
        self.fit_marks()  # and again once the cells have their new sizes (after this
        self.call_after_refresh(self.fit_marks)  # refresh, or as each is resized: `Cell`)
        self.call_after_refresh(self.place_terminal_cursor)

    def _centre_columns(self) -> bool:
        """Give the three columns one odd width, the widest that fits, and centre them in
        the board: every drawing of a mark (and a digit) is an odd number of cells wide, so
        it has as many blank cells at its left as at its right in every column (shares of
        the board's width differ by a cell, and an even cell puts its spare one at the
        right). Whether the columns changed."""
        gutter = self.styles.grid_gutter_vertical
        width = self.outer_size.width
        column = max(1, (width - 2 * gutter) // 3)
        column -= 1 - column % 2  # (a cell's border takes one column at either side)
        spare = max(0, width - 3 * column - 2 * gutter)
        padding = Spacing(0, spare - spare // 2, 0, spare // 2)
        if (self.styles.grid_columns, self.styles.padding) == (
            (Scalar.from_number(column),),
            padding,
        ):
            return False
        self.styles.grid_columns = (column,)
        self.styles.padding = padding
        return True

    def fit_marks(self) -> None:
        """Every mark drawn for the room of the smallest cell."""
        rooms = [cell.own_room for cell in self.cells]
        room = Size(min(room.width for room in rooms), min(room.height for room in rooms))
        for cell in self.cells:
            cell.art_room = room

    def watch_match(self) -> None:
        self._show()

    def watch_key_layout(self) -> None:
        self._show()

    def watch_cursor(self, cursor: int) -> None:
        for cell in self.cells:
            cell.set_class(cell.cell == cursor, "-cursor")
        self.place_terminal_cursor()  # with the frame that shows the move of the cursor

    def on_focus(self) -> None:
        self.call_after_refresh(self.place_terminal_cursor)

    def place_terminal_cursor(self) -> None:
        """Stand the terminal's own cursor on the cursor cell, while the board has the focus:
        a magnifier or a braille display follows the terminal's cursor, not a colour."""
        if self.has_focus and 0 <= self.cursor < 9:
            region = self.cells[self.cursor].region
            if region.area:
                x, y = region.center
                self.app.cursor_position = Offset(int(x), int(y))

    def watch_hints(self, hints: tuple[int, ...]) -> None:
        for cell in self.cells:
            cell.set_class(cell.cell in hints, "-hint")

    def _show(self) -> None:
        match = self.match
        board = match.board if match else (None,) * 9
        line = match.winning_cells if match else frozenset()
        for cell in self.cells:
            cell.show(board[cell.cell], self.key_layout.key_for(cell.cell), win=cell.cell in line)
            cell.set_class(cell.cell == self.cursor, "-cursor")

    def key_for(self, cell: int) -> str:
        """The digit a person presses to take `cell`."""
        return self.key_layout.key_for(cell)

    def take_key(self, key: str) -> int | None:
        """A digit typed: the cell it takes (one digit is a whole move here)."""
        return self.key_layout.cell_for(key)

    def forget_key(self) -> None:
        """Nothing waits for a second digit on this board."""

    def move_cursor(self, rows: int, columns: int) -> None:
        """Move the cursor one square; at an edge it stays put rather than wrap."""
        row = min(2, max(0, self.cursor // 3 + rows))
        column = min(2, max(0, self.cursor % 3 + columns))
        self.cursor = row * 3 + column

    @on(Button.Pressed, "Cell")
    def _clicked(self, event: Button.Pressed) -> None:
        event.stop()
        assert isinstance(event.button, Cell)
        self.post_message(self.CellChosen(event.button.cell))
