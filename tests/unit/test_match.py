"""A match: players, marks, the chooser, scores and undo, as one immutable value.

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
from tictactoe.match import (
    DEFAULT_NAMES,
    FirstMove,
    Match,
    MatchError,
    NameClash,
    Phase,
    Player,
    clean_name,
)

X_WINS_TOP_ROW = [0, 3, 1, 4, 2]
"""X takes the top row while O wastes two moves in the middle row."""
DRAW = [0, 1, 2, 4, 3, 5, 7, 6, 8]
"""X O X / X O O / O X X."""


def started(match: Match, mark: Mark = Mark.X) -> Match:
    return match.choose_mark(mark)


def play_all(match: Match, cells: list[int]) -> Match:
    for cell in cells:
        match = match.play(cell)
    return match


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
    match = Match.new("  Ada\x07 ", "[bold]Eve[/]")
    assert [player.name for player in match.players] == ["Ada", "[bold]Eve[/]"]


def test_a_new_match_defaults_to_player_1_and_player_2() -> None:
    assert [player.name for player in Match.new().players] == list(DEFAULT_NAMES)
    assert [player.name for player in Match.new("", " ").players] == ["Player 1", "Player 2"]


def test_a_computer_player_keeps_its_level_and_gets_a_clean_name() -> None:
    match = Match.new("Ada", Player("  Computer\x00 ", Level.HARD))
    assert match.players[1] == Player("Computer", Level.HARD)
    assert match.players[1].is_computer
    assert not match.players[0].is_computer


@pytest.mark.parametrize(
    ("one", "two"),
    [("Ada", "Ada"), ("Ada", "ada"), ("ADA", " ada "), ("Ada", "Ada\x00"), ("Straße", "STRASSE")],
)
def test_equal_names_clash(one: str, two: str) -> None:
    with pytest.raises(NameClash, match="differ"):
        Match.new(one, two)


def test_a_name_equal_to_the_other_default_clashes() -> None:
    with pytest.raises(NameClash):
        Match.new("", "Player 1")


def test_name_clash_is_a_match_error_and_a_value_error() -> None:
    assert issubclass(NameClash, MatchError)
    assert issubclass(MatchError, ValueError)


# Choosing marks and who moves first.


def test_a_new_match_waits_for_player_1_to_choose() -> None:
    match = Match.new("Ada", "Bob")
    assert match.phase is Phase.CHOOSING
    assert match.chooser == 0
    assert match.marks is None
    assert match.game is None
    assert match.to_move is None
    assert match.winner is None
    assert (match.wins, match.draws, match.played) == ((0, 0), 0, 0)
    with pytest.raises(MatchError, match="no marks"):
        match.player_with(Mark.X)


@pytest.mark.parametrize("mark", list(Mark))
def test_the_chooser_takes_a_mark_and_the_other_player_the_other(mark: Mark) -> None:
    match = Match.new("Ada", "Bob").choose_mark(mark)
    assert match.marks == (mark, mark.other)
    assert match.player_with(mark) == 0
    assert match.player_with(mark.other) == 1
    assert match.phase is Phase.PLAYING
    assert match.game == GameState.new(first=mark)


@pytest.mark.parametrize("mark", list(Mark))
def test_by_default_the_chooser_moves_first(mark: Mark) -> None:
    match = Match.new("Ada", "Bob").choose_mark(mark)
    assert match.first_move is FirstMove.CHOOSER
    assert match.game is not None
    assert match.game.to_move is mark
    assert match.to_move == 0


def test_with_first_x_whoever_holds_x_moves_first() -> None:
    match = Match.new("Ada", "Bob", first_move=FirstMove.X).choose_mark(Mark.O)
    assert match.game is not None
    assert match.game.to_move is Mark.X
    assert match.to_move == 1


def test_first_move_accepts_its_command_line_spelling() -> None:
    assert Match.new(first_move="random").first_move is FirstMove.RANDOM  # type: ignore[arg-type]


def test_with_first_random_the_injected_rng_decides() -> None:
    match = Match.new("Ada", "Bob", first_move=FirstMove.RANDOM)

    def first_for(seed: int) -> Mark:
        game = match.choose_mark(Mark.X, rng=random.Random(seed)).game
        assert game is not None
        return game.to_move

    firsts = [first_for(seed) for seed in range(40)]
    assert set(firsts) == {Mark.X, Mark.O}
    assert [first_for(seed) for seed in range(40)] == firsts
    # The chooser's mark plays no part: the same seed gives the same mark to start.
    game = match.choose_mark(Mark.O, rng=random.Random(0)).game
    assert game is not None
    assert game.to_move is first_for(0)


def test_marks_cannot_be_chosen_twice() -> None:
    match = started(Match.new("Ada", "Bob"))
    with pytest.raises(MatchError, match="already chosen"):
        match.choose_mark(Mark.O)


def test_playing_before_choosing_is_refused() -> None:
    with pytest.raises(MatchError, match="not chosen"):
        Match.new("Ada", "Bob").play(4)


# Playing and scoring.


def test_a_move_passes_the_turn_to_the_other_player() -> None:
    match = started(Match.new("Ada", "Bob"), Mark.O)
    assert match.to_move == 0
    match = match.play(4)
    assert match.to_move == 1
    assert match.game is not None
    assert match.game.board[4] is Mark.O


def test_an_illegal_move_is_refused_and_changes_nothing() -> None:
    match = started(Match.new("Ada", "Bob")).play(4)
    with pytest.raises(IllegalMove, match="is taken"):
        match.play(4)
    assert match.game is not None
    assert match.game.moves == (4,)


def test_a_win_is_scored_once_for_the_player_holding_the_mark() -> None:
    # Ada holds O and moves first: O 3, X 0, O 4, X 1, and O completes the middle row.
    match = play_all(started(Match.new("Ada", "Bob"), Mark.O), [3, 0, 4, 1])
    assert match.wins == (0, 0)
    match = match.play(5)
    assert match.phase is Phase.OVER
    assert match.winner == 0
    assert match.wins == (1, 0)
    assert match.draws == 0
    assert match.played == 1
    assert match.to_move is None
    assert match.history == (match.game,)


def test_a_win_for_the_second_player() -> None:
    match = play_all(started(Match.new("Ada", "Bob"), Mark.O), [3, 0, 6, 1, 7, 2])
    assert match.winner == 1
    assert match.wins == (0, 1)


def test_a_draw_is_scored_once() -> None:
    match = play_all(started(Match.new("Ada", "Bob")), DRAW)
    assert match.phase is Phase.OVER
    assert match.winner is None
    assert (match.wins, match.draws, match.played) == ((0, 0), 1, 1)


def test_a_finished_game_takes_no_more_moves() -> None:
    match = play_all(started(Match.new("Ada", "Bob")), X_WINS_TOP_ROW)
    with pytest.raises(IllegalMove, match="the game is over"):
        match.play(8)


def test_transitions_return_new_matches_and_leave_the_old_ones_alone() -> None:
    before = started(Match.new("Ada", "Bob"))
    after = before.play(4)
    assert before.game == GameState.new()
    assert after is not before
    with pytest.raises(dataclasses.FrozenInstanceError):
        before.chooser = 1  # type: ignore[misc]


# The next game.


def test_next_game_before_the_end_is_refused() -> None:
    with pytest.raises(MatchError, match="not finished"):
        Match.new("Ada", "Bob").next_game()
    with pytest.raises(MatchError, match="not finished"):
        started(Match.new("Ada", "Bob")).play(4).next_game()


def test_the_chooser_alternates_and_the_score_carries_over() -> None:
    match = play_all(started(Match.new("Ada", "Bob")), X_WINS_TOP_ROW)
    match = match.next_game()
    assert match.phase is Phase.CHOOSING
    assert match.chooser == 1
    assert match.marks is None
    assert match.wins == (1, 0)
    match = play_all(match.choose_mark(Mark.X), X_WINS_TOP_ROW)
    assert match.marks == (Mark.O, Mark.X)
    assert match.wins == (1, 1)
    assert match.next_game().chooser == 0


# Undo.


def test_undo_in_hot_seat_takes_back_one_move() -> None:
    match = started(Match.new("Ada", "Bob"))
    assert match.play(4).play(0).undo() == match.play(4)
    assert match.play(4).undo() == match


def test_undo_with_nothing_to_take_back_is_refused() -> None:
    with pytest.raises(MatchError, match="no move to take back"):
        started(Match.new("Ada", "Bob")).undo()
    with pytest.raises(MatchError, match="no game in progress"):
        Match.new("Ada", "Bob").undo()


def test_undo_once_the_game_has_ended_is_refused() -> None:
    won = play_all(started(Match.new("Ada", "Bob")), X_WINS_TOP_ROW)
    with pytest.raises(MatchError, match="the game is over"):
        won.undo()
    drawn = play_all(started(Match.new("Ada", "Bob")), DRAW)
    with pytest.raises(MatchError, match="the game is over"):
        drawn.undo()


def against_the_computer(person_mark: Mark = Mark.X) -> Match:
    return Match.new("Ada", Player("Computer", Level.HARD)).choose_mark(person_mark)


def test_undo_against_the_computer_takes_back_its_reply_and_your_move() -> None:
    match = against_the_computer()
    assert not match.computer_to_move
    after_reply = match.play(4).play(0)
    assert not after_reply.computer_to_move
    assert after_reply.undo() == match
    two_rounds = after_reply.play(8).play(2)
    assert two_rounds.undo() == after_reply


def test_undo_while_the_computer_is_thinking_takes_back_your_move() -> None:
    match = against_the_computer().play(4)
    assert match.computer_to_move
    assert match.undo() == against_the_computer()


def test_undo_of_the_computers_opening_alone_is_refused() -> None:
    # Ada chooses O and moves first by default; with --first x the computer opens.
    match = Match.new("Ada", Player("Computer", Level.HARD), first_move=FirstMove.X)
    match = match.choose_mark(Mark.O)
    assert match.computer_to_move
    match = match.play(4)
    with pytest.raises(MatchError, match="no move to take back"):
        match.undo()
    # After Ada's reply and the computer's answer, undo goes back to the opening.
    assert match.play(0).play(8).undo() == match


# The state machine.


class MatchMachine(RuleBasedStateMachine):
    """Plays whole matches, with and without a computer, and keeps its own tally."""

    def __init__(self) -> None:
        super().__init__()
        self.match = Match.new()
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
        self.match = Match.new(players[0], players[1], first_move=first_move)

    @property
    def hot_seat(self) -> bool:
        return not any(player.is_computer for player in self.match.players)

    # Rules.

    @precondition(lambda self: self.match.phase is Phase.CHOOSING)
    @rule(mark=st.sampled_from(Mark), seed=st.integers(0, 2**16))
    def choose_mark(self, mark: Mark, seed: int) -> None:
        match = self.match.choose_mark(mark, rng=random.Random(seed))
        assert match.marks is not None
        assert match.marks[self.match.chooser] is mark
        assert match.game is not None
        if match.first_move is FirstMove.CHOOSER:
            assert match.game.to_move is mark
        elif match.first_move is FirstMove.X:
            assert match.game.to_move is Mark.X
        else:
            expected = random.Random(seed).choice((Mark.X, Mark.O))
            assert match.game.to_move is expected
        self.match = match
        self.games_started += 1
        self.chosen = mark

    @precondition(lambda self: self.match.phase is Phase.PLAYING)
    @rule(data=st.data(), moves=st.integers(1, 4))
    def play(self, data: st.DataObject, moves: int) -> None:
        """Up to `moves` moves (fewer if the game ends): a person's cell, or the computer's."""
        for _ in range(moves):
            if self.match.phase is Phase.PLAYING:
                self.play_one(data)

    def play_one(self, data: st.DataObject) -> None:
        game = self.match.game
        assert game is not None
        if self.match.computer_to_move:
            level = self.match.players[self.match.to_move or 0].level
            assert level is not None
            cell = choose_move(game, level, self.rng)
        else:
            cell = data.draw(st.sampled_from(game.legal_moves()), label="cell")
        mover = self.match.to_move
        assert mover is not None
        before = self.match
        after = before.play(cell)
        assert after.game == game.play(cell)
        if after.phase is Phase.OVER:
            self.finished += 1
            if after.game is not None and after.game.winner is not None:
                assert after.winner == mover
                self.expected_wins[mover] += 1
            else:
                self.expected_draws += 1
        elif self.hot_seat:
            assert after.undo() == before
        self.match = after

    @precondition(lambda self: self.match.phase is Phase.PLAYING)
    @rule()
    def undo(self) -> None:
        game = self.match.game
        assert game is not None
        people = [not player.is_computer for player in self.match.players]
        first = game.to_move if len(game.moves) % 2 == 0 else game.to_move.other
        movers = [self.match.player_with(first if n % 2 == 0 else first.other) for n in range(9)]
        person_moves = [n for n, _ in enumerate(game.moves) if people[movers[n]]]
        if not person_moves:
            with pytest.raises(MatchError, match="no move to take back"):
                self.match.undo()
            return
        after = self.match.undo()
        expected = GameState.new(first=first)
        for cell in game.moves[: person_moves[-1]]:
            expected = expected.play(cell)
        assert after.game == expected
        assert after == dataclasses.replace(self.match, game=expected)
        if self.hot_seat:
            assert after.game == game.undo()
        self.match = after

    @precondition(lambda self: self.match.phase is Phase.OVER)
    @rule()
    def refuse_undo_after_the_end(self) -> None:
        with pytest.raises(MatchError):
            self.match.undo()

    @precondition(lambda self: self.match.phase is Phase.OVER)
    @rule()
    def next_game(self) -> None:
        self.match = self.match.next_game()

    @precondition(lambda self: self.match.phase is not Phase.OVER)
    @rule()
    def refuse_next_game_before_the_end(self) -> None:
        with pytest.raises(MatchError, match="not finished"):
            self.match.next_game()

    @precondition(lambda self: self.match.phase is Phase.CHOOSING)
    @rule(cell=st.integers(0, 8))
    def refuse_play_before_choosing(self, cell: int) -> None:
        with pytest.raises(MatchError):
            self.match.play(cell)

    # Invariants.

    @invariant()
    def each_finished_game_is_scored_once(self) -> None:
        match = self.match
        assert list(match.wins) == self.expected_wins
        assert match.draws == self.expected_draws
        assert match.wins[0] + match.wins[1] + match.draws == self.finished
        assert match.played == self.finished
        assert len(match.history) == self.finished
        assert all(game.is_over for game in match.history)

    @invariant()
    def the_chooser_alternates_starting_with_player_1(self) -> None:
        games_begun = self.games_started + (self.match.phase is Phase.CHOOSING)
        assert self.match.chooser == (games_begun - 1) % 2

    @invariant()
    def the_marks_differ(self) -> None:
        marks = self.match.marks
        if marks is None:
            assert self.match.phase is Phase.CHOOSING
        else:
            assert marks[0] is marks[1].other
            assert marks[self.match.chooser] is self.chosen

    @invariant()
    def the_phase_matches_the_game(self) -> None:
        match = self.match
        game = match.game
        if game is None:
            assert match.phase is Phase.CHOOSING
            assert match.to_move is None
            assert not match.computer_to_move
        elif game.is_over:
            assert match.phase is Phase.OVER
            assert match.to_move is None
            assert not match.computer_to_move
            if game.winner is None:
                assert match.winner is None
            else:
                assert match.winner == match.player_with(game.winner)
                assert match.history[-1] == game
        else:
            assert match.phase is Phase.PLAYING
            assert match.to_move == match.player_with(game.to_move)
            assert match.winner is None
            assert match.computer_to_move == match.players[match.to_move].is_computer

    @invariant()
    def the_names_never_change(self) -> None:
        names = [player.name for player in self.match.players]
        assert names in (["Ada", "Bob"], ["Computer", "Bob"], ["Ada", "Computer"])


MatchMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)
TestMatchMachine = MatchMachine.TestCase
