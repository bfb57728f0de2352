"""The Ultimate board: nine small boards, a cursor over all 81 cells, and the digits that take
a cell (the board's digit, then the cell's; one when the board is forced).

Each small board is one widget that draws its nine cells itself, as Textual's guide draws a
checkerboard. A cell's looks are the Ultimate board's component classes (`ultimate-board--x`,
`--last`, `--cursor`...), which app.tcss styles: kept on the one board, not on each small one,
they are worked out when the board is restyled, not each time a small board opens or closes.
Nine widgets, not 81 buttons: a move repaints the boards it changes, and a board that opens
restyles one node.
"""

from __future__ import annotations

from typing import ClassVar, Final

from textual import events, on
from textual.app import ComposeResult
from textual.content import Content
from textual.geometry import Offset, Region, Size
from textual.reactive import reactive, var
from textual.style import Style as VisualStyle
from textual.widget import Widget

from tictactoe.core.engine import Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.rules import Position
from tictactoe.core.ultimate import UltimateState
from tictactoe.tui.widgets.board import Board, mark_art

__all__ = ["FULL_SIZE", "MIN_SIZE", "SmallBoard", "UltimateBoard"]

SIDE: Final = 3
"""Small boards (and cells of a small board) a row."""
CELLS: Final = SIDE * SIDE
"""Cells of a small board, and small boards of the game."""

FULL_SIZE: Final = Size(35, 15)
"""The room the board needs to draw a border round each small board."""
MIN_SIZE: Final = Size(20, 11)
"""The least room the board is drawn in: one column of gap between the small boards' cells
(two wide each) and one row between the boards, no borders (it fits the app's minimum)."""

EMPTY: Final = (None,) * CELLS


def _edges(width: int) -> tuple[int, ...]:
    """Where each of a row's three cells starts, and where the last ends, in `width` columns
    (shared out as Textual shares out three `1fr` columns)."""
    return tuple(width * column // SIDE for column in range(SIDE + 1))


class SmallBoard(Widget):
    """One small board: its nine cells in three rows, each its mark, or its digit key while
    empty in a board one may play in; its mark drawn large once it is won.

    Classes: `-open` (the mover may play here), `-pending` (its digit was typed), `-won`,
    `-drawn`, `-win` (on the winning line). A click on a cell posts `Board.CellChosen`.
    """

    marks: reactive[tuple[Mark | None, ...]] = reactive(EMPTY)
    """The mark on each cell, 0 = top-left."""
    keys: reactive[tuple[str, ...]] = reactive(("",) * CELLS)
    """The digit shown on each empty cell ("" for none)."""
    last: reactive[int | None] = reactive(None)
    """The cell of the match's last move, if it is on this board."""
    cursor: reactive[int | None] = reactive(None)
    """The cell under the keyboard cursor, if it is on this board."""
    hints: reactive[frozenset[int]] = reactive(frozenset())
    """Cells marked as the best moves."""
    hover: reactive[int | None] = reactive(None)
    """The cell under the mouse pointer."""

    winner: reactive[Mark | str | None] = reactive(None)
    """What became of the board: the mark that won it, "draw", or None while open (the
    board's classes say it too: the UltimateBoard sets them all at once)."""

    def __init__(self, board: int) -> None:
        super().__init__(id=f"small-{board}")
        self.board = board
        """Index of the small board, 0 = top-left."""

    def cell_at(self, offset: Offset | None) -> int | None:
        """The cell at `offset` in the board's content, or None (a won board has none)."""
        if offset is None or isinstance(self.winner, Mark) or not 0 <= offset.y < SIDE:
            return None
        edges = _edges(self.content_size.width)
        for column in range(SIDE):
            if edges[column] <= offset.x < edges[column + 1]:
                return offset.y * SIDE + column
        return None

    def cell_region(self, cell: int) -> Region:
        """Where `cell` is drawn on the screen."""
        row, column = divmod(cell, SIDE)
        edges = _edges(self.content_size.width)
        x, y = self.content_region.offset
        return Region(x + edges[column], y + row, edges[column + 1] - edges[column], 1)

    def render(self) -> Content:
        board = self.parent
        assert isinstance(board, UltimateBoard)
        if isinstance(self.winner, Mark):
            style = board.cell_style(f"ultimate-board--{self.winner.name.lower()}")
            return Content.styled(mark_art(self.winner, Size(5, 3)), style)
        edges = _edges(self.content_size.width)
        rows = []
        for row in range(SIDE):
            parts: list[tuple[str, VisualStyle]] = []
            for column in range(SIDE):
                cell = row * SIDE + column
                mark = self.marks[cell]
                text = self.keys[cell] if mark is None else str(mark)
                width = edges[column + 1] - edges[column]
                text = text[:width]
                left = (width - len(text)) // 2
                style = board.cell_style(*self._looks(cell, mark))
                room = VisualStyle(background=style.background)  # the text alone underlined
                parts += [
                    (" " * left, room),
                    (text, style),
                    (" " * (width - left - len(text)), room),
                ]
            rows.append(Content.assemble(*parts))
        return Content("\n").join(rows)

    def _looks(self, cell: int, mark: Mark | None) -> tuple[str, ...]:
        """The Ultimate board's component classes `cell` is drawn with, the later over the
        earlier."""
        looks = ["empty" if mark is None else mark.name.lower()]
        for look, shown in (
            ("hover", cell == self.hover),
            ("last", cell == self.last),
            ("hint", cell in self.hints),
            ("cursor", cell == self.cursor),
        ):
            if shown:
                looks.append(look)
        return tuple(f"ultimate-board--{look}" for look in looks)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self.hover = self.cell_at(event.get_content_offset(self))

    def on_leave(self) -> None:
        self.hover = None

    def on_click(self, event: events.Click) -> None:
        cell = self.cell_at(event.get_content_offset(self))
        if cell is not None:
            event.stop()
            self.post_message(Board.CellChosen(self.board * CELLS + cell))


class UltimateBoard(Widget, can_focus=True):
    """The nine small boards. It shows an `UltimateState` and reports the cell a person
    clicks (as `Board.CellChosen`, so that a screen hears either board alike).

    It decides nothing about the game: the screen reads the keys, gives it the digits typed
    (`take_key`), and sets `match`, `cursor` and `hints` to whatever comes of them.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "ultimate-board--x",
        "ultimate-board--o",
        "ultimate-board--empty",
        "ultimate-board--hover",
        "ultimate-board--last",
        "ultimate-board--hint",
        "ultimate-board--cursor",
    }
    """How a cell looks: its mark (or none), then the pointer over it, the last move, a hint,
    the cursor; app.tcss styles them, and a small board draws with them (`cell_style`)."""

    DEFAULT_CSS = """
    UltimateBoard {
        grid-size: 3 3;
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

    def watch_cursor(self) -> None:
        self._show_cursor(self.has_focus)
        self.place_terminal_cursor()

    def _show_cursor(self, focused: bool) -> None:
        """The cursor is shown on its cell while the board has the keys."""
        board, cell = divmod(self.cursor, CELLS)
        for small in self.boards:
            small.cursor = cell if focused and board == small.board else None

    def watch_hints(self, hints: tuple[int, ...]) -> None:
        for small in self.boards:
            small.hints = frozenset(move % CELLS for move in hints if move // CELLS == small.board)

    def on_focus(self) -> None:
        self._show_cursor(True)  # (`has_focus` is set after this handler)
        self.call_after_refresh(self.place_terminal_cursor)

    def on_blur(self) -> None:
        self._show_cursor(False)

    def cell_style(self, *looks: str) -> VisualStyle:
        """How a small board draws a cell with `looks` (component classes of this board): a
        later look's colour, background and text style win over an earlier one's, as a later
        rule does in app.tcss. A background is laid over the small board's own."""
        background = foreground = None
        bold = underline = False
        for look in looks:
            styles = self.get_component_styles(look)
            if styles.has_rule("background"):
                background = styles.background
            if styles.has_rule("color"):
                foreground = styles.color.multiply_alpha(styles.text_opacity)
            if styles.has_rule("text_style"):
                bold, underline = bool(styles.text_style.bold), bool(styles.text_style.underline)
        return VisualStyle(background, foreground, bold=bold, underline=underline)

    def place_terminal_cursor(self) -> None:
        """Stand the terminal's own cursor on the cursor cell while the board has the focus
        (a magnifier or a braille display follows it)."""
        if self.has_focus and 0 <= self.cursor < CELLS * CELLS:
            board, cell = divmod(self.cursor, CELLS)
            region = self.boards[board].cell_region(cell)
            if region.area:
                x, y = region.center
                self.app.cursor_position = Offset(int(x), int(y))

    def _show(self) -> None:
        state = self.state
        board = state.board if state else EMPTY * CELLS
        winners = state.small_winners if state else EMPTY
        open_boards = state.open_boards if state else ()
        winning = state.winning_boards if state else frozenset()
        last = state.last_move if state else None
        keys = self.key_layout.key_for
        for small in self.boards:
            here = small.board
            if small.border_title != keys(here):  # setting it repaints the board, same or not
                small.border_title = keys(here)
            winner = small.winner = winners[here]
            classes = {
                "-open": here in open_boards,
                "-win": here in winning,
                "-won": isinstance(winner, Mark),
                "-drawn": winner == "draw",
            }
            small.update_classes(classes)  # restyled only if one changed
            marks = board[here * CELLS : (here + 1) * CELLS]
            playable = here in open_boards
            small.marks = marks
            small.keys = tuple(
                keys(cell) if playable and marks[cell] is None else "" for cell in range(CELLS)
            )
            small.last = last % CELLS if last is not None and last // CELLS == here else None

    @on(Board.CellChosen)
    def _clicked(self) -> None:
        """A click takes a cell whole: a board's digit typed before it is dropped (the
        message goes on to the screen)."""
        self.pending = None
