"""The main screen: it holds the series and turns what people do into core calls, in order.

Every input (a key, a click, a palette command, the dialog's answer, the computer's
timer) becomes an *intent*: a call queued with `submit` on this screen's one FIFO,
Textual's `call_next` list, which is also where Textual delivers the mark dialog's
answer. The game keys are priority bindings, so each is queued the moment it arrives,
before any later key is even looked at; an intent then runs against the state the one
before it left. Nothing here decides a rule: the `Series` says what is allowed.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.timer import Timer

from tictactoe.engine import CELL_NAMES, Mark
from tictactoe.keys import KeyLayout
from tictactoe.names import short
from tictactoe.screens.mark_choice import MarkChoiceScreen
from tictactoe.screens.sizing import size_classes, skip_echoed_resize
from tictactoe.series import CellTaken, Series, SeriesError
from tictactoe.widgets.board import Board
from tictactoe.widgets.drawn import EvenLines, KeptHorizontal, KeptVertical
from tictactoe.widgets.footer import Footer
from tictactoe.widgets.header import Header
from tictactoe.widgets.history import MoveHistory
from tictactoe.widgets.scoreboard import Scoreboard
from tictactoe.widgets.status import StatusLine
from tictactoe.widgets.too_small import TooSmall

__all__ = ["GameScreen"]

Intent = Callable[[], Awaitable[object] | None]
"""One input, ready to run against the series as it will be when its turn comes."""

_CURSOR_MOVES: dict[str, tuple[int, int]] = {
    "up": (-1, 0),
    "down": (1, 0),
    "left": (0, -1),
    "right": (0, 1),
}


class GameScreen(Screen[None], EvenLines):
    """Holds the one `Series` of the session; the board and scoreboard render it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u,ctrl+z", "undo", "Undo", key_display="u", priority=True),
        Binding("h", "hint", "Hint", priority=True),
        Binding("n", "next_match", "Next match", priority=True),
        Binding("q", "quit", "Quit", priority=True),
        Binding("s", "show_record", "Stats", priority=True),
        Binding("question_mark,f1", "help", "Help", key_display="?", priority=True),
        Binding("enter,space", "confirm", "Play", show=False, priority=True),
        Binding("x", "choose_mark('X')", show=False, priority=True),
        Binding("o", "choose_mark('O')", show=False, priority=True),
        *(
            Binding(key, f"move_cursor({rows}, {columns})", show=False, priority=True)
            for key, (rows, columns) in _CURSOR_MOVES.items()
        ),
        *(
            Binding(str(digit), f"play_key('{digit}')", show=False, priority=True)
            for digit in range(1, 10)
        ),
    ]

    class MatchFinished(Message):
        """A match of the series has just ended (counted once, in `series`)."""

        def __init__(self, series: Series) -> None:
            super().__init__()
            self.series = series

    series: var[Series] = var(Series.new, always_update=True, init=False)
    """The series in progress: the single source of truth for everything on screen."""
    key_layout: var[KeyLayout] = var(KeyLayout.NUMPAD, init=False)
    """Which digit takes which cell."""
    notice: var[str] = var("", init=False)
    """A short message about the last input (a refusal, the computer's choice, a hint)."""

    def __init__(
        self,
        series: Series,
        *,
        layout: KeyLayout = KeyLayout.NUMPAD,
        computer_delay: float = 0.4,
        rng: random.Random | None = None,
    ) -> None:
        super().__init__(classes=size_classes(self.app))
        self.set_reactive(GameScreen.series, series)
        self.set_reactive(GameScreen.key_layout, layout)
        self.computer_delay = computer_delay
        """Seconds the computer seems to think before it acts."""
        self.rng = rng or random.Random()
        """Every random choice of the session comes from here, so a seed replays it."""
        self._computer_timer: Timer | None = None
        self._asking = False
        """True while the mark dialog is open."""
        self._leaving = False
        """True once the session is ending: input still queued is dropped."""
        self._queued = 0
        """How many intents wait their turn (`submit`)."""
        self._handing_over = False
        """True from `s` or `?` until the game is on top again: later keys are the record's
        or the help's, passed on to it in turn."""
        # The widgets the series is shown on, made here and kept (a move updates them all).
        self._board = Board(id="board")
        self._status = StatusLine(id="status")
        self._scoreboard = Scoreboard()
        self._history = MoveHistory(id="history")

    @property
    def board(self) -> Board:
        return self._board

    @property
    def scoreboard(self) -> Scoreboard:
        return self._scoreboard

    @property
    def status(self) -> StatusLine:
        return self._status

    def compose(self) -> ComposeResult:
        yield Header()
        with KeptHorizontal(id="main"):
            with KeptVertical(id="play"):
                yield self._board
                yield self._status
            with KeptVertical(id="sidebar"):
                yield self._scoreboard
                yield self._history
        yield Footer()
        yield from TooSmall.for_screen(self)

    def on_mount(self) -> None:
        if self.app.return_code is not None or not self.query(Board):
            return  # the session ended (a signal during start-up) before the screen was made
        self.board.key_layout = self.key_layout
        self.watch_series(self.series, self.series)
        self.board.focus()
        # Behind any key that arrived before the screen was up; with none, at once, so
        # that the first frame already shows the mark dialog.
        self._in_turn(self._next_step)

    def on_resize(self, event: events.Resize) -> None:
        """Back above the minimum size, the board takes the keys again."""
        TooSmall.mount_on(self, event.size)
        skip_echoed_resize(self, event)
        self._take_focus()

    # State flows down.

    def watch_series(self, old: Series, series: Series) -> None:
        self.board.match = series.match
        self.board.hints = ()
        self.scoreboard.series = series
        self._history.series = series
        self.status.show(series, self.notice)
        if series.played > old.played:
            self.post_message(self.MatchFinished(series))

    def on_screen_suspend(self) -> None:
        """A dialog or the help is on top: keys no longer reach the board, and it shows."""
        self.board.covered = True

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        if self.stack_updates == 0:
            # Textual restyles every widget of a screen as it comes on top, in case
            # something changed while it was below. The first time, nothing has: each
            # widget was styled as it mounted, moments before, in the screen's size
            # classes and the theme of the session. What changes after (focus, a class,
            # the theme, a resize) restyles what it touches, as ever.
            event.refresh_styles = False
        self._handing_over = False
        self.board.covered = False
        self._take_focus()

    def _take_focus(self) -> None:
        """Hiding the board below the minimum size takes its focus away: give it back."""
        if self.focused is None and not self._too_small:
            self.call_after_refresh(self._focus_board)

    def _focus_board(self) -> None:
        if self.app.return_code is not None:
            return  # the session has ended (a signal at start-up): the board is going
        boards = self.query(Board)
        if boards and self.focused is None and not self._too_small and self.is_current:
            boards.first().focus()

    @property
    def _too_small(self) -> bool:
        return self.has_class("-too-narrow") or self.has_class("-too-short")

    def watch_key_layout(self, layout: KeyLayout) -> None:
        self.board.key_layout = layout

    def watch_notice(self, notice: str) -> None:
        self.status.show(self.series, notice)

    # Input arrives: each key, click or answer is queued as an intent, in arrival order.

    def submit(self, intent: Intent) -> None:
        """Queue `intent` behind every input that arrived before it; after quitting, drop it."""
        self._queued += 1

        def in_turn() -> Awaitable[object] | None:
            self._queued -= 1
            return None if self._leaving else intent()

        self.call_next(in_turn)

    def _in_turn(self, step: Callable[[], None]) -> None:
        """Run `step` now if no input waits to be read before it, else queue it behind."""
        if self._queued:
            self.submit(step)
        else:
            step()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Below the minimum size only the "enlarge" line shows: the game's keys do nothing.
        After `s` or `?` they are not the game's either (see `on_key`)."""
        return not self._too_small and not self._handing_over

    def on_key(self, event: events.Key) -> None:
        """A key typed after `s` or `?`, before the record or the help is up: it is theirs.

        It is passed on in turn, once the screen it is meant for is on top, so "s 5" opens
        the record and sorts it, and "s q 5" opens it, closes it and plays 5.
        """
        if self._handing_over:
            event.stop()
            event.prevent_default()
            key, character = event.key, event.character
            self.submit(lambda: self._pass_on(key, character))

    def _pass_on(self, key: str, character: str | None) -> None:
        if self.app.screen is self:
            self._handing_over = False  # the other screen never came, or has gone
        self.app.post_message(events.Key(key, character))

    def action_play_key(self, key: str) -> None:
        """A digit: the cell it names is read in turn, in the layout in force by then."""
        self.submit(lambda: self._play(self.key_layout.cell_for(key)))

    def on_board_cell_chosen(self, event: Board.CellChosen) -> None:
        self.submit(lambda: self._play(event.cell))

    def action_move_cursor(self, rows: int, columns: int) -> None:
        self.submit(lambda: self.board.move_cursor(rows, columns))

    def action_confirm(self) -> None:
        self.submit(lambda: self._apply(lambda series: series.confirm(self.board.cursor)))

    def action_choose_mark(self, mark: str) -> None:
        """A mark typed before the dialog was up (the dialog answers the same keys itself)."""
        self.submit(lambda: self._apply(lambda series: series.choose_mark(Mark(mark), self.rng)))

    def action_undo(self) -> None:
        """Take back the last move (against the computer: its reply and your move)."""
        self.submit(lambda: self._apply(Series.undo))

    def action_hint(self) -> None:
        """Mark the best cells for the player to move and say where best play leads."""
        self.submit(self._hint)

    def action_next_match(self) -> None:
        self.submit(lambda: self._apply(Series.next_match))

    def action_quit(self) -> None:
        """Leave, in turn: what was typed before `q` still counts."""
        self.submit(self._quit)

    def _quit(self) -> None:
        self._leaving = True
        self.app.exit(self.series)

    def action_show_record(self) -> None:
        self._handing_over = True
        self.submit(lambda: self.app.run_action("app.show_record"))

    def action_help(self) -> None:
        self._handing_over = True
        self.submit(lambda: self.app.run_action("app.help"))

    # Intents run: ask the core, set the new state, schedule the computer.

    def _play(self, cell: int) -> None:
        with self.board.changes():  # the cursor and the move: one frame, one restyle a square
            self.board.cursor = cell
            self._apply(lambda series: series.play(cell))

    def _apply(self, transition: Callable[[Series], Series]) -> None:
        try:
            series = transition(self.series)
        except SeriesError as refusal:
            self.notice = self._explain(refusal)
            return
        self._set(series)

    def _set(self, series: Series, notice: str = "") -> None:
        self.notice = notice
        self.series = series
        self._next_step()

    def _explain(self, refusal: SeriesError) -> str:
        if isinstance(refusal, CellTaken):
            key = self.key_layout.key_for(refusal.cell)
            return f"Cell {key} ({CELL_NAMES[refusal.cell]}) is taken by {refusal.holder}."
        return str(refusal)

    def _hint(self) -> None:
        series = self.series
        try:
            analysis = series.hint()
        except SeriesError as refusal:
            self.notice = str(refusal)
            return
        assert series.match is not None
        keys = [self.key_layout.key_for(cell) for cell in analysis.best_moves]
        best = keys[0] if len(keys) == 1 else f"{', '.join(keys[:-1])} or {keys[-1]}"
        if len(keys) == len(series.match.legal_moves()):
            best = "any free cell"
        self.board.hints = analysis.best_moves
        self.notice = f"Hint: {best}. {analysis.summary.capitalize()}."

    # The flow between intents: the mark dialog, and the computer's pause.

    def _next_step(self) -> None:
        """Open the mark dialog for a person who chooses; give the computer its pause."""
        series = self.series
        if series.awaits_computer:
            if self._computer_timer is None:
                # A zero-interval Timer divides by zero in Textual when it fires late.
                delay = max(self.computer_delay, 0.001)
                self._computer_timer = self.set_timer(delay, self._computer_due)
            return
        self._cancel_computer()
        if series.person_choosing is not None:
            # In turn: a mark already typed ahead (before the dialog could be up) goes first.
            self._in_turn(self._ask_for_mark)

    def _ask_for_mark(self) -> None:
        chooser = self.series.person_choosing
        if chooser is not None and not self._asking:
            self._asking = True
            self.app.push_screen(MarkChoiceScreen(chooser.name), self._mark_chosen)

    def _mark_chosen(self, mark: Mark | None) -> None:
        """The dialog's answer, delivered through the same queue as every key."""
        self._asking = False
        if self._leaving:
            return  # an answer typed after quitting changes nothing
        if mark is None:
            self._quit()
            return
        self._apply(lambda series: series.choose_mark(mark, self.rng))

    def _computer_due(self) -> None:
        self._computer_timer = None
        self.submit(self._computer_step)

    def _computer_step(self) -> None:
        try:
            step = self.series.computer_step(self.rng)
        except SeriesError:
            return  # an undo got there first: nothing is due any more
        notice = ""
        if step.mark is not None:
            chooser = step.series.players[step.series.chooser]
            notice = f"{short(chooser.name)} chose {step.mark}."
        self._set(step.series, notice)

    def _cancel_computer(self) -> None:
        if self._computer_timer is not None:
            self._computer_timer.stop()
            self._computer_timer = None
