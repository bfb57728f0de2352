"""How strong and how quick the hard computer is at Ultimate tic-tac-toe.

Run it with `uv run python benchmarks/bench_ultimate_ai.py` (add `--games N` for a quick look).
The hard level (`tictactoe.core.ai.choose_move(state, Level.HARD, rng=...)`) plays a plain UCT,
the reference below: the tree search TicTacFoe plays (UCB1 with an exploration constant of
√2, one new node per playout, uniformly random playouts, the tree kept between moves and
entered again at the moves since). Two matches:

- against the UCT at 1,000 playouts a move: target at least 95 % over 100 games;
- against the UCT at 10,000 playouts a move: target at least 75 % over 20 games.

A win counts 1, a draw ½; the hard level has X in half the games (X moves first) and O in
the other half. The games run in one process per core. Each move of the hard level is timed
in wall-clock and in CPU time of its process; target: p95 at most 1 s.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass

from tictactoe.core.ai import Level, choose_move
from tictactoe.core.engine import Mark
from tictactoe.core.ultimate import UltimateState

FULL = 0x1FF
WINS = [
    sum(1 << c for c in line)
    for line in (
        (0, 1, 2),
        (3, 4, 5),
        (6, 7, 8),
        (0, 3, 6),
        (1, 4, 7),
        (2, 5, 8),
        (0, 4, 8),
        (2, 4, 6),
    )
]


def line_in(mask: int) -> bool:
    """Whether a 9-bit mask holds one of the eight lines."""
    return any(mask & w == w for w in WINS)


HAS_LINE = [line_in(m) for m in range(512)]
FREE = [[c for c in range(9) if not m >> c & 1] for m in range(512)]


class Board:
    """A mutable Ultimate position for the reference: small boards per side, won, closed."""

    __slots__ = ("cells", "closed", "forced", "occupied", "side", "winner", "won")

    def __init__(self) -> None:
        self.cells = [0] * 18  # side * 9 + board
        self.occupied = [0] * 9
        self.won = [0, 0]
        self.closed = 0
        self.forced = -1
        self.side = 0
        self.winner = -1  # 0, 1, 2 for a draw; -1 while the game goes on

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other.cells = self.cells[:]
        other.occupied = self.occupied[:]
        other.won = self.won[:]
        other.closed = self.closed
        other.forced = self.forced
        other.side = self.side
        other.winner = self.winner
        return other

    def legal(self) -> list[int]:
        if self.winner >= 0:
            return []
        boards = (
            [self.forced] if self.forced >= 0 else [b for b in range(9) if not self.closed >> b & 1]
        )
        return [b * 9 + c for b in boards for c in FREE[self.occupied[b]]]

    def play(self, move: int) -> None:
        b, c = divmod(move, 9)
        side = self.side
        i = side * 9 + b
        self.cells[i] |= 1 << c
        self.occupied[b] |= 1 << c
        if HAS_LINE[self.cells[i]]:
            self.won[side] |= 1 << b
            self.closed |= 1 << b
            if HAS_LINE[self.won[side]]:
                self.winner = side
        elif self.occupied[b] == FULL:
            self.closed |= 1 << b
        if self.winner < 0 and self.closed == FULL:
            self.winner = 2
        self.forced = -1 if self.closed >> c & 1 else c
        self.side = side ^ 1


class Node:
    __slots__ = ("children", "move", "parent", "untried", "visits", "wins")

    def __init__(self, move: int, parent: Node | None, untried: list[int]) -> None:
        self.move = move
        self.parent = parent
        self.children: dict[int, Node] = {}
        self.untried = untried
        self.visits = 0
        self.wins = 0.0  # for the side that made `move`


class PlainUCT:
    """The reference: plain UCT with its tree kept between moves."""

    def __init__(self, playouts: int, rng: random.Random) -> None:
        self.playouts = playouts
        self.rng = rng
        self.root: Node | None = None
        self.root_board = Board()
        self.root_moves: tuple[int, ...] = ()

    def choose(self, state: UltimateState) -> int:
        moves = state.moves
        node = self.root
        board = self.root_board
        if node is not None and moves[: len(self.root_moves)] == self.root_moves:
            board = board.copy()
            for move in moves[len(self.root_moves) :]:
                board.play(move)
                node = node.children.get(move) if node is not None else None
        else:
            node = None
        if node is None:
            board = Board()
            for move in moves:
                board.play(move)
            node = Node(-1, None, board.legal())
        node.parent = None
        for _ in range(self.playouts):
            self.iterate(node, board)
        best = max(node.children.values(), key=lambda child: child.visits)
        after = board.copy()
        after.play(best.move)
        self.root, self.root_board, self.root_moves = best, after, (*moves, best.move)
        return best.move

    def iterate(self, root: Node, root_board: Board) -> None:
        rng = self.rng
        board = root_board.copy()
        node = root
        while not node.untried and node.children:
            log_n = math.log(node.visits)
            node = max(
                node.children.values(),
                key=lambda ch: ch.wins / ch.visits + math.sqrt(2 * log_n / ch.visits),
            )
            board.play(node.move)
        if node.untried:
            move = node.untried.pop(rng.randrange(len(node.untried)))
            board.play(move)
            child = Node(move, node, board.legal())
            node.children[move] = child
            node = child
        mover = board.side ^ 1  # the side that made `node.move`
        while board.winner < 0:
            legal = board.legal()
            board.play(legal[rng.randrange(len(legal))])
        result = 0.5 if board.winner == 2 else (1.0 if board.winner == mover else 0.0)
        walk: Node | None = node
        while walk is not None:
            walk.visits += 1
            walk.wins += result
            result = 1.0 - result
            walk = walk.parent


@dataclass
class Game:
    score: float
    hard_mark: str
    wall: list[float]
    cpu: list[float]
    plies: int


def play_game(args: tuple[int, int]) -> Game:
    """One game: the hard level against the UCT at `playouts`; `index` picks the marks and seeds."""
    index, playouts = args
    hard_mark = Mark.X if index % 2 == 0 else Mark.O
    hard_rng = random.Random(index)
    uct = PlainUCT(playouts, random.Random(10_000 + index))
    state = UltimateState.new()
    wall: list[float] = []
    cpu: list[float] = []
    while not state.is_over:
        if state.to_move is hard_mark:
            w, c = time.perf_counter(), time.process_time()
            move = choose_move(state, Level.HARD, rng=hard_rng)
            wall.append(time.perf_counter() - w)
            cpu.append(time.process_time() - c)
        else:
            move = uct.choose(state)
        state = state.play(move)
    score = 0.5 if state.is_draw else (1.0 if state.winner is hard_mark else 0.0)
    return Game(score, hard_mark.value, wall, cpu, len(state.moves))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def match(playouts: int, games: int, target: float, processes: int) -> None:
    started = time.perf_counter()
    with multiprocessing.Pool(processes) as pool:
        results = pool.map(play_game, [(i, playouts) for i in range(games)], chunksize=1)
    elapsed = time.perf_counter() - started
    score = sum(g.score for g in results)
    wins = sum(g.score == 1.0 for g in results)
    draws = sum(g.score == 0.5 for g in results)
    losses = games - wins - draws
    wall = [t for g in results for t in g.wall]
    cpu = [t for g in results for t in g.cpu]
    by_mark = {mark: sum(g.score for g in results if g.hard_mark == mark) for mark in ("X", "O")}
    verdict = "met" if score / games >= target else "MISSED"
    print(
        f"hard vs plain UCT {playouts:,} playouts: {score:g}/{games} = {score / games:.1%} "
        f"(target {target:.0%}: {verdict}); {wins} won, {draws} drawn, {losses} lost; "
        f"as X {by_mark['X']:g}, as O {by_mark['O']:g}"
    )
    print(
        f"  hard's move, {len(wall)} moves: wall p50 {statistics.median(wall):.3f} s, "
        f"p95 {percentile(wall, 95):.3f} s, max {max(wall):.3f} s; CPU p50 "
        f"{statistics.median(cpu):.3f} s, p95 {percentile(cpu, 95):.3f} s (target p95 ≤ 1 s); "
        f"games of {statistics.mean(g.plies for g in results):.0f} moves; {elapsed:.0f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="games in each match (default 100 and 20)")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 2)
    parser.add_argument(
        "--only", choices=("1000", "10000"), help="play only the match against this UCT"
    )
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}, {args.processes} processes")
    if args.only != "10000":
        match(1_000, args.games or 100, 0.95, args.processes)
    if args.only != "1000":
        match(10_000, args.games or 20, 0.75, args.processes)


if __name__ == "__main__":
    main()
