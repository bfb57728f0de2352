"""Defects a new player's hands found in the shell, each kept by a test that failed on it."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Footer

from app.conftest import HOT_SEAT, SIZE, Start, painted
from app.test_record_screen import ADA, BOB, DRAW, keep, match, replay, screen
from tictactoe.screens.game import GameScreen
from tictactoe.screens.mark_choice import MarkChoiceScreen

TINY = (40, 12)


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
        await ui.pilot.resize_terminal(*SIZE)
        await ui.pilot.pause()
        shown = footer_text(ui.app.screen)
        assert "Undo" in shown and "Hint" in shown and "Quit" in shown, shown


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
        on_game = footer_text(ui.app.screen)
        assert "s Record" in on_game and "Stats" not in on_game


def test_every_key_of_the_game_and_the_dialog_says_what_it_does() -> None:
    """The command palette's list of keys shows each binding's description."""
    for screen_class in (GameScreen, MarkChoiceScreen):
        for binding in screen_class.BINDINGS:
            assert not isinstance(binding, tuple)
            assert binding.description, f"{screen_class.__name__}: {binding.key}"
