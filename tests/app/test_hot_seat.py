"""Two people at one keyboard: every way to take a cell, wins, draws and refusals."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from app.conftest import HOT_SEAT, Driver, Start, painted
from tictactoe.core.engine import Mark
from tictactoe.core.keys import KeyLayout

NUMPAD = KeyLayout.NUMPAD

Take = Callable[[Driver, int], Awaitable[None]]
"""One way for a person to take a cell."""


async def take_with_digit(ui: Driver, cell: int) -> None:
    await ui.press(NUMPAD.key_for(cell))


async def walk_cursor_to(ui: Driver, cell: int) -> None:
    """Arrow keys from wherever the cursor is to `cell`: rows first, then columns."""
    cursor = ui.game.board.cursor
    rows, columns = cell // 3 - cursor // 3, cell % 3 - cursor % 3
    keys = ["down" if rows > 0 else "up"] * abs(rows)
    keys += ["right" if columns > 0 else "left"] * abs(columns)
    await ui.press(*keys)
    assert ui.cells_with("cursor") == {cell}


async def take_with_enter(ui: Driver, cell: int) -> None:
    await walk_cursor_to(ui, cell)
    await ui.press("enter")


async def take_with_space(ui: Driver, cell: int) -> None:
    await walk_cursor_to(ui, cell)
    await ui.press("space")


async def take_with_click(ui: Driver, cell: int) -> None:
    await ui.click_cell(cell)


@pytest.mark.parametrize(
    ("take", "moves", "winner"),
    [
        pytest.param(take_with_digit, [0, 3, 1, 4, 2], 0, id="digits-top-row"),
        pytest.param(take_with_enter, [4, 1, 3, 0, 5], 0, id="arrows-enter-middle-row"),
        pytest.param(take_with_space, [4, 5, 1, 2, 7], 0, id="arrows-space-centre-column"),
        pytest.param(take_with_click, [0, 4, 1, 2, 8, 6], 1, id="clicks-second-player-diagonal"),
    ],
)
async def test_a_won_match_is_shown_and_scored(
    start: Start, take: Take, moves: list[int], winner: int
) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x")
        assert ui.status() == "Ada (X) to move"
        for cell in moves:
            await take(ui, cell)

        ui.assert_board_matches_match()
        game = ui.series.match
        assert game is not None and game.winning_line is not None
        assert set(game.winning_line) <= set(moves[winner::2])
        assert ui.cells_with("win") == set(game.winning_line)
        assert "╔" in painted(ui.cell(game.winning_line[0]))  # visible without colour

        name = HOT_SEAT[f"player{winner + 1}"]
        assert ui.status().startswith(f"{name} wins!")
        assert "1 win" in ui.card(winner)
        assert "0 wins" in ui.card(1 - winner)
        assert ui.tally() == "Draws 0 Played 1"
        assert ui.series.wins == ((1, 0) if winner == 0 else (0, 1))


async def test_a_double_win_lights_both_lines(start: Start) -> None:
    # X takes the centre last, completing both diagonals at once: X O X / O X O / X O X
    async with start(**HOT_SEAT) as ui:
        await ui.press("x")
        for cell in [0, 1, 2, 5, 6, 3, 8, 7, 4]:
            await take_with_digit(ui, cell)

        assert ui.cells_with("win") == {0, 2, 4, 6, 8}
        ui.assert_board_matches_match()
        assert ui.status().startswith("Ada wins!")
        assert ui.tally() == "Draws 0 Played 1"


async def test_a_full_board_without_a_line_is_a_draw(start: Start) -> None:
    # X O X / X O O / O X X
    async with start(**HOT_SEAT) as ui:
        await ui.press("x")
        for cell in [0, 1, 2, 4, 3, 5, 7, 6, 8]:
            await take_with_digit(ui, cell)

        ui.assert_board_matches_match()
        assert ui.cells_with("win") == set()
        assert "draw" in ui.status().lower()
        assert ui.tally() == "Draws 1 Played 1"
        assert "0 wins" in ui.card(0) and "0 wins" in ui.card(1)
        assert ui.series.draws == 1


async def test_whose_turn_it_is_shows_in_status_and_scoreboard(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("o")
        assert ui.status() == "Ada (O) to move"
        assert ui.card(0).startswith("▶ Ada | O")
        assert ui.card(1).startswith("Bob | X")
        assert ui.to_move_card() == 0

        await ui.press("5")
        assert ui.status() == "Bob (X) to move"
        assert ui.card(1).startswith("▶ Bob")
        assert ui.to_move_card() == 1
        assert ui.to_move_card() != 0


@pytest.mark.parametrize("by_click", [False, True], ids=["digit", "click"])
async def test_a_taken_cell_is_refused_with_a_reason(start: Start, by_click: bool) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "5")
        before = ui.series
        if by_click:
            await ui.click_cell(4)
        else:
            await ui.press("5")

        assert ui.series == before
        assert ui.marks() == (None,) * 4 + (Mark.X,) + (None,) * 4
        assert ui.status() == "Cell 5 (centre) is taken by X."
        assert ui.game.query_one("#status").has_class("-notice")

        await ui.press("7")
        assert ui.cell(0).mark is Mark.O
        assert ui.status() == "Ada (X) to move"


async def test_the_cursor_moves_in_two_dimensions_and_stops_at_edges(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x")
        assert ui.cells_with("cursor") == {4}
        for key, expected in [
            ("right", 5),
            ("right", 5),  # the right edge: no wrap onto the next row
            ("up", 2),
            ("up", 2),  # the top edge
            ("left", 1),
            ("left", 0),
            ("left", 0),  # the left edge: no wrap onto the row above
            ("down", 3),
            ("down", 6),
            ("down", 6),  # the bottom edge
            ("right", 7),
        ]:
            await ui.press(key)
            assert ui.cells_with("cursor") == {expected}, key
        assert ui.marks() == (None,) * 9

        await ui.press("enter")
        assert ui.cell(7).mark is Mark.X


async def test_the_square_under_the_mouse_lights_up_and_only_it(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x")

        def border(cell: int) -> object:
            square = ui.cell(cell).widget
            top_left = next(iter(square.render_lines(square.size.region)[0]))
            return top_left.style

        plain = border(0)
        assert border(2) == plain
        await ui.pilot.hover(offset=ui.cell(0).middle)
        await ui.pilot.pause()
        assert border(0) != plain and border(2) == plain
        await ui.pilot.hover(offset=ui.cell(2).middle)
        await ui.pilot.pause()
        assert border(0) == plain and border(2) != plain
        await ui.click_cell(2)
        assert ui.cell(2).mark is Mark.X
