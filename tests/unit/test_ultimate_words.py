"""Ultimate in sentences: a move by its board and cell and their keys, the board the next
player is sent to, a small board won, drawn or opened again, the end, and the whole position on
request; every sentence one short plain line, in either digit layout."""

from __future__ import annotations

import random
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from tictactoe.core.engine import Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.narration import LINE, board, introduce, narrate, replay
from tictactoe.core.rules import CLASSIC, ULTIMATE
from tictactoe.core.series import Series
from tictactoe.core.ultimate import UltimateState
from tictactoe.core.ultimate_words import play_in, position, small_board

KEYS = KeyLayout.NUMPAD.key_for
PHONE = KeyLayout.PHONE.key_for

X_WINS: tuple[int, ...] = (28, 9, 2, 22, 43, 68, 49, 39, 29, 26, 80, 73, 10, 12, 27)
X_WINS += (3, 40, 41, 50, 45, 0, 8, 78, 58, 37, 13, 16, 66, 48)
"""A whole match X wins with the left, centre and right boards (a random game, seed 2423)."""

CENTRE_TOP_ROW: tuple[int, ...] = (36, 4, 37, 13, 38)
"""X takes the centre board's top row (O sent to the top-left board, then to the top)."""


def started(first: str = "Ada", second: str = "Bob") -> Series:
    """Ultimate between two people, Ada holding X."""
    return Series.new(first, second, variant=ULTIMATE).choose_mark(Mark.X)


def state(series: Series) -> UltimateState:
    """The Ultimate match on show."""
    assert isinstance(series.match, UltimateState)
    return series.match


def played(series: Series, moves: tuple[int, ...]) -> Series:
    for move in moves:
        series = series.play(move)
    return series


def test_a_move_names_its_board_and_cell_and_the_board_it_sends_to() -> None:
    series = played(started(), (40,))
    after = series.play(36)  # the centre board's top-left
    assert narrate(series, after, KEYS, prompted=True) == [
        "Bob (O) takes the top-left of the centre board, 5 7.",
        "Ada must play in the top-left board.",
    ]
    assert (
        narrate(series, after, PHONE)[0] == "Bob (O) takes the top-left of the centre board, 5 1."
    )
    assert narrate(series, after, KEYS)[-1] == "Ada (X) to move."
    assert introduce(series) == "Ultimate tic-tac-toe: Ada against Bob."


def test_a_small_board_won_is_said_then_a_player_sent_to_it_may_play_anywhere() -> None:
    before = played(started(), CENTRE_TOP_ROW[:-1])
    won = before.play(CENTRE_TOP_ROW[-1])
    assert narrate(before, won, KEYS, prompted=True) == [
        "Ada (X) takes the top-right of the centre board, 5 9.",
        "Ada (X) wins the centre board, 5.",
        "Bob must play in the top-right board.",
    ]
    sent_back = won.play(2 * 9 + 4)  # the top-right board's centre: to the won centre board
    said = narrate(won, sent_back, PHONE, prompted=True)
    assert said == [
        "Bob (O) takes the centre of the top-right board, 3 5.",
        "Ada may play in any open board.",
    ]
    undone = won.undo()
    assert narrate(won, undone, KEYS)[:2] == [
        "Taken back: the top-right of the centre board, 5 9.",
        "The centre board, 5, is open again.",
    ]


def test_a_small_board_drawn_is_said_when_it_happens() -> None:
    rng = random.Random(3)  # a random game whose 63rd move fills the centre board
    series = before = started()
    while "draw" not in state(series).small_winners:
        before = series
        series = series.play(rng.choice(state(series).legal_moves()))
    assert state(series).small_winners.index("draw") == 4
    assert "The centre board, 5, is drawn." in narrate(before, series, KEYS)


def test_the_end_names_the_winning_boards_and_their_line() -> None:
    before = played(started(), X_WINS[:-1])
    over = before.play(X_WINS[-1])
    said = narrate(before, over, KEYS)
    assert said[-2:] == [
        "Ada (X) wins: boards 4, 5, 6, the middle row.",
        "Ada (X) 1, Bob (O) 0, draws 0; 1 match played.",
    ]
    assert "Ada (X) wins the right board, 6." in said
    positions = [UltimateState.new()]
    for move in X_WINS:
        positions.append(positions[-1].play(move))
    told = replay(over.players, (Mark.X, Mark.O), positions, KEYS)
    assert told[0] == "1. Ada (X) takes the top of the left board, 4 8."
    assert told[-1] == "Ada (X) wins: boards 4, 5, 6, the middle row."
    assert told[-2] == "Ada (X) wins the right board, 6."


def test_b_says_the_won_boards_the_forced_board_and_its_free_cells() -> None:
    series = played(started(), CENTRE_TOP_ROW)
    assert board(series, KEYS) == [
        "X has won: centre 5.",
        "Bob must play in the top-right board.",
        "The top-right board, 9: free 1, 2, 3, 4, 5, 6, 7, 8, 9.",
    ]
    anywhere = series.play(2 * 9 + 4)
    assert board(anywhere, PHONE) == [
        "X has won: centre 5.",
        "Ada may play in any open board: 1, 2, 3, 4, 6, 7, 8, 9.",
    ]
    assert board(anywhere, KEYS, 0) == [
        "The top-left board, 7: O on 5; free 1, 2, 3, 4, 6, 7, 8, 9."
    ]
    assert small_board(state(anywhere), 4, KEYS) == (
        "The centre board, 5, won by X: X on 7, 8, 9; free 1, 2, 3, 4, 5, 6."
    )
    over = played(started(), X_WINS)
    assert position(state(over), "", KEYS) == ["X has won: left 4, centre 5, right 6."]


def test_a_move_outside_the_allowed_boards_is_refused_naming_them_by_their_keys() -> None:
    assert play_in((0,), KEYS) == "Play in the top-left board, 7."
    assert play_in((0, 1, 2), PHONE) == "Play in an open board: 1, 2 or 3."


def test_the_keys_of_a_move_and_the_move_the_keys_name() -> None:
    assert ULTIMATE.move_keys(36, KEYS) == "5 7"
    assert CLASSIC.move_keys(4, KEYS) == "5"
    state = UltimateState.new().play(40)  # O is sent to the centre board
    assert ULTIMATE.move_of((0,), state) == 36  # one digit: a cell of the forced board
    assert ULTIMATE.move_of((4, 0), state) == 36
    assert ULTIMATE.move_of((0,), UltimateState.new()) is None  # the board must be said
    assert ULTIMATE.move_of((4, 0, 1), state) is None
    assert CLASSIC.move_of((4,), None) == 4 and CLASSIC.move_of((4, 0), None) is None


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    layout=st.sampled_from(list(KeyLayout)),
    name=st.text(min_size=1, max_size=70),
)
def test_every_sentence_of_a_whole_match_is_one_short_plain_line(
    seed: int, layout: KeyLayout, name: str
) -> None:
    rng = random.Random(seed)
    series = Series.new(name, "B" + name, variant=ULTIMATE).choose_mark(Mark.O)
    while not state(series).is_over:
        before = series
        series = series.play(rng.choice(state(series).legal_moves()))
        lines = [*narrate(before, series, layout.key_for), *board(series, layout.key_for)]
        lines += board(series, layout.key_for, rng.randrange(9))
        for line in lines:
            assert len(line) <= LINE, line
            assert not any(unicodedata.category(char) == "Cc" for char in line), repr(line)
