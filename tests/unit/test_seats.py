"""The rules of a series played from seats: a watcher only watches, a pause stops everyone,
moves are final, a hint is the mover's; past those, the series' own rules decide."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tictactoe.core.engine import Mark
from tictactoe.core.seats import (
    MovesAreFinal,
    Paused,
    Watching,
    act,
    acting_seat,
    away_notice,
    check_hint,
    chooses_now,
)
from tictactoe.core.series import ChooseMark, Intent, Play, Series, SeriesError, Undo
from unit.test_apply_as import outcome, series_states
from unit.test_intents import intents

seats = st.sampled_from([None, 0, 1])
away_names = st.none() | st.sampled_from(["Alice", "Bob", "A name longer than the status line"])


@given(series_states(), seats, intents, away_names, st.integers(0, 1000))
def test_an_intent_from_a_seat_is_the_series_own_rule_past_the_seats_rules(
    series: Series, seat: int | None, intent: Intent, away: str | None, seed: int
) -> None:
    got = outcome(lambda: act(series, seat, intent, away=away, rng=random.Random(seed)))
    if seat is None:
        assert got == str(Watching())
    elif away is not None:
        assert got == str(Paused(away))
    elif isinstance(intent, Undo):
        assert got == str(MovesAreFinal())
    else:
        assert got == outcome(series.apply_as, seat, intent, random.Random(seed))


@given(series_states(), seats, away_names)
def test_a_hint_is_only_for_the_mover_and_never_while_paused(
    series: Series, seat: int | None, away: str | None
) -> None:
    try:
        check_hint(series, seat, away=away)
    except SeriesError as refusal:
        assert seat is None or away is not None or series.to_move != seat
        if seat is not None and away is None and series.to_move is not None:
            assert str(refusal) == f"It is {series.players[series.to_move].name}'s turn."
    else:
        assert seat is not None and away is None and series.to_move == seat
        series.hint()  # the core then gives one


@given(series_states(), seats, away_names)
def test_only_the_chooser_chooses_and_not_while_paused(
    series: Series, seat: int | None, away: str | None
) -> None:
    expected = away is None and seat is not None and series.phase.value == "choosing"
    assert chooses_now(series, seat, away=away) == (expected and series.chooser == seat)


def test_the_seats_rules_in_words() -> None:
    series = Series.new("Alice", "Bob").apply(ChooseMark(Mark.X)).apply(Play(4))
    with pytest.raises(Watching, match=r"^You are watching: only the players move\.$"):
        act(series, None, Play(0))
    with pytest.raises(Paused, match=r"^The series is paused: waiting for Bob\.$"):
        act(series, 1, Play(0), away="Bob")
    with pytest.raises(MovesAreFinal, match=r"^Moves are final online\.$"):
        act(series, 0, Undo())
    assert acting_seat(1) == 1
    assert act(series, 1, Play(0)).match == series.apply(Play(0)).match


def test_while_a_seat_is_away_the_others_read_the_authoritys_count() -> None:
    assert str(away_notice("Bob", 120.0, seat=0)) == (
        "Bob's connection dropped.\nWaiting for Bob to come back (2:00)."
    )
    assert str(away_notice("Bob", 59.2, seat=None)).endswith("(1:00).")
    assert str(away_notice("Bob", 0.4, seat=1)).endswith("(0:01).")
    host = away_notice("Bob", 0.0, seat=0)
    assert str(host) == "Bob has not come back.\nKeep waiting, or press <quit> to end the series."
    assert str(host.with_keys({"quit": ("q",)})) == (
        "Bob has not come back.\nKeep waiting, or press q to end the series."
    )
    guest = away_notice("Bob", 0.0, seat=1)
    assert str(guest) == "Bob has not come back.\nThe host may end the series."
    assert away_notice("Bob", 0.0, seat=None) == guest
    counting = away_notice("Bob", 61.0, seat=1)
    assert [phrase.wordings for phrase in counting.phrases] == [
        ("Bob's connection dropped.",),
        ("Waiting for Bob to come back (1:01).", "Waiting for Bob to come back."),
    ]
    assert [phrase.joiner for phrase in counting.phrases] == [" ", "\n"]
