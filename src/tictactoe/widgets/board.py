"""The 3x3 board: nine squares, a keyboard cursor, and the digits that take cells."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ClassVar, Final

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Offset, Region, Size
from textual.message import Message
from textual.reactive import var
from textual.strip import Strip

from tictactoe.engine import GameState, Mark
from tictactoe.keys import KeyLayout
from tictactoe.widgets.drawn import DrawnLines

__all__ = ["Board", "Square", "mark_art"]

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

# The box characters of the borders a square can have: (top, middle, bottom) rows of
# (left, fill, right), as Textual draws the border types of the same names.
_BOXES: Final[dict[str, tuple[str, str, str]]] = {
    "round": ("╭─╮", "│ │", "╰─╯"),
    "heavy": ("┏━┓", "┃ ┃", "┗━┛"),
    "double": ("╔═╗", "║ ║", "╚═╝"),
    "dashed": ("┏╍┓", "╏ ╏", "┗╍┛"),
}


KEPT_ROWS: Final = 1000
"""Lines of the board kept for reuse; past this many, they are dropped and joined again."""


def mark_art(mark: Mark, size: Size) -> str:
    """The biggest drawing of `mark` that fits in `size`."""
    for width, height, lines in _ART[mark]:
        if size.width >= width and size.height >= height:
            return "\n".join(lines)
    return str(mark)


@dataclass(frozen=True, slots=True)
class Square:
    """What one square shows: its mark (or its digit key while empty) and its state."""

    mark: Mark | None
    key: str
    """The digit that takes this square in the current key layout."""
    cursor: bool = False
    win: bool = False
    hint: bool = False


_EMPTY_SQUARES: Final = tuple(Square(None, "") for _ in range(9))


class Board(DrawnLines, can_focus=True):
    """The grid of squares. It shows a `GameState` and reports the cell a person picks.

    It decides nothing about the game: the screen that owns the state reads the keys,
    hears `CellChosen` for a click, and sets `match` and `cursor` to whatever comes of it.

    One widget draws all nine squares, line by line, from its component classes (the
    look is in app.tcss). A move changes two squares: only their regions are drawn
    again, with no restyle, and each look is drawn once and then reused.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "board--square",
        "board--hover",
        "board--empty",
        "board--x",
        "board--o",
        "board--hint",
        "board--cursor",
        "board--cursor-idle",
        "board--win",
    }
    """A square's look, layer upon layer in this order: every square; under the mouse;
    empty, X or O; a hinted cell; the cursor (`-idle` while the keys are elsewhere); the
    winning line."""

    DEFAULT_CSS = """
    Board {
        width: 47;
        max-width: 100%;
        height: 1fr;
        max-height: 21;
        pointer: pointer;
    }

    Board:focus-within {
        background-tint: transparent;
    }
    """

    match: var[GameState | None] = var(None)
    """The match on show; None before the marks are chosen."""
    cursor: var[int] = var(4)
    """The cell under the keyboard cursor (-1: none)."""
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
        self._squares: tuple[Square, ...] = _EMPTY_SQUARES
        """What each square shows now."""
        self._hovered: int | None = None
        """The square under the mouse pointer."""
        self._looks: dict[tuple[object, ...], list[Strip]] = {}
        """Each square's lines drawn so far, by everything they depend on."""
        self._drawn: list[list[Strip] | None] = [None] * 9
        """The lines each square shows now, once looked up."""
        self._rows: dict[tuple[int, int, int, int], Strip] = {}
        """Lines of the board, by the three squares' lines and the line within them."""
        self._grid: tuple[Size, list[tuple[int, int]], list[tuple[int, int]]] | None = None
        """The squares' columns and rows, as (offset, length), for the size they were for."""

    # What the board shows.

    def square(self, cell: int) -> Square:
        """What the square at index `cell` (0 = top-left) shows."""
        return self._squares[cell]

    def square_region(self, cell: int) -> Region:
        """Where the square at index `cell` is, relative to the board."""
        columns, rows = self._columns_and_rows()
        x, width = columns[cell % 3]
        y, height = rows[cell // 3]
        return Region(x, y, width, height)

    def cell_at(self, offset: Offset) -> int | None:
        """The square at `offset` (relative to the board), or None in a gap or outside."""
        for cell in range(9):
            if self.square_region(cell).contains_point(offset):
                return cell
        return None

    @property
    def art_size(self) -> Size:
        """The room inside the smallest square, so that every mark is drawn at one size."""
        columns, rows = self._columns_and_rows()
        return Size(
            max(0, min(width for _, width in columns) - 2),
            max(0, min(height for _, height in rows) - 2),
        )

    def _columns_and_rows(self) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """Three equal columns with a gap of one between them, and three equal rows, as
        Textual's grid layout divides the board (the remainder falls where it would)."""
        size = self.size
        if self._grid is None or self._grid[0] != size:
            self._grid = (size, _divide(size.width, gap=1), _divide(size.height, gap=0))
        return self._grid[1], self._grid[2]

    # State flows down.

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
        """Set several of the board's values as one change: each square is drawn once.

        A move sets the cursor and the match; shown one by one, the square played would
        be drawn twice.
        """
        self._holding += 1
        try:
            yield
        finally:
            self._holding -= 1
            self._show()

    def _show(self) -> None:
        if self._holding:
            return
        match, cursor, hints, layout = self.match, self.cursor, self.hints, self.key_layout
        board = match.board if match else (None,) * 9
        line = match.winning_cells if match else frozenset()
        squares = tuple(
            Square(
                board[cell],
                layout.key_for(cell),
                cursor=cell == cursor,
                win=cell in line,
                hint=cell in hints,
            )
            for cell in range(9)
        )
        changed = [cell for cell in range(9) if squares[cell] != self._squares[cell]]
        self._squares = squares
        self._repaint(*changed)

    def _repaint(self, *cells: int) -> None:
        """Draw these squares again (and nothing else of the board)."""
        for cell in cells:
            self._drawn[cell] = None
        if cells and self.is_mounted:
            self.refresh(*(self.square_region(cell) for cell in cells))

    def _forget_looks(self) -> None:
        """The styles or the size changed: every square is drawn anew."""
        self._looks.clear()
        self._rows.clear()
        self._drawn = [None] * 9

    def _cursor_active(self) -> bool:
        """The cursor looks active only while the keys come to the board."""
        return self.has_focus and not self.has_class("-inactive")

    def on_focus(self) -> None:
        self._repaint(*(cell for cell in range(9) if self._squares[cell].cursor))

    def on_blur(self) -> None:
        self._repaint(*(cell for cell in range(9) if self._squares[cell].cursor))

    def notify_style_update(self) -> None:
        """The theme or the board's classes changed: every look is drawn anew."""
        super().notify_style_update()
        self._forget_looks()
        self.refresh()

    def on_resize(self) -> None:
        self._forget_looks()

    # Input: the mouse. (The keys are the screen's.)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover(self.cell_at(event.offset))

    def on_leave(self) -> None:
        self._hover(None)

    def _hover(self, cell: int | None) -> None:
        if cell != self._hovered:
            before, self._hovered = self._hovered, cell
            self._repaint(*(square for square in (before, cell) if square is not None))

    def on_click(self, event: events.Click) -> None:
        event.stop()
        cell = self.cell_at(event.offset)
        if cell is not None:
            self.post_message(self.CellChosen(cell))

    def move_cursor(self, rows: int, columns: int) -> None:
        """Move the cursor one square; at an edge it stays put rather than wrap."""
        row = min(2, max(0, self.cursor // 3 + rows))
        column = min(2, max(0, self.cursor % 3 + columns))
        self.cursor = row * 3 + column

    # Drawing.

    def render_line(self, y: int) -> Strip:
        columns, rows = self._columns_and_rows()
        found = [
            (row, top, height) for row, (top, height) in enumerate(rows) if top <= y < top + height
        ]
        if not found:
            return Strip.blank(self.size.width, self._gap_style())
        row, top, height = found[0]
        looks = [
            self._lines(row * 3 + column, Size(width, height))
            for column, (_, width) in enumerate(columns)
        ]
        key = (id(looks[0]), id(looks[1]), id(looks[2]), y - top)
        line = self._rows.get(key)
        if line is None:
            gap = self._gap_style()
            pieces: list[Strip] = []
            end = 0
            for (left, width), look in zip(columns, looks, strict=True):
                if left > end:
                    pieces.append(Strip.blank(left - end, gap))
                pieces.append(look[y - top])
                end = left + width
            if self.size.width > end:
                pieces.append(Strip.blank(self.size.width - end, gap))
            if len(self._rows) > KEPT_ROWS:
                self._rows.clear()
            line = self._rows[key] = Strip.join(pieces)
        return line

    def _gap_style(self) -> Style:
        return Style(bgcolor=self.background_colors[1].rich_color)

    def _lines(self, cell: int, size: Size) -> list[Strip]:
        """The lines of the square at `cell`, drawn once for each look."""
        lines = self._drawn[cell]
        if lines is None or len(lines) != size.height:
            lines = self._drawn[cell] = self._square_lines(cell, size)
        return lines

    def _layers(self, cell: int) -> tuple[str, ...]:
        """The component classes a square's look is made of, in the order they apply."""
        square = self._squares[cell]
        layers = ["board--square"]
        if cell == self._hovered:
            layers.append("board--hover")
        layers.append(
            "board--empty" if square.mark is None else f"board--{square.mark.value.lower()}"
        )
        active = self._cursor_active()
        if square.cursor and not active:
            layers.append("board--cursor-idle")
        if square.hint:
            layers.append("board--hint")
        if square.cursor and active:
            layers.append("board--cursor")
        if square.win:
            layers.append("board--win")
        return tuple(layers)

    def _square_lines(self, cell: int, size: Size) -> list[Strip]:
        square = self._squares[cell]
        layers = self._layers(cell)
        text = square.key if square.mark is None else mark_art(square.mark, self.art_size)
        key = (layers, text, size)
        lines = self._looks.get(key)
        if lines is None:
            lines = self._looks[key] = self._draw_square(layers, text, size)
        return lines

    def _draw_square(self, layers: tuple[str, ...], text: str, size: Size) -> list[Strip]:
        """A square's lines: a border around `text`, centred, as the layers style it."""
        styles = self.get_component_styles(*layers)
        under = self.background_colors[1]
        background = under
        if styles.has_rule("background"):
            background = under + styles.background.tint(styles.background_tint)
        color = styles.color.multiply_alpha(styles.text_opacity)
        if styles.auto_color:
            color = background.get_contrast_text(color.a)
        fill = Style(bgcolor=background.rich_color)
        ink = Style.from_color((background + color).rich_color, background.rich_color)
        ink += styles.text_style
        edge, edge_color = styles.border_top
        box = _BOXES.get(edge, _BOXES["round"])
        border = Style.from_color((under + edge_color).rich_color, background.rich_color)

        width, height = size
        inner_width, inner_height = max(0, width - 2), max(0, height - 2)
        art = text.split("\n") if color.a else [""]  # text-opacity 0: nothing to draw
        art_width = max(len(line) for line in art)
        left = max(0, (inner_width - art_width) // 2)
        top = max(0, (inner_height - len(art)) // 2)

        def edge_line(chars: str) -> Strip:
            if width < 2:
                return Strip([Segment(chars[0][:width], border)], width)
            return Strip([Segment(chars[0] + chars[1] * inner_width + chars[2], border)], width)

        def content_line(row: int) -> Strip:
            line = art[row - top] if 0 <= row - top < len(art) else ""
            line = (" " * left + line)[:inner_width]
            segments = [Segment(box[1][0], border)]
            if line.strip():
                start = len(line) - len(line.lstrip())
                segments += [
                    Segment(" " * start, fill),
                    Segment(line[start:], ink),
                    Segment(" " * (inner_width - len(line)), fill),
                ]
            else:
                segments.append(Segment(" " * inner_width, fill))
            segments.append(Segment(box[1][2], border))
            return Strip(segments, width).crop(0, width)

        lines = [edge_line(box[0])]
        lines += [content_line(row) for row in range(inner_height)]
        if height > 1:
            lines.append(edge_line(box[2]))
        return lines[:height]


def _divide(total: int, *, gap: int) -> list[tuple[int, int]]:
    """Three equal parts of `total` with `gap` between them, as (offset, length), where
    Textual's grid layout puts them: each edge at the floor of its exact place."""
    room = max(0, total - 2 * gap)
    return [
        (room * part // 3 + part * gap, room * (part + 1) // 3 - room * part // 3)
        for part in range(3)
    ]
