"""No click, in any burst, ends or locks the game; a screen is dismissed once.

Clicks go in as a terminal sends them: SGR mouse reports, read by the game's own `KeyReader`
and posted to the app as its driver posts them, several before the app handles any.
"""

from __future__ import annotations

import os
import time

import pytest
from textual.command import CommandPalette
from textual.screen import Screen
from textual.widgets import Footer, Input

from app.conftest import Driver, Start
from app.test_process import Terminal
from app.test_stray_bytes import play, shown
from tictactoe.adapters.terminal_input import KeyReader
from tictactoe.tui.dismissal import DismissedOnce
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.help import HelpScreen
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen


def click_report(x: int, y: int, times: int = 1) -> bytes:
    """`times` clicks of the left button at the cell (x, y), counted from 0, as SGR reports."""
    return b"\x1b[<0;%d;%dM\x1b[<0;%d;%dm" % (x + 1, y + 1, x + 1, y + 1) * times


def post_input(ui: Driver, data: bytes) -> None:
    """Post what a terminal sent as `data` to the app, all of it before the app handles any."""
    for event in KeyReader().feed(data):
        event.set_sender(ui.app)
        ui.app.post_message(event)


async def settled(ui: Driver, seconds: float = 10) -> None:
    """Let the app handle what it was sent (a few rounds of its queue, and paint)."""
    for _ in range(5):
        await ui.pilot.pause()
    assert ui.app.return_code is None, f"the game ended with {ui.app.return_code}"


def assert_game_shown(ui: Driver) -> None:
    """The game's screen is on show, under its dialogs at most, and its footer with it."""
    stack = ui.app.screen_stack
    assert any(isinstance(screen, GameScreen) for screen in stack), stack
    assert ui.app.screen.query(Footer) or ui.game.query_one(Footer).is_on_screen, stack


async def open_palette(ui: Driver, search: str) -> None:
    await ui.press("x", "ctrl+p")
    assert isinstance(ui.app.screen, CommandPalette)
    await ui.press(*search)
    assert ui.app.screen.query_one(Input).value == search


@pytest.mark.parametrize("clicks", [1, 2, 3])
async def test_clicks_in_one_read_on_the_palette_close_it_once(start: Start, clicks: int) -> None:
    """Textual's palette closes on a click on its background, and each click queued behind the
    first closed the screen on top again: two took the game's screen away (a blank screen
    without footer), three left no screen to take (ScreenStackError: the game ended with 1)."""
    async with start(size=(80, 24), player1="Ada", player2="Bob") as ui:
        await open_palette(ui, "zzzz")
        post_input(ui, click_report(41, 16, clicks))
        await settled(ui)
        assert isinstance(ui.app.screen, GameScreen)
        assert_game_shown(ui)
        await ui.press("5")
        assert ui.series.match is not None and ui.series.match.moves[-1:] == (4,)


async def test_a_dialog_dismissed_twice_at_once_closes_once(start: Start) -> None:
    """The mark dialog answered twice before it has gone (X, then O, in one read)."""
    async with start(player1="Ada", player2="Bob") as ui:
        dialog = ui.app.screen
        assert isinstance(dialog, MarkChoiceScreen)
        x_button, o_button = dialog.query_one("#x").region, dialog.query_one("#o").region
        post_input(
            ui,
            click_report(x_button.x + 1, x_button.y + 1, 2)
            + click_report(o_button.x + 1, o_button.y + 1, 2),
        )
        await settled(ui)
        assert isinstance(ui.app.screen, GameScreen)
        assert ui.series.marks is not None
        assert_game_shown(ui)


async def test_every_screen_ignores_a_second_dismissal(start: Start) -> None:
    """A dismissal under way is not started again, whichever screen it is: the help over the
    mark dialog, dismissed twice, leaves the dialog."""
    async with start(player1="Ada", player2="Bob") as ui:
        await ui.press("question_mark")
        help_screen = ui.app.screen
        assert isinstance(help_screen, HelpScreen)
        help_screen.dismiss()
        help_screen.dismiss()
        await settled(ui)
        assert isinstance(ui.app.screen, MarkChoiceScreen)


def every_screen_class() -> list[type[Screen[object]]]:
    """Every screen class of the game's interface (the club's included)."""
    import importlib
    import pkgutil

    import tictactoe.tui.screens

    for module in pkgutil.iter_modules(tictactoe.tui.screens.__path__):
        importlib.import_module(f"tictactoe.tui.screens.{module.name}")
    found: list[type[Screen[object]]] = []
    pending: list[type[Screen[object]]] = [Screen]
    while pending:
        for subclass in pending.pop().__subclasses__():
            pending.append(subclass)
            if subclass.__module__.startswith("tictactoe."):
                found.append(subclass)
    return found


def test_every_screen_of_the_game_is_dismissed_once() -> None:
    """The guard holds for every screen the game has (the club's dialogs and lobby included),
    and for a new one: each takes `DismissedOnce`."""
    screens = every_screen_class()
    assert len(screens) >= 10, screens
    assert [cls for cls in screens if not issubclass(cls, DismissedOnce)] == []


async def test_the_palettes_the_game_opens_are_dismissed_once(start: Start) -> None:
    """The command palette, and the palette of themes its Theme opens (found by the mouse fuzz:
    it was Textual's own, and three clicks on its background ended the game)."""
    async with start(player1="Ada", player2="Bob") as ui:
        await ui.press("x", "ctrl+p")
        assert isinstance(ui.app.screen, DismissedOnce)
        await ui.press("escape")
        ui.app.search_themes()
        await ui.pilot.pause()
        assert isinstance(ui.app.screen, DismissedOnce)
        post_input(ui, click_report(41, 30, 3))
        await settled(ui)
        assert_game_shown(ui)


@pytest.mark.slow  # a real game in a pseudo-terminal
def test_three_clicks_in_one_read_on_the_palette_end_nothing() -> None:
    """The bytes of the report: `ctrl+p`, `zzzz`, then three clicks on the palette's background
    in one read. The game ended with 1 (`ScreenStackError: Can't pop screen`)."""
    game = Terminal("--player1", "Ada", "--player2", "Bob", "--no-save", size=(80, 24))
    shown(game, "choose your mark")
    play(game, b"x", then="Ada (X) to move")
    play(game, b"\x10", b"z", b"z", b"z", b"z", then="zzzz")
    time.sleep(0.5)
    os.write(game.fd, click_report(41, 16, 3))
    time.sleep(0.5)
    assert game.status(block=False) is None, "the game ended"
    play(game, b"5", then="1. Ada X centre")
    os.write(game.fd, b"q")
    assert game.finish() == 0


async def test_clicks_in_one_read_on_a_notice_end_nothing(start: Start) -> None:
    """A notice closes on a click; the next press, in the same read, found it gone from the
    screen but still under the pointer, and Textual's text selection failed on it (the game
    ended with 1)."""
    async with start(player1="Ada", player2="Bob", notifications=True) as ui:
        await ui.press("x")
        ui.app.notify("A notice to click away.")
        await ui.pilot.pause(0.3)
        toast = ui.app.screen.query_one("Toast").region
        post_input(ui, click_report(toast.x + 2, toast.y + 1, 3))
        await settled(ui)
        assert_game_shown(ui)


async def test_a_press_on_a_panel_being_closed_ends_nothing(start: Start) -> None:
    """The palette's Keys panel closed while presses on it were on their way: the panel was gone
    from the screen but still under the pointer, and Textual's text selection failed on it (the
    game ended with 1)."""
    async with start(size=(80, 24), player1="Ada", player2="Bob") as ui:
        await ui.press("x")
        ui.app.action_show_help_panel()
        await ui.pilot.pause()
        keys = ui.app.screen.query_one("BindingsTable").region
        ui.app.action_hide_help_panel()
        post_input(ui, click_report(keys.x + 1, keys.y + 1, 3))
        await settled(ui)
        assert_game_shown(ui)
