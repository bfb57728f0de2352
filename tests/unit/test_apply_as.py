"""Seat-checked intents: `Series.apply_as` is `apply` for the player who may act, and a
refusal that changes nothing for the other one."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tictactoe.core.ai import Level
from tictactoe.core.engine import Mark
from tictactoe.core.series import (
    ChooseMark,
    Confirm,
    FirstMove,
    Intent,
    NextMatch,
    NotYourTurn,
    Phase,
    Play,
    Player,
    Series,
    SeriesError,
    Undo,
)
from unit.test_intents import intents


@st.composite
def series_states(draw: st.DrawFn) -> Series:
    """A series between two people, after a run of legal intents."""
    first_move = draw(st.sampled_from(FirstMove))
    series = Series.new("Alice", "Bob", first_move)
    rng = random.Random(draw(st.integers(0, 1000)))
    for intent in draw(st.lists(intents, max_size=40)):
        with contextlib.suppress(SeriesError):
            series = series.apply(intent, rng)
    return series


def outcome(transition: Callable[..., Series], *args: object) -> Series | str:
    """What a transition gives: the new series, or the refusal's text."""
    try:
        return transition(*args)
    except SeriesError as refusal:
        return str(refusal)


def actor_for(series: Series, intent: Intent) -> int | None:
    """The player who may give `intent` now by the rules online play relies on, or None
    when either may."""
    if isinstance(intent, Play | Confirm) and series.phase is Phase.PLAYING:
        return series.to_move
    if isinstance(intent, ChooseMark) and series.phase is Phase.CHOOSING:
        return series.chooser
    if isinstance(intent, Undo) and series.phase is Phase.PLAYING and series.history():
        return series.history()[-1][0]
    return None


@given(series_states(), intents, st.integers(0, 2**16))
def test_the_player_who_may_act_gets_what_apply_gives(
    series: Series, intent: Intent, seed: int
) -> None:
    actor = actor_for(series, intent)
    for player in (0, 1) if actor is None else (actor,):
        expected = outcome(series.apply, intent, random.Random(seed))
        got = outcome(series.apply_as, player, intent, random.Random(seed))
        assert got == expected


@given(series_states(), intents)
def test_the_other_player_is_refused_and_nothing_changes(series: Series, intent: Intent) -> None:
    actor = actor_for(series, intent)
    if actor is None:
        return
    before = series
    with pytest.raises(NotYourTurn) as refusal:
        series.apply_as(1 - actor, intent)
    assert series == before
    name = series.players[actor].name
    assert name in str(refusal.value)


@given(
    series_states(),
    st.builds(Play, st.integers(0, 8)) | st.builds(ChooseMark, st.sampled_from(Mark)),
)
def test_a_move_or_a_mark_is_never_both_players(series: Series, intent: Intent) -> None:
    accepted = [
        player for player in (0, 1) if isinstance(outcome(series.apply_as, player, intent), Series)
    ]
    assert len(accepted) <= 1


def test_the_refusals_name_who_may_act() -> None:
    series = Series.new("Alice", "Bob")
    with pytest.raises(NotYourTurn, match=r"^Alice chooses the mark this match\.$"):
        series.apply_as(1, ChooseMark(Mark.X))
    series = series.apply_as(0, ChooseMark(Mark.X))
    with pytest.raises(NotYourTurn, match=r"^It is Alice's turn\.$"):
        series.apply_as(1, Play(4))
    with pytest.raises(NotYourTurn, match=r"^It is Alice's turn\.$"):
        series.apply_as(1, Confirm(4))
    series = series.apply_as(0, Play(4))
    with pytest.raises(NotYourTurn, match=r"^Only Alice may take back the last move\.$"):
        series.apply_as(1, Undo())
    assert series.apply_as(0, Undo()).match == series.match.undo()  # type: ignore[union-attr]


def test_a_long_name_is_shortened_in_the_refusal() -> None:
    series = Series.new("A" * 50, "Bob")
    with pytest.raises(NotYourTurn, match=r"^A+… chooses the mark this match\.$"):
        series.apply_as(1, ChooseMark(Mark.O))


def test_either_player_may_start_the_next_match() -> None:
    series = Series.new("Alice", "Bob").apply(ChooseMark(Mark.X))
    for cell in (0, 3, 1, 4, 2):
        series = series.apply(Play(cell))
    assert series.phase is Phase.OVER
    assert series.apply_as(1, NextMatch()) == series.apply_as(0, NextMatch()) == series.next_match()
    assert series.apply_as(1, Confirm(5)) == series.next_match()


def test_against_the_computer_the_person_takes_back() -> None:
    series = Series.new("Alice", Player.computer(Level.EASY)).apply(ChooseMark(Mark.X))
    series = series.apply(Play(4)).computer_step(random.Random(1)).series
    assert series.apply_as(0, Undo()) == series.undo()
    with pytest.raises(NotYourTurn):
        series.apply_as(1, Undo())


@pytest.mark.parametrize("player", [-1, 2, True])
def test_there_are_two_players(player: int) -> None:
    with pytest.raises(SeriesError, match="no player"):
        Series.new().apply_as(player, NextMatch())
