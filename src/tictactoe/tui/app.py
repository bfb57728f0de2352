"""The Textual application: a thin shell that starts the screens and ends the session."""

from __future__ import annotations

import asyncio
import gc
import random
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from platformdirs import user_downloads_path, user_log_path
from rich.console import RenderableType
from textual import events
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.command import CommandPalette
from textual.css.query import NoMatches
from textual.driver import Driver
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import ThemeProvider
from textual.timer import Timer
from textual.widgets import Input

from tictactoe.adapters.crash import CrashReporting
from tictactoe.config import GameConfig
from tictactoe.core.keys import KeyLayout
from tictactoe.core.labels import side_by_side
from tictactoe.core.series import Series
from tictactoe.play.table import LocalTable
from tictactoe.process import signals_wake
from tictactoe.served import is_served
from tictactoe.settings import SettingsStore
from tictactoe.tui.commands import game_commands, while_running
from tictactoe.tui.crash_log import append_details
from tictactoe.tui.dismissal import Palette
from tictactoe.tui.pointer import on_a_widget_gone
from tictactoe.tui.screens.game import CHORES_AFTER, GameScreen
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen
from tictactoe.tui.terminal_cursor import TerminalCursor
from tictactoe.tui.theme_lines import with_lines
from tictactoe.tui.widgets.too_small import MIN_HEIGHT, MIN_WIDTH

if TYPE_CHECKING:
    from tictactoe.record import GameRecord
    from tictactoe.tui.screens.new_game import FriendOnline

__all__ = ["CRASH_LOG", "TicTacToeApp", "with_lines"]

CRASH_LOG = user_log_path("tictactoe") / "crash.log"
"""Where the details of an unexpected error go, instead of onto the player's screen."""

RECORD_SHOWN_WITHIN = 1.0
"""Seconds `s` waits for the matches being written before it shows the record anyway."""


def write_crash_log(details: Sequence[RenderableType]) -> bool:
    """Add an unexpected error's details to `CRASH_LOG`; whether they could be written."""
    return append_details(CRASH_LOG, details)


class TicTacToeApp(CrashReporting[Series | None]):
    """Tic-tac-toe in the terminal. `run()` returns the final series, for the score."""

    CSS_PATH = "app.tcss"
    TITLE = "Tic-tac-toe"
    HORIZONTAL_BREAKPOINTS = [  # noqa: RUF012 - App declares it as an instance variable
        (0, "-too-narrow"),
        (MIN_WIDTH, "-narrow"),
        (80, "-wide"),
    ]
    """Below the minimum width every screen shows only its `TooSmall` line."""
    VERTICAL_BREAKPOINTS = [  # noqa: RUF012
        (0, "-too-short"),
        (MIN_HEIGHT, "-short"),
        (28, "-tall"),
    ]
    # ctrl+q is priority as in Textual's own App: it quits whatever has the focus.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True, show=False),
        Binding("f1", "help", "Help", show=False),
    ]

    def __init__(self, config: GameConfig | None = None) -> None:
        super().__init__()
        self.config = config or GameConfig()
        """How this session was set up."""
        self.rng = random.Random(self.config.seed)
        self._game_record: GameRecord | None = None
        self.settings = SettingsStore(self.config.settings_path())
        """Theme and digit layout, remembered across runs."""
        self._recorded = 0
        """How many matches of the series have been handed to the record."""
        self._record_news: Timer | None = None
        """Asks the record's writer thread for its notices while it has work."""
        self._unsaved = 0
        """Matches the record had not saved yet when last asked."""
        self._palette_search: str | None = None
        """What was typed in the command palette a too-small terminal closed, to open it again
        with once the terminal is large enough; None when there is none to open."""
        self._notified: dict[tuple[str, str, str], float] = {}
        """The notifications on show, and when each goes (`time.monotonic`)."""
        self._notified_lock = threading.Lock()
        self.series: Series | None = None
        """The series as of its start or its last finished match: the score to print,
        however the session ends (an unexpected error included)."""
        self._leaving = False
        """Whether the session is ending already: a later signal changes nothing."""
        self.friend_online: FriendOnline | None = None
        """Set when the new-game screen chose to host a series for a friend online."""
        self._warnings: list[str] = []
        """What loading the settings had to say, told once the screen is up."""
        self.terminal_cursor = TerminalCursor(self, wanted=self.config.show_cursor)
        """The terminal's own cursor, shown on the board when asked for."""

    @property
    def record(self) -> GameRecord:
        """Every finished match; made when first needed (a match ends, or `s`), not at
        start-up: its module brings SQLite, and its file is opened only then."""
        if self._game_record is None:
            from tictactoe.record import GameRecord

            self._game_record = GameRecord(
                self.config.record_path(), legacy=self.config.legacy_path()
            )
        return self._game_record

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver; on Linux and macOS, one that knows when the terminal has gone."""
        driver = super().get_driver_class()
        if sys.platform != "win32":
            from textual.drivers.linux_driver import LinuxDriver

            if driver is LinuxDriver:
                from tictactoe.adapters.terminal_driver import TerminalDriver

                return TerminalDriver
        return driver

    def on_load(self) -> None:
        signals_wake(asyncio.get_running_loop())  # before Textual starts its threads
        self._warnings = self.settings.load()
        theme = self.settings.settings.theme
        if theme in self.available_themes:
            self.theme = theme  # before anything is styled
        self.terminal_cursor.wanted = self.config.show_cursor or self.settings.settings.cursor

    def on_resize(self, event: events.Resize) -> None:
        """Below the minimum size the command palette (which has no line of its own to show
        instead) closes, and the screen under it shows its one line; once the terminal is
        large enough again, it opens again with the search that was typed in it."""
        small = self._too_small(event.size.width, event.size.height)
        if small and isinstance(self.screen, CommandPalette):
            self._palette_search = self.screen.query_one(Input).value
            self.screen.dismiss()
        elif not small and self._palette_search is not None:
            search, self._palette_search = self._palette_search, None
            self.action_command_palette()
            self.call_after_refresh(self._search_palette, search)

    def action_command_palette(self) -> None:
        """Textual's command palette, dismissed once (`Palette`)."""
        if self.use_command_palette and not isinstance(self.screen, CommandPalette):
            self.push_screen(Palette(id="--command-palette"))

    def search_themes(self) -> None:
        """The palette's Theme: Textual's search of the themes, dismissed once (`Palette`)."""
        self.push_screen(Palette(providers=[ThemeProvider], placeholder="Search for themes…"))

    def _search_palette(self, search: str) -> None:
        if isinstance(self.screen, CommandPalette):
            field = self.screen.query_one(Input)
            field.value = search
            field.cursor_position = len(search)

    @staticmethod
    def _too_small(width: int, height: int) -> bool:
        return width < MIN_WIDTH or height < MIN_HEIGHT

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The command palette does not open below the minimum size; while the computer plays
        itself, any key ends it, and the footer offers `q` alone."""
        if action == "command_palette" and self._too_small(*self.size):
            return False
        if self._watching and action in ("show_record", "help"):
            return False
        return super().check_action(action, parameters)

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        self.screen_change_signal.subscribe(self, self.terminal_cursor.update)
        self._warn(self._warnings)
        self.begin()

    def begin(self) -> None:
        """The first screen: the game when the command line named the players, else the
        new-game screen (the game it offers first: --variant's, else the one last chosen)."""
        remembered = self.settings.settings.variant
        series = self.config.initial_series(remembered)
        if series is None:
            from tictactoe.tui.screens.new_game import NewGameScreen  # only when names are asked

            relay, online = self.settings.settings.relay or "", not is_served()
            screen = NewGameScreen(self.config, online=online, relay=relay, variant=remembered)
            self.push_screen(screen, self._chosen)
        else:
            self._play(series)

    def _chosen(self, series: Series | FriendOnline | None) -> None:
        """The new-game screen's answer: the game it chose is remembered for next time."""
        if isinstance(series, Series):
            self._warn(self.settings.update(variant=series.variant.name))
        self._play(series)

    def on_ready(self) -> None:
        """What exists by now lives all session: keep the collector's passes off it, and
        turn the collector back on (`python -m tictactoe` starts with it off)."""
        gc.freeze()
        gc.enable()

    def _play(self, series: Series | FriendOnline | None) -> None:
        if series is not None and not isinstance(series, Series):
            self.friend_online = series  # the command goes on as `tictactoe host`
            self.exit(None)
            return
        if series is None:
            self.exit(None)
            return
        self.series = series
        self.push_screen(self._game_screen(series))

    def _game_screen(self, series: Series) -> GameScreen:
        table = LocalTable(series, computer_delay=self.config.computer_delay, rng=self.rng)
        table.ends_with(lambda: self.return_code is not None)
        return GameScreen(table, layout=self.key_layout)

    @property
    def key_layout(self) -> KeyLayout:
        """The layout asked for: on the command line, else in the settings, else the numpad's."""
        return self.config.keys or self.settings.settings.keys or KeyLayout.NUMPAD

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Show a notification unless the very same one is on show: Textual's does not
        de-duplicate, and a refused key pressed seven times would pile seven toasts."""
        timeout = self.NOTIFICATION_TIMEOUT if timeout is None else timeout
        now = time.monotonic()
        with self._notified_lock:  # Textual's notify is thread-safe: this override stays so
            self._notified = {key: until for key, until in self._notified.items() if until > now}
            key = (message, title, severity)
            if key in self._notified:
                return
            self._notified[key] = now + timeout
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def get_css_variables(self) -> dict[str, str]:
        """Textual's variables for the theme, and those app.tcss adds (`with_lines`)."""
        return with_lines(super().get_css_variables(), dark=self.current_theme.dark)

    def _warn(self, warnings: Iterable[str]) -> None:
        for warning in warnings:
            self.notify(warning, title="Saved data", severity="warning", timeout=10, markup=False)

    def _remember_theme(self, _theme: object) -> None:
        self._warn(self.settings.update(theme=self.theme))

    async def on_game_screen_mark_wanted(self, _event: GameScreen.MarkWanted) -> None:
        """Ask the chooser for a mark, unless a mark typed ahead has settled it already.

        The dialog is opened here, on the app's queue, so its answer is delivered there too:
        right after the key that gave it, before the next key is read.
        """
        game = self.game_screen
        chooser = game.series.person_choosing if game else None
        if game is None or chooser is None or isinstance(self.screen, MarkChoiceScreen):
            return
        # A person called like the computer is asked as "Computer (person)": told apart by kind.
        name = side_by_side(game.series.players)[game.series.chooser]
        await self.push_screen(MarkChoiceScreen(name), game.choose_mark)

    def stop(self, status: int) -> None:
        """End the session for a signal (or the terminal gone), leaving `status`.

        What is finished is recorded and the score printed, as on quitting; the first
        reason to leave is the one that counts.
        """
        if self._leaving:
            return
        game = self.game_screen
        self.exit(game.series if game else None, return_code=status)

    def exit(
        self,
        result: Series | None = None,
        return_code: int = 0,
        message: RenderableType | None = None,
    ) -> None:
        """End the session; every finished match of `result` is recorded first (and those
        not saved earlier get one more try): every way out (q, ctrl+q, the dialog's
        Quit, a signal) comes through here, and the score printed is the score saved."""
        self._leaving = True
        if isinstance(result, Series):  # (test tools exit with other results)
            self.series = result
            self._record(result)
        if self._game_record is not None:
            self._game_record.finish()  # waits a bounded time for what is being written
        super().exit(result, return_code, message)

    def on_descendant_focus(self) -> None:
        self.terminal_cursor.update()  # (and on blur: Textual's order of the two may vary)

    on_descendant_blur = on_descendant_focus

    @property
    def leaving(self) -> bool:
        """Whether the session is ending: what input or a command asks now changes nothing."""
        return self._leaving

    async def on_event(self, event: events.Event) -> None:
        """Once the session is ending, input still on its way changes nothing: Textual
        still delivers it after `exit` (to screens being closed), and the score printed is
        the score shown. A press on a widget that has just left the screen is dropped
        (`on_a_widget_gone`)."""
        if self._leaving and isinstance(event, events.InputEvent):
            return
        if on_a_widget_gone(self, event):
            return
        if isinstance(event, events.Key) and self._watching:
            await self.action_quit()  # any key ends a series the computer plays alone
            return
        await super().on_event(event)

    @property
    def _watching(self) -> bool:
        """Whether the screen on top shows a series nobody plays: the computer against itself."""
        return isinstance(self.screen, GameScreen) and self.screen.series.computers_only

    def is_expected_error(self, error: Exception) -> bool:
        """`NoMatches` while a signal tears the screens down is expected: a widget being
        torn down (Textual's `Header` among them) looks for parts already gone, and the
        signal's status stands. Anything else is a real error."""
        return isinstance(error, NoMatches) and self._leaving and (self.return_code or 0) >= 128

    @property
    def unsaved_matches(self) -> int:
        """Finished matches meant for the record file that are not in it (yet)."""
        return 0 if self._game_record is None else self._game_record.unsaved

    def report_crash(self, details: Sequence[RenderableType]) -> None:
        """An unexpected error: the details go to a log file, a plain sentence to the terminal.

        (Textual would print a traceback; a player should never see one.)
        """
        where = (
            f"The details are in {CRASH_LOG}."
            if write_crash_log(details)
            else "The details could not be written down."
        )
        if self.series is not None:  # a match that ended a moment before: not handed over yet
            self._record(self.series)
        if self._game_record is not None:
            self._game_record.finish()
        unsaved = self.unsaved_matches
        saved = (
            "finished matches are saved"
            if not unsaved
            else f"{unsaved} finished match{'' if unsaved == 1 else 'es'} could not be saved"
        )
        print(f"tictactoe stopped after an unexpected error; {saved}. {where}", file=sys.stderr)

    @property
    def game_screen(self) -> GameScreen | None:
        """The game's screen, once a series has begun."""
        for screen in self.screen_stack:
            if isinstance(screen, GameScreen):
                return screen
        return None

    def on_game_screen_match_finished(self, event: GameScreen.MatchFinished) -> None:
        """Keep the finished match in the game record, once the move's frame is out
        (`CHORES_AFTER`)."""
        self.series = event.series
        self.set_timer(CHORES_AFTER, partial(self._record, event.series))

    def _record(self, series: Series) -> None:
        """Record each finished match of `series` not recorded yet (in order, once each).

        Called when a match ends and again on the way out, so a match that ended just
        before a quit (both typed in one burst) is never lost. The record's own thread
        writes them: the game goes on at once, whatever the file does.
        """
        for finished in series.finished[self._recorded :]:
            if series.recorded:
                self.record.queue(finished)
            self._recorded += 1
        self._hear_from_record()
        record = self._game_record
        if self._record_news is None and not self._leaving and record and record.busy:
            self._record_news = self.set_interval(0.2, self._hear_from_record)

    def _hear_from_record(self) -> None:
        """Tell what the record had to say; stop asking once its writer has no more work."""
        record = self._game_record
        if record is None:
            return
        self._warn(record.take_notices())
        saved_since = record.unsaved < self._unsaved
        self._unsaved = record.unsaved
        if saved_since and "tictactoe.tui.screens.record" in sys.modules:
            from tictactoe.tui.screens.record import RecordScreen  # open already, if anywhere

            for screen in self.screen_stack:
                if isinstance(screen, RecordScreen):
                    screen.reload()  # it opened before these matches were in the file
        if self._record_news is not None and not record.busy:
            self._record_news.stop()
            self._record_news = None

    async def action_quit(self) -> None:
        """Leave through the table (`q`, the mark dialog's Quit, ctrl+q): every key typed
        before this has been applied; the score of the series it gives is printed."""
        game = self.game_screen
        self.exit((await game.table.leave()).series if game else None)

    async def action_help(self) -> None:
        """Open the help; awaited, so that the keys typed after `?` find it on top."""
        from tictactoe.tui.screens.help import HelpScreen  # imported when first asked for

        if not isinstance(self.screen, HelpScreen):
            await self.push_screen(HelpScreen())

    async def action_show_record(self) -> None:
        """Open the record; awaited, so that the keys typed after `s` find it on top."""
        from tictactoe.tui.screens.record import RecordScreen  # imported when first asked for

        if isinstance(self.screen, RecordScreen):
            return
        game = self.game_screen
        if game is not None:
            self._record(game.series)  # a match ended by the key before `s`, typed with it
        # The file opened (an earlier version's brought up to date) and what its own thread
        # is writing let finish, off this thread, unless another program holds the file's
        # lock (the screen then says what is not saved yet, and reads again once it is).
        await asyncio.to_thread(self.record.ready, RECORD_SHOWN_WITHIN)
        await self.push_screen(
            RecordScreen(self.record, game.series if game else None, warn=self._warn)
        )

    def action_toggle_keys(self) -> None:
        game = self.game_screen
        if game is not None:
            game.key_layout = game.key_layout.other
            self._warn(self.settings.update(keys=game.key_layout))
            self.notify(f"Digit keys now use the {game.key_layout} layout.")

    def deliver_screenshot(
        self,
        filename: str | None = None,
        path: str | None = None,
        time_format: str | None = None,
    ) -> str | None:
        """The palette's Screenshot: saved in the user's download folder when there is one,
        else in the current folder (Textual would fail without a download folder); the
        notice that follows says where."""
        if path is None:
            downloads = user_downloads_path()
            path = str(downloads if downloads.is_dir() else Path.cwd())
        return super().deliver_screenshot(filename, path, time_format)

    def action_plain_next_time(self) -> None:
        """The palette's line mode: remembered, so that the next game starts line by line."""
        self._warn(self.settings.update(plain=True))
        self.notify(
            "The next game starts line by line; there, f and Enter brings the full screen back.",
            markup=False,
        )

    def action_toggle_cursor(self) -> None:
        """The palette's terminal cursor: shown on the board's cursor cell, or not; remembered."""
        self._warn(self.settings.update(cursor=self.terminal_cursor.toggle()))
        self.notify(self.terminal_cursor.told(), markup=False)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's commands and the game's (`commands`), none acting once the session ends."""
        for command in (*super().get_system_commands(screen), *game_commands(self)):
            yield while_running(self, command)
