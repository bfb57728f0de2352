"""The game screen: it shows the series its table gives, and turns what people do into intents.

It plays at a `Table` (`tictactoe.play`): a `LocalTable` when the series lives in this process,
a `SeatTable` when it lives in the host's authority online. Every game key is a priority
binding, so Textual runs its action as the key comes off the app's queue, in the order typed;
the action turns the key into an intent (`Play`, `Undo`…) and gives it to the table at once,
against the series the key before it left. A click and the mark dialog's answer give theirs the
same way. Nothing here decides a rule: the core says what is allowed, and why not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import suppress
from contextvars import copy_context
from functools import partial
from threading import Thread
from typing import ClassVar, Final, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Header

from tictactoe.core.ai import Analysis
from tictactoe.core.engine import Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.notices import Notice
from tictactoe.core.series import (
    CellTaken,
    ChooseMark,
    Confirm,
    Intent,
    NextMatch,
    Phase,
    Play,
    Series,
    SeriesError,
    Undo,
)
from tictactoe.core.ultimate_ai import Estimate
from tictactoe.play.table import Table
from tictactoe.tui.widgets.board import Board
from tictactoe.tui.widgets.boards import board_for
from tictactoe.tui.widgets.history import MoveHistory
from tictactoe.tui.widgets.scoreboard import Scoreboard
from tictactoe.tui.widgets.status import StatusLine
from tictactoe.tui.widgets.too_small import MinimumSize, TooSmall

__all__ = ["CHORES_AFTER", "KEY_WORDS", "GameScreen"]

CHORES_AFTER: Final = 0.1
"""Seconds after a move that ends or begins a match before the work that can wait is done: the
footer's keys (Textual rebuilds them) and the record's writing (its thread shares the
interpreter). Done at once, each held this process's loop for longer than a move's frame takes,
between the move and its frame on a friend's screen, whose bytes pass through the host's doors
in this same loop. The keys act as the series allows from the first moment (`check_action`), and
the record takes every finished match before it is read and on every way out."""

Done = TypeVar("Done")

_CURSOR_MOVES: dict[str, tuple[int, int]] = {
    "up": (-1, 0),
    "down": (1, 0),
    "left": (0, -1),
    "right": (0, 1),
}


KEY_WORDS: Final = {"next_match": ("n", "Enter"), "quit": ("q",)}
"""The keys of each action a notice leaves a slot for (`Notice.with_keys`), as bound below:
`n` and Enter (once a match is over) start the next match, `q` quits."""


class GameScreen(MinimumSize, Screen[None]):
    """Shows the series of its `Table`; the board and scoreboard render it."""

    # All priority, for the order typed: any key may change the screen (x, n, s, ?, q), and
    # a key left to the focused cell would be overtaken by a later priority one (test_bursts).
    BINDINGS: ClassVar[list[BindingType]] = [
        # u and h are offered during play, n once a match is over; at other times each still
        # answers, with the core's reason.
        Binding("u,ctrl+z", "undo", "Undo", key_display="u", priority=True),
        Binding("u,ctrl+z", "undo(False)", "Undo", show=False, priority=True),
        Binding("h", "hint", "Hint", priority=True),
        Binding("h", "hint(False)", "Hint", show=False, priority=True),
        Binding("n", "next_match", "Next match", priority=True),
        Binding("n", "next_match(False)", "Next match", show=False, priority=True),
        Binding("s", "app.show_record", "Record", priority=True),
        Binding("question_mark,f1", "app.help", "Help", key_display="?", priority=True),
        Binding("q", "app.quit", "Quit", priority=True),
        Binding("enter,space", "confirm", "Play the cursor's cell", show=False, priority=True),
        Binding("x", "choose_mark('X')", "Take X", show=False, priority=True),
        Binding("o", "choose_mark('O')", "Take O", show=False, priority=True),
        Binding("i", "invite", "Invite", priority=True),
        *(
            Binding(
                key, f"move_cursor({rows}, {columns})", f"Cursor {key}", show=False, priority=True
            )
            for key, (rows, columns) in _CURSOR_MOVES.items()
        ),
        *(
            Binding(
                str(key),
                f"play_key('{key}')",
                f"Take the cell of key {key}",
                show=False,
                priority=True,
            )
            for key in range(1, 10)
        ),
    ]

    class MatchFinished(Message):
        """A match of the series has just ended (counted once, in `series`)."""

        def __init__(self, series: Series) -> None:
            super().__init__()
            self.series = series

    class MarkWanted(Message):
        """A person is to choose a mark: the app opens the dialog that asks them."""

    series: var[Series] = var(Series.new, init=False)
    """The series on show, as the table gives it: everything on screen is drawn from it."""
    key_layout: var[KeyLayout] = var(KeyLayout.NUMPAD, init=False)
    """Which digit takes which cell."""
    notice: var[Notice] = var(Notice, init=False)
    """A short message about the last input (a refusal, the computer's choice, a hint), in
    its phrases; the empty notice when there is none."""

    def __init__(self, table: Table, *, layout: KeyLayout = KeyLayout.NUMPAD) -> None:
        super().__init__()
        self.set_reactive(GameScreen.series, table.series)
        self.table = table
        """What this screen plays at: where the series lives."""
        table.attach(self)  # from now on: a key may come before the screen is mounted
        self._aim: int | None = None
        """The cell of the last move given, until the table answers it."""
        self.set_reactive(GameScreen.key_layout, layout)
        self.board = board_for(table.series.variant, id="board")
        self.status = StatusLine(KEY_WORDS, id="status")
        self.scoreboard = Scoreboard(id="scoreboard")
        self.history = MoveHistory(id="history")

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="play"):
                yield self.board
                yield self.status
            with Vertical(id="sidebar"):
                yield self.scoreboard
                yield self.history
        yield Footer()
        yield TooSmall()

    def on_mount(self) -> None:
        self.board.key_layout = self.key_layout
        self._show(self.series)
        self.board.focus()
        self.table.next_step()

    # State flows down.

    def watch_series(self, old: Series, series: Series) -> None:
        self._show(series)
        if series.played > old.played:
            self.post_message(self.MatchFinished(series))
        if series.phase is not old.phase:  # the footer offers u and h in play, n between matches
            self.set_timer(CHORES_AFTER, self.refresh_bindings)
        self.table.next_step()

    def _show(self, series: Series) -> None:
        self.board.match = series.match
        self.board.hints = ()
        self.scoreboard.series = series
        self.history.series = series
        self.status.show(series, self.notice)

    def validate_notice(self, notice: Notice) -> Notice:
        """The notice with the keys it names filled in, as this screen binds them."""
        return notice.with_keys(KEY_WORDS)

    def watch_key_layout(self, layout: KeyLayout) -> None:
        self.board.key_layout = layout

    def watch_notice(self, notice: Notice) -> None:
        self.status.show(self.series, notice)

    def on_screen_resume(self) -> None:
        self.board.focus()

    # What the table tells (`tictactoe.play.table.View`).

    def show(self, series: Series, notice: Notice) -> None:
        if self._aim is not None:
            self.board.cursor, self._aim = self._aim, None
        self.notice = notice
        self.series = series

    def say(self, notice: Notice) -> None:
        self.notice = notice

    def want_mark(self) -> None:
        self.post_message(self.MarkWanted())

    def after(self, delay: float, then: Callable[[], None]) -> Callable[[], None]:
        return self.set_timer(delay, then).stop

    def work(self, job: Callable[[], Done], then: Callable[[Done], None]) -> None:
        """`job` in a worker thread, then `then` with its result back on this screen's loop:
        the screen stays live meanwhile, and leaving does not wait for it (a daemon thread,
        not Textual's thread worker, which the loop's end would wait for)."""

        loop = asyncio.get_running_loop()
        context = copy_context()  # (Textual's active app, for the answer's handlers)

        def run() -> None:
            done = job()
            with suppress(RuntimeError):  # the app has closed its loop meanwhile: nobody waits
                loop.call_soon_threadsafe(self._worked, then, done, context=context)

        Thread(target=run, name="search", daemon=True).start()

    def _worked(self, then: Callable[[Done], None], done: Done) -> None:
        if self.is_attached:
            then(done)

    def set_subtitle(self, text: str) -> None:
        self.sub_title = text

    # Input: each key, click or answer is an intent, applied as it arrives.

    def apply(self, intent: Intent) -> bool:
        """Give `intent` to the table; a refusal is said on the status line. Whether the table
        took it."""
        refusal = self.table.act(intent)
        if refusal is not None:
            self.table.refused(self.explain(refusal))
        return refusal is None

    def action_play_key(self, key: str) -> None:
        """A digit: the cell it completes in the layout in force (on the Ultimate board, a
        board's digit waits for its cell's)."""
        move = self.board.take_key(key)
        if move is not None:
            self._play(move)

    def on_board_cell_chosen(self, event: Board.CellChosen) -> None:
        self.board.forget_key()
        self._play(event.cell)

    def _play(self, cell: int) -> None:
        """The cursor goes to `cell` as the table answers: with the refusal, or with the series
        that holds the move (online, a moment later, so that both are drawn in one frame)."""
        self._aim = cell
        if not self.apply(Play(cell)) and self._aim is not None:
            self.board.cursor, self._aim = cell, None

    def action_move_cursor(self, rows: int, columns: int) -> None:
        self.board.forget_key()
        self.board.move_cursor(rows, columns)

    def action_confirm(self) -> None:
        self.board.forget_key()
        self.apply(Confirm(self.board.cursor))

    def action_choose_mark(self, mark: str) -> None:
        """A mark typed before the dialog was up (the dialog answers the same keys itself)."""
        self.apply(ChooseMark(Mark(mark)))

    def action_undo(self, offered: bool = True) -> None:
        """Take back the last move (against the computer: its reply and your move);
        `offered` is False for `u` pressed when no match is played: the core says why not."""
        self.apply(Undo())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Below the minimum size no key acts; `u` and `h` are offered only while a match is
        played, `n` only once it is over; a watcher's footer offers none of the players' keys,
        and they do nothing (a digit or a mark still says that this screen is watching); `i`
        is the host's, online."""
        offered = parameters != (False,)
        if self.series.computers_only:
            return False  # any key ends the computer's play against itself (the app's `q` too)
        if action == "next_match" and offered and self.series.phase is not Phase.OVER:
            return False
        if action in ("undo", "hint") and offered and self.series.phase is not Phase.PLAYING:
            return False
        if self.table.watching and action in ("undo", "hint", "next_match"):
            return False
        if action == "invite" and not self.table.can_invite:
            return False
        return super().check_action(action, parameters)

    def action_invite(self) -> None:
        """The host shows the invitation again (for someone else to watch)."""
        self.table.invite()

    def action_next_match(self, offered: bool = True) -> None:
        """The next match (`offered` is False for `n` pressed before one is offered: the
        core says why not)."""
        self.apply(NextMatch())

    def action_hint(self, offered: bool = True) -> None:
        """Mark the best cells for the player to move, and say the table's hint (`offered` is
        False for `h` pressed when no match is played: the core says why not)."""
        series = self.series
        if series.variant.searches:  # the search takes a while: off this screen's thread
            self.notice = Notice.of("Looking for the best move…")
            self.work(partial(_analysis, series, self.table), partial(self._hint, series))
            return
        self._hint(series, None)

    def _hint(self, asked: Series, analysis: Analysis | Estimate | SeriesError | None) -> None:
        """Show the hint for the series `asked` about (unless it has moved on since)."""
        if self.series is not asked:
            return
        try:
            if isinstance(analysis, SeriesError):
                raise analysis
            hint = self.table.hint(self.board.key_for, analysis)
        except SeriesError as refusal:
            self.notice = refusal.notice
            return
        self.board.hints = hint.cells
        self.notice = hint.notice

    async def choose_mark(self, mark: Mark | None) -> None:
        """The mark dialog's answer: a mark, or None to quit, as `q` does (the app leaves
        through the table)."""
        if mark is None:
            await self.app.run_action("quit")
        else:
            self.apply(ChooseMark(mark))

    def explain(self, refusal: SeriesError) -> Notice:
        """The refusal's notice; a taken cell is named by the key that takes it here."""
        if isinstance(refusal, CellTaken):
            return refusal.by_key(self.board.key_for(refusal.cell))
        return refusal.notice


def _analysis(series: Series, table: Table) -> Analysis | Estimate | SeriesError:
    """Where best play goes for `series` (a search: run in a worker), or why there is no hint."""
    try:
        refusal = table.check_hint()
        if refusal is not None:
            return refusal
        return series.hint()
    except SeriesError as refusal:
        return refusal
