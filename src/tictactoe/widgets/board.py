"""The 3x3 board: nine squares, a keyboard cursor, and the digits that take cells."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

from textual import events
from textual.app import ComposeResult
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget

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


class Cell(Widget):
    """One square of the board. It shows a mark, or its digit key faintly when empty.

    A plain widget, not a `Button`: a square is restyled on every move, and each restyle
    weighs every rule that could match it, Button's dozens of variants included. The
    board gives a square everything it shows at once (`show`), so a move restyles each
    changed square once.
    """

    ALLOW_MAXIMIZE = False

    def __init__(self, cell: int) -> None:
        super().__init__(id=self.id_for(cell), classes="-empty")
        self.cell = cell
        self.mark: Mark | None = None
        """The mark on this square, or None."""
        self.key = ""
        """The digit that takes this square in the current key layout."""

    @staticmethod
    def id_for(cell: int) -> str:
        """The DOM id of the square at index `cell` (0 = top-left)."""
        return f"cell-{cell}"

    def show(self, mark: Mark | None, key: str, *, cursor: bool, win: bool, hint: bool) -> None:
        """Show `mark` (or `key` while empty) and the square's state, in one restyle."""
        if (mark, key) != (self.mark, self.key):
            self.mark, self.key = mark, key
            self.refresh()
        self.update_classes(
            {
                "-empty": mark is None,
                "-x": mark is Mark.X,
                "-o": mark is Mark.O,
                "-cursor": cursor,
                "-win": win,
                "-hint": hint,
            }
        )

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(Board.CellChosen(self.cell))

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

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._holding = 0
        """How many `changes` blocks are open: the squares are shown when the last ends."""

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
        self._show_squares()

    def watch_match(self) -> None:
        self._show()

    def watch_key_layout(self) -> None:
        self._show()

    def watch_cursor(self) -> None:
        self._show()

    def watch_hints(self) -> None:
        self._show()

    @contextmanager
    def changes(self) -> Iterator[None]:
        """Set several of the board's values as one change: each square is restyled once.

        A move sets the cursor and the match; shown one by one, the square played would
        be restyled twice.
        """
        self._holding += 1
        try:
            yield
        finally:
            self._holding -= 1
            self._show()

    def _show(self) -> None:
        if self.is_mounted and not self._holding:
            self._show_squares()

    def _show_squares(self) -> None:
        """Give every square what it shows now (a square that does not change is not touched)."""
        match, cursor, hints, layout = self.match, self.cursor, self.hints, self.key_layout
        board = match.board if match else (None,) * 9
        line = match.winning_cells if match else frozenset()
        for square in self.query(Cell):
            cell = square.cell
            square.show(
                board[cell],
                layout.key_for(cell),
                cursor=cell == cursor,
                win=cell in line,
                hint=cell in hints,
            )

    def move_cursor(self, rows: int, columns: int) -> None:
        """Move the cursor one square; at an edge it stays put rather than wrap."""
        row = min(2, max(0, self.cursor // 3 + rows))
        column = min(2, max(0, self.cursor % 3 + columns))
        self.cursor = row * 3 + column
