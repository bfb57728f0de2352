"""'A friend online' on the new-game screen: the command goes on as `tictactoe host`."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from tictactoe.config import GameConfig
from tictactoe.core.keys import KeyLayout
from tictactoe.core.rules import CLASSIC, ULTIMATE, Variant
from tictactoe.core.series import FirstMove
from tictactoe.doors.relay_target import RelayTarget
from tictactoe.options import host_options, parse_online
from tictactoe.settings import SettingsStore, default_settings_path
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.screens.new_game import FriendOnline, NewGameScreen


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


async def test_a_friend_online_takes_a_relay_in_player_2s_place() -> None:
    app = TicTacToeApp(GameConfig(save=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, NewGameScreen)
        assert not screen.query_one("#relay-field").display
        await pilot.press(*"Alice", "tab", "tab", *["down"] * 4, "enter")
        await pilot.pause()
        assert screen.query_one("#relay-field").display
        assert not screen.query_one("#player-2").display  # the friend types their own name
        await pilot.press("shift+tab", *"me@not a host", "ctrl+s")
        await pilot.pause()
        error = screen.query_one("#new-error", Static)
        assert str(error.render()) == (
            "'not a host' is not a host: the relay is USER@HOST or USER@HOST:PORT, as you would"
            " give it to ssh."
        )
        assert screen.focused is screen.query_one("#relay", Input)
        await pilot.press("ctrl+u", *"me@relay.example.org:2200", "ctrl+s")
        await pilot.pause()
    assert app.friend_online == FriendOnline("Alice", "me@relay.example.org:2200")


def test_the_relay_goes_on_to_tictactoe_host() -> None:
    _config, _setup, host = parse_online(["host", "--player1=Alice", "--relay=me@[::1]:2200"])
    assert host is not None
    assert host.relay == RelayTarget(host="::1", user="me", port=2200)
    assert host.relay_port == 0


async def test_the_relay_used_last_time_is_offered_again(tmp_path: Path) -> None:
    SettingsStore(default_settings_path()).update(relay="me@relay.example.org")
    app = TicTacToeApp(GameConfig(record_file=tmp_path / "record.sqlite3"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#relay", Input).value == "me@relay.example.org"
        await pilot.press(*"Alice", "tab", "tab", *["down"] * 4, "enter", "ctrl+s")
        await pilot.pause()
    assert app.friend_online == FriendOnline("Alice", "me@relay.example.org")


async def test_a_friend_online_hosts_the_game_chosen_on_the_screen() -> None:
    app = TicTacToeApp(GameConfig(save=False, variant="ultimate"))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, NewGameScreen) and app.screen.variant == "ultimate"
        await pilot.press(*"Alice", "tab", "tab", "down", "down", "down", "down", "enter")
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.friend_online == FriendOnline("Alice", "", "ultimate")
    config, _setup, host = parse_online(["host", *host_options(GameConfig(variant="ultimate"))])
    assert host is not None and host.variant is ULTIMATE and config.variant == "ultimate"


def test_host_plays_the_game_asked_for_else_the_one_last_chosen() -> None:
    def hosted(*options: str) -> Variant:
        _config, _setup, host = parse_online(["host", "--player1=Alice", *options])
        assert host is not None
        return host.variant

    assert hosted() is CLASSIC
    SettingsStore(default_settings_path()).update(variant="ultimate")
    assert hosted() is ULTIMATE
    assert hosted("--variant=classic") is CLASSIC
    assert hosted("--no-save") is CLASSIC  # no settings read
