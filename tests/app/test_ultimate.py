"""Ultimate at one machine: the board of 81 cells, two digits a move (one when the board is
forced), arrows across the boards, clicks, refusals naming the boards, hints and the computer."""

from __future__ import annotations

import pytest
from textual.geometry import Offset, Size

from app.conftest import HOT_SEAT, Driver, Start, inside, painted, running_until
from tictactoe.core.ai import Level
from tictactoe.core.engine import Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.ultimate import UltimateState
from tictactoe.tui.widgets.board import mark_art
from tictactoe.tui.widgets.history import history_lines
from tictactoe.tui.widgets.ultimate_board import UltimateBoard

NUMPAD = KeyLayout.NUMPAD


def ultimate_board(ui: Driver) -> UltimateBoard:
    board = ui.game.board
    assert isinstance(board, UltimateBoard)
    return board


def state(ui: Driver) -> UltimateState:
    match = ui.series.match
    assert isinstance(match, UltimateState)
    return match


def keys_for(ui: Driver, move: int) -> list[str]:
    """The digits that take `move` now: the board's then the cell's, or the cell's alone."""
    return list(ultimate_board(ui).key_for(move))


def a_won_game() -> tuple[int, ...]:
    """A whole game X wins, found by the core's medium level against easy from a seed."""
    import random

    from tictactoe.core.ai import choose_move

    for seed in range(100):
        rng = random.Random(seed)
        game = UltimateState.new()
        while not game.is_over:
            level = Level.MEDIUM if game.to_move.value == "X" else Level.EASY
            game = game.play(choose_move(game, level, rng))
        if game.winner is not None and game.winner.value == "X":
            return game.moves
    raise AssertionError("no won game in 100 seeds")


async def test_two_people_play_a_whole_match_to_a_win_with_digits(start: Start) -> None:
    moves = a_won_game()
    async with start(variant="ultimate", **HOT_SEAT) as ui:
        await ui.press("x")
        for move in moves:
            await ui.press(*keys_for(ui, move))
            assert state(ui).moves[-1] == move, ui.status()
        assert state(ui).winner is not None
        assert ui.series.wins == (1, 0)
        won = [small for small in ultimate_board(ui).boards if small.has_class("-won")]
        assert won
        for small in won:
            mark = state(ui).small_winners[small.board]
            assert isinstance(mark, Mark)
            art = [line.strip() for line in mark_art(mark, Size(5, 3)).splitlines()]
            assert [line.strip() for line in inside(small)] == art, "its mark, large"
        assert "Ada" in ui.status()


async def test_a_board_digit_waits_shown_for_the_cell_digit(start: Start) -> None:
    async with start(variant="ultimate", **HOT_SEAT) as ui:
        await ui.press("x")
        await ui.press(NUMPAD.key_for(4))  # the centre board
        board = ultimate_board(ui)
        assert board.boards[4].has_class("-pending") and not state(ui).moves
        await ui.press(NUMPAD.key_for(0))  # its top-left
        assert state(ui).moves == (36,)
        assert not board.boards[4].has_class("-pending")
        assert board.boards[4].last == 0
        assert board.boards[0].has_class("-open")
        assert not board.boards[4].has_class("-open")
        await ui.press(NUMPAD.key_for(8))  # forced: one digit, the top-left board's bottom-right
        assert state(ui).moves == (36, 8)


async def test_a_move_outside_the_allowed_board_is_refused_naming_it(start: Start) -> None:
    async with start(variant="ultimate", **HOT_SEAT) as ui:
        await ui.press("x")
        await ui.press(NUMPAD.key_for(4), NUMPAD.key_for(4))
        await ui.click_ultimate(0)
        assert state(ui).moves == (40,)
        assert "Play in the centre board." in ui.status()


async def test_arrows_cross_into_the_next_board_and_enter_plays(start: Start) -> None:
    async with start(variant="ultimate", **HOT_SEAT) as ui:
        await ui.press("x")
        board = ultimate_board(ui)
        assert board.cursor == 40
        await ui.press("right", "right")  # the centre board's right, then the right board's left
        assert board.cursor == 5 * 9 + 3
        await ui.press("up", "up")  # up into the top-right board's bottom-left
        assert board.cursor == 2 * 9 + 6
        await ui.press("enter")
        assert state(ui).moves == (24,)
        await ui.click_ultimate(56)  # the bottom-left board's top-centre: O, sent there
        assert state(ui).moves == (24, 56)


async def test_the_history_names_the_board_and_the_cell(start: Start) -> None:
    async with start(variant="ultimate", **HOT_SEAT) as ui:
        await ui.press("x")
        await ui.press(NUMPAD.key_for(4), NUMPAD.key_for(0))
        assert history_lines(ui.series) == ["1. Ada X centre board, top-left"]
        assert "centre board" in painted(ui.game.query_one("#history"))


async def test_a_hint_gives_the_search_move_and_its_estimate(start: Start) -> None:
    async with start(variant="ultimate", **HOT_SEAT) as ui:
        await ui.press("x")
        await ui.press(NUMPAD.key_for(4), NUMPAD.key_for(4))
        await ui.press("h")
        await running_until(ui, lambda: ui.status().startswith("Hint:"), "the hint")
        status = ui.status()
        assert any(words in status for words in ("favoured", "Even", "best play")), status
        (hinted,) = ultimate_board(ui).hints
        assert hinted // 9 == 4
        assert ultimate_board(ui).boards[4].hints == {hinted % 9}


@pytest.mark.parametrize("level", list(Level))
async def test_a_person_plays_the_computer_to_the_end(start: Start, level: Level) -> None:
    async with start(variant="ultimate", player1="Ada", level=level) as ui:
        await ui.press("x")
        await running_until(ui, lambda: ui.series.match is not None, "the match")
        while ui.series.played == 0:
            await running_until(
                ui, lambda: not ui.series.awaits_computer, "the computer's move", ui.status
            )
            if ui.series.played:
                break
            move = state(ui).legal_moves()[0]
            await ui.press(*keys_for(ui, move))
            assert move in state(ui).moves
        assert ui.series.played == 1
        assert "not kept in the record" not in ui.status()


async def test_q_leaves_while_the_computer_searches(start: Start) -> None:
    async with start(variant="ultimate", player1="Ada", level=Level.HARD) as ui:
        await ui.press("x")
        await ui.press(NUMPAD.key_for(4), NUMPAD.key_for(4), "q")
        await running_until(ui, lambda: not ui.app.is_running, "the app's end")


def test_the_command_line_chooses_the_variant() -> None:
    from tictactoe import options

    assert options.parse_config(["--variant", "ultimate"]).variant == "ultimate"
    assert options.parse_config([]).variant is None
    series = options.parse_config(["--player1", "Ada", "--player2", "Bob", "--variant", "ultimate"])
    initial = series.initial_series()
    assert initial is not None and initial.variant.name == "ultimate"


async def test_the_new_game_screen_starts_the_variant_of_the_command_line(start: Start) -> None:
    async with start(variant="ultimate") as ui:
        await ui.press(*"Al", "tab", *"Bo", "enter")
        await running_until(ui, lambda: ui.app.game_screen is not None, "the game screen")
        assert ui.series.variant.name == "ultimate"
        assert isinstance(ui.game.board, UltimateBoard)


async def test_the_pointer_lights_the_cell_under_it_and_a_border_takes_nothing(
    start: Start,
) -> None:
    """The small boards draw their cells: the one under the pointer is lit until it leaves,
    and a click on a board's border or title takes no cell."""
    async with start(variant="ultimate", **HOT_SEAT) as ui:
        await ui.press("x")
        board = ultimate_board(ui)
        centre = board.boards[4]
        region = centre.cell_region(8)
        await ui.pilot.hover(offset=Offset(region.x + region.width // 2, region.y))
        await ui.pilot.pause()
        assert centre.hover == 8
        assert all(small.hover is None for small in board.boards if small is not centre)
        await ui.pilot.hover("#status")
        await ui.pilot.pause()
        assert centre.hover is None
        for corner in (centre.region.offset, centre.region.bottom_right - Offset(1, 1)):
            await ui.pilot.click(offset=corner)
            await ui.pilot.pause()
        assert not state(ui).moves, ui.status()
        await ui.click_ultimate(4 * 9 + 8)
        assert state(ui).moves == (44,)


async def test_the_cursor_shows_while_the_board_has_the_keys(start: Start) -> None:
    """The cursor's cell is marked while the board has the focus, as the terminal's own cursor
    stands there; without it, no cell is; back, the cursor is where it was."""
    async with start(variant="ultimate", **HOT_SEAT) as ui:
        await ui.press("x", "right")
        board = ultimate_board(ui)
        assert board.cursor == 41 and board.boards[4].cursor == 5
        board.blur()
        hidden = lambda: all(small.cursor is None for small in board.boards)  # noqa: E731
        await running_until(ui, hidden, "no cursor without the focus")
        board.focus()
        await running_until(ui, lambda: board.boards[4].cursor == 5, "the cursor back")
        assert board.has_focus and board.cursor == 41
