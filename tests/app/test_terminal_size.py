"""Any terminal size: one line asking for more room when too small, and a full recovery."""

from __future__ import annotations

import pytest
from textual.command import CommandPalette
from textual.widget import Widget
from textual.widgets import Button, Input

from app.conftest import HOT_SEAT, SIZE, Driver, Start, painted
from tictactoe.core.engine import Mark
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen
from tictactoe.tui.screens.new_game import NewGameScreen
from tictactoe.tui.widgets.too_small import MIN_HEIGHT, MIN_WIDTH, TOO_SMALL, TooSmall

TINY = (40, 12)


def too_small_shown(ui: Driver) -> bool:
    """Whether the screen on top shows its one line (a screen that was never too small
    has none)."""
    notices = list(ui.app.screen.query(TooSmall))
    assert len(notices) <= 1
    return any(notice.is_on_screen and TOO_SMALL in str(notice.render()) for notice in notices)


async def test_a_tiny_terminal_shows_one_line_and_recovers_the_same_match(
    start: Start,
) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "7", "5")
        before = ui.series
        assert ui.game.board.is_on_screen and not too_small_shown(ui)

        await ui.pilot.resize_terminal(*TINY)
        assert too_small_shown(ui)
        assert not ui.game.board.is_on_screen
        assert not ui.game.scoreboard.is_on_screen

        await ui.pilot.resize_terminal(*SIZE)
        assert not too_small_shown(ui)
        assert ui.game.board.is_on_screen and ui.game.scoreboard.is_on_screen
        assert ui.series == before
        ui.assert_board_matches_match()
        assert ui.board_text() == "X 8 9\n4 O 6\n1 2 3"
        assert ui.status() == "Ada (X) to move"


async def test_the_keyboard_still_plays_after_the_terminal_recovers(start: Start) -> None:
    """Hiding the board took its focus; the digits must work again once it is back."""
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "7")
        await ui.pilot.resize_terminal(*TINY)
        await ui.pilot.resize_terminal(*SIZE)
        await ui.press("5")
        assert ui.cell(4).mark is Mark.O


async def test_typing_a_name_still_works_after_the_terminal_recovers(start: Start) -> None:
    """The name field gets the focus back, and keeps what was typed (not selected-and-replaced)."""
    async with start() as ui:
        await ui.press(*"An")
        await ui.pilot.resize_terminal(*TINY)
        await ui.pilot.resize_terminal(*SIZE)
        await ui.press("n")
        assert ui.app.screen.query_one("#name-1", Input).value == "Ann"


async def test_the_mark_modal_also_shrinks_to_one_line_and_recovers(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.pilot.resize_terminal(*TINY)
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        assert too_small_shown(ui)
        assert not ui.app.screen.query_one("#dialog").is_on_screen

        await ui.pilot.resize_terminal(*SIZE)
        assert ui.app.screen.query_one("#dialog").is_on_screen
        await ui.press("o")
        assert ui.series.marks == (Mark.O, Mark.X)


async def test_a_session_started_in_a_tiny_terminal_recovers(start: Start) -> None:
    async with start(size=TINY, **HOT_SEAT) as ui:
        assert too_small_shown(ui)
        await ui.pilot.resize_terminal(*SIZE)
        await ui.press("x", "5")
        assert isinstance(ui.app.screen, GameScreen)
        assert ui.game.board.is_on_screen
        assert ui.cell(4).mark is Mark.X


async def test_every_size_shows_either_the_whole_board_or_the_one_line(start: Start) -> None:
    """A sweep around the minimum and beyond: no crash, no half-drawn board."""
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "7", "5", "3")
        for width, height in [
            (MIN_WIDTH, MIN_HEIGHT),
            (MIN_WIDTH - 1, MIN_HEIGHT),
            (MIN_WIDTH, MIN_HEIGHT - 1),
            (80, 24),
            (120, 20),
            (60, 50),
            (200, 60),
            (10, 3),
        ]:
            await ui.pilot.resize_terminal(width, height)
            big_enough = width >= MIN_WIDTH and height >= MIN_HEIGHT
            assert too_small_shown(ui) is not big_enough, (width, height)
            cells = [ui.cell(cell) for cell in range(9)]
            if big_enough:
                assert all(cell.is_on_screen and cell.region.area for cell in cells)
                assert ui.game.query_one("#status").is_on_screen, (width, height)
                assert ui.game.scoreboard.is_on_screen, (width, height)
            else:
                assert not any(cell.is_on_screen for cell in cells), (width, height)
            ui.assert_board_matches_match()


async def test_every_mark_is_redrawn_when_the_board_shrinks_past_a_drawing_size(
    start: Start,
) -> None:
    """At 41 columns the squares are 13 wide and show the big X; at 40 they are 11 (the
    columns take one odd width), so every mark takes the middle drawing."""
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "7", "8", "9")
        board = ui.game.board
        board.styles.width = 41
        await ui.pilot.pause()
        assert [ui.cell(cell).region.width for cell in range(3)] == [13, 13, 13]
        ui.assert_board_matches_match()
        big = str(ui.cell(0).widget.label)
        board.styles.width = 40
        await ui.pilot.pause()
        assert [ui.cell(cell).region.width for cell in range(3)] == [11, 11, 11]
        for _ in range(20):  # the cells' own resize comes a few turns later on a busy machine
            if str(ui.cell(0).widget.label) != big:
                break
            await ui.pilot.pause()
        ui.assert_board_matches_match()
        assert str(ui.cell(0).widget.label) != big


# The new-game screen at common sizes.


def seen_at_its_middle(ui: Driver, widget: Widget) -> bool:
    """Whether the screen shows `widget` where its middle is (not clipped off, not covered)."""
    region = widget.region
    if not region.area:
        return False
    found, _ = ui.app.screen.get_widget_at(
        region.x + region.width // 2, region.y + region.height // 2
    )
    return found is widget or widget in found.ancestors


def whole_width(ui: Driver, widget: Widget) -> bool:
    """Whether both side borders of `widget` are on the screen."""
    return widget.region.x >= 0 and widget.region.right <= ui.app.size.width


async def test_the_new_game_screen_fits_80x24_whole(start: Start) -> None:
    async with start(size=(80, 24)) as ui:
        screen = ui.app.screen
        assert isinstance(screen, NewGameScreen)
        dialog = screen.query_one("#new-game")
        assert whole_width(ui, dialog)
        assert dialog.region.bottom <= 24 - 1, "above the footer"
        for widget in (
            *screen.query("#name-1, #name-2").results(Input),
            screen.query_one("#opponent"),
            screen.query_one(Button),
        ):
            assert seen_at_its_middle(ui, widget), widget
        await ui.press("tab", "tab", *["down"] * 4, "enter")  # a friend online: the relay instead
        assert seen_at_its_middle(ui, screen.query_one("#relay")), "the relay field"
        assert screen.query_one("#new-game").region.bottom <= 24 - 1
        await ui.press(*["up"] * 4, "enter", "shift+tab", "shift+tab", *"Ann", "tab", *"Bob")
        await ui.press("enter")
        assert isinstance(ui.app.screen, MarkChoiceScreen)


@pytest.mark.parametrize("size", [(60, 20), (50, 16)])
async def test_the_new_game_screen_is_never_clipped_and_start_is_in_reach(
    start: Start, size: tuple[int, int]
) -> None:
    async with start(size=size) as ui:
        screen = ui.app.screen
        dialog = screen.query_one("#new-game")
        assert whole_width(ui, dialog)
        assert dialog.region.bottom <= size[1] - 1, "above the footer"
        assert seen_at_its_middle(ui, screen.query_one("#name-1"))
        await ui.press("tab", "tab", "tab")  # to Start: the dialog scrolls it into view
        start_button = screen.query_one(Button)
        assert screen.focused is start_button
        assert seen_at_its_middle(ui, start_button)
        assert "Start" in painted(start_button)


async def test_the_one_line_names_the_size_it_needs_in_a_tiny_terminal(start: Start) -> None:
    async with start(size=(20, 6)) as ui:
        (notice,) = ui.app.screen.query(TooSmall)
        line = painted(notice).strip()
        assert f"{MIN_WIDTH}×{MIN_HEIGHT}" in line, line
        assert "…" not in line


async def test_the_command_palette_makes_way_for_the_one_line(start: Start) -> None:
    async with start(size=(80, 24)) as ui:
        await ui.press("ctrl+p")
        assert isinstance(ui.app.screen, CommandPalette)
        await ui.pilot.resize_terminal(20, 6)
        await ui.pilot.pause()
        assert isinstance(ui.app.screen, NewGameScreen)
        assert too_small_shown(ui)
        await ui.press("ctrl+p")
        assert isinstance(ui.app.screen, NewGameScreen), "not opened while too small"
        await ui.pilot.resize_terminal(80, 24)
        await ui.press("ctrl+p")
        assert isinstance(ui.app.screen, CommandPalette)
