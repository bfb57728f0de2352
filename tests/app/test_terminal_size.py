"""Any terminal size: one line asking for more room when too small, and a full recovery."""

from __future__ import annotations

from textual.widgets import Input

from app.conftest import HOT_SEAT, SIZE, Driver, Start
from tictactoe.engine import Mark
from tictactoe.screens.game import GameScreen
from tictactoe.screens.mark_choice import MarkChoiceScreen
from tictactoe.widgets.too_small import MIN_HEIGHT, MIN_WIDTH, TooSmall

TINY = (40, 12)


def too_small_shown(ui: Driver) -> bool:
    """Whether the screen on top shows its one line (a screen that was never too small
    has none)."""
    notices = list(ui.app.screen.query(TooSmall))
    assert len(notices) <= 1
    return any(
        notice.is_on_screen and "Enlarge the terminal" in str(notice.render()) for notice in notices
    )


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
    """At 35 columns the squares are 11, 11, 11 wide and show the big X; at 34 they are
    10, 11, 11, so every mark takes the middle drawing, even in the two squares whose own
    size did not change."""
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "7", "8", "9")
        board = ui.game.board
        board.styles.width = 35
        await ui.pilot.pause()
        ui.assert_board_matches_match()
        board.styles.width = 34
        await ui.pilot.pause()
        assert [ui.cell(cell).region.width for cell in range(3)] == [10, 11, 11]
        ui.assert_board_matches_match()
