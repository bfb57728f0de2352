"""The terminal's own cursor stands on the board's cursor cell: magnifiers and braille displays
follow the terminal's cursor, not a colour."""

from __future__ import annotations

import json
from pathlib import Path

from textual.geometry import Offset
from textual.widgets import OptionList

from app.conftest import HOT_SEAT, Driver, Start, running_until
from tictactoe.tui.widgets.ultimate_board import UltimateBoard


def on_cell(ui: Driver, cell: int) -> bool:
    x, y = ui.cell(cell).widget.region.center
    return ui.app.cursor_position == Offset(int(x), int(y))


async def test_the_terminal_cursor_follows_the_ultimate_board_s_cursor(start: Start) -> None:
    """Its 81 cells are drawn by their small boards: the cursor stands where each is drawn."""
    async with start(variant="ultimate", **HOT_SEAT) as ui:
        await ui.press("x")
        board = ui.game.board
        assert isinstance(board, UltimateBoard)

        def on_move(move: int) -> bool:
            region = board.boards[move // 9].cell_region(move % 9)
            assert region.area and board.region.contains_region(region)
            return ui.app.cursor_position == Offset(region.x + region.width // 2, region.y)

        assert board.cursor == 40 and on_move(40)
        await ui.press("right", "right", "up")  # into the right board, then up one
        assert board.cursor == 5 * 9 + 0 and on_move(45)
        await ui.pilot.resize_terminal(50, 16)  # the small boards lose their borders
        await ui.pilot.pause()
        assert board.has_class("-flat") and on_move(45)


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


def cursor_command(ui: Driver) -> str:
    """The title of the palette's command for the terminal's cursor."""
    titles = [command.title for command in ui.app.get_system_commands(ui.app.screen)]
    found = [title for title in titles if title.startswith("Terminal cursor")]
    assert len(found) == 1, titles
    return found[0]


async def test_the_palette_shows_the_terminal_cursor_on_the_board_and_remembers(
    start: Start, tmp_path: Path
) -> None:
    """Textual hides the terminal's cursor, so a magnifier had nothing to follow: the palette's
    command shows it while the board has the keys (not under a dialog), and the next start
    remembers it."""
    saving = {"save": True, "settings_file": tmp_path / "settings.json"}
    saving["record_file"] = tmp_path / "record.sqlite3"
    async with start(**HOT_SEAT, **saving) as ui:
        await ui.press("x")
        cursor = ui.app.terminal_cursor
        assert not cursor.shown
        assert cursor_command(ui) == "Terminal cursor: show"
        await ui.press("ctrl+p", *"terminal cursor")
        found = lambda: ui.app.screen.query_one(OptionList).option_count > 0  # noqa: E731
        await running_until(ui, found, "the palette's command")
        await ui.press("enter")
        await running_until(ui, lambda: cursor.shown and on_cell(ui, 4), "the cursor shown")
        await ui.press("question_mark")
        await running_until(ui, lambda: not cursor.shown, "the cursor hidden under the help")
        await ui.press("escape")
        await running_until(ui, lambda: cursor.shown, "the cursor shown again on the board")
        assert cursor_command(ui) == "Terminal cursor: hide"
    assert json.loads((tmp_path / "settings.json").read_text(encoding="utf-8"))["cursor"] is True
    async with start(**HOT_SEAT, **saving) as ui:
        await ui.press("x")
        await running_until(ui, lambda: ui.app.terminal_cursor.shown, "the cursor remembered")


async def test_show_cursor_asks_for_it_from_the_start(start: Start) -> None:
    async with start(show_cursor=True, **HOT_SEAT) as ui:
        assert not ui.app.terminal_cursor.shown  # the mark dialog has the keys
        await ui.press("x")
        shown = ui.app.terminal_cursor
        await running_until(ui, lambda: shown.shown and on_cell(ui, 4), "the cursor shown")
