"""The rules engine, checked against published game-tree figures and by properties.

The exhaustive walk uses only the public API (`is_over`, `legal_moves`, `play`,
`winner`, `board`), so a wrong rule anywhere shows up as a wrong count.
"""

from __future__ import annotations

import copy
import pickle
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tictactoe.core.engine import LINES, GameState, IllegalMove, Mark, free_cells, has_line

# The published figures for tic-tac-toe with X moving first (e.g. Schaefer,
# "Tic-Tac-Toe (Naughts and Crosses, Cheese and Crackers, etc.)", and OEIS A008907).
GAMES: int = 255_168
GAMES_WON_BY_X: int = 131_184
GAMES_WON_BY_O: int = 77_904
GAMES_DRAWN: int = 46_080
GAMES_ENDING_AT_MOVE: dict[tuple[int, str], int] = {
    (5, "X"): 1_440,
    (6, "O"): 5_328,
    (7, "X"): 47_952,
    (8, "O"): 72_576,
    (9, "X"): 81_792,
    (9, "draw"): 46_080,
}
POSITIONS: int = 5_478
TERMINAL_POSITIONS: int = 958
TERMINAL_X_WINS: int = 626
TERMINAL_O_WINS: int = 316
TERMINAL_DRAWS: int = 16


@dataclass
class Tree:
    """What one exhaustive walk of the game tree saw."""

    endings: Counter[tuple[int, str]] = field(default_factory=Counter)
    """Complete games by (number of moves, "X" / "O" / "draw")."""
    positions: set[tuple[Mark | None, ...]] = field(default_factory=set)
    """Every distinct board reached, the empty one included."""
    terminal: dict[tuple[Mark | None, ...], str] = field(default_factory=dict)
    """Every distinct finished board, with its result."""


def walk(first: Mark) -> Tree:
    tree = Tree()

    def visit(state: GameState) -> None:
        tree.positions.add(state.board)
        if state.is_over:
            result = str(state.winner) if state.winner else "draw"
            tree.endings[len(state.moves), result] += 1
            tree.terminal[state.board] = result
            return
        for cell in state.legal_moves():
            visit(state.play(cell))

    visit(GameState.new(first=first))
    return tree


@pytest.fixture(scope="module")
def tree() -> Tree:
    return walk(Mark.X)


def results(tree: Tree) -> Counter[str]:
    totals: Counter[str] = Counter()
    for (_, result), count in tree.endings.items():
        totals[result] += count
    return totals


# The published figures.


def test_the_walk_counts_every_complete_game(tree: Tree) -> None:
    assert sum(tree.endings.values()) == GAMES


def test_complete_games_split_into_the_published_wins_and_draws(tree: Tree) -> None:
    assert results(tree) == {"X": GAMES_WON_BY_X, "O": GAMES_WON_BY_O, "draw": GAMES_DRAWN}


def test_complete_games_end_at_the_published_move_numbers(tree: Tree) -> None:
    assert dict(tree.endings) == GAMES_ENDING_AT_MOVE


def test_the_walk_reaches_every_legal_position_once(tree: Tree) -> None:
    assert len(tree.positions) == POSITIONS


def test_terminal_positions_split_into_the_published_results(tree: Tree) -> None:
    assert len(tree.terminal) == TERMINAL_POSITIONS
    assert Counter(tree.terminal.values()) == {
        "X": TERMINAL_X_WINS,
        "O": TERMINAL_O_WINS,
        "draw": TERMINAL_DRAWS,
    }


def test_o_moving_first_gives_the_same_figures_with_the_marks_swapped() -> None:
    tree = walk(Mark.O)
    assert sum(tree.endings.values()) == GAMES
    assert results(tree) == {"O": GAMES_WON_BY_X, "X": GAMES_WON_BY_O, "draw": GAMES_DRAWN}
    assert len(tree.positions) == POSITIONS
    assert len(tree.terminal) == TERMINAL_POSITIONS


# The public API, fact by fact.


def test_a_new_game_is_an_empty_board_with_x_to_move() -> None:
    state = GameState.new()
    assert state.board == (None,) * 9
    assert isinstance(state.board, tuple)
    assert state.to_move is Mark.X
    assert state.moves == ()
    assert state.legal_moves() == tuple(range(9))
    assert state.winner is None
    assert state.winning_line is None
    assert not state.is_draw
    assert not state.is_over


def test_a_new_game_can_start_with_o() -> None:
    state = GameState.new(first=Mark.O)
    assert state.to_move is Mark.O
    assert state.play(4).board[4] is Mark.O
    assert state.play(4).to_move is Mark.X


def test_new_games_are_equal_values_of_their_own_type() -> None:
    assert GameState.new() == GameState.new()
    assert GameState.new() != GameState.new(first=Mark.O)
    assert GameState.new() != (Mark.X, ())  # what equality compares, but not a state


def test_play_puts_the_mark_to_move_and_passes_the_turn() -> None:
    state = GameState.new().play(4).play(0)
    assert state.board == (Mark.O, None, None, None, Mark.X, None, None, None, None)
    assert state.to_move is Mark.X
    assert state.moves == (4, 0)


def test_play_returns_a_new_state_and_leaves_the_old_one_unchanged() -> None:
    before = GameState.new().play(0)
    snapshot = (before.board, before.to_move, before.moves, before.legal_moves())
    after = before.play(8)
    assert after is not before
    assert (before.board, before.to_move, before.moves, before.legal_moves()) == snapshot
    assert after.board[8] is Mark.O


def test_legal_moves_are_the_free_cells_in_ascending_order() -> None:
    state = GameState.new().play(7).play(2).play(4)
    assert state.legal_moves() == (0, 1, 3, 5, 6, 8)


def test_undo_returns_the_state_before_the_last_move() -> None:
    state = GameState.new().play(4).play(0)
    assert state.undo() == GameState.new().play(4)
    assert state.undo().undo() == GameState.new()


def test_undo_reopens_a_finished_game() -> None:
    won = GameState.new().play(0).play(3).play(1).play(4).play(2)
    assert won.is_over
    reopened = won.undo()
    assert not reopened.is_over
    assert reopened.winner is None
    assert reopened.to_move is Mark.X
    assert reopened.legal_moves() == (2, 5, 6, 7, 8)


def test_undo_on_an_empty_board_is_refused() -> None:
    with pytest.raises(IllegalMove, match="no move to take back"):
        GameState.new().undo()


def play_all(cells: list[int], first: Mark = Mark.X) -> GameState:
    state = GameState.new(first=first)
    for cell in cells:
        state = state.play(cell)
    return state


def quiet_cells(line: tuple[int, int, int], count: int) -> list[int]:
    """`count` cells off `line` that do not make a line of their own."""
    for cells in combinations([cell for cell in range(9) if cell not in line], count):
        if not any(set(other) <= set(cells) for other in LINES):
            return list(cells)
    raise AssertionError(f"no quiet cells for {line}")  # pragma: no cover


@pytest.mark.parametrize("line", LINES, ids=lambda line: "-".join(map(str, line)))
@pytest.mark.parametrize("mark", [Mark.X, Mark.O])
def test_every_line_wins_for_either_mark(line: tuple[int, int, int], mark: Mark) -> None:
    loser = quiet_cells(line, 3)
    # X moves first; the winner's cells alternate with the loser's.
    if mark is Mark.X:
        cells = [line[0], loser[0], line[1], loser[1], line[2]]
    else:
        cells = [loser[0], line[0], loser[1], line[1], loser[2], line[2]]
    before = play_all(cells[:-1])
    assert not before.is_over
    state = before.play(cells[-1])
    assert state.winner is mark
    assert state.winning_line == line
    assert state.is_over
    assert not state.is_draw
    assert state.legal_moves() == ()


def test_a_full_board_without_a_line_is_a_draw() -> None:
    # X O X / X O O / O X X
    state = play_all([0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert state.board == tuple(Mark(c) for c in "XOXXOOOXX")
    assert state.is_draw
    assert state.is_over
    assert state.winner is None
    assert state.winning_line is None
    assert state.legal_moves() == ()


def test_a_win_on_the_last_cell_is_a_win_not_a_draw() -> None:
    # X O X / O O X / O X X: the ninth and last move completes X's right column.
    state = play_all([0, 1, 2, 3, 5, 4, 7, 6, 8])
    assert len(state.moves) == 9
    assert state.winner is Mark.X
    assert state.winning_line == (2, 5, 8)
    assert not state.is_draw


def test_mark_other_and_string_behaviour() -> None:
    assert Mark.X.other is Mark.O
    assert Mark.O.other is Mark.X
    assert Mark.X == "X"
    assert Mark.O == "O"
    assert str(Mark.X) == "X"
    assert f"{Mark.O} wins" == "O wins"
    assert isinstance(Mark.X, str)


def test_illegal_move_is_a_value_error() -> None:
    assert issubclass(IllegalMove, ValueError)


def test_a_taken_cell_is_refused_and_named() -> None:
    state = GameState.new().play(4)
    with pytest.raises(IllegalMove, match=r"cell 4 \(centre\) is taken"):
        state.play(4)


@pytest.mark.parametrize("cell", [-1, -9, 9, 10, 100])
def test_a_cell_outside_the_board_is_refused(cell: int) -> None:
    with pytest.raises(IllegalMove, match=f"there is no cell {cell}"):
        GameState.new().play(cell)


@pytest.mark.parametrize("cell", [True, False, 4.0, 0.5, "4", None, [4], (4,)])
def test_anything_but_a_whole_number_is_refused(cell: object) -> None:
    with pytest.raises(IllegalMove, match="whole number"):
        GameState.new().play(cell)  # type: ignore[arg-type]


def test_int_subclasses_other_than_bool_are_cells() -> None:
    class Cell(int):
        pass

    assert GameState.new().play(Cell(4)) == GameState.new().play(4)


def test_a_finished_game_refuses_every_move() -> None:
    won = play_all([0, 3, 1, 4, 2])
    for cell in range(5, 9):
        with pytest.raises(IllegalMove, match="the game is over"):
            won.play(cell)


def test_refused_moves_leave_the_state_unchanged() -> None:
    state = GameState.new().play(4)
    for bad in (4, 9, -1, True):
        with pytest.raises(IllegalMove):
            state.play(bad)
    assert state == GameState.new().play(4)


@pytest.mark.parametrize(
    "name", [*GameState.__slots__, "board", "to_move", "moves", "winner", "anything"]
)
def test_states_are_immutable(name: str) -> None:
    state = GameState.new().play(4)
    with pytest.raises(AttributeError):
        setattr(state, name, None)
    with pytest.raises(AttributeError):
        delattr(state, name)
    assert state == GameState.new().play(4)


def test_states_come_from_new_not_from_the_class() -> None:
    with pytest.raises(TypeError, match=r"GameState\.new\(\)"):
        GameState()


def test_states_reached_by_the_same_moves_are_equal_and_hash_equal() -> None:
    a = GameState.new().play(4).play(0).play(8)
    b = GameState.new().play(4).play(0).play(8)
    assert a is not b
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b}) == 1


def test_states_differ_by_board_mark_to_move_and_move_order() -> None:
    assert GameState.new() != GameState.new(first=Mark.O)
    assert GameState.new().play(0) != GameState.new().play(1)
    # The same board reached in another order is another history.
    assert play_all([0, 4, 8]) != play_all([8, 4, 0])
    assert play_all([0, 4, 8]).board == play_all([8, 4, 0]).board


def test_states_do_not_equal_other_things() -> None:
    assert GameState.new() != (None,) * 9
    assert GameState.new() != "GameState"


@pytest.mark.parametrize(
    "cells", [[], [4], [4, 0, 8], [0, 3, 1, 4, 2], [0, 1, 2, 4, 3, 5, 7, 6, 8]]
)
def test_states_survive_pickle_and_copy(cells: list[int]) -> None:
    state = play_all(cells)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        restored = pickle.loads(pickle.dumps(state, protocol=protocol))
        assert restored == state
        assert restored.is_over == state.is_over
        assert restored.winner == state.winner
        assert restored.legal_moves() == state.legal_moves()
    assert copy.deepcopy(state) == state


def test_repr_shows_the_board_the_turn_and_the_moves() -> None:
    state = play_all([4, 0, 8])
    assert repr(state) == "GameState('O../.X./..X', to_move=O, moves=(4, 0, 8))"


# Properties over random games.

cells_in_any_order = st.permutations(range(9))


@st.composite
def games(draw: st.DrawFn) -> GameState:
    """A game after a random legal sequence of moves, perhaps finished."""
    first = draw(st.sampled_from(Mark))
    order = draw(cells_in_any_order)
    length = draw(st.integers(0, 9))
    state = GameState.new(first=first)
    for cell in order[:length]:
        if state.is_over:
            break
        state = state.play(cell)
    return state


properties = settings(max_examples=300, deadline=None)


def line_holders(state: GameState) -> set[Mark]:
    """The marks that fill some line, found cell by cell."""
    board = state.board
    return {
        mark for a, b, c in LINES if (mark := board[a]) is not None and mark == board[b] == board[c]
    }


@properties
@given(games())
def test_play_then_undo_is_the_same_state(state: GameState) -> None:
    for cell in state.legal_moves():
        after = state.play(cell)
        assert after.undo() == state
        assert hash(after.undo()) == hash(state)


@properties
@given(games())
def test_undo_then_replay_is_the_same_state(state: GameState) -> None:
    if state.moves:
        assert state.undo().play(state.moves[-1]) == state


@properties
@given(games())
def test_the_mark_counts_follow_who_went_first(state: GameState) -> None:
    first = state.to_move if len(state.moves) % 2 == 0 else state.to_move.other
    counts = Counter(state.board)
    assert counts[first] - counts[first.other] in {0, 1}
    assert counts[first] + counts[first.other] == len(state.moves)
    expected_to_move = first if counts[first] == counts[first.other] else first.other
    assert state.to_move is expected_to_move


@properties
@given(games())
def test_the_board_is_the_moves_played_in_turn(state: GameState) -> None:
    first = state.to_move if len(state.moves) % 2 == 0 else state.to_move.other
    expected: list[Mark | None] = [None] * 9
    mark = first
    for cell in state.moves:
        expected[cell] = mark
        mark = mark.other
    assert state.board == tuple(expected)


@properties
@given(games())
def test_legal_moves_are_exactly_the_free_cells_while_playing(state: GameState) -> None:
    free = tuple(cell for cell, mark in enumerate(state.board) if mark is None)
    assert state.legal_moves() == (() if state.is_over else free)


@properties
@given(games())
def test_at_most_one_mark_has_a_line(state: GameState) -> None:
    holders = line_holders(state)
    assert len(holders) <= 1
    assert state.winner == (holders.pop() if holders else None)


@properties
@given(games())
def test_the_winning_line_holds_the_winners_mark(state: GameState) -> None:
    if state.winner is None:
        assert state.winning_line is None
    else:
        assert state.winning_line in LINES
        assert all(state.board[cell] is state.winner for cell in state.winning_line)
        assert state.moves[-1] in state.winning_line


@properties
@given(games())
def test_the_game_is_over_exactly_when_won_or_full(state: GameState) -> None:
    full = None not in state.board
    assert state.is_over == (state.winner is not None or full)
    assert state.is_draw == (full and state.winner is None)
    assert not (state.is_draw and state.winner is not None)


@properties
@given(games())
def test_pickle_round_trips_any_state(state: GameState) -> None:
    restored = pickle.loads(pickle.dumps(state))
    assert restored == state
    assert restored.legal_moves() == state.legal_moves()
    assert restored.winning_line == state.winning_line


@properties
@given(games())
def test_every_state_is_a_plain_game_state(state: GameState) -> None:
    assert type(state) is GameState
    assert type(state.undo() if state.moves else state) is GameState


@properties
@given(games())
def test_masks_and_sides_are_the_board_as_bits(state: GameState) -> None:
    x, o = state.masks
    assert [cell for cell in range(9) if x >> cell & 1] == [
        cell for cell, mark in enumerate(state.board) if mark is Mark.X
    ]
    assert [cell for cell in range(9) if o >> cell & 1] == [
        cell for cell, mark in enumerate(state.board) if mark is Mark.O
    ]
    assert state.sides == ((x, o) if state.to_move is Mark.X else (o, x))


@properties
@given(games())
def test_winning_cells_are_every_line_the_winner_holds(state: GameState) -> None:
    winner, board = state.winner, state.board
    held = [line for line in LINES if all(board[cell] is winner for cell in line)]
    if winner is None:
        assert state.winning_cells == frozenset()
    else:
        assert state.winning_cells == {cell for line in held for cell in line}


def test_one_move_can_complete_two_lines() -> None:
    # X X . / O O X / O O X: X at 2 completes the top row and the right column.
    state = play_all([0, 3, 1, 4, 5, 6, 8, 7, 2])
    assert state.winning_line == (0, 1, 2)
    assert state.winning_cells == {0, 1, 2, 5, 8}


# The interface for solvers: the same questions the engine asks, on masks.


def cells_of(mask: int) -> set[int]:
    return {cell for cell in range(9) if mask >> cell & 1}


def test_has_line_is_true_exactly_for_masks_holding_a_line() -> None:
    for mask in range(1 << 9):
        assert has_line(mask) == any(set(line) <= cells_of(mask) for line in LINES), mask


def test_free_cells_are_the_cells_outside_the_mask_ascending() -> None:
    for mask in range(1 << 9):
        assert free_cells(mask) == tuple(sorted(set(range(9)) - cells_of(mask))), mask


@properties
@given(games())
def test_the_solver_interface_agrees_with_the_state(state: GameState) -> None:
    mine, theirs = state.sides
    assert not has_line(mine)
    assert has_line(theirs) == (state.winner is not None)
    assert state.legal_moves() == (() if state.is_over else free_cells(mine | theirs))


@given(st.sampled_from(Mark), cells_in_any_order, st.integers(0, 9))
def test_first_is_the_mark_that_began_the_game(first: Mark, order: list[int], length: int) -> None:
    state = GameState.new(first=first)
    for cell in order[:length]:
        if state.is_over:
            break
        state = state.play(cell)
    assert state.first is first
    if state.moves:
        assert state.board[state.moves[0]] is first
