"""Snapshots of online play at Ultimate: the host's invitation naming the game, and a watcher's
Ultimate board, at 80x24 and at 50x16 (the fixed values of `test_online_screens`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from textual.pilot import Pilot

from online.test_online_app import Nowhere  # a link to no authority
from snapshots.test_online_screens import INVITATION, Showing
from tictactoe.core.engine import Mark
from tictactoe.core.notices import Notice
from tictactoe.core.rules import ULTIMATE
from tictactoe.core.series import Series
from tictactoe.online.protocol import State
from tictactoe.play.seat_table import SeatTable
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.online import InvitationScreen

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((50, 16), id="50x16")]


def ultimate_mid_match() -> Series:
    """Alice (X) against Bob (O) at Ultimate, four moves in, Alice sent to the top board."""
    series = Series.new("Alice", "Bob", variant=ULTIMATE).choose_mark(Mark.X)
    for move in (40, 36, 1, 10):
        series = series.play(move)
    return series


@pytest.mark.parametrize("size", SIZES)
def test_the_invitation_says_which_game(snap_compare: Any, size: tuple[int, int]) -> None:
    invitation = replace(INVITATION, game=ULTIMATE.title)
    assert snap_compare(Showing(lambda: InvitationScreen(invitation)), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_a_watcher_sees_the_ultimate_board(snap_compare: Any, size: tuple[int, int]) -> None:
    series = ultimate_mid_match()

    async def shown(pilot: Pilot[Any]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, GameScreen) and isinstance(screen.table, SeatTable)
        screen.table.receive(State(7, series, ("Alice", "Bob"), 1, None, Notice()))
        await pilot.pause()
        assert screen.series == series and screen.series.variant is ULTIMATE

    app = Showing(lambda: GameScreen(SeatTable(series, Nowhere(None))))
    assert snap_compare(app, terminal_size=size, run_before=shown)
