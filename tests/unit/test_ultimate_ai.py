"""The computer at Ultimate: every level plays legal moves, medium keeps its rule order,
hard takes a won game, stops the opponent's, and repeats itself for a seed."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from tictactoe.core.ai import Level, choose_move
from tictactoe.core.engine import IllegalMove, Mark
from tictactoe.core.ultimate import UltimateState
from tictactoe.core.ultimate_ai import estimate, medium_candidates

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))

WIN_IN_ONE: tuple[int, ...] = (
    49,
    42,
    54,
    4,
    44,
    78,
    59,
    53,
    77,
    50,
    46,
    17,
    73,
    13,
    37,
    16,
    64,
    14,
    48,
    35,
)
WIN_IN_ONE += (80, 79, 66, 31, 36, 1, 11, 25, 69, 55, 12, 30, 29, 21, 34, 68, 52, 71, 75, 27)
WIN_IN_ONE += (8, 76, 38, 18, 7, 70, 67, 65, 26, 72, 6, 60, 58, 19, 15, 61)
"""A random game where X, to move, has ten legal moves and one wins: 74, the bottom-right
board's top, its third small board on the diagonal."""

ONLY_MOVE = WIN_IN_ONE[:-1]
"""The position before: O has four legal moves and only 56 does not hand X the game."""


def replay(moves: tuple[int, ...]) -> UltimateState:
    state = UltimateState.new()
    for move in moves:
        state = state.play(move)
    return state


def positions(games: int, seed: int = 0) -> Iterator[UltimateState]:
    """Every position of some random games that are not over."""
    rng = random.Random(seed)
    for _ in range(games):
        state = UltimateState.new()
        while not state.is_over:
            yield state
            state = state.play(rng.choice(state.legal_moves()))


def wins_game(state: UltimateState, move: int) -> bool:
    after = state.play(move)
    return after.winner is state.to_move


def test_the_known_positions_are_what_they_say() -> None:
    state = replay(WIN_IN_ONE)
    assert state.to_move is Mark.X and len(state.legal_moves()) == 10
    assert [m for m in state.legal_moves() if wins_game(state, m)] == [74]
    before = replay(ONLY_MOVE)
    assert before.to_move is Mark.O and len(before.legal_moves()) == 4
    safe = [
        m
        for m in before.legal_moves()
        if not any(wins_game(before.play(m), reply) for reply in before.play(m).legal_moves())
    ]
    assert safe == [56]


@pytest.mark.parametrize("level", [Level.EASY, Level.MEDIUM])
def test_easy_and_medium_play_legal_moves(level: Level) -> None:
    rng = random.Random(3)
    for state in positions(20):
        assert choose_move(state, level, rng=rng) in state.legal_moves()


def test_hard_plays_legal_moves_on_any_position() -> None:
    rng = random.Random(4)
    for index, state in enumerate(positions(3, seed=9)):
        if index % 7 == 0:
            assert estimate(state, rng, iterations=300).move in state.legal_moves()
    assert choose_move(UltimateState.new(), Level.HARD, rng=rng) in range(81)


def test_every_level_takes_a_won_game() -> None:
    state = replay(WIN_IN_ONE)
    for level in Level:
        if level is not Level.EASY:
            assert choose_move(state, level, rng=random.Random(1)) == 74
    hard = estimate(state, random.Random(1))
    assert hard.proven and hard.value == 1.0 and hard.summary == "X wins with best play"


def test_hard_stops_the_opponent_winning() -> None:
    state = replay(ONLY_MOVE)
    for seed in range(3):
        assert choose_move(state, Level.HARD, rng=random.Random(seed)) == 56


def test_hard_is_the_same_for_a_seed() -> None:
    state = UltimateState.new().play(40).play(36)
    first = [choose_move(state, Level.HARD, rng=random.Random(11)) for _ in range(2)]
    assert first[0] == first[1]
    a = estimate(state, random.Random(5), iterations=2000)
    b = estimate(state, random.Random(5), iterations=2000)
    assert a == b


def test_medium_keeps_its_rule_order() -> None:
    """Win the game, win a board, block, stay out of a board the opponent can win, then a
    corner, the centre, a side: checked rule by rule in the positions of random games."""
    for state in positions(15, seed=2):
        chosen = set(medium_candidates(state))
        legal = state.legal_moves()
        assert chosen and chosen <= set(legal)
        me, them = state.to_move, state.to_move.other

        def takes(mark: Mark, move: int, position: UltimateState = state) -> bool:
            board, cell = divmod(move, 9)
            cells = list(position.board[board * 9 : board * 9 + 9])
            cells[cell] = mark
            return any(all(cells[c] is mark for c in line) for line in LINES)

        game = {m for m in legal if wins_game(state, m)}
        boards = {m for m in legal if takes(me, m)}
        blocks = {m for m in legal if takes(them, m)}
        if game:
            assert chosen == game
        elif boards:
            assert chosen == boards
        elif blocks:
            assert chosen <= blocks
        else:
            safe = {
                m
                for m in legal
                if not any(
                    takes(them, reply, state.play(m)) for reply in state.play(m).legal_moves()
                )
            }
            pool = safe or set(legal)
            assert chosen <= pool
            for rule in ({0, 2, 6, 8}, {4}, {1, 3, 5, 7}):
                if any(m % 9 in rule for m in pool):
                    assert chosen == {m for m in pool if m % 9 in rule}
                    break


def test_no_move_once_the_game_is_over() -> None:
    state = replay(WIN_IN_ONE).play(74)
    assert state.is_over
    for level in Level:
        with pytest.raises(IllegalMove, match="the game is over"):
            choose_move(state, level, rng=random.Random(0))
    with pytest.raises(IllegalMove, match="the game is over"):
        estimate(state, random.Random(0))


def test_the_estimate_says_who_is_favoured() -> None:
    start = estimate(UltimateState.new(), random.Random(2), iterations=3000)
    assert start.summary in ("X is favoured", "even", "O is favoured")
    assert not start.proven
