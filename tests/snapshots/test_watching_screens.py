"""Snapshots of the game's choice and the computer against itself: the new-game screen with
Ultimate and "Computer against computer" chosen, at the most common terminal and at 50x16;
and a match the computer plays against itself, classic and Ultimate, at 80x24.

Run like the other snapshots; regenerate after an intended change with
`uv run pytest tests/snapshots/test_watching_screens.py --snapshot-update` and look at them.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tictactoe.config import GameConfig
from tictactoe.core.ai import Level
from tictactoe.core.notices import Notice
from tictactoe.core.series import Phase, Series
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.screens.game import CHORES_AFTER, GameScreen
from tictactoe.tui.screens.new_game import NewGameScreen

LONG_AGO = 3600.0
"""A computer's pause longer than any snapshot: the picture holds still."""


def app(**settings: Any) -> TicTacToeApp:
    return TicTacToeApp(GameConfig(seed=7, save=False, **settings))


async def choose_ultimate_and_computers(pilot: Pilot[Any]) -> None:
    """Ultimate, then the computer against itself; the focus back on the game's choice."""
    await pilot.pause()
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.press("shift+tab", "right", "enter", "tab", "tab", "tab", *["down"] * 5)
    await pilot.press("enter")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, NewGameScreen) and screen.computers and screen.variant == "ultimate"
    await pilot.press("shift+tab", "shift+tab", "shift+tab")
    assert pilot.app.focused is screen.query_one("#game"), pilot.app.focused


@pytest.mark.parametrize("size", [(80, 24), (50, 16)], ids=["80x24", "50x16"])
def test_the_new_game_screen_with_ultimate_and_the_computer_against_itself(
    snap_compare: Any, size: tuple[int, int]
) -> None:
    """The game's choice above the names; each seat's level in place of its name."""
    assert snap_compare(
        app(computer_delay=0), terminal_size=size, run_before=choose_ultimate_and_computers
    )


def played(series: Series, moves: int) -> Series:
    """`series` in its second match, `moves` made in it by the computer (from a fixed seed)."""
    rng = random.Random(11)
    while series.played < 1 or series.phase is not Phase.PLAYING or len(series.history()) < moves:
        series = series.computer_step(rng).series
    return series


def watching(moves: int) -> Any:
    """Show the series `moves` into its second match (the computer's own pause too long to
    come)."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, GameScreen) and screen.series.computers_only
        screen.table.show(played(screen.series, moves), Notice())
        await pilot.pause(CHORES_AFTER)  # the footer follows a new phase a moment later
        await pilot.pause()
        assert screen.series.played == 1 and screen.series.match is not None, screen.series

    return run_before


@pytest.mark.parametrize(
    ("variant", "moves"), [("classic", 4), ("ultimate", 20)], ids=["classic", "ultimate"]
)
def test_the_computer_against_itself(snap_compare: Any, variant: str, moves: int) -> None:
    """Its second match under way, the first one's result counted; the status line says what
    a key does."""
    assert snap_compare(
        app(variant=variant, player1_level=Level.EASY, level=Level.MEDIUM, computer_delay=LONG_AGO),
        terminal_size=(80, 24),
        run_before=watching(moves),
    )
