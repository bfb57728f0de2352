"""A session of the line view: the series at a local table, a line read at a time, the record.

Standard input is read a line at a time by a thread of its own (so that any terminal, pipe or
console works alike), and each line is handed to the view on the loop, in the order typed. The
end of input is `q`. Every finished match is handed to the game record, as the full-screen game
does; the final score is printed as it prints it.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import sys
import threading
from typing import Final, TextIO

from tictactoe.config import GameConfig
from tictactoe.core.ai import Level
from tictactoe.core.keys import KeyLayout
from tictactoe.core.names import DEFAULT_NAMES, clean_name
from tictactoe.core.series import NameClash, Player, Series
from tictactoe.lines.view import LineView
from tictactoe.process import signals_stop, signals_wake
from tictactoe.record import GameRecord, MatchRecord
from tictactoe.report import tell_the_end
from tictactoe.settings import SettingsStore
from tictactoe.tui.table import LocalTable

__all__ = ["LineSession", "plain_streams", "play_lines"]

UNSAVED: Final = 3
"""The exit status when finished matches could not be saved (as the full-screen game's)."""

_LEVELS: Final = {"e": Level.EASY, "m": Level.MEDIUM, "h": Level.HARD}

MOST_WAITING: Final = 64
"""Lines read and not yet answered, at most (a flood of lines, read and queued as it came, grew a
game by hundreds of megabytes). Past them, from a terminal, the lines are a paste that nobody
types: of those read before the game has taken the rest, only the last is kept, and a line
typed after the paste is answered at once. From a pipe (a script) the reading waits, and so
does the writer."""


def play_lines(config: GameConfig, source: TextIO | None = None, out: TextIO | None = None) -> int:
    """Play line by line on `source` and `out` (standard input and output); the exit status."""
    session = _Session(config, *plain_streams(source, out))
    with signals_stop(session.stop):
        return asyncio.run(session.run())


def plain_streams(source: TextIO | None, out: TextIO | None) -> tuple[TextIO, TextIO]:
    """`source` and `out`, or standard input and output, set to take any byte and name."""
    if source is None and isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")  # a byte that is no character is one '?'
    if out is None and isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="replace")  # a name the terminal cannot show
    return source or sys.stdin, out or sys.stdout


class LineSession:
    """Lines read from `source` by a thread of their own, handed to the loop in the order
    typed, at most `MOST_WAITING` at a time (then, from a terminal, only the last line read past
    them); sentences written to `out`. `stop` ends the reading (a signal, or `q`)."""

    def __init__(self, source: TextIO, out: TextIO) -> None:
        self.source = source
        self.out = out
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        self.status: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiting = 0
        """Lines handed to the loop and not yet taken."""
        self._past_room: str | None = None
        """From a terminal, the last line read past `MOST_WAITING` (taken after them)."""
        self._taken = threading.Condition()
        """Guards the two above; told when a line is taken."""

    def stop(self, status: int = 0) -> None:
        """Leave with `status` (a signal's, or 0 for `q`)."""
        if self.status is None:
            self.status = status
        self.lines.put_nowait(None)

    def say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    async def line(self) -> str | None:
        """The next line typed, or None at the end of input (or once leaving)."""
        if self.status is not None:
            return None
        with self._taken:
            if self._waiting == 0 and (past := self._past_room) is not None:
                self._past_room = None
                return past
        line = await self.lines.get()
        if line is not None:
            with self._taken:
                self._waiting -= 1
                self._taken.notify()
        return line

    def start_reading(self) -> None:
        """Read standard input from now on (on the running loop)."""
        self._loop = loop = asyncio.get_running_loop()
        signals_wake(loop)
        threading.Thread(target=self._read, name="lines", daemon=True).start()

    async def ask(self, question: str) -> str | None:
        """The line typed after `question`, without its line end; None at the end of input."""
        self.say(question)
        line = await self.line()
        return None if line is None else line.rstrip("\r\n")

    def _read(self) -> None:
        """Standard input, a line at a time, onto the loop; None at its end."""
        assert self._loop is not None
        typed = False
        with contextlib.suppress(OSError, ValueError):
            typed = self.source.isatty()
        with contextlib.suppress(OSError, ValueError):
            for raw in iter(self.source.readline, ""):
                with self._taken:
                    if typed and (self._waiting >= MOST_WAITING or self._past_room is not None):
                        self._past_room = raw
                        continue
                    while self._waiting >= MOST_WAITING:
                        self._taken.wait(0.5)
                        if self.status is not None:  # leaving: nobody takes lines any more
                            return
                    self._waiting += 1
                self._loop.call_soon_threadsafe(self.lines.put_nowait, raw)
        with contextlib.suppress(RuntimeError):  # the loop has closed
            self._loop.call_soon_threadsafe(self.lines.put_nowait, None)  # the end: as q


class _Session(LineSession):
    def __init__(self, config: GameConfig, source: TextIO, out: TextIO) -> None:
        super().__init__(source, out)
        self.config = config
        self.record = GameRecord(config.record_path(), legacy=config.legacy_path())
        self._recorded = 0

    async def run(self) -> int:
        self.start_reading()
        series = await self._series()
        if series is not None:
            table = LocalTable(series, computer_delay=self.config.computer_delay)
            layout = self.config.keys or KeyLayout.NUMPAD
            view = LineView(table, self.out, layout, self.stop, full_screen=self._full_screen)
            table.attach(view)
            table.ends_with(lambda: self.status is not None)
            view.start(series)
            while (line := await self.line()) is not None:
                view.read(line)
                self._keep(table.series)
            series = table.series
            self._keep(series)
        self.record.finish()
        tell_the_end(series, "", self.record.unsaved, self.record.path)
        if self.status:
            return self.status
        return UNSAVED if self.record.unsaved else 0

    def _full_screen(self) -> list[str]:
        """`f`: the line mode, a setting, is turned off for the next start."""
        settings = SettingsStore(self.config.settings_path())
        settings.load()
        problems = settings.update(plain=False)
        return problems or ["The next game starts on the full screen."]

    def _keep(self, series: Series) -> None:
        """Hand each finished match not handed yet to the record."""
        for finished in series.finished[self._recorded :]:
            self.record.queue(MatchRecord.of(series.players, finished))
            self._recorded += 1

    async def _series(self) -> Series | None:
        """The series the options name, or the one the person names, line by line."""
        try:
            series = self.config.initial_series()
        except NameClash as clash:
            self.say(" ".join(clash.args))
            return None
        if series is not None:
            return series
        typed = await self.ask(f"Player 1's name (Enter: {DEFAULT_NAMES[0]}):")
        if typed is None:
            return None
        first = clean_name(typed, DEFAULT_NAMES[0])
        while True:
            against = await self.ask(
                "Against whom? p: a person here; e, m or h: the computer, easy, medium or hard:"
            )
            if against is None:
                return None
            against = against.strip().lower()
            if against in _LEVELS:
                return Series.new(first, Player.computer(_LEVELS[against]))
            if against == "p":
                break
        while True:
            typed = await self.ask(f"Player 2's name (Enter: {DEFAULT_NAMES[1]}):")
            if typed is None:
                return None
            try:
                return Series.new(first, clean_name(typed, DEFAULT_NAMES[1]))
            except NameClash as clash:
                self.say(" ".join(clash.args))
