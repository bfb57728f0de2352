"""The computer at Ultimate tic-tac-toe: random, a rule list, and a tree search.

Pure functions of an `UltimateState`; randomness comes in through an `rng` argument, so a
seed fixes every choice. The hard level is a Monte Carlo tree search that also proves
results (MCTS-Solver): a node whose value is known for certain (a won, lost or drawn game
below it) stops being sampled and counts as that value. Its playouts take a small board
whenever they can, which makes each one tell more than a uniformly random game. The search
works on plain ints and small lists rather than on states, so that it runs thousands of
playouts in a second.
"""

from __future__ import annotations

import math
import random
from typing import Final, NamedTuple

from tictactoe.core.engine import LINES, IllegalMove, Mark, has_line
from tictactoe.core.ultimate import UltimateState

__all__ = [
    "Estimate",
    "estimate",
    "hard_move",
    "medium_candidates",
]

_FULL: Final = 0x1FF

_HAS_LINE: Final = tuple(has_line(mask) for mask in range(512))
"""By 9-bit mask: whether it holds a line."""


def _threats(mask: int) -> int:
    """The free cells that would complete a line for a mark holding `mask`."""
    found = 0
    for a, b, c in LINES:
        line = 1 << a | 1 << b | 1 << c
        missing = line & ~mask
        if missing and missing & (missing - 1) == 0:
            found |= missing
    return found


_THREATS: Final = tuple(_threats(mask) for mask in range(512))
"""By 9-bit mask of one mark's cells: the cells that would complete one of its lines (some
may be taken by the other mark: mask them with the free cells)."""

_CELLS: Final = tuple(tuple(c for c in range(9) if mask >> c & 1) for mask in range(512))
"""By 9-bit mask: its cells, ascending."""

_OPEN: Final = tuple(tuple(b for b in range(9) if not mask >> b & 1) for mask in range(512))
"""By 9-bit mask of closed boards: the open boards, ascending."""

CORNERS: Final = (0, 2, 6, 8)
CENTRE: Final = 4

EXPLORATION: Final = 0.9
"""The weight of the exploration term in the tree's choice of a child (UCB1's constant)."""

DRAW: Final = 0.4
"""What a draw is worth to the side the search plays for (its opponent counts it 0.6): a
little less than half a win, so that it keeps playing for a win while one is in reach."""

ITERATIONS: Final = 20000
"""Playouts per move of the hard level: about as many as fit in well under a second."""


def _unpack(state: UltimateState) -> tuple[list[int], list[int], list[int], int, int]:
    """The state as the search holds it: cells by side then board (side 0 moves next),
    occupied cells by board, boards won by side, closed boards, forced board (-1: any)."""
    mine, theirs, mine_won, theirs_won, closed = state.sides
    cells = [mine >> b * 9 & _FULL for b in range(9)] + [theirs >> b * 9 & _FULL for b in range(9)]
    occupied = [cells[b] | cells[9 + b] for b in range(9)]
    forced = state.forced_board
    return cells, occupied, [mine_won, theirs_won], closed, -1 if forced is None else forced


def _game_winning_moves(state: UltimateState) -> tuple[int, ...]:
    """The moves that give the mark to move three small boards in a row."""
    mine, _, mine_won, _, _ = state.sides
    wins = []
    for move in state.legal_moves():
        board, cell = divmod(move, 9)
        if _HAS_LINE[(mine >> board * 9 & _FULL) | 1 << cell] and _HAS_LINE[mine_won | 1 << board]:
            wins.append(move)
    return tuple(wins)


def medium_candidates(state: UltimateState) -> tuple[int, ...]:
    """Every move the medium level might choose; it picks uniformly among them.

    The classic rule list, lifted to small boards: win the game, else win a small board,
    else block the other mark's line in a small board, else a move that does not send the
    other mark to a board it can win at once; among those a corner, else the centre, else
    a side of the small board.
    """
    legal = state.legal_moves()
    mine, theirs, mine_won, _, closed = state.sides

    def small(side: int, board: int) -> int:
        return side >> board * 9 & _FULL

    def wins(side: int, move: int) -> bool:
        board, cell = divmod(move, 9)
        return _HAS_LINE[small(side, board) | 1 << cell]

    winning = [m for m in legal if wins(mine, m)]
    game = [m for m in winning if _HAS_LINE[mine_won | 1 << m // 9]]
    if game:
        return tuple(game)
    if winning:
        return tuple(winning)
    blocking = [m for m in legal if wins(theirs, m)]

    def gives_a_board(move: int) -> bool:
        """Whether after `move` the other mark may win a small board at once."""
        board, cell = divmod(move, 9)
        now_closed = closed
        after = small(mine, board) | 1 << cell
        if (after | small(theirs, board)) == _FULL:
            now_closed |= 1 << board
        boards = _OPEN[now_closed] if now_closed >> cell & 1 else (cell,)
        for b in boards:
            free = _FULL ^ (small(mine, b) | small(theirs, b))
            if b == board:
                free &= ~(1 << cell)
            if _THREATS[small(theirs, b)] & free:
                return True
        return False

    safe = [m for m in legal if not gives_a_board(m)]
    if blocking:
        return tuple([m for m in blocking if m in safe] or blocking)
    pool = safe or list(legal)
    for rule in (
        [m for m in pool if m % 9 in CORNERS],
        [m for m in pool if m % 9 == CENTRE],
    ):
        if rule:
            return tuple(rule)
    return tuple(pool)


class _Node:
    """A node of the search tree: the move into it and what the playouts through it found."""

    __slots__ = ("children", "move", "parent", "proven", "score", "untried", "visits")

    def __init__(self, move: int, parent: _Node | None) -> None:
        self.move = move
        """The move into this node: `board * 9 + cell`; -1 at the root."""
        self.parent = parent
        self.children: list[_Node] = []
        self.untried: list[int] | None = None
        """The moves not yet made children, in the order they will be; None until the
        node is first reached."""
        self.visits = 0
        self.score = 0.0
        """The sum of the results for the side that made `move` (1 a win, ½ a draw)."""
        self.proven: float | None = None
        """The result for the side that made `move` with best play, once it is known."""


def _moves_of(
    cells: list[int], occupied: list[int], won: int, closed: int, forced: int, side: int
) -> list[int]:
    """The legal moves, a move that wins the game first if there is one."""
    boards = (forced,) if forced >= 0 else _OPEN[closed]
    moves: list[int] = []
    base = 9 * side
    for b in boards:
        free = _FULL ^ occupied[b]
        winning = _THREATS[cells[base + b]] & free
        if winning and _HAS_LINE[won | 1 << b]:
            return [b * 9 + _CELLS[winning][0]]
        moves.extend(b * 9 + c for c in _CELLS[free])
    return moves


def _search(state: UltimateState, rng: random.Random, iterations: int) -> _Node:
    """The root of a search of `iterations` playouts from `state` (which is not over)."""
    root_cells, root_occupied, root_won, root_closed, root_forced = _unpack(state)
    root = _Node(-1, None)
    rand = rng.random
    log = math.log
    sqrt = math.sqrt
    has_line_ = _HAS_LINE
    threats = _THREATS
    cells_of = _CELLS
    open_of = _OPEN
    for _ in range(iterations):
        if root.proven is not None:
            break
        cells = root_cells[:]
        occupied = root_occupied[:]
        won = root_won[:]
        closed = root_closed
        forced = root_forced
        side = 0
        node = root
        winner = -1  # the side that won, 2 for a draw, -1 while the game goes on
        # Selection and expansion: down the tree, making one new node.
        while True:
            untried = node.untried
            if untried is None:
                untried = _moves_of(cells, occupied, won[side], closed, forced, side)
                if len(untried) > 1:
                    rng.shuffle(untried)
                node.untried = untried
            if untried:
                move = untried.pop()
                child = _Node(move, node)
                node.children.append(child)
                node = child
                expanded = True
            else:
                best = None
                best_value = -1.0
                factor = EXPLORATION * sqrt(log(node.visits))
                for child in node.children:
                    proven = child.proven
                    if proven is not None:
                        if proven == 1.0:
                            best = child
                            break
                        value = proven
                    else:
                        value = child.score / child.visits + factor / sqrt(child.visits)
                    if value > best_value:
                        best_value = value
                        best = child
                assert best is not None
                node = best
                move = node.move
                expanded = False
            # Make the move for `side`.
            b, c = divmod(move, 9)
            i = 9 * side + b
            mine = cells[i] | 1 << c
            cells[i] = mine
            occupied[b] |= 1 << c
            if has_line_[mine]:
                won[side] |= 1 << b
                closed |= 1 << b
                if has_line_[won[side]]:
                    winner = side
            elif occupied[b] == _FULL:
                closed |= 1 << b
            if winner < 0 and closed == _FULL:
                winner = 2
            forced = -1 if closed >> c & 1 else c
            side ^= 1
            if winner >= 0:
                node.proven = 1.0 if winner != 2 else 0.5
                break
            if expanded or node.proven is not None:
                break
        mover = side ^ 1  # the side that made `node.move`
        # The playout: take a small board whenever possible, else a random cell.
        if node.proven is not None:
            result = node.proven
            if result == 0.5:
                result = DRAW if mover == 0 else 1.0 - DRAW
        else:
            while winner < 0:
                if forced >= 0:
                    b = forced
                else:
                    boards = open_of[closed]
                    b = boards[int(rand() * len(boards))]
                free = _FULL ^ occupied[b]
                i = 9 * side + b
                winning = threats[cells[i]] & free
                if winning:
                    c = cells_of[winning][0]
                    cells[i] |= 1 << c
                    won[side] |= 1 << b
                    closed |= 1 << b
                    if has_line_[won[side]]:
                        winner = side
                        break
                    occupied[b] |= 1 << c
                else:
                    blocking = threats[cells[9 * (side ^ 1) + b]] & free
                    choices = cells_of[blocking or free]
                    c = choices[int(rand() * len(choices))]
                    cells[i] |= 1 << c
                    occupied[b] |= 1 << c
                    if occupied[b] == _FULL:
                        closed |= 1 << b
                if closed == _FULL:
                    winner = 2
                    break
                forced = -1 if closed >> c & 1 else c
                side ^= 1
            if winner == 2:
                result = DRAW if mover == 0 else 1.0 - DRAW
            else:
                result = 1.0 if winner == mover else 0.0
        _backup(node, result)
    return root


def _backup(node: _Node, result: float) -> None:
    """Count a playout's `result` (for the side that made `node.move`) up the tree, and
    carry a proven value up as far as it decides the nodes above."""
    walk: _Node | None = node
    while walk is not None:
        walk.visits += 1
        walk.score += result
        result = 1.0 - result
        walk = walk.parent
    while node.proven is not None and node.parent is not None:
        parent = node.parent
        if node.proven == 1.0:
            parent.proven = 0.0
        elif not parent.untried and all(child.proven is not None for child in parent.children):
            parent.proven = 1.0 - max(child.proven or 0.0 for child in parent.children)
        else:
            break
        node = parent


class Estimate(NamedTuple):
    """What the hard search makes of a position."""

    move: int
    """The move it would make."""
    value: float
    """The expected result of that move for the mark to move: 1 a win, 0 a loss, a draw a
    little under ½ (see `DRAW`); exactly ½ for a proven draw."""
    proven: bool
    """Whether the value is certain (a forced win, loss or draw was found)."""
    mark: Mark
    """The mark to move."""

    @property
    def best_moves(self) -> tuple[int, ...]:
        """The move it would make, as the one best move (as a classic `Analysis` lists them)."""
        return (self.move,)

    @property
    def summary(self) -> str:
        """In words: "X is favoured", "O wins with best play", "even"."""
        if self.proven and self.value != 0.5:
            winner = self.mark if self.value == 1.0 else self.mark.other
            return f"{winner} wins with best play"
        if self.proven:
            return "draw with best play"
        if self.value >= 0.6:
            return f"{self.mark} is favoured"
        if self.value < 0.4:
            return f"{self.mark.other} is favoured"
        return "even"


def estimate(state: UltimateState, rng: random.Random, iterations: int = ITERATIONS) -> Estimate:
    """The hard level's move for `state` and how it rates it; IllegalMove once it is over."""
    if state.is_over:
        raise IllegalMove("the game is over")
    winning = _game_winning_moves(state)
    if winning:
        return Estimate(winning[0], 1.0, True, state.to_move)
    root = _search(state, rng, iterations)
    best = max(root.children, key=lambda child: _rank(child))
    if best.proven is not None:
        return Estimate(best.move, best.proven, True, state.to_move)
    return Estimate(best.move, best.score / best.visits, False, state.to_move)


def _rank(child: _Node) -> tuple[int, float]:
    """How a root child ranks as the move to make: a proven win, then the most sampled
    (a proven loss last, a proven draw by its visits)."""
    if child.proven == 1.0:
        return 2, 0.0
    if child.proven == 0.0:
        return 0, child.visits
    return 1, child.visits


def hard_move(state: UltimateState, rng: random.Random) -> int:
    """The hard level's move: the search's most sampled move, or a proven win."""
    return estimate(state, rng).move
