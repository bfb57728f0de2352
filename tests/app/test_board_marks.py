"""Every mark on a board is drawn at one size: the biggest drawing the smallest cell takes.

The board's rows are shares (1fr) of its height, so they may differ by one cell: at 80x24
its rows are 6, 7 and 7 cells high. A mark is drawn from `mark_art` for the room of the
board's smallest cell, the same in every cell. Its columns take one odd width, so that each
drawing (an odd number of cells wide) is centred in its cell.
"""

from __future__ import annotations

import pytest
from textual.geometry import Size

from app.conftest import HOT_SEAT, Driver, Start, inside
from tictactoe.tui.widgets.board import Board, Cell, mark_art

SIZES = ((80, 24), (80, 18))
"""Rows of 6, 7 and 7 cells; rows of 4, 5 and 5."""


def classic_board(ui: Driver) -> Board:
    """The game screen's board: the classic one, in these tests."""
    board = ui.game.board
    assert isinstance(board, Board)
    return board


def smallest_room(cells: tuple[Cell, ...]) -> Size:
    """The room inside the smallest cell (its content, less the label's side padding)."""
    return Size(
        min(cell.content_size.width - 2 * cell.styles.line_pad for cell in cells),
        min(cell.content_size.height for cell in cells),
    )


def assert_one_size(ui: Driver) -> None:
    """Each mark is the drawing for the smallest cell's room, and all are one size."""
    cells = classic_board(ui).cells
    room = smallest_room(cells)
    labels = {}
    for cell in cells:
        if cell.mark is not None:
            labels[cell.cell] = str(cell.label)
            assert labels[cell.cell] == mark_art(cell.mark, room), (ui.app.size, cell.size)
    shapes = {(len(lines), max(map(len, lines))) for lines in map(str.splitlines, labels.values())}
    assert len(shapes) == 1, shapes
    ui.assert_board_matches_match()  # and each cell paints its label


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
async def test_every_mark_on_a_board_of_unequal_rows_or_columns_is_drawn_alike(
    start: Start, size: tuple[int, int]
) -> None:
    async with start(size=size, **HOT_SEAT) as ui:
        await ui.press("x", "7", "8", "4", "5", "3")  # a mark in every row and every column
        cells = classic_board(ui).cells
        assert len({cell.size for cell in cells}) > 1  # the case in question
        assert_one_size(ui)
        await ui.pilot.resize_terminal(100, 32)  # every cell alike: the biggest drawing
        await ui.pilot.pause()
        assert_one_size(ui)
        assert len({str(cell.label) for cell in cells if cell.mark}) == 2
        await ui.pilot.resize_terminal(*size)
        await ui.pilot.pause()
        await ui.press("6")
        assert_one_size(ui)


def margins(lines: list[str]) -> tuple[int, int]:
    """The blank columns left and right of what `lines` draw (a mark, or a digit)."""
    drawn = [line for line in lines if line.strip()]
    left = min(len(line) - len(line.lstrip()) for line in drawn)
    right = min(len(line) - len(line.rstrip()) for line in drawn)
    return left, right


@pytest.mark.parametrize(
    "size",
    [*SIZES, (68, 30), (100, 32), (60, 20), (50, 16)],
    ids=lambda size: f"{size[0]}x{size[1]}",
)
async def test_every_mark_and_digit_is_centred_in_its_cell(
    start: Start, size: tuple[int, int]
) -> None:
    async with start(size=size, **HOT_SEAT) as ui:
        await ui.press("x", "7", "8", "4", "5", "3")  # a mark in every row and every column
        await ui.pilot.pause()
        widths = {cell.outer_size.width for cell in classic_board(ui).cells}
        assert len(widths) == 1, (size, widths)
        for cell in classic_board(ui).cells:
            left, right = margins(inside(cell))
            assert left == right, (size, cell.cell, inside(cell))


@pytest.mark.parametrize("size", [(51, 28), (60, 20), (50, 16), (81, 24)])
async def test_after_a_resize_every_mark_is_drawn_for_the_smallest_cell(
    start: Start, size: tuple[int, int]
) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "5", "7")
        await ui.pilot.resize_terminal(*size)
        for _ in range(3):
            await ui.pilot.pause()
        rooms = [cell.own_room for cell in classic_board(ui).cells]
        smallest = Size(min(r.width for r in rooms), min(r.height for r in rooms))
        assert {cell.art_room for cell in classic_board(ui).cells} == {smallest}
