"""Whether a series could have been reached by play: every series play reaches passes, and
a series with its score, its chooser or a first move changed does not."""

from __future__ import annotations

import contextlib
import dataclasses
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tictactoe.core.ai import Level
from tictactoe.core.engine import GameState, Mark
from tictactoe.core.reachable import Unreachable, check_reachable
from tictactoe.core.series import ChooseMark, FinishedMatch, FirstMove, Player, Series, SeriesError
from unit.test_intents import intents

people = st.sampled_from(["Alice", "Bob", "Zoë"]).map(Player) | st.builds(
    Player.computer, st.sampled_from(Level)
)


@st.composite
def played(draw: st.DrawFn) -> Series:
    """A series reached from `Series.new` by intents and the computer's own steps."""
    first = draw(people)
    second = draw(people.filter(lambda player: player != first))
    series = Series.new(first, second, draw(st.sampled_from(FirstMove)))
    rng = random.Random(draw(st.integers(0, 2**16)))
    for intent in draw(st.lists(intents, max_size=60)):
        with contextlib.suppress(SeriesError):
            if series.awaits_computer:
                series = series.computer_step(rng).series
            else:
                series = series.apply(intent, rng)
    return series


@given(played())
def test_every_series_play_reaches_passes(series: Series) -> None:
    assert check_reachable(series) is series


@given(played(), st.integers(0, 2), st.integers(1, 3))
def test_a_score_not_counted_from_the_matches_does_not(
    series: Series, which: int, more: int
) -> None:
    if which == 2:
        changed = dataclasses.replace(series, draws=series.draws + more)
    else:
        wins = list(series.wins)
        wins[which] += more
        changed = dataclasses.replace(series, wins=(wins[0], wins[1]))
    with pytest.raises(Unreachable, match="do not match the finished matches"):
        check_reachable(changed)


@given(played())
def test_a_chooser_out_of_turn_does_not(series: Series) -> None:
    with pytest.raises(Unreachable):
        check_reachable(dataclasses.replace(series, chooser=1 - series.chooser))


@given(played())
def test_a_match_begun_against_the_rule_does_not(series: Series) -> None:
    if series.first_move is FirstMove.RANDOM or series.match is None or series.match.is_over:
        return
    assert series.marks is not None
    other = GameState.new(series.match.first.other)
    with pytest.raises(Unreachable, match="did not move first"):
        check_reachable(dataclasses.replace(series, match=other))


def test_each_giveaway_in_words() -> None:
    series = Series.new("Alice", "Bob").apply(ChooseMark(Mark.X))
    assert check_reachable(series) is series
    cases = [
        (dataclasses.replace(series, players=(Player("Alice"), Player(" Bob"))), "as the core"),
        (dataclasses.replace(series, players=(Player("Alice"), Player("ALICE"))), "must differ"),
        (dataclasses.replace(series, marks=(Mark.X, Mark.X)), "one mark"),
        (dataclasses.replace(series, marks=None), "together"),
        (
            dataclasses.replace(
                series, finished=(FinishedMatch(series.players, (Mark.X, Mark.O), 0, (), None),)
            ),
            "not over",
        ),
    ]
    for changed, reason in cases:
        with pytest.raises(Unreachable, match=reason):
            check_reachable(changed)
