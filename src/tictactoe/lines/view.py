"""What a table tells the line view, said one sentence a line, and what a person types, read.

Nothing is drawn: no escape sequence, no alternate screen, no cursor moved. Each event is one
sentence on a line of its own (`tictactoe.core.narration`), and when a person is to act, a
prompt says so. A line typed is one command (`COMMANDS`, read by `tictactoe.lines.typed`):
digits move (one for classic; two for Ultimate, the board's then the cell's, or one while the
board is forced), `x` or `o` chooses a mark, and so on; what does not apply is answered in one
sentence saying what is expected now, and the prompt comes again. Where the session has a game
record, `r` says it and `p` replays a match of it (`tictactoe.lines.record`). A search that
takes a while (Ultimate's hint and its computer) runs on a thread of its own (`work`), so that
lines are still read meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from functools import partial
from typing import Final, TextIO, TypeVar

from tictactoe.core.ai import Analysis
from tictactoe.core.engine import Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.narration import NO_CELL, board, introduce, narrate, prompt, score
from tictactoe.core.notices import Notice
from tictactoe.core.series import (
    BoardClosed,
    CellTaken,
    ChooseMark,
    ComputerStep,
    Intent,
    NextMatch,
    Phase,
    Series,
    SeriesError,
    Undo,
)
from tictactoe.core.ultimate_ai import Estimate
from tictactoe.core.ultimate_words import play_in
from tictactoe.lines.record import RecordWords, replay_number
from tictactoe.lines.typed import board_asked, command_of, has_boards, typed_move
from tictactoe.play.table import Table

__all__ = ["BOARDS_COMMANDS", "COMMANDS", "LineView"]

Done = TypeVar("Done")

COMMANDS: Final = (
    "Type a key and Enter. A digit takes a cell ({layout}: {rows}).",
    "x or o: a mark. n: next match. u: undo. h: hint. b: the board. s: the score.",
)
"""What `?` says: the keys of the line view."""

BOARDS_COMMANDS: Final = (
    "Type a key and Enter. Two digits take a cell: the board's, then the cell's.",
    "One digit takes a cell of the board you are sent to ({layout}: {rows}).",
    "x or o: a mark. n: next match. u: undo. h: hint. b: the board. s: the score.",
    "b and a board's digit: that board, who holds its cells and which are free.",
)
"""What `?` says at a game of small boards (Ultimate)."""

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

_BOARDS_EXPECTED: Final = {**_EXPECTED, Phase.PLAYING: "two digits and Enter take a cell"}
"""What a wrong word is told is expected at a game of small boards (Ultimate)."""

_KEYS: Final = {"next_match": ("n",), "quit": ("q",)}
"""The keys that fill a notice's slots here."""


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
        self._searches = 0
        """Searches under way on threads of their own (`work`)."""

    @property
    def searching(self) -> bool:
        """Whether a search is under way (a hint, or the computer's move): the session reads
        lines meanwhile, and acts on them once it is done."""
        return self._searches > 0

    def move_keys(self, move: int) -> str:
        """The keys that take `move` in the layout in force: "5", or "5 7" (board, cell)."""
        return self.table.series.variant.move_keys(move, self.layout.key_for)

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
            return refusal.by_key(self.move_keys(refusal.cell))
        if isinstance(refusal, BoardClosed):
            return Notice.of(play_in(refusal.boards, self.layout.key_for))
        return refusal.notice

    def after(self, delay: float, then: Callable[[], None]) -> Callable[[], None]:
        return asyncio.get_running_loop().call_later(delay, then).cancel

    def work(self, job: Callable[[], Done], then: Callable[[Done], None]) -> None:
        """`job` on a thread of its own, then `then` with its result back on the loop: lines
        are read meanwhile, and `q` leaves at once (a daemon thread: leaving does not wait)."""
        loop = asyncio.get_running_loop()
        self._searches += 1

        def run() -> None:
            done = job()
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
                loop.call_soon_threadsafe(self._worked, then, done)

        threading.Thread(target=run, name="search", daemon=True).start()

    def _worked(self, then: Callable[[Done], None], done: Done) -> None:
        self._searches -= 1
        then(done)
        if self.shown is not None:
            self.shown()

    def set_subtitle(self, text: str) -> None:
        """Nothing to put it under: a line view says how it takes part when it starts."""

    # The person's lines.

    def start(self, series: Series) -> None:
        """Say who plays, and ask the first thing of the person who acts."""
        self._shown = series
        self._lines([introduce(series)])
        if self.table.watching:
            self._lines(["You are watching. b: the board; s: the score; q: stop watching."])
        elif series.computers_only:
            self._lines(["The computer plays itself: any line ends the series with the score."])
        else:
            self._lines(["Type ? and Enter for the keys."])
        self.table.next_step()
        self.ask()

    def ask(self) -> None:
        """Say the prompt when a person is to act, unless it is the last line said."""
        series = self.table.series
        actor = series.actor
        asked = prompt(series) if actor is not None and self.table.acts_for(actor) else None
        watched = self.table.watching or series.computers_only  # nobody asks for a match
        if asked is None and series.phase is Phase.OVER and not watched:
            asked = "n and Enter: next match; q and Enter: quit:"
        if asked is not None and asked != self._asked:
            self._lines([asked])
            self._asked = asked

    def read(self, line: str) -> None:
        """One line the person typed: one command."""
        command = command_of(line)
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
        elif (small := board_asked(command, series, self.layout)) is not None:
            self._lines(board(series, self.layout.key_for, small))
        elif command == "s":
            self._lines([score(series)])
        elif command == "h":
            self._hint()
        elif self.record is not None and command == "r":
            self._lines(self.record.summary(series.players, series.variant.name))
        elif self.record is not None and (number := replay_number(command)) is not None:
            if number:
                self._lines(self.record.replay(number, self.layout.key_for))
            else:
                self._lines(["p and a number replays a recent match: p 2, for one."])
        elif (intent := self._intent(command)) is not None:
            if isinstance(intent, str):
                self._lines([intent])
            else:
                refusal = self.table.act(intent)
                if refusal is not None:
                    self._say(self.explain(refusal))
        elif command.isdigit():
            self._lines([NO_CELL.format(command[:9])])
        else:
            self._lines([f"That is no key here: {self._expected()}; ? lists the keys."])
        if not self.searching:  # else asked once the search is said
            self.ask()

    def tell(self, lines: list[str]) -> None:
        """Say `lines` the session has to say (the record's trouble), then ask again."""
        if lines:
            self._lines(lines)
            self.ask()

    def _keys(self) -> None:
        """`?`: every key that acts here."""
        rows = " ".join(self.layout.keys[row : row + 3] for row in (0, 3, 6))
        commands = BOARDS_COMMANDS if has_boards(self.table.series) else COMMANDS
        self._lines([text.format(layout=self.layout.value, rows=rows) for text in commands])
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
            return (_BOARDS_EXPECTED if has_boards(series) else _EXPECTED)[series.phase]
        return "b says the board, s the score"

    def _intent(self, command: str) -> Intent | str | None:
        """The intent `command` gives; for digits that take no cell, the sentence saying why."""
        if command in ("x", "o"):
            return ChooseMark(Mark(command.upper()))
        if command == "u":
            return Undo()
        if command == "n":
            return NextMatch()
        return typed_move(command, self.table.series, self.layout, self.table.acts_for)

    def _hint(self) -> None:
        """`h`: the best move and where it leads; a search that takes a while is made on a
        thread of its own (`work`), and said once it is done."""
        series = self.table.series
        if not series.variant.searches:
            self._hinted(series, None)
            return
        refusal = self.table.check_hint()
        if refusal is not None:
            self._say(refusal.notice)
            return
        self._lines(["Looking for the best move."])
        self.work(partial(_analysis, series), partial(self._hinted, series))

    def _hinted(self, asked: Series, analysis: Analysis | Estimate | SeriesError | None) -> None:
        """Say the hint for the series `asked` about, unless it has moved on since."""
        if self.table.series is not asked:
            return
        try:
            if isinstance(analysis, SeriesError):
                raise analysis
            hint = self.table.hint(self.move_keys, analysis)
        except SeriesError as refusal:
            self._say(refusal.notice)
            return
        self._say(hint.notice)
        self.ask()

    def _lines(self, lines: list[str]) -> None:
        """Say `lines`, each on a line of its own."""
        for line in lines:
            self.out.write(line + "\n")
        self.out.flush()
        self._asked = None  # something was said since the last question


def _analysis(series: Series) -> Analysis | Estimate | SeriesError:
    """Where best play goes for the person to move in `series` (a search), or why no hint."""
    try:
        return series.hint()
    except SeriesError as refusal:
        return refusal


def _mark_chosen(before: Series, after: Series, notice: Notice) -> bool:
    """Whether `notice` is the computer's own word for the mark it chose from `before` to
    `after`, which the narration said already."""
    if before.marks is not None or after.marks is None:
        return False
    if not after.players[after.chooser].is_computer:
        return False
    return notice == ComputerStep(after, mark=after.marks[after.chooser]).notice
