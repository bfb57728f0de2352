"""Keys that arrive together (type-ahead, a held key, a burst over SSH) act in the order typed.

Each test sends its keys with `Driver.burst`: every key is on the app's queue before the
first is handled, exactly as a terminal delivers them, with no pause in between.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Input

from app.conftest import HOT_SEAT, Driver, Start
from limits import EVENT_LIMIT
from tictactoe.core.ai import Level
from tictactoe.core.series import Series
from tictactoe.report import final_score
from tictactoe.tui.widgets.history import history_lines


def history(ui: Driver) -> list[str]:
    return history_lines(ui.series)


def status(ui: Driver) -> str:
    return " ".join(ui.status().split())


async def test_a_move_an_undo_and_a_move_in_one_burst(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.burst("x", "7", "u", "8")
        assert history(ui) == ["1. Ada X top"]
        ui.assert_board_matches_match()


async def test_the_winning_move_and_quit_in_one_burst_keep_the_win(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.burst("x", "7", "4", "8", "5")
        await ui.burst("9", "q")
        assert not ui.app.is_running
    result = ui.app.return_value
    assert isinstance(result, Series)
    assert (result.wins, result.draws, result.played) == ((1, 0), 0, 1)
    assert [line.split() for line in final_score(result).splitlines()[1:3]] == [
        ["Ada", "1"],
        ["Bob", "0"],
    ]


async def test_the_record_and_a_quit_in_one_burst(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.burst("x", "5", "s", "ctrl+q")
        assert not ui.app.is_running
    assert ui.app.return_code == 0
    result = ui.app.return_value
    assert isinstance(result, Series) and result.match is not None
    assert result.match.moves == (4,)


async def until(ui: Driver, done: Callable[[], bool], seconds: float = EVENT_LIMIT) -> None:
    """Let the app run until `done()` (the computer's pauses are real here)."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, f"still waiting: {history(ui)}, {status(ui)!r}"
        await ui.pilot.pause(0.05)


async def test_hundreds_of_moves_hints_and_undos_against_the_thinking_computer(
    start: Start,
) -> None:
    """The 5s after the first wait for the computer's reply and find the cell taken; the first
    undo takes back the reply and the move; the hints, asked while it thinks, wait for nothing."""
    # The pause outlasts the burst's handling on a busy machine (0.3 s did not, beside two busy
    # loops: the reply and the undos came before the first look): the reply comes after it.
    async with start(player1="Ada", level=Level.HARD, computer_delay=2.0) as ui:
        await ui.burst("x", *["5"] * 200, *["h"] * 200, *["u"] * 200)
        assert history(ui) == ["1. Ada X centre"]
        assert status(ui) == "Wait: Computer is thinking…"
        await until(ui, lambda: not ui.series.awaits_computer)
        assert ui.series.match is not None and ui.series.match.moves == ()
        assert ui.marks() == (None,) * 9
        assert history(ui) == []
        assert status(ui) == "There is no move to take back."


async def test_moves_typed_while_the_computer_thinks_are_played_after_its_reply(
    start: Start,
) -> None:
    """x 5 7 in one burst: 5, the computer's reply, then 7 (or the reason it cannot be)."""
    # The pause outlasts the burst's handling on a busy machine: the reply comes after it.
    async with start(player1="Ada", level=Level.EASY, computer_delay=2.0) as ui:
        await ui.burst("x", "5", "7")
        assert history(ui) == ["1. Ada X centre"]
        await until(ui, lambda: len(history(ui)) == 3 or "taken" in status(ui))
        match = ui.series.match
        assert match is not None and match.moves[:2][0] == 4
        if match.moves[1] == 0:  # the computer took 7's cell: said so
            assert status(ui) == "Cell 7 (top-left) is taken by O."
            assert len(match.moves) == 2
        else:
            assert match.moves[2] == 0
            assert [line.split()[1] for line in history(ui)] == ["Ada", "Computer", "Ada"]


async def test_a_burst_during_the_computers_pause_acts_in_order_after_its_reply(
    start: Start,
) -> None:
    """1 waits for the reply; u, typed after it, waits for 1 (and so for the reply after 1)."""
    # The pause outlasts the burst's handling on a busy machine: the reply comes after it.
    async with start(player1="Ada", level=Level.HARD, computer_delay=2.0) as ui:
        await ui.burst("x", "5", "1", "u")
        assert history(ui) == ["1. Ada X centre"]
        await until(ui, lambda: not ui.series.awaits_computer and len(history(ui)) in (0, 2))
        match = ui.series.match
        assert match is not None
        # Either the computer took 1's cell (said), and u took back its reply and 5; or 1 was
        # played, and u took back the computer's reply to it and 1.
        assert match.moves == () or (match.moves[0] == 4 and match.moves[1] != 6)
        assert not ui.series.awaits_computer


async def test_typing_ahead_of_the_computers_reply_waits_for_nothing(start: Start) -> None:
    """With no pause at all the reply comes between the keys, and the next key plays on."""
    async with start(player1="Ada", level=Level.EASY, computer_delay=0) as ui:
        await ui.burst("x", "5")
        for _ in range(10):
            if not ui.series.awaits_computer:
                break
            await ui.pilot.pause()
        assert [line.split()[1] for line in history(ui)] == ["Ada", "Computer"]


async def test_names_typed_ahead_across_both_fields_and_into_the_game(start: Start) -> None:
    async with start() as ui:
        await ui.burst("ctrl+u", "A", "d", "a", "tab", "ctrl+u", "B", "o", "b")
        fields = [ui.app.screen.query_one(f"#name-{n}", Input).value for n in (1, 2)]
        assert fields == ["Ada", "Bob"]
        await ui.burst("enter", "x", "5")
        assert [player.name for player in ui.series.players] == ["Ada", "Bob"]
        assert history(ui) == ["1. Ada X centre"]


@pytest.mark.parametrize("start_key", ["enter", "ctrl+s"])
async def test_names_and_start_typed_in_one_burst(start: Start, start_key: str) -> None:
    async with start() as ui:
        await ui.burst("A", "d", "a", "tab", "B", "o", "b", start_key, "o")
        assert [player.name for player in ui.series.players] == ["Ada", "Bob"]
        assert ui.series.marks is not None and ui.series.marks[0] == "O"


async def test_keys_while_the_terminal_is_too_small_change_nothing(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.burst("x", "5")
        before = ui.series
        await ui.pilot.resize_terminal(40, 12)
        await ui.pilot.pause()
        await ui.burst("1", "u", "h", "n", "enter", "left")
        await ui.pilot.resize_terminal(100, 32)
        await ui.pilot.pause()
        assert ui.series == before
        assert ui.game.board.cursor == 4
        assert status(ui) == "Bob (O) to move"


async def test_a_person_called_computer_hard_plays_the_hard_computer_to_the_end(
    start: Start, tmp_path: Path
) -> None:
    record = tmp_path / "record.sqlite3"
    async with start(
        player1="Computer (hard)", level=Level.HARD, save=True, record_file=record
    ) as ui:
        await ui.burst("x")
        while ui.series.played == 0:
            match = ui.series.match
            assert match is not None
            if not ui.series.awaits_computer:
                await ui.burst(ui.game.key_layout.key_for(match.legal_moves()[0]))
            else:
                await ui.pilot.pause()
        await ui.burst("q")
    result = ui.app.return_value
    assert isinstance(result, Series) and result.played == 1
    person, computer = result.players
    assert not person.is_computer and computer.level is Level.HARD
    assert "Computer (hard)" in final_score(result)


async def test_keys_typed_after_quit_change_nothing(start: Start) -> None:
    """A winning move typed right after q is not played: the score printed is the score."""
    async with start(**HOT_SEAT) as ui:
        await ui.burst("x", "7", "4", "8", "5")
        game = ui.game
        await ui.burst("q", "9", "n")
        assert not ui.app.is_running
    assert game.series.played == 0, "the screen shows the score that was printed"
    result = ui.app.return_value
    assert isinstance(result, Series) and result.played == 0
    assert result.match is not None and 8 not in result.match.moves
