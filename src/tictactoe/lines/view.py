"""What a table tells the line view, said one sentence a line, and what a person types, read.

Nothing is drawn: no escape sequence, no alternate screen, no cursor moved. Each event is one
sentence on a line of its own (`tictactoe.core.narration`), and when a person is to act, a
prompt says so. A line typed is one command (`COMMANDS`): a digit moves, `x` or `o` chooses
a mark, and so on; what does not apply is answered in one sentence saying what is expected now,
and the prompt comes again. Where the session has a game record, `r` says it and `p` replays a
match of it (`tictactoe.lines.record`).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Final, TextIO, TypeVar

from tictactoe.core.engine import Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.narration import NO_CELL, board, introduce, narrate, prompt, score
from tictactoe.core.notices import Notice
from tictactoe.core.series import (
    CellTaken,
    ChooseMark,
    ComputerStep,
    Intent,
    NextMatch,
    Phase,
    Play,
    Series,
    SeriesError,
    Undo,
)
from tictactoe.lines.record import RecordWords, replay_number
from tictactoe.play.table import Table

__all__ = ["COMMANDS", "LineView", "reads_record"]

Done = TypeVar("Done")

COMMANDS: Final = (
    "Type a key and Enter. A digit takes a cell ({layout}: {rows}).",
    "x or o: a mark. n: next match. u: undo. h: hint. b: the board. s: the score.",
)
"""What `?` says: the keys of the line view."""

RECORD_KEYS: Final = "r: the record. p: replay the last match; p 2: the one before, and so on."
"""What `?` adds where the session keeps a game record (`LineView.record`)."""

FULL_SCREEN_KEYS: Final = "f: the full screen from the next start."
"""What `?` adds where the line mode was chosen as a setting (`LineView.full_screen`)."""

LAST_KEYS: Final = "?: these keys. q: quit (Ctrl-C quits too, with status 130)."
"""The last line `?` says."""

_EXPECTED: Final = {
    Phase.CHOOSING: "x or o and Enter chooses a mark",
    Phase.PLAYING: "a digit and Enter takes a cell",
    Phase.OVER: "n and Enter starts the next match",
}
"""What a wrong word is told is expected, when the person is to act."""

_KEYS: Final = {"next_match": ("n",), "quit": ("q",)}
"""The keys that fill a notice's slots here."""

_UNPRINTABLE: Final = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class LineView:
    """A view of a table's series as lines of text on `out`; `quit` is called on `q`."""

    def __init__(
        self,
        table: Table,
        out: TextIO,
        layout: KeyLayout,
        quit: Callable[[], None],
        *,
        full_screen: Callable[[], list[str]] | None = None,
        record: RecordWords | None = None,
        shown: Callable[[], None] | None = None,
    ):
        self.table = table
        self.out = out
        self.layout = layout
        self.quit = quit
        self.full_screen = full_screen
        """`f`: the full screen from the next start (the sentences that say so), where the
        line mode is a setting that may be turned off."""
        self.record = record
        """The game record `r` and `p` read, where the session keeps one."""
        self.shown = shown
        """Called each time the table has shown a new series (the computer's move, say)."""
        self._shown: Series | None = None
        self._asked: str | None = None
        self._told: tuple[str, ...] = ()
        """The last notice the table told, in its shortest wordings: a table that tells it
        again (a state sent anew, the count of a dropped link's grace) is not repeated."""

    # What the table tells (`tictactoe.play.table.View`).

    def show(self, series: Series, notice: Notice) -> None:
        before = self._shown
        self._shown = series
        if before is not None:
            prompted = series.actor is not None and self.table.acts_for(series.actor)
            self._lines(narrate(before, series, self.layout.key_for, prompted=prompted))
            if _mark_chosen(before, series, notice):
                notice = Notice()  # said already: "Computer takes O; Ada plays X."
        self.say(notice)
        self.table.next_step()
        self.ask()
        if self.shown is not None:
            self.shown()

    def say(self, notice: Notice) -> None:
        told = tuple(phrase.wordings[-1] for phrase in notice.phrases)
        if told != self._told:
            self._told = told
            self._say(notice)

    def _say(self, notice: Notice) -> None:
        if notice:
            self._lines(str(notice.with_keys(_KEYS)).splitlines())

    def want_mark(self) -> None:
        self.ask()

    def explain(self, refusal: SeriesError) -> Notice:
        if isinstance(refusal, CellTaken):
            return refusal.by_key(self.layout.key_for(refusal.cell))
        return refusal.notice

    def after(self, delay: float, then: Callable[[], None]) -> Callable[[], None]:
        return asyncio.get_running_loop().call_later(delay, then).cancel

    def work(self, job: Callable[[], Done], then: Callable[[Done], None]) -> None:
        """The line mode plays classic only: its searches are quick, done in place."""
        then(job())

    def set_subtitle(self, text: str) -> None:
        """Nothing to put it under: a line view says how it takes part when it starts."""

    # The person's lines.

    def start(self, series: Series) -> None:
        """Say who plays, and ask the first thing of the person who acts."""
        self._shown = series
        self._lines([introduce(series)])
        if self.table.watching:
            self._lines(["You are watching. b: the board; s: the score; q: stop watching."])
        else:
            self._lines(["Type ? and Enter for the keys."])
        self.table.next_step()
        self.ask()

    def ask(self) -> None:
        """Say the prompt when a person is to act, unless it is the last line said."""
        series = self.table.series
        actor = series.actor
        asked = prompt(series) if actor is not None and self.table.acts_for(actor) else None
        if asked is None and series.phase is Phase.OVER and not self.table.watching:
            asked = "n and Enter: next match; q and Enter: quit:"
        if asked is not None and asked != self._asked:
            self._lines([asked])
            self._asked = asked

    def read(self, line: str) -> None:
        """One line the person typed: one command."""
        command = _UNPRINTABLE.sub("", line).strip().lower()
        if not command:
            self._asked = None  # Enter alone: the question again
            self.ask()
            return
        series = self.table.series
        if command == "q":
            self.quit()
            return
        if command == "?":
            self._keys()
        elif command == "i" and self.table.can_invite:
            self.table.invite()
        elif command == "f" and self.full_screen is not None:
            self._lines(self.full_screen())
        elif command == "b":
            self._lines(board(series, self.layout.key_for))
        elif command == "s":
            self._lines([score(series)])
        elif command == "h":
            self._hint()
        elif self.record is not None and command == "r":
            self._lines(self.record.summary(series.players))
        elif self.record is not None and (number := replay_number(command)) is not None:
            if number:
                self._lines(self.record.replay(number, self.layout.key_for))
            else:
                self._lines(["p and a number replays a recent match: p 2, for one."])
        elif (intent := self._intent(command)) is not None:
            refusal = self.table.act(intent)
            if refusal is not None:
                self._say(self.explain(refusal))
        elif command.isdigit():
            self._lines([NO_CELL.format(command[:9])])
        else:
            self._lines([f"That is no key here: {self._expected()}; ? lists the keys."])
        self.ask()

    def tell(self, lines: list[str]) -> None:
        """Say `lines` the session has to say (the record's trouble), then ask again."""
        if lines:
            self._lines(lines)
            self.ask()

    def _keys(self) -> None:
        """`?`: every key that acts here."""
        rows = " ".join(self.layout.keys[row : row + 3] for row in (0, 3, 6))
        self._lines([text.format(layout=self.layout.value, rows=rows) for text in COMMANDS])
        if self.table.can_invite:
            self._lines(["i: the invitation again."])
        if self.record is not None:
            self._lines([RECORD_KEYS])
        if self.full_screen is not None:
            self._lines([FULL_SCREEN_KEYS])
        self._lines([LAST_KEYS])

    def _expected(self) -> str:
        """What a person may type now, in words."""
        series = self.table.series
        actor = series.actor
        if not self.table.watching and (
            series.phase is Phase.OVER or (actor is not None and self.table.acts_for(actor))
        ):
            return _EXPECTED[series.phase]
        return "b says the board, s the score"

    def _intent(self, command: str) -> Intent | None:
        if command in ("x", "o"):
            return ChooseMark(Mark(command.upper()))
        if command == "u":
            return Undo()
        if command == "n":
            return NextMatch()
        if len(command) == 1 and command in self.layout.keys:
            return Play(self.layout.cell_for(command))
        return None

    def _hint(self) -> None:
        try:
            hint = self.table.hint(self.layout.key_for)
        except SeriesError as refusal:
            self._say(refusal.notice)
            return
        self._say(hint.notice)

    def _lines(self, lines: list[str]) -> None:
        """Say `lines`, each on a line of its own."""
        for line in lines:
            self.out.write(line + "\n")
        self.out.flush()
        self._asked = None  # something was said since the last question


def reads_record(line: str) -> bool:
    """Whether the line typed asks for the record (`r`) or a replay (`p`): the session lets the
    matches being written reach the record first."""
    command = _UNPRINTABLE.sub("", line).strip().lower()
    return command == "r" or replay_number(command) is not None


def _mark_chosen(before: Series, after: Series, notice: Notice) -> bool:
    """Whether `notice` is the computer's own word for the mark it chose from `before` to
    `after`, which the narration said already."""
    if before.marks is not None or after.marks is None:
        return False
    if not after.players[after.chooser].is_computer:
        return False
    return notice == ComputerStep(after, mark=after.marks[after.chooser]).notice
