"""Intents: the values a key, a click or a dialog turn into, applied by `Series.apply`."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tictactoe.core.engine import Mark
from tictactoe.core.series import (
    ChooseMark,
    Confirm,
    Intent,
    NextMatch,
    Play,
    Series,
    SeriesError,
    Undo,
)

intents: st.SearchStrategy[Intent] = st.one_of(
    st.builds(Play, st.integers(-1, 9)),
    st.builds(ChooseMark, st.sampled_from(Mark)),
    st.builds(Confirm, st.integers(0, 8)),
    st.just(Undo()),
    st.just(NextMatch()),
)


def direct(series: Series, intent: Intent) -> Series:
    """What the transition named by `intent` does, called by hand."""
    if isinstance(intent, Play):
        return series.play(intent.cell)
    if isinstance(intent, ChooseMark):
        return series.choose_mark(intent.mark, random.Random(0))
    if isinstance(intent, Confirm):
        return series.confirm(intent.cell)
    if isinstance(intent, Undo):
        return series.undo()
    return series.next_match()


@given(st.lists(intents, max_size=60))
def test_apply_is_the_transition_each_intent_names_and_refuses_alike(
    steps: list[Intent],
) -> None:
    series = Series.new("Ada", "Bob")
    for intent in steps:
        try:
            expected: Series | str = direct(series, intent)
        except SeriesError as refusal:
            expected = str(refusal)
        try:
            after: Series | str = series.apply(intent, random.Random(0))
        except SeriesError as refusal:
            after = str(refusal)
        assert after == expected
        if isinstance(after, Series):
            series = after
    assert series.played == len(series.finished)
    assert sum(series.wins) + series.draws == series.played


def test_a_burst_of_intents_plays_undoes_and_plays() -> None:
    series = Series.new("Ada", "Bob")
    for intent in (ChooseMark(Mark.X), Play(6), Undo(), Play(7)):
        series = series.apply(intent)
    assert series.match is not None and series.match.moves == (7,)


def test_an_intent_out_of_turn_is_refused_in_words() -> None:
    with pytest.raises(SeriesError, match="choosing a mark"):
        Series.new("Ada", "Bob").apply(Play(4))
