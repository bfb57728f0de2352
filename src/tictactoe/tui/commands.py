"""The game's commands in the command palette, and the rule every one of them keeps.

The palette runs the command chosen once it has closed, on the app's queue: a quit that came in
the same read (a click on the footer's q) may be handled first. A command then finds the session
ending (Textual's Keys panel could no longer be mounted, and the game ended with an error), so
once the session is ending a command does nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from textual.app import SystemCommand

from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.terminal_cursor import TerminalCursor

__all__ = ["GameApp", "game_commands", "while_running"]


class GameApp(Protocol):
    """What the commands ask of the game's app (`tictactoe.tui.app.TicTacToeApp`)."""

    terminal_cursor: TerminalCursor

    @property
    def leaving(self) -> bool: ...

    @property
    def game_screen(self) -> GameScreen | None: ...

    def action_toggle_keys(self) -> None: ...

    def action_toggle_cursor(self) -> None: ...

    def action_plain_next_time(self) -> None: ...


def while_running(app: GameApp, command: SystemCommand) -> SystemCommand:
    """`command`, doing nothing once `app`'s session is ending."""
    run = command.callback

    def unless_ending() -> Any:
        return None if app.leaving else run()

    return SystemCommand(command.title, command.help, unless_ending, command.discover)


def game_commands(app: GameApp) -> Iterable[SystemCommand]:
    """The game's own commands: the digit layout, the terminal's cursor, the line mode."""
    game = app.game_screen
    if game is not None:
        other = game.key_layout.other
        yield SystemCommand(
            f"Digit keys: {other} layout",
            "7 8 9 on the top row, like a keypad"
            if other == "numpad"
            else "1 2 3 on the top row, like a phone",
            app.action_toggle_keys,
        )
    yield _cursor_command(app.terminal_cursor.wanted, app.action_toggle_cursor)
    yield SystemCommand(
        "Line by line from the next start",
        "For a screen reader or a braille display: a sentence for each move, read aloud",
        app.action_plain_next_time,
    )


def _cursor_command(shown: bool, toggle: Callable[[], None]) -> SystemCommand:
    if shown:
        return SystemCommand(
            "Terminal cursor: hide", "The board's cursor cell shown by colour alone", toggle
        )
    return SystemCommand(
        "Terminal cursor: show",
        "The terminal's own cursor on the board's cursor cell, for a magnifier to follow",
        toggle,
    )
