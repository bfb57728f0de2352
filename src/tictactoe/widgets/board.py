"""The 3x3 board: nine squares, a keyboard cursor, and the digits that take cells."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import ClassVar, Final, NamedTuple

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.app import ComposeResult
from textual.color import WHITE
from textual.geometry import Size
from textual.message import Message
from textual.reactive import var
from textual.strip import Strip

from tictactoe.engine import GameState, Mark
from tictactoe.keys import KeyLayout
from tictactoe.widgets.drawn import BOXES, DrawnLines, EvenLines, edge_line, look_colours

__all__ = ["Board", "Shown", "Square", "mark_art"]

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


class Shown(NamedTuple):
    """What one square shows: its mark (or its digit key while empty) and its state."""

    mark: Mark | None
    key: str
    """The digit that takes this square in the current key layout."""
    cursor: bool = False
    win: bool = False
    hint: bool = False


_NOTHING_SHOWN: Final = tuple(Shown(None, "") for _ in range(9))


class Square(DrawnLines):
    """One square of the board. It draws whatever the board says the square shows, and
    tells the board when it is clicked or the mouse is over it."""

    ALLOW_MAXIMIZE = False

    def __init__(self, cell: int) -> None:
        super().__init__(id=self.id_for(cell))
        self.cell = cell
        """Index of the square, 0 = top-left."""

    @staticmethod
    def id_for(cell: int) -> str:
        """The DOM id of the square at index `cell` (0 = top-left)."""
        return f"cell-{cell}"

    @property
    def board(self) -> Board:
        board = self.parent
        assert isinstance(board, Board)
        return board

    def render_line(self, y: int) -> Strip:
        lines = self.board.lines_of(self.cell, self.size)
        return lines[y] if y < len(lines) else Strip.blank(self.size.width)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(Board.CellChosen(self.cell))

    def on_enter(self, event: events.Enter) -> None:
        event.stop()
        self.board.hover(self.cell)

    def on_leave(self, event: events.Leave) -> None:
        event.stop()
        if self.board.hovered == self.cell:
            self.board.hover(None)


class Board(EvenLines, can_focus=True):
    """The grid of squares. It shows a `GameState` and reports the cell a person picks.

    It decides nothing about the game: the screen that owns the state reads the keys,
    hears `CellChosen` for a click, and sets `match` and `cursor` to whatever comes of it.

    The squares' looks come from the board's component classes (in app.tcss), layered
    as each square's state asks, not from CSS classes on the squares: a move draws the
    two squares it changes again, with no restyle, and each look is drawn once and then
    reused.
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
        layout: grid;
        grid-size: 3 3;
        grid-gutter: 0 1;
        width: 47;
        max-width: 100%;
        height: 1fr;
        max-height: 21;

        & > Square {
            width: 1fr;
            height: 1fr;
            min-width: 3;
            min-height: 3;
            pointer: pointer;
        }
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
        self._shown: tuple[Shown, ...] = _NOTHING_SHOWN
        """What each square shows now."""
        self.hovered: int | None = None
        """The square under the mouse pointer."""
        self._looks: dict[tuple[object, ...], list[Strip]] = {}
        """Each look drawn so far, by everything it depends on."""
        self._drawn: list[list[Strip] | None] = [None] * 9
        """The lines each square shows now, once looked up."""
        self._squares = [Square(cell) for cell in range(9)]
        self._covered = False
        """Whether another screen is over the board (`covered`)."""
        self._art_size: tuple[Size, Size] | None = None
        """The room inside the smallest square, and the board size it was measured at."""

    def compose(self) -> ComposeResult:
        yield from self._squares

    # What the board shows.

    def shown(self, cell: int) -> Shown:
        """What the square at index `cell` (0 = top-left) shows."""
        return self._shown[cell]

    def square(self, cell: int) -> Square:
        """The square widget at index `cell`."""
        return self._squares[cell]

    @property
    def art_size(self) -> Size:
        """The room inside the smallest square, so that every mark is drawn at one size."""
        if self._art_size is None or self._art_size[1] != self.size:
            room = Size(
                max(0, min(square.size.width for square in self._squares) - 2),
                max(0, min(square.size.height for square in self._squares) - 2),
            )
            self._art_size = (room, self.size)
        return self._art_size[0]

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
        shown = tuple(
            Shown(
                board[cell],
                layout.key_for(cell),
                cursor=cell == cursor,
                win=cell in line,
                hint=cell in hints,
            )
            for cell in range(9)
        )
        changed = [cell for cell in range(9) if shown[cell] != self._shown[cell]]
        self._shown = shown
        self._repaint(*changed)

    def _repaint(self, *cells: int) -> None:
        """Draw these squares again (and nothing else of the board)."""
        for cell in cells:
            self._drawn[cell] = None
        if cells and self.is_mounted:
            for cell in cells:
                self._squares[cell].refresh()

    def _forget_looks(self) -> None:
        """The styles or the size changed: every square is drawn anew."""
        self._looks.clear()
        self._drawn = [None] * 9

    @property
    def covered(self) -> bool:
        """Whether a dialog or another screen is over the board and takes the keys."""
        return self._covered

    @covered.setter
    def covered(self, covered: bool) -> None:
        if covered != self._covered:
            self._covered = covered
            self._repaint(*(cell for cell in range(9) if self._shown[cell].cursor))

    def _cursor_active(self) -> bool:
        """The cursor looks active only while the keys come to the board."""
        return self.has_focus and not self._covered

    def watch_has_focus(self, _has_focus: bool) -> None:
        """Focus restyles nothing: no rule styles the board or its squares by it. It
        shows in the cursor's look alone, which the board draws (`on_focus`, `on_blur`).

        (Textual would restyle the board and its nine squares, twice each.)
        """

    def on_focus(self) -> None:
        self._repaint(*(cell for cell in range(9) if self._shown[cell].cursor))

    def on_blur(self) -> None:
        self._repaint(*(cell for cell in range(9) if self._shown[cell].cursor))

    def notify_style_update(self) -> None:
        """The theme or the board's classes changed: every look is drawn anew."""
        super().notify_style_update()
        self._forget_looks()
        self._repaint(*range(9))

    def on_resize(self) -> None:
        # A new size may need another drawing of the marks, in every square, even one
        # whose own size did not change.
        self._art_size = None
        self._forget_looks()
        self._repaint(*range(9))

    def hover(self, cell: int | None) -> None:
        """The mouse is over square `cell` now (None: over none)."""
        if cell != self.hovered:
            before, self.hovered = self.hovered, cell
            self._repaint(*(square for square in (before, cell) if square is not None))

    def move_cursor(self, rows: int, columns: int) -> None:
        """Move the cursor one square; at an edge it stays put rather than wrap."""
        row = min(2, max(0, self.cursor // 3 + rows))
        column = min(2, max(0, self.cursor % 3 + columns))
        self.cursor = row * 3 + column

    # Drawing: each square asks for its lines.

    def lines_of(self, cell: int, size: Size) -> list[Strip]:
        """The lines of the square at `cell`, at `size`: each look is drawn once."""
        lines = self._drawn[cell]
        if lines is None or len(lines) != size.height or lines[0].cell_length != size.width:
            shown = self._shown[cell]
            layers = self._layers(cell)
            text = shown.key if shown.mark is None else mark_art(shown.mark, self.art_size)
            key = (layers, text, size)
            lines = self._looks.get(key)
            if lines is None:
                lines = self._looks[key] = self._draw_square(layers, text, size)
            self._drawn[cell] = lines
        return lines

    def _layers(self, cell: int) -> tuple[str, ...]:
        """The component classes a square's look is made of, in the order they apply."""
        shown = self._shown[cell]
        layers = ["board--square"]
        if cell == self.hovered:
            layers.append("board--hover")
        layers.append(
            "board--empty" if shown.mark is None else f"board--{shown.mark.value.lower()}"
        )
        active = self._cursor_active()
        if shown.cursor and not active:
            layers.append("board--cursor-idle")
        if shown.hint:
            layers.append("board--hint")
        if shown.cursor and active:
            layers.append("board--cursor")
        if shown.win:
            layers.append("board--win")
        return tuple(layers)

    def _draw_square(self, layers: tuple[str, ...], text: str, size: Size) -> list[Strip]:
        """A square's lines: a border around `text`, centred, as the layers style it."""
        styles = self.get_component_styles(*layers)
        under = self.background_colors[1]
        background, color = look_colours(styles, under, self.visual_style.foreground or WHITE)
        fill = Style(bgcolor=background.rich_color)
        ink = Style.from_color((background + color).rich_color, background.rich_color)
        ink += styles.text_style
        edge, edge_color = styles.border_top
        box = BOXES.get(edge, BOXES["round"])
        border = Style.from_color((under + edge_color).rich_color, background.rich_color)

        width, height = size
        inner_width, inner_height = max(0, width - 2), max(0, height - 2)
        art = text.split("\n") if color.a else [""]  # text-opacity 0: nothing to draw
        art_width = max(len(line) for line in art)
        left = max(0, (inner_width - art_width) // 2)
        top = max(0, (inner_height - len(art)) // 2)

        def content_line(row: int) -> Strip:
            line = art[row - top] if 0 <= row - top < len(art) else ""
            line = (" " * left + line)[:inner_width]
            # The blanks around the drawing take its style: they look the same, and the
            # line goes out as three runs of one style each.
            inside = line.ljust(inner_width)
            segments = [
                Segment(box[1][0], border),
                Segment(inside, ink if line.strip() else fill),
                Segment(box[1][2], border),
            ]
            return Strip(segments).crop(0, width)

        lines = [edge_line(box[0], width, border)]
        lines += [content_line(row) for row in range(inner_height)]
        if height > 1:
            lines.append(edge_line(box[2], width, border))
        return lines[:height]
