"""A session of the line view: the series at a local table, a line read at a time, the record.

Standard input is read a line at a time by a thread of its own (so that any terminal, pipe or
console works alike), and each line is handed to the view on the loop, in the order typed; a
line typed while the computer thinks waits for its move, and so does one typed while a hint is
searched for. While such a search goes on (Ultimate's, up to a second), lines are still read:
`q` leaves at once, the others wait their turn. The end of input is `q`; so is Ctrl-C, with the
status of its signal (130). The questions come in the order of the full-screen new-game
screen: both names, then the opponent; `?` answers each, and a wrong answer is told what is
expected. Every finished match is handed to the game record, as the full-screen game does, and
what the record has to say (a match it cannot write) is said as it happens; the final score is
printed as the full-screen game prints it.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
import sys
import textwrap
import threading
from collections import deque
from collections.abc import Sequence
from typing import Any, Final, TextIO

from tictactoe.config import GameConfig
from tictactoe.core.ai import Level
from tictactoe.core.keys import KeyLayout
from tictactoe.core.names import DEFAULT_NAMES, clean_name, short
from tictactoe.core.narration import LINE
from tictactoe.core.series import NameClash, Player, Series
from tictactoe.lines.record import RecordWords
from tictactoe.lines.typed import quits, reads_record
from tictactoe.lines.view import LineView
from tictactoe.play.table import LocalTable
from tictactoe.process import signals_stop, signals_wake
from tictactoe.record import GameRecord
from tictactoe.report import tell_the_end
from tictactoe.settings import SettingsStore

__all__ = ["LineSession", "plain_streams", "play_lines"]

UNSAVED: Final = 3
"""The exit status when finished matches could not be saved (as the full-screen game's)."""

_LEVELS: Final = {"e": Level.EASY, "m": Level.MEDIUM, "h": Level.HARD}

AGAINST: Final = "Against whom? p: a person here; e, m or h: the computer, easy, medium or hard:"
AGAINST_HELP: Final = (
    "p: Player 2 plays here, at this keyboard. e, m or h: the computer plays,",
    "easy, medium or hard; Player 2's name is then not used.",
    "To play a friend on another machine, start tictactoe host --plain instead.",
)
QUITTING: Final = "Ctrl-D or Ctrl-C leaves."

RECORD_NEWS_EVERY: Final = 0.2
"""Seconds between two looks at what the record has to say while it is writing."""

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
        """Say `text`, each of its lines as it is if it fits `LINE` characters, else on as
        many lines as it takes (a word longer than that, a command to copy, stays whole)."""
        lines = [
            part
            for line in text.splitlines() or [""]
            for part in (
                [line]
                if len(line) <= LINE
                else textwrap.wrap(line, LINE, break_long_words=False, break_on_hyphens=False)
            )
        ]
        self.out.write("".join(line + "\n" for line in lines))
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

    async def ask(self, question: str, help: Sequence[str] = ()) -> str | None:
        """The line typed after `question`, without its line end; None at the end of input.
        With `help`, `?` says it and asks again."""
        while True:
            self.say(question)
            line = await self.line()
            if line is None:
                return None
            if help and line.strip() == "?":
                for text in help:
                    self.say(text)
                continue
            return line.rstrip("\r\n")

    async def ask_name(self, question: str, default: str, *more: str) -> str | None:
        """A name, asked with `question`; Enter alone gives `default`."""
        help = (f"Type a name and Enter; Enter alone: {default}.", *more, QUITTING)
        typed = await self.ask(question, help)
        return None if typed is None else clean_name(typed, default)

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
        self._view: LineView | None = None
        self._changed = asyncio.Event()
        """Set when the table shows a new series, or the session is leaving."""
        self._hearing: asyncio.TimerHandle | None = None
        self._held: deque[str | None] = deque()
        """Lines read while a search went on, to act on once it is done (None: the input's end)."""

    def stop(self, status: int = 0) -> None:
        super().stop(status)
        self._changed.set()

    async def run(self) -> int:
        self.start_reading()
        series = await self._series()
        if series is not None:
            rng = random.Random(self.config.seed)
            table = LocalTable(series, computer_delay=self.config.computer_delay, rng=rng)
            layout = self.config.keys or KeyLayout.NUMPAD
            self._view = view = LineView(
                table,
                self.out,
                layout,
                self.stop,
                full_screen=self._full_screen,
                record=RecordWords(self.record),
                shown=self._changed.set,
            )
            table.attach(view)
            table.ends_with(lambda: self.status is not None)
            view.start(series)
            await self._thought(table, view)
            while (line := await self._next_line()) is not None:
                if reads_record(line):
                    await asyncio.to_thread(RecordWords(self.record).ready)
                view.read(line)
                self._keep(table.series)
                await self._thought(table, view)
            series = table.series
            self._keep(series)
        if self._hearing is not None:
            self._hearing.cancel()
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

    async def _next_line(self) -> str | None:
        """The next line to act on: one held while a search went on, else the next typed."""
        if self._held and self.status is None:
            return self._held.popleft()
        return await self.line()

    async def _thought(self, table: LocalTable, view: LineView) -> None:
        """Wait while the computer thinks, or a hint is searched for: the next line acts on
        the series its move leaves, and is answered after it, in the order typed. While a
        search goes on, the lines typed are read: `q` leaves at once, the others are held
        (`MOST_WAITING` at most: a flood waits where it is, as it does when nobody reads)."""
        reading: asyncio.Future[str | None] | None = None  # the next line, being read
        try:
            while (table.series.awaits_computer or view.searching) and self.status is None:
                self._changed.clear()
                watching = table.series.computers_only  # any line (or the input's end) ends it
                searches = table.series.variant.searches or view.searching or watching
                ended = bool(self._held) and self._held[-1] is None
                if not searches or ended or len(self._held) >= MOST_WAITING:
                    await self._changed.wait()  # (past MOST_WAITING, the reading waits too)
                else:
                    reading = reading or asyncio.ensure_future(self.line())
                    changed = asyncio.ensure_future(self._changed.wait())
                    either: list[asyncio.Future[Any]] = [reading, changed]
                    await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
                    changed.cancel()
                    if reading.done() and watching:
                        self.stop()
                    elif reading.done():
                        self._hold(reading.result())
                        reading = None
                self._keep(table.series)
        finally:
            if reading is not None and reading.done() and not reading.cancelled():
                self._hold(reading.result())  # read as the wait ended another way
            elif reading is not None:
                reading.cancel()  # the line stays in the queue, for the next read
                with contextlib.suppress(asyncio.CancelledError):
                    await reading

    def _hold(self, line: str | None) -> None:
        """A line read while a search goes on: `q` leaves now; another waits for the search."""
        if line is not None and quits(line):
            self.stop()
        else:
            self._held.append(line)

    def _keep(self, series: Series) -> None:
        """Hand each finished match not handed yet to the record, where the record keeps the
        series' matches (`Series.recorded`), and say what it says."""
        for finished in series.finished[self._recorded :]:
            if series.recorded:
                self.record.queue(finished)
            self._recorded += 1
            self._hear_from_record()

    def _hear_from_record(self) -> None:
        """Say what the record has to say (a match it cannot write), as it happens: looked at
        again while its writer has work."""
        self._hearing = None
        lines = [
            line
            for notice in self.record.take_notices()
            for line in textwrap.wrap(notice, LINE, break_long_words=False, break_on_hyphens=False)
        ]
        if self._view is not None:
            self._view.tell(lines)
        if self.record.busy and self.status is None:
            loop = asyncio.get_running_loop()
            self._hearing = loop.call_later(RECORD_NEWS_EVERY, self._hear_from_record)

    async def _series(self) -> Series | None:
        """The series the options name, or the one the person names, line by line, in the order
        of the full-screen new-game screen: both names, then the opponent. Its game is
        --variant's, else the one last chosen on that screen (a setting), else classic."""
        config = self.config
        settings = SettingsStore(config.settings_path())
        settings.load()  # (what is wrong with the file: the full-screen game says it)
        remembered = settings.settings.variant
        game = config.game(remembered)
        try:
            series = config.initial_series(remembered)
        except NameClash as clash:
            self.say(" ".join(clash.args))
            return None
        if series is not None:
            return series
        first = config.player1
        if first is None:
            first = await self.ask_name(
                f"Player 1's name (Enter: {DEFAULT_NAMES[0]}):", DEFAULT_NAMES[0]
            )
            if first is None:
                return None
        level = config.level
        second = config.player2
        if second is None and level is None:
            second = await self.ask_name(
                f"Player 2's name (Enter: {DEFAULT_NAMES[1]}):",
                DEFAULT_NAMES[1],
                "Against the computer, chosen next, this name is not used.",
            )
            if second is None:
                return None
        if level is None:
            against = await self._against()
            if against is None:
                return None
            if against != "p":
                level = _LEVELS[against]
        if level is not None:
            return Series.new(first, Player.computer(level), config.first_move, variant=game)
        assert second is not None
        while True:
            try:
                return Series.new(first, second, config.first_move, variant=game)
            except NameClash as clash:
                self.say(" ".join(clash.args))
            second = await self.ask_name(
                f"Player 2's name (Enter: {DEFAULT_NAMES[1]}):", DEFAULT_NAMES[1]
            )
            if second is None:
                return None

    async def _against(self) -> str | None:
        """The opponent: p (a person here), or e, m or h (the computer at that level)."""
        while True:
            typed = await self.ask(AGAINST, (*AGAINST_HELP, QUITTING))
            if typed is None:
                return None
            answer = typed.strip().lower()
            if answer == "p" or answer in _LEVELS:
                return answer
            said = short(clean_name(typed, ""), 20)
            word = f"{said} is" if said else "That is"
            self.say(f"{word} no answer here: type p, e, m or h and Enter.")
