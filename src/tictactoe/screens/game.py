"""The main screen: it holds the series and turns what people do into intents for the core.

Every game key is a priority binding, so Textual runs its action as the key comes off the
app's queue, in the order typed; the action turns the key into an intent (`Play`, `Undo`…)
and applies it at once, against the series the key before it left. A click, the mark
dialog's answer and the computer's timer apply theirs the same way. Nothing here decides
a rule: the `Series` says what is allowed, and why not.
"""

from __future__ import annotations

import random
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header

from tictactoe.engine import Mark
from tictactoe.keys import KeyLayout
from tictactoe.names import short
from tictactoe.notices import Notice, hint_notice
from tictactoe.series import (
    CellTaken,
    ChooseMark,
    Confirm,
    Intent,
    NextMatch,
    Play,
    Series,
    SeriesError,
    Undo,
)
from tictactoe.widgets.board import Board
from tictactoe.widgets.history import MoveHistory
from tictactoe.widgets.scoreboard import Scoreboard
from tictactoe.widgets.status import StatusLine
from tictactoe.widgets.too_small import MinimumSize, TooSmall

__all__ = ["GameScreen"]

_CURSOR_MOVES: dict[str, tuple[int, int]] = {
    "up": (-1, 0),
    "down": (1, 0),
    "left": (0, -1),
    "right": (0, 1),
}


def _match_over(series: Series) -> bool:
    """Whether the match on show is over, so that the next one may begin."""
    return series.match is not None and series.match.is_over


class GameScreen(MinimumSize, Screen[None]):
    """Holds the one `Series` of the session; the board and scoreboard render it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u,ctrl+z", "undo", "Undo", key_display="u", priority=True),
        Binding("h", "hint", "Hint", priority=True),
        # n is offered once a match is over; before that it still answers, with the reason.
        Binding("n", "next_match", "Next match", priority=True),
        Binding("n", "next_match(False)", "Next match", show=False, priority=True),
        Binding("s", "app.show_record", "Record", priority=True),
        Binding("question_mark,f1", "app.help", "Help", key_display="?", priority=True),
        Binding("q", "app.quit", "Quit", priority=True),
        Binding("enter,space", "confirm", "Play the cursor's cell", show=False, priority=True),
        Binding("x", "choose_mark('X')", "Take X", show=False, priority=True),
        Binding("o", "choose_mark('O')", "Take O", show=False, priority=True),
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
    """The series in progress: the single source of truth for everything on screen."""
    key_layout: var[KeyLayout] = var(KeyLayout.NUMPAD, init=False)
    """Which digit takes which cell."""
    notice: var[Notice] = var(Notice, init=False)
    """A short message about the last input (a refusal, the computer's choice, a hint), in
    its phrases; the empty notice when there is none."""

    def __init__(
        self,
        series: Series,
        *,
        layout: KeyLayout = KeyLayout.NUMPAD,
        computer_delay: float = 0.4,
        rng: random.Random | None = None,
    ) -> None:
        super().__init__()
        self.set_reactive(GameScreen.series, series)
        self.set_reactive(GameScreen.key_layout, layout)
        self.computer_delay = computer_delay
        """Seconds the computer seems to think before it acts."""
        self.rng = rng or random.Random()
        """Every random choice of the session comes from here, so a seed replays it."""
        self._computer_timer: Timer | None = None
        self.board = Board(id="board")
        self.status = StatusLine(id="status")
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
        self._next_step()

    # State flows down.

    def watch_series(self, old: Series, series: Series) -> None:
        self._show(series)
        if series.played > old.played:
            self.post_message(self.MatchFinished(series))
        if _match_over(series) != _match_over(old):
            self.refresh_bindings()  # the footer offers n only between matches
        self._next_step()

    def _show(self, series: Series) -> None:
        self.board.match = series.match
        self.board.hints = ()
        self.scoreboard.series = series
        self.history.series = series
        self.status.show(series, self.notice)

    def watch_key_layout(self, layout: KeyLayout) -> None:
        self.board.key_layout = layout

    def watch_notice(self, notice: Notice) -> None:
        self.status.show(self.series, notice)

    def on_screen_resume(self) -> None:
        self.board.focus()

    # Input: each key, click or answer is an intent, applied as it arrives.

    def apply(self, intent: Intent) -> None:
        """Apply `intent` to the series; a refusal is said on the status line."""
        try:
            series = self.series.apply(intent, self.rng)
        except SeriesError as refusal:
            self.notice = self._explain(refusal)
            return
        self.notice = Notice()
        self.series = series

    def action_play_key(self, key: str) -> None:
        """A digit: the cell it names in the layout in force."""
        self._play(self.key_layout.cell_for(key))

    def on_board_cell_chosen(self, event: Board.CellChosen) -> None:
        self._play(event.cell)

    def _play(self, cell: int) -> None:
        self.board.cursor = cell
        self.apply(Play(cell))

    def action_move_cursor(self, rows: int, columns: int) -> None:
        self.board.move_cursor(rows, columns)

    def action_confirm(self) -> None:
        self.apply(Confirm(self.board.cursor))

    def action_choose_mark(self, mark: str) -> None:
        """A mark typed before the dialog was up (the dialog answers the same keys itself)."""
        self.apply(ChooseMark(Mark(mark)))

    def action_undo(self) -> None:
        """Take back the last move (against the computer: its reply and your move)."""
        self.apply(Undo())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Below the minimum size no key acts; `n` is offered only once a match is over."""
        if action == "next_match" and parameters != (False,) and not _match_over(self.series):
            return False
        return super().check_action(action, parameters)

    def action_next_match(self, offered: bool = True) -> None:
        """The next match (`offered` is False for `n` pressed before one is offered: the
        core says why not)."""
        self.apply(NextMatch())

    def action_hint(self) -> None:
        """Mark the best cells for the player to move and say where best play leads."""
        series = self.series
        try:
            analysis = series.hint()
        except SeriesError as refusal:
            self.notice = refusal.notice
            return
        assert series.match is not None
        keys = [self.key_layout.key_for(cell) for cell in analysis.best_moves]
        best = keys[0] if len(keys) == 1 else f"{', '.join(keys[:-1])} or {keys[-1]}"
        if len(keys) == len(series.match.legal_moves()):
            best = "any free cell"
        self.board.hints = analysis.best_moves
        self.notice = hint_notice(best, analysis)

    def choose_mark(self, mark: Mark | None) -> None:
        """The mark dialog's answer: a mark, or None to quit."""
        if mark is None:
            self.app.exit(self.series)
        else:
            self.apply(ChooseMark(mark))

    def _explain(self, refusal: SeriesError) -> Notice:
        """The refusal's notice; a taken cell is named by the key that takes it here."""
        if isinstance(refusal, CellTaken):
            return refusal.by_key(self.key_layout.key_for(refusal.cell))
        return refusal.notice

    # The flow between intents: the mark dialog, and the computer's pause.

    def _next_step(self) -> None:
        """Ask for the mark dialog when a person chooses; give the computer its pause."""
        series = self.series
        if series.awaits_computer:
            if self._computer_timer is None:
                # (Textual's timer divides by its interval when it fires late: never zero.)
                delay = max(self.computer_delay, 0.001)
                self._computer_timer = self.set_timer(delay, self._computer_due)
            return
        if self._computer_timer is not None:
            self._computer_timer.stop()
            self._computer_timer = None
        if series.person_choosing is not None:
            self.post_message(self.MarkWanted())

    def _computer_due(self) -> None:
        self._computer_timer = None
        if self.app.return_code is not None:
            return  # the session is ending: the score printed stays the score
        try:
            step = self.series.computer_step(self.rng)
        except SeriesError:
            return  # an undo got there first: nothing is due any more
        notice = Notice()
        if step.mark is not None:
            chooser = step.series.players[step.series.chooser]
            notice = Notice.of(f"{short(chooser.name)} chose {step.mark}.")
        self.notice = notice
        self.series = step.series
