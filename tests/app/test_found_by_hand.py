"""Defects a new player's hands found in the shell, each kept by a test that failed on it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import platformdirs
import pytest
from textual.command import CommandPalette
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList

from app.conftest import (
    HOT_SEAT,
    SIZE,
    Driver,
    Start,
    make_config,
    painted,
    running_until,
    wait_for_the_computer,
)
from app.test_record_screen import ADA, BOB, DRAW, keep, match, replay, screen
from tictactoe.core.ai import Level
from tictactoe.report import final_score
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.help import HelpScreen
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen
from tictactoe.tui.widgets.history import history_lines
from tictactoe.tui.widgets.scoreboard import PlayerCard

TINY = (40, 12)


async def footer_shows(ui: Driver, *keys: str, not_: tuple[str, ...] = ()) -> None:
    """Wait for the footer to show `keys` and none of `not_`: it follows a match that began or
    ended a moment after, on a timer a busy machine may run late."""

    def shown() -> bool:
        if not isinstance(ui.app.screen, GameScreen | MarkChoiceScreen):
            return False
        words = footer_text(ui.app.screen)
        return all(key in words for key in keys) and not any(key in words for key in not_)

    await running_until(
        ui, shown, f"a footer with {keys} and without {not_}", lambda: footer_text(ui.app.screen)
    )


def footer_text(ui_screen: object) -> str:
    assert isinstance(ui_screen, GameScreen | MarkChoiceScreen)
    keys = ui_screen.query_one(Footer).query("*")
    return " ".join(" ".join(painted(key).split()) for key in keys)


async def test_the_footer_shows_the_game_keys_again_after_the_terminal_was_too_small(
    start: Start,
) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x")
        await ui.pilot.resize_terminal(*TINY)
        await ui.pilot.pause()
        await footer_keys_back_at_full_size(ui)


async def footer_keys_back_at_full_size(ui: Driver) -> None:
    """The terminal grown back to full size: the game's footer shows its keys."""
    await ui.pilot.resize_terminal(*SIZE)
    await footer_shows(ui, "Undo", "Hint", "Quit")


async def test_the_footer_follows_the_size_after_a_dialog_was_on_top_of_the_game(
    start: Start,
) -> None:
    """The footer's keys are asked for again only when the terminal crosses the minimum size:
    a game under a dialog while the terminal shrank, shown again while it is too small (the
    dialog closed by the app, as a click would), shows its keys once the terminal is large
    enough again."""
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "question_mark")
        assert isinstance(ui.app.screen, HelpScreen)
        await ui.pilot.resize_terminal(*TINY)
        await ui.pilot.pause()
        await ui.app.pop_screen()
        await ui.pilot.pause()
        assert isinstance(ui.app.screen, GameScreen)
        assert "Undo" not in footer_text(ui.app.screen)
        await footer_keys_back_at_full_size(ui)


async def test_the_mark_dialog_ignores_its_keys_while_the_terminal_is_too_small(
    start: Start,
) -> None:
    async with start(**HOT_SEAT) as ui:
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        await ui.pilot.resize_terminal(*TINY)
        await ui.pilot.pause()
        await ui.press("x", "o", "q")
        await ui.pilot.resize_terminal(*SIZE)
        await ui.pilot.pause()
        assert ui.app.is_running
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        assert ui.series.match is None


async def test_escape_down_enter_in_one_burst_from_a_replay_opens_the_next_match(
    start: Start, tmp_path: Path
) -> None:
    older = match(ADA, BOB, DRAW, 1)
    newer = match(BOB, ADA, DRAW, 2)
    async with start(**HOT_SEAT, **keep(tmp_path, older, newer)) as ui:
        await ui.burst("x", "s", "m", "enter")
        assert screen(ui).tabs.active == "replay"
        shown = replay(ui).match
        assert shown is not None and shown.players == newer.players
        await ui.burst("escape", "down", "enter")
        assert screen(ui).tabs.active == "replay"
        shown = replay(ui).match
        assert shown is not None and shown.players == older.players


async def test_the_footer_calls_s_the_record_and_the_dialog_shows_its_own_keys(
    start: Start,
) -> None:
    async with start(**HOT_SEAT) as ui:
        on_dialog = footer_text(ui.app.screen)
        assert "Take X" in on_dialog and "Take O" in on_dialog and "Quit" in on_dialog
        assert "Undo" not in on_dialog and "Hint" not in on_dialog
        await ui.press("x")
        await footer_shows(ui, "s Record", not_=("Stats",))


def test_every_key_of_the_game_and_the_dialog_says_what_it_does() -> None:
    """The command palette's list of keys shows each binding's description."""
    for screen_class in (GameScreen, MarkChoiceScreen):
        for binding in screen_class.BINDINGS:
            assert not isinstance(binding, tuple)
            assert binding.description, f"{screen_class.__name__}: {binding.key}"


# Smaller things a player notices (issue 28).


def keys_on_show(ui_screen: object) -> list[str]:
    """The keys the footer of `ui_screen` offers, each as painted ("u Undo")."""
    assert isinstance(ui_screen, Screen)
    keys = ui_screen.query_one(Footer).query("FooterKey")
    return [" ".join(painted(key).split()) for key in keys]


@asynccontextmanager
async def with_toasts(**config: Any) -> AsyncIterator[Driver]:
    """The app with its notifications shown, as a player sees them (Pilot hides them)."""
    app = TicTacToeApp(make_config(**config))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        yield Driver(app, pilot)


async def test_the_same_reminder_pressed_for_again_and_again_shows_once() -> None:
    async with with_toasts(**HOT_SEAT) as ui:
        await ui.press("x", "question_mark")
        await ui.press(*"5555555")
        await ui.pilot.pause()
        toasts = [painted(toast) for toast in ui.app.screen.query("Toast")]
        assert len(toasts) == 1, toasts
        assert "The game waits" in toasts[0]


async def test_the_help_offers_its_own_keys_not_the_games(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "question_mark")
        assert isinstance(ui.app.screen, HelpScreen)
        shown = keys_on_show(ui.app.screen)
        assert shown and all(key.endswith("Close") for key in shown), shown


async def test_next_match_is_offered_only_once_a_match_is_over(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "7")
        assert not any("Next match" in key for key in keys_on_show(ui.game))
        await ui.press("n")
        assert "Finish this match first" in ui.status(), "n still says why not"
        await ui.press("4", "8", "5", "9")
        await running_until(
            ui, lambda: "n Next match" in keys_on_show(ui.game), "n Next match in the footer"
        )
        await ui.press("n")
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        await ui.press("o")
        await footer_shows(ui, "Undo", not_=("Next match",))


async def test_the_replay_footer_gives_escape_one_meaning(start: Start, tmp_path: Path) -> None:
    async with start(**HOT_SEAT, **keep(tmp_path, match(ADA, BOB, DRAW, 1))) as ui:
        await ui.press("x", "s")
        assert "q Close" in keys_on_show(ui.app.screen)  # the record's q closes it, said so
        await ui.press("m", "enter")
        shown = keys_on_show(ui.app.screen)
        escapes = [key for key in shown if key.startswith("esc")]
        assert escapes == ["esc List"], shown
        assert "q Close" in shown
        await ui.press("q")
        assert isinstance(ui.app.screen, GameScreen)


async def test_a_person_called_computer_is_told_apart_from_the_computer(start: Start) -> None:
    async with start(player1="Computer", level=Level.HARD) as ui:
        await ui.press("x", "5")
        await wait_for_the_computer(ui)
        lines = history_lines(ui.series)
        assert lines[0].startswith("1. Computer (person) X")
        assert lines[1].startswith("2. Computer (hard) O")
        first, second = (line.strip(" │") for line in painted(ui.game.history).splitlines()[1:3])
        assert first.startswith("1. Com") and "(person) X centre" in first, first
        assert second.startswith("2. Computer O") and "person" not in second, second
        await ui.press("q")
    score = final_score(ui.app.series or ui.series).splitlines()
    assert score[1].split()[:2] == ["Computer", "(person)"], score
    assert score[2].split()[:2] == ["Computer", "(hard)"], score


def found_commands(ui: Driver) -> int:
    """How many commands the palette on show lists for what was typed."""
    return ui.app.screen.query_one(OptionList).option_count


def on_the_palette(ui: Driver) -> bool:
    return isinstance(ui.app.screen, CommandPalette)


async def test_a_screenshot_goes_to_the_current_folder_without_a_download_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert not platformdirs.user_downloads_path().is_dir()
    async with with_toasts(**HOT_SEAT) as ui:
        await ui.press("x", "ctrl+p")
        await ui.press(*"Screenshot")
        await running_until(
            ui, lambda: ui.app.screen.query_one(OptionList).option_count > 0, "a command"
        )
        await ui.press("enter")
        await running_until(ui, lambda: list(tmp_path.glob("*.svg")), "the screenshot's file")
        (saved,) = tmp_path.glob("*.svg")

        def said() -> list[str]:
            return [" ".join(painted(toast).split()) for toast in ui.app.screen.query("Toast")]

        await running_until(
            ui, lambda: any(saved.name[:12] in text for text in said()), "its toast", said
        )


async def test_a_person_called_computer_is_asked_for_a_mark_and_named_as_a_person(
    start: Start,
) -> None:
    async with start(player1="Computer", level=Level.EASY, seed=1) as ui:
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        question = painted(ui.app.screen.query_one("#question"))
        assert "Computer (person), choose your mark" in question, question
        await ui.press("x")
        assert "Computer (person) (X) to move" in ui.status(), ui.status()
        for key in "123456789":
            if ui.series.match is None or ui.series.match.is_over:
                break
            await ui.press(key)
            await wait_for_the_computer(ui)
        assert ui.series.match is not None and ui.series.match.is_over
        said = {0: "Computer (person) wins!", 1: "Computer (easy) wins!", None: "draw"}
        assert said[ui.series.winner] in ui.status(), ui.status()


async def test_undo_and_hint_leave_the_footer_once_a_match_is_over_and_still_say_why(
    start: Start,
) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x")
        await footer_shows(ui, "Undo", "Hint", not_=("Next match",))
        await ui.press("7", "4", "8", "5", "9")  # X takes the top row
        assert ui.series.winner is not None
        await footer_shows(ui, "Next match", not_=("Undo", "Hint"))
        await ui.press("u")
        assert "can no longer be taken back" in ui.status() or "final" in ui.status()
        await ui.press("h")
        assert "hint" in ui.status().lower(), ui.status()
        await ui.press("n", "x")
        await footer_shows(ui, "Undo", "Hint")


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light", "solarized-light", "nord"])
async def test_the_borders_of_cells_cards_and_moves_stand_out_in_every_theme(
    start: Start, theme: str
) -> None:
    async with start(**HOT_SEAT) as ui:
        ui.app.theme = theme
        await ui.press("x")
        await ui.pilot.pause()
        empty = ui.cell(0).widget
        card = list(ui.game.scoreboard.query(PlayerCard))[1]  # not the one to move
        for widget in (empty, card, ui.game.history):
            _, background = widget.background_colors
            border = background + widget.styles.border_top[1]
            contrast = abs(border.brightness - background.brightness)
            assert contrast >= 0.12, (theme, widget, contrast)


async def test_the_palette_closed_by_a_small_terminal_comes_back_with_its_search(
    start: Start,
) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "ctrl+p")
        await ui.pilot.pause()
        assert isinstance(ui.app.screen, CommandPalette)
        await ui.press(*"Scr")
        await ui.pilot.resize_terminal(*TINY)
        await ui.pilot.pause()
        assert not isinstance(ui.app.screen, CommandPalette)
        await ui.pilot.resize_terminal(*SIZE)
        await running_until(
            ui, lambda: isinstance(ui.app.screen, CommandPalette), "the palette again"
        )
        assert ui.app.screen.query_one(Input).value == "Scr"
        await ui.press("escape")
        await ui.pilot.resize_terminal(*TINY)
        await ui.pilot.pause()
        await ui.pilot.resize_terminal(*SIZE)
        await ui.pilot.pause(0.2)
        assert isinstance(ui.app.screen, GameScreen)  # closed by the player: it stays closed
