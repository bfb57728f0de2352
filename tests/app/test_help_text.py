"""The help screen names every key the game binds."""

from __future__ import annotations

import pytest
from textual.binding import Binding

from app.conftest import HOT_SEAT, Start
from tictactoe.core.engine import Mark
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.help import HELP_TEXT
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen
from tictactoe.tui.screens.record import RecordScreen
from tictactoe.tui.screens.replay import ReplayPane
from tictactoe.tui.widgets.board import Board

SPOKEN = {
    "question_mark": "`?`",
    "f1": "`F1`",
    "enter": "`Enter`",
    "space": "`Space`",
    "escape": "`Escape`",
    "up": "arrows",
    "down": "arrows",
    "left": "arrows",
    "right": "arrows",
    "home": "`Home`",
    "end": "`End`",
    "pageup": "`PageUp`",
    "pagedown": "`PageDown`",
}


def keys_of(owner: type) -> list[str]:
    bindings = [b for b in owner.BINDINGS if isinstance(b, Binding)]  # type: ignore[attr-defined]
    return [key for binding in bindings for key in binding.key.split(",")]


@pytest.mark.parametrize(
    "owner",
    [TicTacToeApp, GameScreen, Board, MarkChoiceScreen, RecordScreen, ReplayPane],
    ids=str,
)
def test_the_help_names_every_key(owner: type) -> None:
    text = HELP_TEXT.read_text(encoding="utf-8")
    for key in keys_of(owner):
        spoken = SPOKEN.get(key, "`1`–`9`" if key.isdigit() else f"`{key}`")
        assert spoken in text, f"{owner.__name__} binds {key}, the help does not say so"


@pytest.mark.parametrize("opener", ["question_mark", "s"])
async def test_a_key_for_the_game_while_help_or_the_record_is_open_says_why(
    start: Start, opener: str
) -> None:
    async with start(**HOT_SEAT, notifications=True) as ui:
        await ui.press("x", opener, "9")  # the record sorts with 1-6; 9 is the game's only
        assert ui.marks() == (None,) * 9
        assert any("press Escape to close" in toast for toast in ui.toasts())
        await ui.press("escape", "5")
        assert ui.cell(4).mark is Mark.X


@pytest.mark.parametrize("opener", ["question_mark", "s"])
async def test_the_keys_that_move_within_help_or_the_record_say_nothing(
    start: Start, opener: str
) -> None:
    async with start(**HOT_SEAT, notifications=True) as ui:
        await ui.press("x", opener, "down", "pagedown", "end", "up", "home", "tab", "shift+tab")
        await ui.pilot.pause()
        assert ui.toasts() == []


async def test_the_keys_that_move_between_the_mark_buttons_say_nothing(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("right", "left", "tab", "shift+tab")
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        assert "press X or O" not in ui.top_text("#notice")
        await ui.press("5")
        assert "press X or O" in ui.top_text("#notice")


async def test_the_help_says_how_to_close_it_before_anything_else(start: Start) -> None:
    """Someone who opened it by chance reads first how to leave it, with the keys it binds."""
    opening = HELP_TEXT.read_text(encoding="utf-8").split("\n## ")[0]
    assert "close" in opening.lower()
    assert all(SPOKEN.get(key, f"`{key}`") in opening for key in ("escape", "q", "f1"))
