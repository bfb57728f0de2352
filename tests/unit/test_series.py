"""A series: players, marks, the chooser, scores and undo, as one immutable value.

Plain examples first, then a hypothesis state machine that plays many matches
through every transition and checks the bookkeeping against its own model.
"""

from __future__ import annotations

import dataclasses
import random
import unicodedata

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from tictactoe.core.ai import Level
from tictactoe.core.engine import GameState, Mark
from tictactoe.core.names import clean_name, short
from tictactoe.core.series import (
    DEFAULT_NAMES,
    CellTaken,
    FinishedMatch,
    FirstMove,
    NameClash,
    Phase,
    Player,
    Series,
    SeriesError,
)

X_WINS_TOP_ROW = [0, 3, 1, 4, 2]
"""X takes the top row while O wastes two moves in the middle row."""
DRAW = [0, 1, 2, 4, 3, 5, 7, 6, 8]
"""X O X / X O O / O X X."""


def started(series: Series, mark: Mark = Mark.X) -> Series:
    return series.choose_mark(mark)


def play_all(series: Series, cells: list[int]) -> Series:
    for cell in cells:
        series = series.play(cell)
    return series


# Names.


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("Ada", "Ada"),
        ("  Ada  ", "Ada"),
        ("Ada\u0000Lovelace", "AdaLovelace"),
        ("Ada\x1b[31m", "Ada[31m"),
        ("Ada\u200b", "Ada"),  # a zero-width space is a format character
        ("Ada\tLove\nlace", "Ada Love lace"),
        ("Ada    Lovelace", "Ada Lovelace"),
        ("[bold]Eve[/]", "[bold]Eve[/]"),
        ("[red]", "[red]"),
        ("Zoë", "Zoë"),
        ("👩\u200d💻 Grace", "👩\u200d💻 Grace"),  # a joiner inside an emoji stays
    ],
)
def test_names_are_cleaned_for_showing(raw: str, shown: str) -> None:
    assert clean_name(raw, "Player 1") == shown


@pytest.mark.parametrize("raw", ["", "   ", "\t\n", "\x00\x07\x1b", "\u200b"])
def test_an_empty_name_becomes_the_default(raw: str) -> None:
    assert clean_name(raw, "Player 2") == "Player 2"


INVISIBLE = {
    "a zero-width joiner": "\u200d",
    "both joiners": "\u200c\u200d",
    "a word joiner": "\u2060",
    "a byte order mark": "\ufeff",
    "a soft hyphen": "\u00ad",
    "a variation selector": "\ufe0f",
    "a grapheme joiner": "\u034f",
    "a combining mark": "\u0301",
    "combining marks": "\u0301\u0308\u0336",
    "a Hangul filler": "\u3164",
    "Hangul jamo fillers": "\u115f\u1160",
    "a blank Braille pattern": "\u2800",
    "a tag character": "\U000e0041",
    "spaces and joiners": " \u200d \u200b ",
}


@pytest.mark.parametrize("raw", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_a_name_with_nothing_to_see_becomes_the_default(raw: str) -> None:
    assert clean_name(raw, "Player 2") == "Player 2"
    assert Series.new("Ada", raw).players[1].name == "Player 2"


ZALGO = unicodedata.normalize(
    "NFC", "".join(letter + "\u0336\u0321\u0322\u0327\u0328\u031b" * 4 for letter in "Zalgo")
)
"""Five characters, each a letter and 24 combining marks (in Unicode's order): 124 code points."""


def test_a_long_name_is_cut_by_whole_characters_not_code_points() -> None:
    assert clean_name(ZALGO, "Player 1") == ZALGO
    assert clean_name(ZALGO * 13, "Player 1") == ZALGO * 12  # 60 characters, each whole
    family = "👩\u200d👩\u200d👧"  # one character
    assert clean_name("a" * 59 + family + "b", "Player 1") == "a" * 59 + family


def test_marks_piled_on_one_character_stop_at_the_stream_safe_limit() -> None:
    """Unicode's stream-safe text format (UAX #15) allows 30 marks in a row."""
    assert clean_name("Z" + "\u0336" * 100 + "ed", "Player 1") == "Z" + "\u0336" * 30 + "ed"


def test_a_name_is_shortened_between_whole_characters() -> None:
    flags = "🇫🇷🇩🇪🇮🇹"
    assert short(flags, 4) == "🇫🇷…"
    assert short(flags, 5) == "🇫🇷🇩🇪…"
    assert short(ZALGO * 10, 4) == ZALGO[:75] + "…"  # three cells: Z, a and l, marks and all
    assert short("山田太郎", 6) == "山田…"


def test_a_very_long_name_is_cut_without_a_trailing_space() -> None:
    name = clean_name("Ada " * 1000, "Player 1")
    assert len(name) <= 1000
    assert name.startswith("Ada Ada")
    assert name == name.strip()


def test_a_new_match_cleans_both_names() -> None:
    series = Series.new("  Ada\x07 ", "[bold]Eve[/]")
    assert [player.name for player in series.players] == ["Ada", "[bold]Eve[/]"]


def test_a_new_match_defaults_to_player_1_and_player_2() -> None:
    assert [player.name for player in Series.new().players] == list(DEFAULT_NAMES)
    assert [player.name for player in Series.new("", " ").players] == ["Player 1", "Player 2"]


def test_a_computer_player_keeps_its_level_and_gets_a_clean_name() -> None:
    series = Series.new("Ada", Player("  Computer\x00 ", Level.HARD))
    assert series.players[1] == Player("Computer", Level.HARD)
    assert series.players[1].is_computer
    assert not series.players[0].is_computer


@pytest.mark.parametrize(
    ("one", "two"),
    [
        ("Ada", "Ada"),
        ("Ada", "ada"),
        ("ADA", " ada "),
        ("Ada", "Ada\x00"),
        ("Straße", "STRASSE"),
        ("Ada", "Ada\u200d"),
        ("Ada", "A\u034fda"),
        ("Ada", "Ada\u3164"),
        ("Ada", "Ada\ufe0f"),
    ],
)
def test_equal_names_clash(one: str, two: str) -> None:
    with pytest.raises(NameClash, match="differ"):
        Series.new(one, two)


def test_a_name_equal_to_the_other_default_clashes() -> None:
    with pytest.raises(NameClash):
        Series.new("", "Player 1")


def test_name_clash_is_a_match_error_and_a_value_error() -> None:
    assert issubclass(NameClash, SeriesError)
    assert issubclass(SeriesError, ValueError)


# Choosing marks and who moves first.


def test_a_new_match_waits_for_player_1_to_choose() -> None:
    series = Series.new("Ada", "Bob")
    assert series.phase is Phase.CHOOSING
    assert series.chooser == 0
    assert series.marks is None
    assert series.match is None
    assert series.to_move is None
    assert series.winner is None
    assert (series.wins, series.draws, series.played) == ((0, 0), 0, 0)
    with pytest.raises(SeriesError, match="No marks"):
        series.player_with(Mark.X)


@pytest.mark.parametrize("mark", list(Mark))
def test_the_chooser_takes_a_mark_and_the_other_player_the_other(mark: Mark) -> None:
    series = Series.new("Ada", "Bob").choose_mark(mark)
    assert series.marks == (mark, mark.other)
    assert series.player_with(mark) == 0
    assert series.player_with(mark.other) == 1
    assert series.phase is Phase.PLAYING
    assert series.match == GameState.new(first=mark)


@pytest.mark.parametrize("mark", list(Mark))
def test_by_default_the_chooser_moves_first(mark: Mark) -> None:
    series = Series.new("Ada", "Bob").choose_mark(mark)
    assert series.first_move is FirstMove.CHOOSER
    assert series.match is not None
    assert series.match.to_move is mark
    assert series.to_move == 0


def test_with_first_x_whoever_holds_x_moves_first() -> None:
    series = Series.new("Ada", "Bob", first_move=FirstMove.X).choose_mark(Mark.O)
    assert series.match is not None
    assert series.match.to_move is Mark.X
    assert series.to_move == 1


def test_first_move_accepts_its_command_line_spelling() -> None:
    assert Series.new(first_move="random").first_move is FirstMove.RANDOM  # type: ignore[arg-type]


def test_with_first_random_the_injected_rng_decides() -> None:
    series = Series.new("Ada", "Bob", first_move=FirstMove.RANDOM)

    def first_for(seed: int) -> Mark:
        game = series.choose_mark(Mark.X, rng=random.Random(seed)).match
        assert game is not None
        return game.to_move

    firsts = [first_for(seed) for seed in range(40)]
    assert set(firsts) == {Mark.X, Mark.O}
    assert [first_for(seed) for seed in range(40)] == firsts
    # The chooser's mark plays no part: the same seed gives the same mark to start.
    game = series.choose_mark(Mark.O, rng=random.Random(0)).match
    assert game is not None
    assert game.to_move is first_for(0)


def test_marks_cannot_be_chosen_twice() -> None:
    series = started(Series.new("Ada", "Bob"))
    with pytest.raises(SeriesError, match="already chosen"):
        series.choose_mark(Mark.O)


def test_playing_before_choosing_is_refused() -> None:
    with pytest.raises(SeriesError, match="Ada is choosing a mark"):
        Series.new("Ada", "Bob").play(4)


# Playing and scoring.


def test_a_move_passes_the_turn_to_the_other_player() -> None:
    series = started(Series.new("Ada", "Bob"), Mark.O)
    assert series.to_move == 0
    series = series.play(4)
    assert series.to_move == 1
    assert series.match is not None
    assert series.match.board[4] is Mark.O


def test_an_illegal_move_is_refused_and_changes_nothing() -> None:
    series = started(Series.new("Ada", "Bob")).play(4)
    with pytest.raises(CellTaken, match="centre cell is taken by X") as refusal:
        series.play(4)
    assert (refusal.value.cell, refusal.value.holder) == (4, Mark.X)
    assert series.match is not None
    assert series.match.moves == (4,)


def test_a_win_is_scored_once_for_the_player_holding_the_mark() -> None:
    # Ada holds O and moves first: O 3, X 0, O 4, X 1, and O completes the middle row.
    series = play_all(started(Series.new("Ada", "Bob"), Mark.O), [3, 0, 4, 1])
    assert series.wins == (0, 0)
    series = series.play(5)
    assert series.phase is Phase.OVER
    assert series.winner == 0
    assert series.wins == (1, 0)
    assert series.draws == 0
    assert series.played == 1
    assert series.to_move is None
    assert series.match is not None
    ada, bob = series.players
    assert series.finished == (FinishedMatch((ada, bob), (Mark.O, Mark.X), 0, (3, 0, 4, 1, 5), 0),)
    assert series.finished[0].winner == 0
    assert series.finished[0].first_mover == 0


def test_a_win_for_the_second_player() -> None:
    series = play_all(started(Series.new("Ada", "Bob"), Mark.O), [3, 0, 6, 1, 7, 2])
    assert series.winner == 1
    assert series.wins == (0, 1)


def test_a_draw_is_scored_once() -> None:
    series = play_all(started(Series.new("Ada", "Bob")), DRAW)
    assert series.phase is Phase.OVER
    assert series.winner is None
    assert (series.wins, series.draws, series.played) == ((0, 0), 1, 1)


def test_a_finished_game_takes_no_more_moves() -> None:
    series = play_all(started(Series.new("Ada", "Bob")), X_WINS_TOP_ROW)
    with pytest.raises(SeriesError, match="This match is over"):
        series.play(8)


def test_transitions_return_new_matches_and_leave_the_old_ones_alone() -> None:
    before = started(Series.new("Ada", "Bob"))
    after = before.play(4)
    assert before.match == GameState.new()
    assert after is not before
    with pytest.raises(dataclasses.FrozenInstanceError):
        before.chooser = 1  # type: ignore[misc]


# The next game.


def test_next_match_before_the_end_is_refused() -> None:
    with pytest.raises(SeriesError, match="Finish this match first"):
        Series.new("Ada", "Bob").next_match()
    with pytest.raises(SeriesError, match="Finish this match first"):
        started(Series.new("Ada", "Bob")).play(4).next_match()


def test_the_chooser_alternates_and_the_score_carries_over() -> None:
    series = play_all(started(Series.new("Ada", "Bob")), X_WINS_TOP_ROW)
    series = series.next_match()
    assert series.phase is Phase.CHOOSING
    assert series.chooser == 1
    assert series.marks is None
    assert series.wins == (1, 0)
    series = play_all(series.choose_mark(Mark.X), X_WINS_TOP_ROW)
    assert series.marks == (Mark.O, Mark.X)
    assert series.wins == (1, 1)
    assert series.next_match().chooser == 0


# Undo.


def test_undo_in_hot_seat_takes_back_one_move() -> None:
    series = started(Series.new("Ada", "Bob"))
    assert series.play(4).play(0).undo() == series.play(4)
    assert series.play(4).undo() == series


def test_undo_with_nothing_to_take_back_is_refused() -> None:
    with pytest.raises(SeriesError, match="no move to take back"):
        started(Series.new("Ada", "Bob")).undo()
    with pytest.raises(SeriesError, match="no match is in progress"):
        Series.new("Ada", "Bob").undo()


def test_undo_once_the_game_has_ended_is_refused() -> None:
    won = play_all(started(Series.new("Ada", "Bob")), X_WINS_TOP_ROW)
    with pytest.raises(SeriesError, match="This match is over"):
        won.undo()
    drawn = play_all(started(Series.new("Ada", "Bob")), DRAW)
    with pytest.raises(SeriesError, match="This match is over"):
        drawn.undo()


def against_the_computer(person_mark: Mark = Mark.X) -> Series:
    return Series.new("Ada", Player.computer(Level.HARD)).choose_mark(person_mark)


def computer_moves(series: Series, seed: int = 0) -> Series:
    step = series.computer_step(random.Random(seed))
    assert step.cell is not None and step.mark is None
    return step.series


def test_a_person_may_not_move_for_the_computer() -> None:
    series = against_the_computer().play(4)
    assert series.awaits_computer
    with pytest.raises(SeriesError, match="Wait: Computer is thinking"):
        series.play(0)
    with pytest.raises(SeriesError, match="Wait: Computer is thinking"):
        series.hint()


def test_the_computer_may_not_step_out_of_turn() -> None:
    series = against_the_computer()
    with pytest.raises(SeriesError, match="not the computer's turn"):
        series.computer_step(random.Random(0))
    with pytest.raises(SeriesError, match="not the computer's turn"):
        Series.new("Ada", "Bob").computer_step(random.Random(0))


def test_the_computer_chooses_its_own_mark_when_it_is_the_chooser() -> None:
    series = Series.new("Ada", Player.computer(Level.EASY)).choose_mark(Mark.X)
    while series.phase is Phase.PLAYING:
        match = series.match
        assert match is not None
        if series.awaits_computer:
            series = computer_moves(series)
        else:
            series = series.play(match.legal_moves()[0])
    assert not series.awaits_computer  # the match is over
    series = series.next_match()
    assert series.chooser == 1 and series.awaits_computer
    with pytest.raises(SeriesError, match="chooses its own mark"):
        series.choose_mark(Mark.X)
    assert series.person_choosing is None
    step = series.computer_step(random.Random(3))
    assert step.mark is not None and step.cell is None
    assert step.series.marks == (step.mark.other, step.mark)


def test_a_person_choosing_is_asked_for_a_mark_until_they_choose() -> None:
    series = Series.new("Ada", "Bob")
    assert series.person_choosing == Player("Ada")
    assert series.choose_mark(Mark.O).person_choosing is None


def test_a_hint_needs_a_match_in_progress() -> None:
    with pytest.raises(SeriesError, match="A hint has to wait: Ada is choosing a mark"):
        Series.new("Ada", "Bob").hint()
    won = play_all(started(Series.new("Ada", "Bob")), X_WINS_TOP_ROW)
    with pytest.raises(SeriesError, match="A hint needs a match in progress"):
        won.hint()
    assert started(Series.new("Ada", "Bob")).hint().summary == "draw with best play"


def test_confirm_plays_during_a_match_and_starts_the_next_once_it_is_over() -> None:
    series = started(Series.new("Ada", "Bob"))
    assert series.confirm(4) == series.play(4)
    won = play_all(series, X_WINS_TOP_ROW)
    assert won.confirm(4) == won.next_match()


def test_undo_against_the_computer_takes_back_its_reply_and_your_move() -> None:
    series = against_the_computer()
    assert not series.awaits_computer
    after_reply = computer_moves(series.play(4))
    assert not after_reply.awaits_computer
    assert after_reply.undo() == series


def test_undo_while_the_computer_is_thinking_takes_back_your_move() -> None:
    series = against_the_computer().play(4)
    assert series.awaits_computer
    assert series.undo() == against_the_computer()


def test_undo_of_the_computers_opening_alone_is_refused() -> None:
    # Ada chooses O and moves first by default; with --first x the computer opens.
    series = Series.new("Ada", Player.computer(Level.HARD), first_move=FirstMove.X)
    series = series.choose_mark(Mark.O)
    assert series.awaits_computer
    series = computer_moves(series)
    with pytest.raises(SeriesError, match="no move to take back"):
        series.undo()
    # After Ada's reply and the computer's answer, undo goes back to the opening.
    assert series.match is not None
    cell = series.match.legal_moves()[0]
    assert computer_moves(series.play(cell)).undo() == series


@pytest.mark.parametrize("name", ["Computer", "Computer (hard)", "computer (HARD)"])
def test_a_person_may_be_called_computer(name: str) -> None:
    series = Series.new(name, Player.computer(Level.HARD))
    assert series.players[0] == Player(name)
    assert not series.players[0].is_computer
    assert series.players[1].is_computer
    hot_seat = Series.new(name, "Bob")
    assert not any(player.is_computer for player in hot_seat.players)


# The state machine: random intents, in bursts, against the core alone.

Intent = tuple[str, int]
"""What a person (or the computer's timer) asks for: a kind and, for moves, a cell."""

INTENTS = st.one_of(
    st.tuples(st.just("play"), st.integers(0, 8)),
    st.tuples(st.just("confirm"), st.integers(0, 8)),
    st.tuples(st.sampled_from(["undo", "hint", "next", "computer", "x", "o"]), st.just(0)),
)


def apply(series: Series, intent: Intent, rng: random.Random) -> Series:
    """Apply one intent as the game screen does: a refusal leaves the series as it was."""
    kind, cell = intent
    try:
        if kind == "play":
            return series.play(cell)
        if kind == "confirm":
            return series.confirm(cell)
        if kind == "undo":
            return series.undo()
        if kind == "hint":
            series.hint()
            return series
        if kind == "next":
            return series.next_match()
        if kind == "computer":
            return series.computer_step(rng).series
        return series.choose_mark(Mark(kind.upper()), rng)
    except SeriesError:
        return series


class SeriesMachine(RuleBasedStateMachine):
    """Throws random intents at a series, one at a time and in bursts, and keeps a tally.

    Whatever arrives, in whatever order, the series never breaks a rule: a person
    never moves for the computer, every finished match is scored exactly once, the
    chooser alternates, and a refused intent changes nothing.
    """

    def __init__(self) -> None:
        super().__init__()
        self.series = Series.new()
        self.rng = random.Random(0)
        self.finished = 0
        self.expected_wins = [0, 0]
        self.expected_draws = 0
        self.matches_begun = 1

    @initialize(
        first_move=st.sampled_from(FirstMove),
        computer=st.sampled_from([None, 1]),
        level=st.sampled_from(Level),
        seed=st.integers(0, 2**16),
    )
    def start(self, first_move: FirstMove, computer: int | None, level: Level, seed: int) -> None:
        players: list[Player | str] = ["Ada", "Bob"]
        if computer is not None:
            players[computer] = Player.computer(level)
        self.series = Series.new(players[0], players[1], first_move=first_move)
        self.rng = random.Random(seed)

    def step(self, intent: Intent) -> None:
        before = self.series
        after = apply(before, intent, self.rng)
        kind, _ = intent
        if after != before and kind in {"play", "confirm"} and before.phase is Phase.PLAYING:
            assert before.to_move is not None
            assert not before.players[before.to_move].is_computer, "a person moved for the computer"
        if after.played > before.played:
            assert after.played == before.played + 1
            self.finished += 1
            winner = after.winner
            if winner is None:
                self.expected_draws += 1
            else:
                self.expected_wins[winner] += 1
        if after.match is None and before.match is not None:
            self.matches_begun += 1
        self.series = after

    @rule(intent=INTENTS)
    def one(self, intent: Intent) -> None:
        self.step(intent)

    @rule(burst=st.lists(INTENTS, min_size=2, max_size=30))
    def burst(self, burst: list[Intent]) -> None:
        for intent in burst:
            self.step(intent)

    @precondition(lambda self: self.series.awaits_computer)
    @rule()
    def the_computer_takes_its_step(self) -> None:
        self.step(("computer", 0))

    @invariant()
    def each_finished_match_is_scored_once(self) -> None:
        series = self.series
        assert list(series.wins) == self.expected_wins
        assert series.draws == self.expected_draws
        assert series.played == self.finished == len(series.finished)
        assert all(done.positions()[-1].is_over for done in series.finished)

    @invariant()
    def the_chooser_alternates_starting_with_player_1(self) -> None:
        assert self.series.chooser == (self.matches_begun - 1) % 2

    @invariant()
    def the_phase_matches_the_match(self) -> None:
        series = self.series
        match = series.match
        if match is None:
            assert series.phase is Phase.CHOOSING
            assert series.marks is None and series.to_move is None
            assert series.actor == series.chooser
        else:
            assert series.marks is not None and series.marks[0] is series.marks[1].other
            if match.is_over:
                assert series.phase is Phase.OVER
                assert series.to_move is None and series.actor is None
                assert not series.awaits_computer
                assert series.finished[-1].positions()[-1] == match
            else:
                assert series.phase is Phase.PLAYING
                assert series.to_move == series.player_with(match.to_move)
                assert series.actor == series.to_move
        actor = series.actor
        assert series.awaits_computer == (actor is not None and series.players[actor].is_computer)

    @invariant()
    def the_history_is_the_match(self) -> None:
        series = self.series
        moves = tuple(cell for _, _, cell in series.history())
        assert moves == (series.match.moves if series.match else ())
        for player, mark, _ in series.history():
            assert series.marks is not None and series.marks[player] is mark


SeriesMachine.TestCase.settings = settings(max_examples=200, stateful_step_count=40, deadline=None)
TestSeriesMachine = SeriesMachine.TestCase
