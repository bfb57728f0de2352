"""The rules of Ultimate tic-tac-toe, checked against a plain reference.

The reference below keeps the 81 cells in a list of strings and the rules in a few lines
each, sharing no code with `tictactoe.core.ultimate`: random games (hypothesis) must agree
with it at every move, and a handful of known positions and every first move are checked
by hand.
"""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tictactoe.core.engine import IllegalMove, Mark
from tictactoe.core.ultimate import UltimateState, move_words, short_move_words

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class Reference:
    """Ultimate on a list of 81 strings ("X", "O" or "."), the rules spelled out."""

    def __init__(self) -> None:
        self.cells = ["."] * 81
        self.mark = "X"
        self.last: int | None = None

    def small(self, board: int) -> list[str]:
        return self.cells[board * 9 : board * 9 + 9]

    def small_winner(self, board: int) -> str | None:
        cells = self.small(board)
        for mark in "XO":
            if any(all(cells[c] == mark for c in line) for line in LINES):
                return mark
        if "." not in cells:
            return "draw"
        return None

    def winner(self) -> str | None:
        winners = [self.small_winner(b) for b in range(9)]
        for mark in "XO":
            if any(all(winners[b] == mark for b in line) for line in LINES):
                return mark
        return None

    def forced(self) -> int | None:
        if self.last is None:
            return None
        board = self.last % 9
        return None if self.small_winner(board) is not None else board

    def legal(self) -> list[int]:
        if self.winner() is not None:
            return []
        forced = self.forced()
        boards = [forced] if forced is not None else range(9)
        return [
            b * 9 + c
            for b in boards
            if self.small_winner(b) is None
            for c in range(9)
            if self.cells[b * 9 + c] == "."
        ]

    def play(self, move: int) -> None:
        assert move in self.legal()
        self.cells[move] = self.mark
        self.mark = "O" if self.mark == "X" else "X"
        self.last = move


def check_agrees(state: UltimateState, reference: Reference) -> None:
    """Every public answer of `state` against the reference."""
    legal = reference.legal()
    assert state.legal_moves() == tuple(legal)
    assert state.to_move == reference.mark
    winners = tuple(reference.small_winner(b) for b in range(9))
    assert state.small_winners == winners
    assert state.winner == reference.winner()
    assert state.is_over == (not legal)
    assert state.is_draw == (not legal and reference.winner() is None)
    assert state.board == tuple(None if c == "." else Mark(c) for c in reference.cells)
    forced = reference.forced()
    assert state.forced_board == (None if state.is_over else forced)
    if state.forced_board is not None:
        assert all(move // 9 == state.forced_board for move in state.legal_moves())
    # A drawn small board belongs to nobody; a winner only with three small boards in a row.
    if state.winner is not None:
        assert state.winning_line is not None
        assert all(winners[b] == state.winner for b in state.winning_line)
    else:
        assert state.winning_line is None
        assert state.winning_cells == frozenset()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=81))
def test_random_games_follow_the_rules(choices: list[int]) -> None:
    state = UltimateState.new()
    reference = Reference()
    check_agrees(state, reference)
    for choice in choices:
        if state.is_over:
            with pytest.raises(IllegalMove, match="the game is over"):
                state.play(choice % 81)
            break
        legal = state.legal_moves()
        illegal = [m for m in range(81) if m not in legal]
        if illegal:
            with pytest.raises(IllegalMove):
                state.play(illegal[choice % len(illegal)])
        move = legal[choice % len(legal)]
        after = state.play(move)
        reference.play(move)
        check_agrees(after, reference)
        assert after.undo() is state
        assert after.moves == (*state.moves, move)
        assert after.last_move == move
        state = after


def test_every_first_move_sends_the_opponent_to_its_cells_board() -> None:
    start = UltimateState.new()
    assert start.legal_moves() == tuple(range(81))
    assert start.forced_board is None
    for move in range(81):
        board, cell = divmod(move, 9)
        state = start.play(move)
        assert state.moves == (move,)
        assert state.to_move is Mark.O
        assert state.forced_board == cell
        free = [c for c in range(9) if cell * 9 + c != move]
        assert state.legal_moves() == tuple(cell * 9 + c for c in free), move
        assert state.small_winners == (None,) * 9
        assert not state.is_over and state.winner is None
        assert state.undo() == start
        assert state.board[move] is Mark.X
        assert sum(mark is not None for mark in state.board) == 1
        assert board * 9 + cell == move


def replay(moves: tuple[int, ...]) -> UltimateState:
    state = UltimateState.new()
    for move in moves:
        state = state.play(move)
    return state


FREE_CHOICE: tuple[int, ...] = (
    17,
    73,
    13,
    37,
    12,
    34,
    70,
    69,
    57,
    28,
    14,
    45,
    6,
    61,
    67,
    36,
    8,
    77,
    49,
    42,
)
FREE_CHOICE += (54, 2, 18, 0, 1)
"""A random game whose last move sends O to the top board, which X has won."""

DRAWN_GAME: tuple[int, ...] = (
    11,
    23,
    48,
    27,
    4,
    38,
    26,
    72,
    7,
    69,
    62,
    80,
    79,
    63,
    3,
    31,
    37,
    15,
    61,
    71,
)
DRAWN_GAME += (73, 9, 8, 76, 44, 70, 43, 35, 10, 12, 60, 20, 21, 5, 53, 19, 45, 1, 51, 39)
DRAWN_GAME += (40, 0, 6, 18)
"""A random game that ends with every small board closed and no three in a row."""


def test_three_in_a_row_wins_a_small_board_and_closes_it() -> None:
    # X takes the top board's left, centre and right (cells 3, 4, 5 of board 1).
    state = replay((17, 73, 13, 37, 12, 34, 70, 69, 57, 28, 14))
    assert state.small_winners == (None, Mark.X, None, None, None, None, None, None, None)
    assert state.small_line(1) == (12, 13, 14)
    assert state.forced_board == 5
    assert state.winner is None
    # Later, a player sent to the won board may play in any open board, never in it.
    later = replay(FREE_CHOICE)
    assert later.last_move == 1 and later.forced_board is None  # the top-left's top
    assert len(later.legal_moves()) > 9
    assert not any(move // 9 == 1 for move in later.legal_moves())
    with pytest.raises(IllegalMove, match="the top board is finished"):
        later.play(9)


def test_a_move_outside_the_forced_board_is_refused_in_words() -> None:
    state = UltimateState.new().play(40)  # the centre of the centre board: O goes there
    with pytest.raises(IllegalMove, match="the move must be in the centre board"):
        state.play(0)
    with pytest.raises(IllegalMove, match="the centre of the centre board is taken"):
        state.play(40)
    with pytest.raises(IllegalMove, match="there is no move 81"):
        state.play(81)
    with pytest.raises(IllegalMove, match="a move is a whole number"):
        state.play("4")  # type: ignore[arg-type]
    with pytest.raises(IllegalMove, match="no move to take back"):
        UltimateState.new().undo()


def test_three_small_boards_in_a_row_win_the_game() -> None:
    moves: tuple[int, ...] = (
        28,
        9,
        2,
        22,
        43,
        68,
        49,
        39,
        29,
        26,
        80,
        73,
        10,
        12,
        27,
        3,
        40,
        41,
        50,
    )
    moves += (45, 0, 8, 78, 58, 37, 13, 16, 66, 48)
    state = replay(moves)
    assert state.winner is Mark.X
    assert state.winning_line == (3, 4, 5)
    assert state.winning_boards == frozenset({3, 4, 5})
    assert state.winning_cells == frozenset(range(27, 54))
    assert state.is_over and not state.is_draw
    assert state.legal_moves() == ()
    assert state.forced_board is None
    assert state.undo().winner is None


def test_a_drawn_small_board_belongs_to_nobody_and_a_full_game_is_a_draw() -> None:
    moves: tuple[int, ...] = (
        30,
        29,
        23,
        52,
        64,
        9,
        7,
        68,
        48,
        28,
        17,
        80,
        79,
        67,
        38,
        21,
        35,
        73,
        16,
        70,
    )
    moves += (69, 54, 1, 11, 26, 77, 45, 3, 27, 4, 44, 78, 61, 71, 76, 42, 62, 75, 34, 63)
    moves += (5, 46, 10, 13, 40, 37, 14, 51, 60, 22, 43, 41, 53, 74, 25, 36, 2, 20, 24, 0)
    moves += (8, 31, 39)
    state = replay(moves)
    assert state.small_winners[4] == "draw"
    assert not any(move // 9 == 4 for move in state.legal_moves())
    drawn = replay(DRAWN_GAME)
    assert drawn.is_over and drawn.is_draw and drawn.winner is None
    assert all(winner is not None for winner in drawn.small_winners)


def test_states_are_values() -> None:
    a = UltimateState.new().play(40).play(36)
    b = UltimateState.new().play(40).play(36)
    assert a == b and hash(a) == hash(b)
    assert a != UltimateState.new(Mark.O).play(40).play(36)
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(AttributeError):
        a.is_over = True
    with pytest.raises(TypeError):
        UltimateState()
    first_o = UltimateState.new(Mark.O)
    assert first_o.to_move is Mark.O and first_o.play(0).first is Mark.O


def test_a_move_in_words() -> None:
    assert move_words(36) == "the top-left of the centre board"
    assert move_words(80) == "the bottom-right of the bottom-right board"
    assert short_move_words(36) == "centre board, top-left"
