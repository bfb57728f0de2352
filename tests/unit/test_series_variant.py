"""A series of Ultimate matches: the same series, carrying the variant whose positions it plays."""

from __future__ import annotations

import random

import pytest

from tictactoe.core.ai import Level
from tictactoe.core.engine import GameState, Mark
from tictactoe.core.rules import CLASSIC, ULTIMATE
from tictactoe.core.series import BoardClosed, CellTaken, Player, Series, SeriesError
from tictactoe.core.ultimate import UltimateState
from tictactoe.core.ultimate_ai import Estimate

X_WINS_THE_TOP_ROW_OF_BOARDS = (
    # X wins the top-left board (cells 0, 1, 2), O is sent back to it and then anywhere.
    0 * 9 + 0, 0 * 9 + 4, 4 * 9 + 0, 0 * 9 + 3, 3 * 9 + 0, 0 * 9 + 5,
)  # fmt: skip


def test_a_series_is_classic_unless_told_otherwise() -> None:
    series = Series.new("Ada", "Bob").choose_mark(Mark.X)
    assert series.variant is CLASSIC
    assert isinstance(series.match, GameState)
    assert repr(series) == repr(Series.new("Ada", "Bob").choose_mark(Mark.X))


def test_an_ultimate_series_plays_ultimate_positions() -> None:
    series = Series.new("Ada", "Bob", variant=ULTIMATE).choose_mark(Mark.X)
    assert isinstance(series.match, UltimateState)
    series = series.play(40)  # the centre of the centre board
    assert series.history() == ((0, Mark.X, 40),)


def test_a_move_outside_the_forced_board_is_refused_naming_it() -> None:
    series = Series.new("Ada", "Bob", variant=ULTIMATE).choose_mark(Mark.X).play(40)
    with pytest.raises(BoardClosed) as refused:
        series.play(0)
    assert str(refused.value) == "Play in the centre board."


def test_a_move_in_a_finished_board_names_the_open_ones() -> None:
    rng = random.Random(3)
    series = Series.new("Ada", "Bob", variant=ULTIMATE).choose_mark(Mark.X)
    while True:  # random moves until the mover may go anywhere but some board is finished
        match = series.match
        assert isinstance(match, UltimateState) and not match.is_over
        closed = [b for b, won in enumerate(match.small_winners) if won is not None]
        if match.forced_board is None and closed:
            break
        series = series.play(rng.choice(match.legal_moves()))
    with pytest.raises(BoardClosed) as refused:
        series.play(closed[0] * 9 + match.board[closed[0] * 9 :].index(None))
    assert refused.value.boards == match.open_boards
    assert str(refused.value).startswith("Play in an open board: the ")
    assert "board" not in str(refused.value)[len("Play in an open board: the ") : -len(" board.")]


def test_a_taken_cell_is_named_with_its_board() -> None:
    series = Series.new("Ada", "Bob", variant=ULTIMATE).choose_mark(Mark.X)
    series = series.play(40).play(4 * 9 + 4 - 4)  # O in the centre board's top-left
    with pytest.raises(CellTaken) as refused:
        series.play(36 + 4 - 4)
    assert str(refused.value) == "The centre board, top-left is taken by O."
    assert str(refused.value.by_key("57")) == "Cell 57 (centre board, top-left) is taken by O."


def test_the_computer_plays_ultimate_and_a_finished_match_says_its_variant() -> None:
    rng = random.Random(7)
    series = Series.new(Player("Ada"), Player.computer(Level.EASY), variant=ULTIMATE)
    series = series.choose_mark(Mark.X)
    while series.phase.value == "playing":
        if series.awaits_computer:
            series = series.computer_step(rng).series
        else:
            assert series.match is not None
            series = series.play(rng.choice(series.match.legal_moves()))
    assert series.finished[-1].variant == "ultimate"
    assert series.played == 1


def test_an_ultimate_hint_is_the_hard_search_estimate() -> None:
    series = Series.new("Ada", "Bob", variant=ULTIMATE).choose_mark(Mark.X).play(40)
    hint = series.hint(random.Random(1))
    assert isinstance(hint, Estimate)
    assert hint.best_moves[0] // 9 == 4
    assert hint.summary in ("X is favoured", "O is favoured", "even") or "best play" in hint.summary


def test_a_hint_waits_for_a_person_to_move() -> None:
    with pytest.raises(SeriesError):
        Series.new("Ada", "Bob", variant=ULTIMATE).hint()
