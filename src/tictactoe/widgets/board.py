"""The 3x3 board: nine buttons, a keyboard cursor, and the digits that take cells."""

from __future__ import annotations

from typing import Final

from textual.app import ComposeResult
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive, var
from textual.widget import Widget
from textual.widgets import Button

from tictactoe.engine import GameState, Mark
from tictactoe.keys import KeyLayout

__all__ = ["Board", "Cell"]

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


def mark_art(mark: Mark, size: Size) -> str:
    """The biggest drawing of `mark` that fits in `size`."""
    for width, height, lines in _ART[mark]:
        if size.width >= width and size.height >= height:
            return "\n".join(lines)
    return str(mark)


class Cell(Button):
    """One square of the board. It shows a mark, or its digit key faintly when empty."""

    ALLOW_MAXIMIZE = False

    mark: reactive[Mark | None] = reactive(None)
    """The mark on this square, or None."""
    key: reactive[str] = reactive("")
    """The digit that takes this square in the current key layout."""

    def __init__(self, cell: int) -> None:
        super().__init__(id=self.id_for(cell), classes="-empty")
        self.cell = cell
        self.can_focus = False
        # Buttons pad each line by one cell a side; a small square needs that room for its
        # mark (and app.tcss cannot say 0: the property only takes positive integers).
        self.styles.line_pad = 0

    @staticmethod
    def id_for(cell: int) -> str:
        """The DOM id of the square at index `cell` (0 = top-left)."""
        return f"cell-{cell}"

    def watch_mark(self, mark: Mark | None) -> None:
        self.update_classes({"-empty": mark is None, "-x": mark is Mark.X, "-o": mark is Mark.O})

    def render(self) -> Content:
        if self.mark is None:
            return Content(self.key)
        board = self.parent
        size = board.art_size if isinstance(board, Board) else self.content_size
        return Content(mark_art(self.mark, size))


class Board(Widget, can_focus=True):
    """The grid of cells. It shows a `GameState` and reports the cell a person picks.

    It decides nothing about the game: the screen that owns the state reads the keys,
    hears `CellChosen` for a click, and sets `match` and `cursor` to whatever comes of it.
    """

    DEFAULT_CSS = """
    Board {
        layout: grid;
        grid-size: 3 3;
        grid-gutter: 0 1;
        width: 47;
        max-width: 100%;
        height: 1fr;
        max-height: 21;
    }

    Board:focus-within {
        background-tint: transparent;
    }
    """

    match: var[GameState | None] = var(None)
    """The match on show; None before the marks are chosen."""
    cursor: var[int] = var(4)
    """The cell under the keyboard cursor."""
    key_layout: var[KeyLayout] = var(KeyLayout.NUMPAD)
    """Which digit takes which cell."""
    hints: var[tuple[int, ...]] = var(())
    """Cells to mark as the best moves."""

    class CellChosen(Message):
        """A person clicked a cell."""

        def __init__(self, cell: int) -> None:
            super().__init__()
            self.cell = cell
            """Index of the cell, 0 = top-left."""

    def compose(self) -> ComposeResult:
        for cell in range(9):
            yield Cell(cell)

    @property
    def art_size(self) -> Size:
        """The room inside the smallest square, so that every mark is drawn at one size."""
        squares = list(self.query(Cell))
        return Size(
            min(square.content_size.width for square in squares),
            min(square.content_size.height for square in squares),
        )

    def on_resize(self) -> None:
        # Squares whose own size did not change may still need a different drawing.
        for square in self.query(Cell):
            self.call_after_refresh(square.refresh)

    def cell(self, cell: int) -> Cell:
        """The square widget at index `cell`."""
        return self.query_one(f"#{Cell.id_for(cell)}", Cell)

    def on_mount(self) -> None:
        self._show_match(self.match)
        self._show_keys(self.key_layout)
        self._show_cursor(self.cursor)

    def watch_match(self, match: GameState | None) -> None:
        if self.is_mounted:
            self._show_match(match)

    def watch_key_layout(self, layout: KeyLayout) -> None:
        if self.is_mounted:
            self._show_keys(layout)

    def watch_cursor(self, cursor: int) -> None:
        if self.is_mounted:
            self._show_cursor(cursor)

    def watch_hints(self, hints: tuple[int, ...]) -> None:
        if self.is_mounted:
            for square in self.query(Cell):
                square.set_class(square.cell in hints, "-hint")

    def _show_match(self, match: GameState | None) -> None:
        board = match.board if match else (None,) * 9
        line = match.winning_cells if match else frozenset()
        for square in self.query(Cell):
            square.mark = board[square.cell]
            square.set_class(square.cell in line, "-win")

    def _show_keys(self, layout: KeyLayout) -> None:
        for square in self.query(Cell):
            square.key = layout.key_for(square.cell)

    def _show_cursor(self, cursor: int) -> None:
        for square in self.query(Cell):
            square.set_class(square.cell == cursor, "-cursor")

    def move_cursor(self, rows: int, columns: int) -> None:
        """Move the cursor one square; at an edge it stays put rather than wrap."""
        row = min(2, max(0, self.cursor // 3 + rows))
        column = min(2, max(0, self.cursor % 3 + columns))
        self.cursor = row * 3 + column

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        assert isinstance(event.button, Cell)
        self.post_message(self.CellChosen(event.button.cell))
