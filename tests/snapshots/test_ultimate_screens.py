"""Snapshots of the Ultimate board: at the most common terminal, and at the app's minimum.

Run like the other snapshots (`save=False`, a fixed seed, no computer delay); regenerate after
an intended change with `uv run pytest tests/snapshots --snapshot-update` and look at them.
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from textual.pilot import Pilot

from tictactoe.config import GameConfig
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.widgets.too_small import MIN_HEIGHT, MIN_WIDTH
from tictactoe.tui.widgets.ultimate_board import UltimateBoard

X_TAKES_THE_TOP_LEFT_BOARD: Final = (0, 3, 28, 9, 1, 13, 38, 18, 2)
"""X wins the top-left board (its top row); O is then sent to the top-right board."""


def ultimate_hot_seat() -> TicTacToeApp:
    settings: dict[str, Any] = {
        "player1": "Ada",
        "player2": "Grace",
        "variant": "ultimate",
        "computer_delay": 0,
        "seed": 7,
        "save": False,
    }
    return TicTacToeApp(GameConfig(**settings))


async def play_the_opening(pilot: Pilot[Any]) -> None:
    """X is chosen, the moves typed by their digits; the board shows them all."""
    await pilot.pause()
    await pilot.press("x")
    screen = pilot.app.screen
    assert isinstance(screen, GameScreen)
    board = screen.board
    assert isinstance(board, UltimateBoard)
    for move in X_TAKES_THE_TOP_LEFT_BOARD:
        await pilot.press(*board.key_for(move))
        await pilot.pause()
    match = screen.series.match
    assert match is not None and match.moves == X_TAKES_THE_TOP_LEFT_BOARD, screen.series
    assert board.boards[0].has_class("-won") and board.boards[2].has_class("-open")


@pytest.mark.parametrize("size", [(80, 24), (MIN_WIDTH, MIN_HEIGHT)], ids=["80x24", "minimum"])
def test_the_ultimate_board(snap_compare: Any, size: tuple[int, int]) -> None:
    """Nine small boards beside the whole sidebar: the open one lit, the won one's mark large,
    the last move marked; at the minimum, the boards without borders, every cell in view."""
    assert snap_compare(ultimate_hot_seat(), terminal_size=size, run_before=play_the_opening)
