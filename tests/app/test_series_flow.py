"""Between the games: the mark modal, the next match, quitting, and the help screen."""

from __future__ import annotations

import asyncio

import pytest
from textual import events
from textual.widgets import Button, Markdown

from app.conftest import HOT_SEAT, Driver, Start
from tictactoe.core.engine import Mark
from tictactoe.core.series import FirstMove, Series
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.help import HelpScreen
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen

ADA_WINS_TOP_ROW = ("7", "4", "8", "5", "9")
"""Keypad digits: the first mover takes the top row while the other wastes the middle."""


async def test_the_first_match_opens_the_modal_for_player_one(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        assert ui.top_text("#question") == "Ada, choose your mark"
        assert ui.series.match is None
        assert ui.marks() == (None,) * 9
        assert ui.status() == "Ada is choosing a mark…"


async def test_the_mark_buttons_can_be_clicked(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.pilot.click("#o")
        await ui.pilot.pause()
        assert isinstance(ui.app.screen, GameScreen)
        assert ui.series.marks == (Mark.O, Mark.X)
        assert ui.card(0).startswith("▶ Ada | O")


async def test_enter_starts_the_next_match_chosen_by_the_other_player(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", *ADA_WINS_TOP_ROW)
        await ui.press("enter")
        await ui.pilot.pause()

        assert isinstance(ui.app.screen, MarkChoiceScreen)
        assert ui.top_text("#question") == "Bob, choose your mark"
        assert ui.marks() == (None,) * 9
        assert ui.cells_with("win") == set()
        assert "1 win" in ui.card(0)
        assert ui.tally() == "Draws 0 Played 1"

        await ui.press("x")
        assert ui.series.marks == (Mark.O, Mark.X)
        assert ui.status() == "Bob (X) to move"
        assert ui.card(0).startswith("Ada | O | 1 win")
        assert ui.card(1).startswith("▶ Bob | X | 0 wins")


async def test_n_starts_the_next_match_and_the_chooser_alternates(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", *ADA_WINS_TOP_ROW, "n")
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        assert ui.top_text("#question") == "Bob, choose your mark"
        assert ui.marks() == (None,) * 9
        assert "1 win" in ui.card(0)
        await ui.press("o", *ADA_WINS_TOP_ROW)  # Bob chose O and moves first: he wins
        assert ui.status().startswith("Bob wins!")
        await ui.press("n")
        assert ui.top_text("#question") == "Ada, choose your mark"
        assert ui.tally() == "Draws 0 Played 2"
        assert ui.series.wins == (1, 1)


async def enter_then(ui: Driver, key: str, turns: int, pauses: int = 3) -> None:
    """Enter, then `key` `turns` turns of the event loop later (none: in the same read), as a
    fast hand or a slow link delivers them; then let the app handle both."""
    ui.app.post_message(events.Key("enter", "\r"))
    for _ in range(turns):
        await asyncio.sleep(0)
    ui.app.post_message(events.Key(key, key))
    for _ in range(pauses):
        await ui.pilot.pause()


async def test_enter_then_x_on_the_dialog_answers_once_however_close_they_come(
    start: Start,
) -> None:
    """Enter presses the focused X, and x answers too: the dialog answers once, and the game
    screen stays (a second answer used to pop it, leaving a dead screen)."""
    async with start(**HOT_SEAT) as ui:
        for attempt in range(20):  # each spacing once
            assert isinstance(ui.app.screen, MarkChoiceScreen), attempt
            chooser = ui.series.chooser
            await enter_then(ui, "x", turns=attempt % 20, pauses=1)
            assert isinstance(ui.app.screen, GameScreen), f"a dead screen at attempt {attempt}"
            marks = ui.series.marks
            assert marks is not None and marks[chooser] is Mark.X
            for key in (*ADA_WINS_TOP_ROW, "n"):  # a burst: all queued at once
                ui.app.post_message(events.Key(key, key))
            await ui.pilot.pause()
        assert ui.series.played == 20


@pytest.mark.parametrize("turns", [0, 6])
async def test_enter_on_o_then_x_takes_o_the_first_answer(start: Start, turns: int) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("right")  # the focus on O
        await enter_then(ui, "x", turns)
        assert isinstance(ui.app.screen, GameScreen)
        assert ui.series.marks == (Mark.O, Mark.X)


async def test_two_buttons_pressed_together_give_the_first_answer_only(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        dialog = ui.app.screen
        dialog.query_one("#o", Button).press()
        dialog.query_one("#quit", Button).press()
        for _ in range(3):
            await ui.pilot.pause()
        assert ui.app.is_running
        assert isinstance(ui.app.screen, GameScreen)
        assert ui.series.marks == (Mark.O, Mark.X)


@pytest.mark.parametrize("answer", ["enter", "space"])
async def test_a_move_typed_right_after_the_dialogs_enter_is_played(
    start: Start, answer: str
) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.burst(answer, "5")
        assert ui.series.marks == (Mark.X, Mark.O)
        assert ui.cell(4).mark is Mark.X


async def test_with_first_x_the_other_player_may_open(start: Start) -> None:
    async with start(**HOT_SEAT, first_move=FirstMove.X) as ui:
        await ui.press("o")
        assert ui.status() == "Bob (X) to move"
        assert ui.card(1).startswith("▶ Bob | X")
        await ui.press("5")
        assert ui.cell(4).mark is Mark.X


async def test_next_match_is_refused_while_a_game_is_in_progress(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "5", "n")
        assert isinstance(ui.app.screen, GameScreen)
        assert ui.status() == "Finish this match first."
        assert ui.series.chooser == 0 and ui.cell(4).mark is Mark.X


@pytest.mark.parametrize("key", ["5", "u"])
async def test_a_key_for_the_board_while_the_modal_is_open_changes_nothing_and_says_why(
    start: Start, key: str
) -> None:
    async with start(**HOT_SEAT) as ui:
        assert ui.top_text("#notice") == ""  # no reminder yet
        await ui.press(key)
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        assert "press X or O" in ui.top_text("#notice")
        assert ui.series.match is None
        assert ui.marks() == (None,) * 9


async def test_a_click_on_the_board_behind_the_modal_changes_nothing_and_says_why(
    start: Start,
) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.pilot.click(offset=ui.cell(4).middle)
        await ui.pilot.pause()
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        assert "press X or O" in ui.top_text("#notice")
        assert ui.series.match is None


async def test_quit_with_q_from_the_modal_returns_the_match(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("q")
        await ui.pilot.pause()
        assert not ui.app.is_running
    result = ui.app.return_value
    assert isinstance(result, Series)
    assert [player.name for player in result.players] == ["Ada", "Bob"]


async def test_quit_with_the_modal_button_returns_the_match(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.pilot.click("#quit")
        await ui.pilot.pause()
        assert not ui.app.is_running
    assert isinstance(ui.app.return_value, Series)


async def test_after_a_win_moves_are_refused_and_q_returns_the_score(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", *ADA_WINS_TOP_ROW)
        finished = ui.series
        await ui.press("1")
        assert ui.series == finished
        assert ui.cell(6).mark is None
        assert "over" in ui.status()

        await ui.press("q")
        await ui.pilot.pause()
        assert not ui.app.is_running
    result = ui.app.return_value
    assert isinstance(result, Series)
    assert result.wins == (1, 0) and result.played == 1


@pytest.mark.parametrize("before", [(), ("x", "5")], ids=["modal-open", "mid-game"])
async def test_ctrl_q_quits_from_anywhere(start: Start, before: tuple[str, ...]) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press(*before, "ctrl+q")
        await ui.pilot.pause()
        assert not ui.app.is_running
    result = ui.app.return_value
    assert isinstance(result, Series)
    assert (result.match.moves if result.match else ()) == ((4,) if before else ())


async def assert_help_is_open(ui: Driver) -> None:
    assert isinstance(ui.app.screen, HelpScreen)
    help_text = ui.app.screen.query_one(Markdown)
    assert help_text.is_on_screen
    assert "Escape" in help_text.source


async def test_help_opens_over_the_mark_modal_and_returns_to_it(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("f1")
        await assert_help_is_open(ui)
        await ui.press("escape")
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        await ui.press("x")
        assert ui.series.marks == (Mark.X, Mark.O)


@pytest.mark.parametrize("key", ["question_mark", "f1"])
async def test_help_opens_and_closes_with_escape(start: Start, key: str) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", key)
        await assert_help_is_open(ui)
        await ui.press("7")  # help is on top: the board does not hear this
        await ui.press("escape")
        assert isinstance(ui.app.screen, GameScreen)
        assert ui.marks() == (None,) * 9

        await ui.press("7")  # and the board listens again
        assert ui.cell(0).mark is Mark.X
