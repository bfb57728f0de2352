"""The series in sentences: what the line view says, for a screen reader or a braille display."""

from __future__ import annotations

import random
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from tictactoe.core.ai import Level
from tictactoe.core.engine import GameState, Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.narration import LINE, board, narrate, prompt, replay, score
from tictactoe.core.series import (
    ChooseMark,
    Intent,
    NextMatch,
    Play,
    Player,
    Series,
    SeriesError,
    Undo,
)

KEYS = KeyLayout.NUMPAD.key_for


def test_a_move_and_the_turn_it_leaves() -> None:
    before = Series.new("Ada", "Bob").choose_mark(Mark.X)
    after = before.play(4)
    assert narrate(before, after, KEYS) == ["Ada (X) takes the centre, 5.", "Bob (O) to move."]
    asked = narrate(before, after, KEYS, prompted=True)
    assert asked == ["Ada (X) takes the centre, 5."]  # then "Bob (O), your move:"


def test_the_mark_chosen_and_who_is_asked() -> None:
    series = Series.new("Ada", "Bob")
    assert prompt(series) == "Ada, choose X or O:"
    chosen = series.choose_mark(Mark.O)
    assert narrate(series, chosen, KEYS) == ["Ada takes O; Bob plays X.", "Ada (O) to move."]
    assert prompt(chosen) == "Ada (O), your move:"


def test_the_computer_s_move_and_a_win_name_the_line_by_its_keys() -> None:
    series = Series.new("Ada", Player.computer(Level.HARD)).choose_mark(Mark.X)
    series = series.play(6)  # Ada: the bottom-left, 1
    before = series
    step = series.computer_step(random.Random(1))
    said = narrate(before, step.series, KEYS)
    assert said[0].startswith("Computer (O) takes the ")
    assert said[-1] == "Ada (X) to move."
    won = Series.new("Ada", "Bob").choose_mark(Mark.X)
    for cell in (0, 3, 1, 4):
        won = won.play(cell)
    last = won.play(2)
    assert narrate(won, last, KEYS) == [
        "Ada (X) takes the top-right, 9.",
        "Ada (X) wins: 7, 8, 9, the top row.",
        "Ada (X) 1, Bob (O) 0, draws 0; 1 match played.",
    ]
    assert prompt(last) is None


def test_an_undo_and_the_next_match() -> None:
    series = Series.new("Ada", "Bob").choose_mark(Mark.X).play(4)
    undone = series.undo()
    assert narrate(series, undone, KEYS) == ["Taken back: the centre, 5.", "Ada (X) to move."]
    drawn = Series.new("Ada", "Bob").choose_mark(Mark.X)
    for cell in (4, 0, 8, 2, 1, 7, 3, 5, 6):
        drawn = drawn.play(cell)
    assert narrate(drawn, drawn.next_match(), KEYS) == ["Match 2.", "Bob chooses a mark."]
    asked = narrate(drawn, drawn.next_match(), KEYS, prompted=True)
    assert asked == ["Match 2."]  # the question says who chooses: "Bob, choose X or O:"


def test_the_board_and_the_score_in_words() -> None:
    series = Series.new("Ada", "Bob").choose_mark(Mark.X).play(6).play(2).play(4)
    assert board(series, KEYS) == [  # X took the bottom-left (1), O the top-right (9)
        "7  8  O",
        "4  X  6",
        "X  2  3",
        "X: 1, 5. O: 9. Free: 2, 3, 4, 6, 7, 8.",
    ]
    assert score(series) == "Ada (X) 0, Bob (O) 0, draws 0; 0 matches played."


def test_names_are_said_literally_and_short() -> None:
    series = Series.new("[bold]Eve[/]" + "e" * 200, "Bob").choose_mark(Mark.X)
    said = narrate(series, series.play(4), KEYS)
    assert said[0].startswith("[bold]Eve[/]") and all(len(line) <= LINE for line in said)


@settings(max_examples=150, deadline=None)
@given(
    names=st.tuples(st.text(min_size=1, max_size=70), st.text(min_size=1, max_size=70)),
    computer=st.sampled_from([None, *Level]),
    choices=st.lists(st.integers(0, 20), min_size=1, max_size=60),
    layout=st.sampled_from(list(KeyLayout)),
)
def test_every_sentence_is_one_short_plain_line(
    names: tuple[str, str], computer: Level | None, choices: list[int], layout: KeyLayout
) -> None:
    try:
        second = Player.computer(computer) if computer else names[1]
        series = Series.new(names[0], second)
    except SeriesError:
        return  # two names that look the same: refused before any sentence
    rng = random.Random(0)
    for choice in choices:
        if series.awaits_computer:
            after = series.computer_step(rng).series
        else:
            intents: list[Intent] = [ChooseMark(Mark.X), ChooseMark(Mark.O), Undo(), NextMatch()]
            intents += [Play(cell) for cell in range(9)]
            try:
                after = series.apply(intents[choice % len(intents)])
            except SeriesError:
                continue
        lines = [*narrate(series, after, layout.key_for), *board(after, layout.key_for)]
        lines += [score(after), prompt(after) or ""]
        for line in lines:
            assert len(line) <= LINE, line
            assert not any(unicodedata.category(char) == "Cc" for char in line), repr(line)
        series = after


def test_a_replay_says_each_move_and_how_the_match_ended() -> None:
    players = (Player("Ada"), Player.computer(Level.HARD))
    positions = [GameState.new(first=Mark.O)]
    for cell in (4, 0, 2, 6, 3):
        positions.append(positions[-1].play(cell))
    said = replay(players, (Mark.O, Mark.X), positions, KEYS)
    assert said[:2] == ["1. Ada (O) takes the centre, 5.", "2. Computer (X) takes the top-left, 7."]
    assert said[-1] == "The record of this match stops here."  # five moves: not over
    for cell in (5, 1, 7, 8):
        positions.append(positions[-1].play(cell))
    assert replay(players, (Mark.O, Mark.X), positions, KEYS)[-1] == "A draw: the board is full."
