"""Snapshots of the record screen over a record of both games: it opens on the game being played
(Ultimate here), names it in its title and offers the other one with `g`; an Ultimate match
replays on the Ultimate board. At 80x24 and at the app's smallest size, 50x16.

Run like the other snapshots (a fixed record in tmp_path, its times in UTC, a fixed seed);
regenerate after an intended change with `--snapshot-update` and look at the pictures first.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

import pytest

from snapshots.test_screens import hot_seat, pressing, record_tab, replaying
from snapshots.test_screens import record_file as record_file  # the fixture: classic's record
from tictactoe.core.ai import Level
from tictactoe.core.engine import Mark
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.rules import CLASSIC, ULTIMATE, Variant
from tictactoe.core.series import Player
from tictactoe.record import GameRecord, PlayerSort
from tictactoe.tui.app import TicTacToeApp

SIZES: Final = [(80, 24), (50, 16)]
IDS: Final = ["80x24", "50x16"]


def random_match(game: Variant, seed: int) -> tuple[int, ...]:
    """The moves of a whole match of random legal moves, X first."""
    rng = random.Random(seed)
    state = game.new(Mark.X)
    while not state.is_over:
        state = state.play(rng.choice(state.legal_moves()))
    return state.moves


@pytest.fixture
def both_games(record_file: Path) -> Path:
    """The fixed record of classic matches, and Ultimate ones (and one more classic) after
    them, at fixed times, so the pictures never change."""
    ada, grace, hard = Player("Ada"), Player("Grace"), Player.computer(Level.HARD)
    played = [
        (ULTIMATE, (ada, grace), 2),
        (CLASSIC, (grace, hard), 3),
        (ULTIMATE, (ada, hard), 4),
        (ULTIMATE, (grace, ada), 5),
    ]
    record = GameRecord(record_file)
    start = datetime(2026, 11, 20, 20, 0, tzinfo=UTC)
    for number, (game, players, seed) in enumerate(played):
        final = game.replay(random_match(game, seed), Mark.X)
        match = FinishedMatch.of(players, final, (Mark.X, Mark.O), variant=game.name)
        record.add(match.at(start + timedelta(minutes=20 * number)))
    record.close()
    return record_file


def ultimate_session(record_file: Path) -> TicTacToeApp:
    """Ada against Grace at Ultimate, with the fixed record."""
    settings = record_file.with_name("settings.json")
    return hot_seat(variant="ultimate", save=True, record_file=record_file, settings_file=settings)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_ultimate_players(snap_compare: Any, both_games: Path, size: tuple[int, int]) -> None:
    """Opened from an Ultimate series: Ultimate's totals, the title naming the game, and g
    offering Classic in the footer."""
    assert snap_compare(
        ultimate_session(both_games),
        terminal_size=size,
        run_before=pressing("x", "s", shows=record_tab("players", PlayerSort.WINS)),
    )


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_ultimate_recent_matches(
    snap_compare: Any, both_games: Path, size: tuple[int, int]
) -> None:
    """Ultimate's matches only, newest first, with their many moves."""
    assert snap_compare(
        ultimate_session(both_games),
        terminal_size=size,
        run_before=pressing("x", "s", "m", shows=record_tab("recent")),
    )


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_ultimate_replay(snap_compare: Any, both_games: Path, size: tuple[int, int]) -> None:
    """The newest Ultimate match at its last move on the Ultimate board: won boards large,
    the last move marked; at 80x24 the move list beside it, at 50x16 the board alone with
    the move named under it."""
    last = len(random_match(ULTIMATE, 5))
    assert snap_compare(
        ultimate_session(both_games),
        terminal_size=size,
        run_before=pressing("x", "s", "m", "enter", "end", shows=replaying(last)),
    )


def test_classic_from_an_ultimate_series(snap_compare: Any, both_games: Path) -> None:
    """g from Ultimate's players shows classic's: the title says Classic, g offers Ultimate."""
    assert snap_compare(
        ultimate_session(both_games),
        terminal_size=(80, 24),
        run_before=pressing("x", "s", "g", shows=record_tab("players", PlayerSort.WINS)),
    )
