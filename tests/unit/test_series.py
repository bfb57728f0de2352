"""A series: players, marks, the chooser, scores and undo, as one immutable value.

Plain examples first, then a hypothesis state machine that plays many matches
through every transition and checks the bookkeeping against its own model.
"""

from __future__ import annotations

import dataclasses
import random

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

from tictactoe.ai import Level, choose_move
from tictactoe.engine import GameState, IllegalMove, Mark
from tictactoe.series import (
    DEFAULT_NAMES,
    FirstMove,
    Series,
    SeriesError,
    NameClash,
    Phase,
    Player,
    clean_name,
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
    [("Ada", "Ada"), ("Ada", "ada"), ("ADA", " ada "), ("Ada", "Ada\x00"), ("Straße", "STRASSE")],
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
    with pytest.raises(SeriesError, match="no marks"):
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
    with pytest.raises(SeriesError, match="not chosen"):
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
    with pytest.raises(IllegalMove, match="is taken"):
        series.play(4)
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
    assert series.history == (series.match,)


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
    with pytest.raises(IllegalMove, match="the game is over"):
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
    with pytest.raises(SeriesError, match="not finished"):
        Series.new("Ada", "Bob").next_match()
    with pytest.raises(SeriesError, match="not finished"):
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
    with pytest.raises(SeriesError, match="no game in progress"):
        Series.new("Ada", "Bob").undo()


def test_undo_once_the_game_has_ended_is_refused() -> None:
    won = play_all(started(Series.new("Ada", "Bob")), X_WINS_TOP_ROW)
    with pytest.raises(SeriesError, match="the game is over"):
        won.undo()
    drawn = play_all(started(Series.new("Ada", "Bob")), DRAW)
    with pytest.raises(SeriesError, match="the game is over"):
        drawn.undo()


def against_the_computer(person_mark: Mark = Mark.X) -> Series:
    return Series.new("Ada", Player("Computer", Level.HARD)).choose_mark(person_mark)


def test_undo_against_the_computer_takes_back_its_reply_and_your_move() -> None:
    series = against_the_computer()
    assert not series.awaits_computer
    after_reply = series.play(4).play(0)
    assert not after_reply.awaits_computer
    assert after_reply.undo() == series
    two_rounds = after_reply.play(8).play(2)
    assert two_rounds.undo() == after_reply


def test_undo_while_the_computer_is_thinking_takes_back_your_move() -> None:
    series = against_the_computer().play(4)
    assert series.awaits_computer
    assert series.undo() == against_the_computer()


def test_undo_of_the_computers_opening_alone_is_refused() -> None:
    # Ada chooses O and moves first by default; with --first x the computer opens.
    series = Series.new("Ada", Player("Computer", Level.HARD), first_move=FirstMove.X)
    series = series.choose_mark(Mark.O)
    assert series.awaits_computer
    series = series.play(4)
    with pytest.raises(SeriesError, match="no move to take back"):
        series.undo()
    # After Ada's reply and the computer's answer, undo goes back to the opening.
    assert series.play(0).play(8).undo() == series


# The state machine.


class SeriesMachine(RuleBasedStateMachine):
    """Plays whole matches, with and without a computer, and keeps its own tally."""

    def __init__(self) -> None:
        super().__init__()
        self.series = Series.new()
        self.finished = 0
        self.expected_wins = [0, 0]
        self.expected_draws = 0
        self.games_started = 0
        self.chosen: Mark | None = None
        self.rng = random.Random(0)

    @initialize(
        first_move=st.sampled_from(FirstMove),
        computer=st.sampled_from([None, 0, 1]),
        level=st.sampled_from(Level),
    )
    def start(self, first_move: FirstMove, computer: int | None, level: Level) -> None:
        players: list[Player | str] = ["Ada", "Bob"]
        if computer is not None:
            players[computer] = Player("Computer", level)
        self.series = Series.new(players[0], players[1], first_move=first_move)

    @property
    def hot_seat(self) -> bool:
        return not any(player.is_computer for player in self.series.players)

    # Rules.

    @precondition(lambda self: self.series.phase is Phase.CHOOSING)
    @rule(mark=st.sampled_from(Mark), seed=st.integers(0, 2**16))
    def choose_mark(self, mark: Mark, seed: int) -> None:
        series = self.series.choose_mark(mark, rng=random.Random(seed))
        assert series.marks is not None
        assert series.marks[self.series.chooser] is mark
        assert series.match is not None
        if series.first_move is FirstMove.CHOOSER:
            assert series.match.to_move is mark
        elif series.first_move is FirstMove.X:
            assert series.match.to_move is Mark.X
        else:
            expected = random.Random(seed).choice((Mark.X, Mark.O))
            assert series.match.to_move is expected
        self.series = series
        self.games_started += 1
        self.chosen = mark

    @precondition(lambda self: self.series.phase is Phase.PLAYING)
    @rule(data=st.data(), moves=st.integers(1, 4))
    def play(self, data: st.DataObject, moves: int) -> None:
        """Up to `moves` moves (fewer if the game ends): a person's cell, or the computer's."""
        for _ in range(moves):
            if self.series.phase is Phase.PLAYING:
                self.play_one(data)

    def play_one(self, data: st.DataObject) -> None:
        game = self.series.series
        assert game is not None
        if self.series.awaits_computer:
            level = self.series.players[self.series.to_move or 0].level
            assert level is not None
            cell = choose_move(game, level, self.rng)
        else:
            cell = data.draw(st.sampled_from(game.legal_moves()), label="cell")
        mover = self.series.to_move
        assert mover is not None
        before = self.series
        after = before.play(cell)
        assert after.match == game.play(cell)
        if after.phase is Phase.OVER:
            self.finished += 1
            if after.match is not None and after.match.winner is not None:
                assert after.winner == mover
                self.expected_wins[mover] += 1
            else:
                self.expected_draws += 1
        elif self.hot_seat:
            assert after.undo() == before
        self.series = after

    @precondition(lambda self: self.series.phase is Phase.PLAYING)
    @rule()
    def undo(self) -> None:
        game = self.series.series
        assert game is not None
        people = [not player.is_computer for player in self.series.players]
        first = game.to_move if len(game.moves) % 2 == 0 else game.to_move.other
        movers = [self.series.player_with(first if n % 2 == 0 else first.other) for n in range(9)]
        person_moves = [n for n, _ in enumerate(game.moves) if people[movers[n]]]
        if not person_moves:
            with pytest.raises(SeriesError, match="no move to take back"):
                self.series.undo()
            return
        after = self.series.undo()
        expected = GameState.new(first=first)
        for cell in game.moves[: person_moves[-1]]:
            expected = expected.play(cell)
        assert after.match == expected
        assert after == dataclasses.replace(self.series, game=expected)
        if self.hot_seat:
            assert after.match == game.undo()
        self.series = after

    @precondition(lambda self: self.series.phase is Phase.OVER)
    @rule()
    def refuse_undo_after_the_end(self) -> None:
        with pytest.raises(SeriesError):
            self.series.undo()

    @precondition(lambda self: self.series.phase is Phase.OVER)
    @rule()
    def next_match(self) -> None:
        self.series = self.series.next_match()

    @precondition(lambda self: self.series.phase is not Phase.OVER)
    @rule()
    def refuse_next_match_before_the_end(self) -> None:
        with pytest.raises(SeriesError, match="not finished"):
            self.series.next_match()

    @precondition(lambda self: self.series.phase is Phase.CHOOSING)
    @rule(cell=st.integers(0, 8))
    def refuse_play_before_choosing(self, cell: int) -> None:
        with pytest.raises(SeriesError):
            self.series.play(cell)

    # Invariants.

    @invariant()
    def each_finished_game_is_scored_once(self) -> None:
        series = self.series
        assert list(series.wins) == self.expected_wins
        assert series.draws == self.expected_draws
        assert series.wins[0] + series.wins[1] + series.draws == self.finished
        assert series.played == self.finished
        assert len(series.history) == self.finished
        assert all(game.is_over for game in series.history)

    @invariant()
    def the_chooser_alternates_starting_with_player_1(self) -> None:
        games_begun = self.games_started + (self.series.phase is Phase.CHOOSING)
        assert self.series.chooser == (games_begun - 1) % 2

    @invariant()
    def the_marks_differ(self) -> None:
        marks = self.series.marks
        if marks is None:
            assert self.series.phase is Phase.CHOOSING
        else:
            assert marks[0] is marks[1].other
            assert marks[self.series.chooser] is self.chosen

    @invariant()
    def the_phase_matches_the_game(self) -> None:
        series = self.series
        game = series.match
        if game is None:
            assert series.phase is Phase.CHOOSING
            assert series.to_move is None
            assert not series.awaits_computer
        elif game.is_over:
            assert series.phase is Phase.OVER
            assert series.to_move is None
            assert not series.awaits_computer
            if game.winner is None:
                assert series.winner is None
            else:
                assert series.winner == series.player_with(game.winner)
                assert series.history[-1] == game
        else:
            assert series.phase is Phase.PLAYING
            assert series.to_move == series.player_with(game.to_move)
            assert series.winner is None
            assert series.awaits_computer == series.players[series.to_move].is_computer

    @invariant()
    def the_names_never_change(self) -> None:
        names = [player.name for player in self.series.players]
        assert names in (["Ada", "Bob"], ["Computer", "Bob"], ["Ada", "Computer"])


SeriesMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)
TestMatchMachine = SeriesMachine.TestCase
