"""Leaving while input is still on its way: keys typed after the way out do nothing."""

from __future__ import annotations

from textual import events
from textual.widgets import Button

from app.conftest import HOT_SEAT, Start
from tictactoe.core.series import Series
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen


async def test_a_digit_typed_right_after_a_click_on_the_dialogs_quit_does_nothing(
    start: Start,
) -> None:
    """A click on the mark dialog's Quit and a digit arrive together, as a terminal sends
    type-ahead; the test leaves as soon as the app has begun to exit, and Textual shuts the
    app down with the digit still on its way through the screens. (It crashed: no screens
    on stack, from the app's key bindings.)"""
    async with start(size=(80, 24), **HOT_SEAT) as ui:
        app = ui.app
        assert isinstance(app.screen, MarkChoiceScreen)
        region = app.screen.query_one("#quit", Button).region
        x, y = region.x + region.width // 2, region.y + region.height // 2
        for press in (events.MouseDown, events.MouseUp):
            app.post_message(press(None, x, y, 0, 0, 1, False, False, False, x, y))
        app.post_message(events.Key("4", "4"))
        for _ in range(100):
            if app.return_code is not None:
                break
            await ui.pilot.pause(0)
    assert app.return_code == 0
    assert isinstance(app.return_value, Series)
    assert app.return_value.match is None and app.return_value.played == 0


async def test_the_palette_s_keys_run_as_the_game_quits_ends_nothing_with_1(start: Start) -> None:
    """The palette runs the command it was given once it has closed, on the app's queue: a quit
    handled before it (a click on the footer's q in the same read, found by the mouse fuzz) left
    the Keys panel to be mounted on a game screen no longer attached, and the game ended with 1
    (MountError) instead of its score."""
    async with start(size=(80, 24), **HOT_SEAT) as ui:
        app = ui.app
        await ui.press("x")
        commands = {command.title: command for command in app.get_system_commands(app.screen)}
        app.call_later(commands["Keys"].callback)  # as the palette does, once it has closed
        await app.action_quit()  # the quit that came in the same read, handled first
        for _ in range(100):
            if app.return_code is not None:
                break
            await ui.pilot.pause(0)
    assert app.return_code == 0
    assert isinstance(app.return_value, Series)
