"""An Ultimate match played through the app is in the game record with its moves, and the record
screen shows it by game: Ultimate's tables when opened from an Ultimate series, `g` for
classic's, and the replay on the Ultimate board."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.conftest import HOT_SEAT, Driver, Start, running_until
from app.test_record_screen import column, replay, rows, screen
from app.test_record_screen import start as start  # the fixture: animations off
from app.test_ultimate import a_won_game, keys_for, state
from tictactoe.core.engine import Mark
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.series import Player
from tictactoe.core.ultimate import UltimateState
from tictactoe.record import GameRecord
from tictactoe.tui.widgets.board import Board
from tictactoe.tui.widgets.ultimate_board import UltimateBoard

ADA, BOB = Player("Ada"), Player("Bob")


def files(tmp_path: Path) -> dict[str, Path | bool]:
    return {
        "save": True,
        "record_file": tmp_path / "record.sqlite3",
        "settings_file": tmp_path / "settings.json",
    }


async def play_ultimate(ui: Driver, moves: tuple[int, ...]) -> None:
    await ui.press("x")
    for move in moves:
        await ui.press(*keys_for(ui, move))
        assert state(ui).moves[-1] == move, ui.status()
    assert ui.series.played == 1, ui.status()


async def test_an_ultimate_match_played_is_recorded_with_its_moves_and_replays(
    start: Start, tmp_path: Path
) -> None:
    moves = a_won_game()
    config = files(tmp_path)
    async with start(variant="ultimate", **HOT_SEAT, **config) as ui:
        await play_ultimate(ui, moves)
        assert "not kept in the record" not in ui.status()
        await ui.press("s")
        assert screen(ui).variant == "ultimate"
        assert "Game record · Ultimate" in str(screen(ui).query_one("#record-title").render())
        assert rows(ui, "#players-table") == [
            ["Ada", "1", "1", "0", "0", "100%"],
            ["Bob", "1", "0", "1", "0", "0%"],
        ]
        await ui.press("m")
        assert rows(ui, "#recent-table")[0][-1] == str(len(moves))
        await ui.press("enter", "end")
        pane = replay(ui)
        assert pane.match is not None and pane.match.moves == moves
        assert pane.step == len(moves)
        board = pane.game_board
        assert isinstance(board, UltimateBoard)
        shown = board.match
        assert isinstance(shown, UltimateState) and shown.moves == moves and shown.winner is Mark.X
        await ui.press("home", "right")
        assert board.match is not None and board.match.moves == moves[:1]

    db = sqlite3.connect(config["record_file"])  # type: ignore[arg-type]
    ((variant, written),) = db.execute("SELECT variant, moves FROM matches").fetchall()
    db.close()
    assert variant == "ultimate" and len(written) == 2 * len(moves)
    (recorded,) = GameRecord(Path(str(config["record_file"]))).recent(variant="ultimate")
    assert recorded.moves == moves and recorded.players == (ADA, BOB) and recorded.winner == 0


async def test_g_shows_the_other_games_record_and_its_replay_board(
    start: Start, tmp_path: Path
) -> None:
    """A classic match beside an Ultimate one: each game's tables hold its own match, and the
    replay changes boards with the match."""
    config = files(tmp_path)
    record = GameRecord(tmp_path / "record.sqlite3")
    record.add(FinishedMatch((ADA, BOB), (Mark.X, Mark.O), 0, (0, 3, 1, 4, 2), 0))
    ultimate = UltimateState.new()
    for move in a_won_game():
        ultimate = ultimate.play(move)
    record.add(FinishedMatch.of((BOB, ADA), ultimate, (Mark.X, Mark.O), variant="ultimate"))
    record.close()
    async with start(**HOT_SEAT, **config) as ui:
        await ui.press("x", "s")
        assert screen(ui).variant == "classic"  # the game being played
        assert column(ui, "#players-table") == ["Ada", "Bob"]
        assert rows(ui, "#players-table")[0][1] == "1"
        await ui.press("m", "enter")
        assert isinstance(replay(ui).game_board, Board)
        await ui.press("escape", "g")
        assert screen(ui).variant == "ultimate"
        assert rows(ui, "#recent-table")[0][1:3] == ["Bob", "Ada"]
        await ui.press("enter")
        await running_until(
            ui, lambda: isinstance(replay(ui).game_board, UltimateBoard), "the Ultimate board"
        )
        await ui.press("escape", "p")
        assert column(ui, "#players-table") == ["Bob", "Ada"]
        await ui.press("g")
        assert screen(ui).variant == "classic" and column(ui, "#players-table") == ["Ada", "Bob"]


async def test_a_record_of_classic_alone_offers_no_choice_of_game(
    start: Start, tmp_path: Path
) -> None:
    config = files(tmp_path)
    record = GameRecord(tmp_path / "record.sqlite3")
    record.add(FinishedMatch((ADA, BOB), (Mark.X, Mark.O), 0, (0, 3, 1, 4, 2), 0))
    record.close()
    async with start(**HOT_SEAT, **config) as ui:
        await ui.press("x", "s")
        assert not screen(ui).games_offered
        assert str(screen(ui).query_one("#record-title").render()) == "Game record"
        await ui.press("g")
        assert screen(ui).variant == "classic"


async def test_from_an_ultimate_series_before_its_first_match_g_goes_both_ways(
    start: Start, tmp_path: Path
) -> None:
    """The record has classic matches alone; the series plays Ultimate: its empty table says
    which game has none yet, and g shows classic's and comes back."""
    config = files(tmp_path)
    record = GameRecord(tmp_path / "record.sqlite3")
    record.add(FinishedMatch((ADA, BOB), (Mark.X, Mark.O), 0, (0, 3, 1, 4, 2), 0))
    record.close()
    async with start(variant="ultimate", **HOT_SEAT, **config) as ui:
        await ui.press("x", "s")
        assert column(ui, "#players-table") == ["No Ultimate matches recorded yet"]
        await ui.press("g")
        assert "Game record · Classic" in str(screen(ui).query_one("#record-title").render())
        assert column(ui, "#players-table") == ["Ada", "Bob"]
        await ui.press("g")
        assert screen(ui).variant == "ultimate"
