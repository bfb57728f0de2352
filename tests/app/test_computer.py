"""Against the computer: it replies by itself, makes you wait, chooses, and (hard) never loses."""

from __future__ import annotations

import pytest

from app.conftest import Driver, Start, running_until, wait_for_the_computer
from tictactoe.core.ai import CORNERS, Level
from tictactoe.core.engine import Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.series import FirstMove
from tictactoe.play.table import LocalTable
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen

NUMPAD = KeyLayout.NUMPAD


async def play_script(ui: Driver, preferences: list[int]) -> None:
    """The person takes the first free cell of `preferences`, by digit, until the game ends.

    Then the screen must announce the result the core holds.
    """
    while True:
        await wait_for_the_computer(ui)
        game = ui.series.match
        assert game is not None
        if game.is_over:
            ui.assert_board_matches_match()
            if ui.series.winner == 1:
                assert ui.status().startswith("Computer wins!")
            else:
                assert "draw" in ui.status().lower()
            return
        cell = next(cell for cell in preferences if game.board[cell] is None)
        await ui.press(NUMPAD.key_for(cell))
        assert ui.series.match is not None and cell in ui.series.match.moves


@pytest.mark.parametrize("level", list(Level))
async def test_the_computer_replies_by_itself(start: Start, level: Level) -> None:
    async with start(player1="Ada", level=level) as ui:
        await ui.press("x", "5")
        await wait_for_the_computer(ui)

        game = ui.series.match
        assert game is not None and len(game.moves) == 2
        reply = game.moves[1]
        assert ui.cell(reply).mark is Mark.O
        ui.assert_board_matches_match()
        assert ui.status() == "Ada (X) to move"
        assert ui.card(1).startswith("Computer | O | 0 wins")
        assert str(level) in ui.card(1)
        if level is not Level.EASY:
            assert reply in CORNERS  # medium's rule list says corner; on a side hard would lose


async def test_with_first_x_the_computer_holding_x_opens_by_itself(start: Start) -> None:
    async with start(player1="Ada", level=Level.MEDIUM, first_move=FirstMove.X) as ui:
        await ui.press("o")
        await wait_for_the_computer(ui)
        game = ui.series.match
        assert game is not None and len(game.moves) == 1
        assert ui.cell(game.moves[0]).mark is Mark.X
        assert ui.status() == "Ada (O) to move"


async def test_a_move_typed_while_the_computer_thinks_waits_for_its_reply(start: Start) -> None:
    async with start(player1="Ada", level=Level.EASY, computer_delay=5) as ui:
        await ui.press("x", "5")
        assert ui.status() == "Computer is thinking…"
        assert ui.to_move_card() == 1

        before = ui.series
        await ui.press("7")
        assert ui.series == before
        assert ui.marks() == (None,) * 4 + (Mark.X,) + (None,) * 4
        assert ui.status() == "Computer is thinking…"


@pytest.mark.parametrize(
    ("mark", "preferences"),
    [
        pytest.param("x", [0, 8, 2, 6, 4, 1, 3, 5, 7], id="X-first-corners"),
        pytest.param("o", [4, 1, 3, 5, 7, 0, 2, 6, 8], id="O-first-centre-then-sides"),
        pytest.param("x", [0, 1, 2, 3, 4, 5, 6, 7, 8], id="X-first-in-reading-order"),
    ],
)
async def test_hard_never_loses_a_scripted_line(
    start: Start, mark: str, preferences: list[int]
) -> None:
    """Series 1: the person moves first; match 2: the computer chooses and moves first."""
    async with start(player1="Ada", level=Level.HARD) as ui:
        await ui.press(mark)
        await play_script(ui, preferences)
        assert ui.series.wins[0] == 0
        assert not ui.status().startswith("Ada wins")

        await ui.press("n")
        await ui.pilot.pause()
        assert isinstance(ui.app.screen, GameScreen), "the computer chooses without a modal"
        await play_script(ui, preferences)

        assert ui.series.played == 2
        assert ui.series.wins[0] == 0
        assert "0 wins" in ui.card(0)
        ui.assert_board_matches_match()


async def test_the_computer_chooses_its_own_mark_in_the_second_match(start: Start) -> None:
    async with start(player1="Ada", level=Level.HARD) as ui:
        await ui.press("x")
        await play_script(ui, [0, 8, 2, 6, 4, 1, 3, 5, 7])
        assert isinstance(ui.game.table, LocalTable)
        ui.game.table.computer_delay = 0.5  # its choice and its move each after a visible pause

        await ui.press("n")
        await ui.pilot.pause()
        assert isinstance(ui.app.screen, GameScreen)
        assert not any(isinstance(screen, MarkChoiceScreen) for screen in ui.app.screen_stack)
        assert ui.series.chooser == 1
        assert ui.status() == "Computer is choosing a mark…"
        await ui.press("5")  # kept until the computer has chosen, and moved (it moves first)
        assert ui.status() == "Computer is choosing a mark…"
        await running_until(ui, lambda: ui.series.marks is not None, "the computer's mark")
        assert ui.series.marks is not None
        computer_mark = ui.series.marks[1]
        assert ui.status() == f"Computer chose {computer_mark}."
        assert ui.card(1).startswith(f"▶ Computer | {computer_mark}")
        assert ui.card(0).startswith(f"Ada | {computer_mark.other}")
        assert ui.marks() == (None,) * 9
        await running_until(  # its move, then the 5 kept
            ui,
            lambda: ui.series.match is not None and not ui.series.awaits_computer,
            "the computer's move",
        )
        match = ui.series.match
        assert match is not None
        if match.moves == (4,):  # the computer opened in the centre: 5 is said to be taken
            assert ui.status() == f"Cell 5 (centre) is taken by {computer_mark}."
        else:
            assert match.moves[1] == 4
