"""Which digit takes which cell: the keypad layout, the phone layout, and switching."""

from __future__ import annotations

import pytest

from app.conftest import HOT_SEAT, Start
from tictactoe.core.engine import Mark
from tictactoe.core.keys import KeyLayout

KEYPAD_FACE = "7 8 9\n4 5 6\n1 2 3"
PHONE_FACE = "1 2 3\n4 5 6\n7 8 9"


@pytest.mark.parametrize(
    ("layout", "face", "top_left", "bottom_right"),
    [
        pytest.param(None, KEYPAD_FACE, "7", "3", id="numpad-by-default"),
        pytest.param(KeyLayout.PHONE, PHONE_FACE, "1", "9", id="phone"),
    ],
)
async def test_empty_cells_show_their_digit_and_the_digit_takes_that_cell(
    start: Start, layout: KeyLayout | None, face: str, top_left: str, bottom_right: str
) -> None:
    async with start(**HOT_SEAT, keys=layout) as ui:
        await ui.press("x")
        assert ui.board_text() == face
        assert [ui.cell(cell).key for cell in range(9)] == list(face.split())

        await ui.press(top_left, bottom_right)
        assert ui.marks()[0] is Mark.X
        assert ui.marks()[8] is Mark.O
        assert ui.board_text() == "X " + face[2:-1] + "O"

        await ui.press(top_left)
        assert ui.status() == f"Cell {top_left} (top-left) is taken by X."


async def test_the_command_palette_switches_the_layout(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "ctrl+p")
        await ui.pilot.pause()
        await ui.press(*"digit", "enter")
        await ui.pilot.pause()

        assert ui.game.key_layout is KeyLayout.PHONE
        assert ui.board_text() == PHONE_FACE
        await ui.press("1")
        assert ui.marks()[0] is Mark.X
