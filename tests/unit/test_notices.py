"""Notices as data: every refusal of the core comes in phrases, each with its wordings
longest first, and the phrases put together are the refusal's sentence."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given
from rich.cells import cell_len

from tictactoe.core.ai import Level, analyse
from tictactoe.core.engine import GameState, Mark
from tictactoe.core.notices import Notice, Phrase, best_keys, hint_notice
from tictactoe.core.sayings import state_notice
from tictactoe.core.seats import act, check_hint
from tictactoe.core.series import (
    CellTaken,
    ChooseMark,
    FirstMove,
    Intent,
    Player,
    Series,
    SeriesError,
)
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


def test_a_slot_leaves_the_key_to_the_view_that_reads_it() -> None:
    keys = {"next_match": ("n", "Enter"), "quit": ("q",)}
    next_one = Notice.keyed("next_match", "press {keys} for the next one.", "{key}: next.")
    assert str(next_one) == "press <next_match> for the next one."
    filled = next_one.with_keys(keys)
    assert filled.phrases == (Phrase(("press n or Enter for the next one.", "n: next.")),)
    assert filled.with_keys(keys) == filled  # a filled notice has no slot left
    quit_now = Notice.of("Bob has not come back.") + Notice.keyed(
        "quit", "{keys} quits.", "{key} quits.", joiner="\n"
    )
    assert quit_now.with_keys(keys).phrases[1] == Phrase(("q quits.",), "\n")
    named = Notice.of("{keys} is my name.")  # no slot: a name is never filled
    assert named.with_keys(keys) == named
    with pytest.raises(ValueError, match="slot"):
        Phrase(("a",), " ", "undo")


def test_the_states_sentences_are_the_refusals_sentences() -> None:
    choosing = Series.new("Ada", Player.computer(Level.EASY), FirstMove.X)
    assert str(state_notice(choosing)) == "Ada is choosing a mark…"
    with pytest.raises(SeriesError, match=r"^Moving has to wait: Ada is choosing a mark\.$"):
        choosing.play(4)
    thinking = choosing.apply(ChooseMark(Mark.O))
    assert str(state_notice(thinking)) == "Computer is thinking…"
    with pytest.raises(SeriesError, match=r"^Wait: Computer is thinking…$"):
        thinking.play(4)
    assert not thinking.computer_step(random.Random(0)).notice  # a move: the board shows it
    step = Series.new(Player.computer(Level.EASY), "Ada").computer_step(random.Random(0))
    assert step.mark is not None and str(step.notice) == f"Computer chose {step.mark}."


def test_a_hint_says_where_best_play_leads_and_has_a_shorter_wording() -> None:
    start = analyse(GameState.new())
    hint = hint_notice("any free cell", start)
    assert str(hint) == "Hint: any free cell. Draw with best play."
    assert hint.phrases[-1].wordings == ("Draw with best play.", "Best play: a draw.")
    won = analyse(GameState.new().play(0).play(3).play(1).play(4))
    hint = hint_notice("3", won)
    assert str(hint) == "Hint: 3. X wins with best play."
    assert hint.phrases[-1].wordings[-1] == "Best play: X wins."


def test_a_hints_best_cells_are_said_by_their_keys_or_as_any_free_cell() -> None:
    assert best_keys(["5"], every_free=False) == "5"
    assert best_keys(["1", "3", "7"], every_free=False) == "1, 3 or 7"
    assert best_keys(["1", "3"], every_free=True) == "any free cell"
