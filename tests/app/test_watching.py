"""The game chosen on the new-game screen (remembered, --variant first), and the computer in
either seat: against itself it plays match after match, and any key ends the series."""

from __future__ import annotations

import io
import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.widgets import RadioSet

from app.conftest import SIZE, Driver, Start, make_config, painted, running_until
from tictactoe.core.ai import Level
from tictactoe.core.rules import CLASSIC, ULTIMATE
from tictactoe.core.series import Player
from tictactoe.lines.play import play_lines
from tictactoe.options import game_options, parse_config
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen
from tictactoe.tui.screens.new_game import NewGameScreen


def files(tmp_path: Path) -> dict[str, Any]:
    """A record and settings of this test's own: kept on disk, as a player's are."""
    return {
        "save": True,
        "record_file": tmp_path / "record.sqlite3",
        "settings_file": tmp_path / "settings.json",
    }


def remember(tmp_path: Path, variant: str) -> None:
    """Settings as a run that chose `variant` on the new-game screen left them."""
    settings = {"version": 1, "variant": variant}
    (tmp_path / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def pressed(ui: Driver, choice: str) -> str | None:
    button = ui.app.screen.query_one(f"#{choice}", RadioSet).pressed_button
    return button.id if button else None


async def choose_ultimate(ui: Driver) -> None:
    """From the first name, back to the game's choice; Ultimate is the option after Classic."""
    await ui.press("shift+tab", "right", "enter", "tab")
    assert pressed(ui, "game") == "game-ultimate"


# The game's choice.


async def test_ultimate_chosen_on_the_new_game_screen_is_played_and_remembered(
    start: Start, tmp_path: Path
) -> None:
    async with start(**files(tmp_path)) as ui:
        assert pressed(ui, "game") == "game-classic"
        assert ui.app.focused is ui.app.screen.query_one("#name-1"), "the names come first"
        await choose_ultimate(ui)
        await ui.press(*"Ada", "tab", *"Bob", "enter")
        await ui.pilot.pause()
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        assert ui.series.variant is ULTIMATE
    settings = json.loads((tmp_path / "settings.json").read_text(encoding="utf-8"))
    assert settings["variant"] == "ultimate"

    async with start(**files(tmp_path)) as ui:  # the next run offers it first
        assert isinstance(ui.app.screen, NewGameScreen)
        assert pressed(ui, "game") == "game-ultimate"
        await ui.press(*"Ada", "tab", *"Bob", "enter")
        await ui.pilot.pause()
        assert ui.series.variant is ULTIMATE

    async with start(player1="Ada", player2="Bob", **files(tmp_path)) as ui:  # names given
        assert ui.series.variant is ULTIMATE


async def test_variant_on_the_command_line_wins_over_the_remembered_game(
    start: Start, tmp_path: Path
) -> None:
    remember(tmp_path, "ultimate")
    async with start(variant="classic", **files(tmp_path)) as ui:
        assert pressed(ui, "game") == "game-classic"
        await ui.press(*"Ada", "tab", *"Bob", "enter")
        await ui.pilot.pause()
        assert ui.series.variant is CLASSIC
    async with start(variant="classic", player1="Ada", player2="Bob", **files(tmp_path)) as ui:
        assert ui.series.variant is CLASSIC


async def test_a_game_the_settings_do_not_know_is_said_and_classic_offered(
    start: Start, tmp_path: Path
) -> None:
    remember(tmp_path, "chess")
    async with start(notifications=True, **files(tmp_path)) as ui:
        await ui.pilot.pause()
        assert pressed(ui, "game") == "game-classic"
        assert any("variant the game does not know" in toast for toast in ui.toasts()), ui.toasts()


# The computer in either seat, from the command line.


def test_the_command_line_seats_the_computer_in_either_place() -> None:
    both = parse_config(["--player1-computer", "easy", "--player2-computer", "hard"])
    series = both.initial_series()
    assert series is not None and series.computers_only
    assert [player.level for player in series.players] == [Level.EASY, Level.HARD]
    first = parse_config(["--player1-computer", "hard", "--player2", "Bob"]).initial_series()
    assert first is not None and first.players == (Player("Computer", Level.HARD), Player("Bob"))
    second = parse_config(["--player2-computer", "medium"])
    assert second == parse_config(["--vs", "computer", "--level", "medium"])
    assert second.initial_series() is None, "player 1's name is asked on the new-game screen"
    again = parse_config(game_options(both))
    assert (again.player1_level, again.level) == (Level.EASY, Level.HARD)


@pytest.mark.parametrize(
    "argv",
    [
        ["--player1-computer", "easy", "--player1", "Ada"],
        ["--player2-computer", "easy", "--player2", "Bob"],
        ["--player2-computer", "easy", "--vs", "person"],
        ["--player2-computer", "easy", "--level", "hard"],
        ["--player1-computer", "clever"],
    ],
    ids=" ".join,
)
def test_what_cannot_go_with_a_computer_seat_is_refused_in_one_sentence(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_config(argv)
    assert exit_info.value.code == 2
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said.startswith("tictactoe: error:") and "Traceback" not in said, said


# The computer against itself, on the screen.


@pytest.mark.parametrize(
    ("variant", "levels"),
    [("classic", (Level.HARD, Level.EASY)), ("ultimate", (Level.MEDIUM, Level.EASY))],
)
async def test_the_computer_against_itself_plays_to_the_end_of_a_match_and_a_key_ends_it(
    start: Start, tmp_path: Path, variant: str, levels: tuple[Level, Level]
) -> None:
    first, second = levels
    async with start(variant=variant, player1_level=first, level=second, **files(tmp_path)) as ui:
        assert ui.series.computers_only
        assert "Any key ends the series" in " ".join(ui.status().split())
        await running_until(ui, lambda: ui.series.played >= 1, "the end of a match", ui.status)
        await ui.press("5")
        await running_until(ui, lambda: not ui.app.is_running, "the app's end", ui.status)
    ended = ui.app.return_value
    assert ended is not None and ended.played >= 1 and ended.computers_only
    assert not (tmp_path / "record.sqlite3").exists(), "nothing of a show is recorded"


async def test_while_the_computer_plays_itself_every_status_says_what_a_key_does() -> None:
    """Its own words ("Computer 1 chose O.", a move) and the state alike: the line that says a
    key ends the series stays under them. Every status is read as the screen is told it, from
    the screen's first message on, before its table starts (watching once the app was up missed
    the first, short-lived ones on a busy machine, where starting outlasted the computer's
    pause: so the pause here is the shortest there is)."""
    seen: list[str] = []
    app = TicTacToeApp(make_config(player1_level=Level.EASY, level=Level.EASY, computer_delay=0))
    watched: list[GameScreen] = []

    def watch_from_the_start(_message: Message) -> None:
        stack = app.screen_stack
        if watched or not stack or not isinstance(game := stack[-1], GameScreen):
            return
        watched.append(game)

        def shown(_told: object) -> None:
            seen.append(" ".join(painted(game.query_one("#status")).split()))

        for told in ("notice", "series"):
            game.watch(game, told, shown, init=False)

    async with app.run_test(size=SIZE, message_hook=watch_from_the_start) as pilot:
        ui = Driver(app, pilot)
        await running_until(ui, lambda: ui.series.played >= 1, "the end of a match", ui.status)
        await ui.press("q")
    assert watched, "no game screen was shown"
    assert any("chose" in status for status in seen), seen
    assert all("Any key ends" in status for status in seen), seen


async def test_q_leaves_at_once_while_the_computer_searches_against_itself(start: Start) -> None:
    async with start(variant="ultimate", player1_level=Level.HARD, level=Level.HARD) as ui:
        await running_until(ui, lambda: ui.series.match is not None, "the first match", ui.status)
        await ui.press("q")
        await running_until(ui, lambda: not ui.app.is_running, "the app's end", ui.status)


async def test_computer_against_computer_chosen_on_the_new_game_screen(start: Start) -> None:
    async with start(computer_delay=60) as ui:
        await ui.press("tab", "tab", *["down"] * 5, "enter")  # the last opponent
        await ui.pilot.pause()
        screen = ui.app.screen
        assert isinstance(screen, NewGameScreen) and screen.computers
        assert not screen.query_one("#player-1").display, "no names to ask"
        await ui.press("shift+tab", "left", "enter")  # player 2's computer: medium, not hard
        await ui.press("shift+tab", "left", "enter")  # player 1's: easy, not medium
        await ui.press("ctrl+s")
        await ui.pilot.pause()
        assert [player.level for player in ui.series.players] == [Level.EASY, Level.MEDIUM]
        assert ui.series.computers_only and ui.series.variant is CLASSIC
        assert "Computer 1 is choosing a mark" in ui.status()
        await ui.press("x")
        await running_until(ui, lambda: not ui.app.is_running, "the app's end", ui.status)


async def test_player_1s_computer_alone_on_the_command_line_opens_the_screen_on_it(
    start: Start,
) -> None:
    async with start(player1_level=Level.EASY, computer_delay=60) as ui:
        screen = ui.app.screen
        assert isinstance(screen, NewGameScreen) and screen.computers
        assert not screen.query_one("#player-1").display
        assert not screen.query_one("#player-2").display
        assert pressed(ui, "level-1") == "level-1-easy"
        assert ui.app.focused is screen.query_one("#level-1")
        await ui.press("ctrl+s")
        await ui.pilot.pause()
        assert [player.level for player in ui.series.players] == [Level.EASY, Level.HARD]


class _StopsAfterAMatch(io.StringIO):
    """What the line mode says; once it says a match was played, a line is typed."""

    def __init__(self, typing: int) -> None:
        super().__init__()
        self.typing = typing

    def write(self, text: str) -> int:
        if "1 match played" in text and self.typing >= 0:
            os.write(self.typing, b"\n")
            os.close(self.typing)
            self.typing = -1
        return super().write(text)


def test_in_the_line_mode_the_computer_plays_itself_until_a_line_is_typed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    reading, typing = os.pipe()
    config = parse_config(["--player1-computer", "easy", "--player2-computer", "hard"])
    out = _StopsAfterAMatch(typing)
    with os.fdopen(reading, encoding="utf-8") as source:
        status = play_lines(replace(config, computer_delay=0, save=False), source, out)
    said = out.getvalue()
    assert status == 0, said
    assert "The computer plays itself: any line ends the series with the score." in said
    assert "next match" not in said, said
    assert "; 1 match played." in said, said[-300:]
    assert "Final score" in capsys.readouterr().out
