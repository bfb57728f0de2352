"""Notices as data: every refusal of the core comes in phrases, each with its wordings
longest first, and the phrases put together are the refusal's sentence."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given
from rich.cells import cell_len

from tictactoe.core.ai import analyse
from tictactoe.core.engine import GameState
from tictactoe.core.notices import Notice, Phrase, hint_notice
from tictactoe.core.seats import act, check_hint
from tictactoe.core.series import CellTaken, Intent, Series, SeriesError
from unit.test_apply_as import series_states
from unit.test_intents import intents


def refusals(series: Series, intent: Intent) -> list[SeriesError]:
    """What the core refuses of `intent` now: for each player, from each seat, paused or not."""
    found: list[SeriesError] = []

    def attempt(transition: Callable[..., object], *args: object, **kwargs: object) -> None:
        try:
            transition(*args, **kwargs)
        except SeriesError as refusal:
            found.append(refusal)

    attempt(series.apply, intent, random.Random(0))
    attempt(series.hint)
    for player in (0, 1):
        attempt(series.apply_as, player, intent)
    for seat in (None, 0, 1):
        for away in (None, "Bob"):
            attempt(act, series, seat, intent, away=away)
            attempt(check_hint, series, seat, away=away)
    return found


@given(series_states(), intents)
def test_every_refusal_is_its_phrases_put_together(series: Series, intent: Intent) -> None:
    for refusal in refusals(series, intent):
        notice = refusal.notice
        assert notice and str(notice) == str(refusal)
        for phrase in notice.phrases:
            widths = [cell_len(wording) for wording in phrase.wordings]
            assert widths == sorted(widths, reverse=True), phrase
            assert len(set(phrase.wordings)) == len(phrase.wordings), phrase
        if isinstance(refusal, CellTaken):
            by_key = refusal.by_key("7")
            assert by_key.phrases[0].wordings[-1] == f"Cell 7 is taken by {refusal.holder}."


def test_a_notice_is_its_phrases() -> None:
    over = Notice.of("This match is over:", ("press n or Enter for the next one.", "n: next."))
    assert str(over) == "This match is over: press n or Enter for the next one."
    assert over.phrases[1] == Phrase(("press n or Enter for the next one.", "n: next."))
    below = Notice.of("Bob has not come back.").then("The host may end the series.")
    assert str(below) == "Bob has not come back.\nThe host may end the series."
    assert [phrase.joiner for phrase in below.phrases] == [" ", "\n"]
    assert not Notice() and Notice().then("Alone.") == Notice.of("Alone.")
    with pytest.raises(ValueError, match="at least one"):
        Phrase(())
    with pytest.raises(ValueError, match="joined by"):
        Phrase(("a",), "\t")


def test_a_hint_says_where_best_play_leads_and_has_a_shorter_wording() -> None:
    start = analyse(GameState.new())
    hint = hint_notice("any free cell", start)
    assert str(hint) == "Hint: any free cell. Draw with best play."
    assert hint.phrases[-1].wordings == ("Draw with best play.", "Best play: a draw.")
    won = analyse(GameState.new().play(0).play(3).play(1).play(4))
    hint = hint_notice("3", won)
    assert str(hint) == "Hint: 3. X wins with best play."
    assert hint.phrases[-1].wordings[-1] == "Best play: X wins."
