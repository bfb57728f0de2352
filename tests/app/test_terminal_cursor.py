"""The terminal's own cursor stands on the board's cursor cell: magnifiers and braille displays
follow the terminal's cursor, not a colour."""

from __future__ import annotations

from textual.geometry import Offset

from app.conftest import HOT_SEAT, Driver, Start


def on_cell(ui: Driver, cell: int) -> bool:
    x, y = ui.game.board.cells[cell].region.center
    return ui.app.cursor_position == Offset(int(x), int(y))


async def test_the_terminal_cursor_follows_the_board_s_cursor(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x")
        assert on_cell(ui, 4)
        await ui.press("up")
        assert on_cell(ui, 1)
        await ui.press("left")
        assert on_cell(ui, 0)
        await ui.press("3")  # a move takes the cursor to its cell
        assert on_cell(ui, 8)
        await ui.pilot.resize_terminal(80, 24)
        await ui.pilot.pause()
        assert on_cell(ui, 8)
