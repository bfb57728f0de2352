"""'A friend online' on the new-game screen: the command goes on as `tictactoe host`."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from tictactoe.app import TicTacToeApp
from tictactoe.cli import host_options, parse_online
from tictactoe.config import GameConfig
from tictactoe.keys import KeyLayout
from tictactoe.screens.new_game import FriendOnline, NewGameScreen
from tictactoe.series import FirstMove


async def test_a_friend_online_hosts_a_series_under_player_1s_name() -> None:
    app = TicTacToeApp(GameConfig(save=False))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, NewGameScreen)
        await pilot.press(*"Alice", "tab", "tab", "down", "down", "down", "down", "enter")
        await pilot.pause()
        second = app.screen.query_one("#name-2", Input)
        assert second.disabled  # the friend types their own name
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.friend_online == FriendOnline("Alice")
    assert app.return_code == 0


def test_the_host_keeps_the_record_keys_and_first_move_asked_for() -> None:
    config = GameConfig(
        keys=KeyLayout.PHONE,
        first_move=FirstMove.X,
        record_file=Path("elsewhere.sqlite3"),
    )
    argv = ["host", "--player1=Alice", *host_options(config)]
    hosted, _setup, host = parse_online(argv)
    assert host is not None
    assert hosted.player1 == "Alice"
    assert hosted.keys is KeyLayout.PHONE
    assert hosted.first_move is FirstMove.X
    assert hosted.record_file == Path("elsewhere.sqlite3")
