"""Who plays which seat: a person or the computer in either seat, the computer in both.

The series owns it: the computer in player 1's seat chooses the first mark; when it holds both
seats nobody plays, it goes on from match to match by itself, its matches are not recorded, and
what a key does then is said with the state of the series.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tictactoe.core.ai import Level
from tictactoe.core.engine import Mark
from tictactoe.core.rules import CLASSIC, ULTIMATE, Variant
from tictactoe.core.sayings import state_notice
from tictactoe.core.series import BETWEEN_MATCHES, Phase, Player, Series, SeriesError

levels = st.sampled_from(Level)


def computers(first: Level, second: Level, variant: Variant = CLASSIC) -> Series:
    return Series.new(Player.computer(first), Player.computer(second), variant=variant)


def test_the_computer_in_player_1s_seat_chooses_the_first_mark_and_the_person_the_second() -> None:
    series = Series.new(Player.computer(Level.HARD), "Ada")
    assert series.awaits_computer and series.person_choosing is None
    assert not series.computers_only and series.recorded
    with pytest.raises(SeriesError, match="chooses its own mark"):
        series.choose_mark(Mark.X)
    rng = random.Random(1)
    while series.phase is not Phase.OVER:
        if series.awaits_computer:
            series = series.computer_step(rng).series
        else:
            match = series.match
            assert match is not None
            series = series.play(match.legal_moves()[0])
    assert not series.awaits_computer, "a person is at the series: the next match is theirs to ask"
    series = series.next_match()
    assert series.person_choosing == Player("Ada")


def test_two_computers_are_told_apart_by_their_seats() -> None:
    series = computers(Level.EASY, Level.EASY)
    assert [player.name for player in series.players] == ["Computer 1", "Computer 2"]
    assert all(player.level is Level.EASY for player in series.players)
    assert series.computers_only and series.awaits_computer
    assert series.person_choosing is None
    assert not series.recorded, "the computer against itself is a show, not a result"


@settings(max_examples=25, deadline=None)
@given(levels, levels, st.integers(0, 2**16))
def test_the_computer_against_itself_plays_match_after_match_by_itself(
    first: Level, second: Level, seed: int
) -> None:
    series, rng = computers(first, second), random.Random(seed)
    while series.played < 3:
        assert series.awaits_computer, series
        assert series.pause_beats == (BETWEEN_MATCHES if series.phase is Phase.OVER else 1)
        before = series
        series = series.computer_step(rng).series
        if before.phase is Phase.OVER:  # the next match, chosen by the other seat
            assert series.match is None and series.chooser == 1 - before.chooser
            assert series.played == before.played
    assert series.wins[0] + series.wins[1] + series.draws == 3
    assert len(series.finished) == 3


def test_no_move_of_the_computer_against_itself_is_taken_back() -> None:
    series, rng = computers(Level.EASY, Level.EASY), random.Random(4)
    while series.match is None or len(series.match.moves) < 3:
        series = series.computer_step(rng).series
    with pytest.raises(SeriesError, match="There is no move to take back"):
        series.undo()


def test_the_computer_against_itself_at_ultimate_plays_a_match_to_its_end() -> None:
    series, rng = computers(Level.MEDIUM, Level.EASY, ULTIMATE), random.Random(5)
    while series.played < 1:
        series = series.computer_step(rng).series
    assert series.finished[0].variant == ULTIMATE.name
    assert series.awaits_computer and series.phase is Phase.OVER


def test_what_a_key_does_is_said_while_the_computer_plays_itself() -> None:
    series, rng = computers(Level.MEDIUM, Level.HARD), random.Random(2)
    while series.phase is not Phase.OVER:
        said = str(state_notice(series))
        assert said.endswith("\nAny key ends the series and shows the score."), said
        series = series.computer_step(rng).series
    said = str(state_notice(series))
    assert said.endswith("\nAny key ends the series and shows the score."), said
    assert "next match" not in said, "nobody asks for the next match: it comes by itself"


def test_a_person_at_the_series_is_offered_the_next_match_as_before() -> None:
    series, rng = (
        Series.new("Ada", Player.computer(Level.EASY)).choose_mark(Mark.X),
        random.Random(0),
    )
    while series.phase is not Phase.OVER:
        match = series.match
        assert match is not None
        if series.awaits_computer:
            series = series.computer_step(rng).series
        else:
            series = series.play(match.legal_moves()[0])
    assert not series.awaits_computer
    assert "next match" in str(state_notice(series))
    assert "Any key" not in str(state_notice(series))
