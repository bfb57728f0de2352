"""The main screen: it owns the match and turns what people do into core calls."""

from __future__ import annotations

import random
from typing import ClassVar, Final

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Static

from tictactoe.ai import analyse, choose_mark, choose_move
from tictactoe.engine import CELL_NAMES, IllegalMove, Mark
from tictactoe.keys import KeyLayout
from tictactoe.match import Match, MatchError, Phase
from tictactoe.screens.mark_choice import MarkChoiceScreen
from tictactoe.widgets.board import Board
from tictactoe.widgets.history import MoveHistory
from tictactoe.widgets.scoreboard import Scoreboard
from tictactoe.widgets.too_small import TooSmall

__all__ = ["GameScreen", "describe"]


NAME_WIDTH: Final = 20
"""Cells a name may take in the status line before it ends in an ellipsis."""


def short(name: str) -> str:
    """`name` cut to fit a sentence of the status line: a literal prefix and an ellipsis."""
    if cell_len(name) <= NAME_WIDTH:
        return name
    prefix = ""
    for char in name:
        if cell_len(prefix + char) > NAME_WIDTH - 1:
            break
        prefix += char
    return prefix + "…"


def describe(match: Match) -> str:
    """The status line for a match as it stands."""
    game = match.game
    if game is None:
        return f"{short(match.players[match.chooser].name)} is choosing a mark…"
    winner = match.winner
    if winner is not None:
        return f"{short(match.players[winner].name)} wins!   n or Enter: next match · q: quit"
    if game.is_draw:
        return "It's a draw.   n or Enter: next match · q: quit"
    index = match.to_move
    assert index is not None
    player = match.players[index]
    if player.is_computer:
        return f"{player.name} is thinking…"
    return f"{short(player.name)} ({game.to_move}) to move"


class GameScreen(Screen[None]):
    """Holds the one `Match` of the session; the board and scoreboard render it.

    Intent flows up from the board as `Board.CellChosen`; this screen asks the core
    for the next `Match` and the new state flows back down to the widgets.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u,ctrl+z", "undo", "Undo", key_display="u"),
        Binding("h", "hint", "Hint"),
        Binding("n", "next_match", "Next match"),
        Binding("enter", "next_match", "Next match", show=False),
        Binding("q", "app.quit", "Quit"),
        Binding("s", "app.show_stats", "Stats"),
        Binding("question_mark,f1", "app.help", "Help", key_display="?"),
    ]

    class GameFinished(Message):
        """A game of the match has just ended (counted once, in `match`)."""

        def __init__(self, match: Match) -> None:
            super().__init__()
            self.match = match

    match: var[Match] = var(Match.new, always_update=True, init=False)
    """The match in progress: the single source of truth for everything on screen."""
    key_layout: var[KeyLayout] = var(KeyLayout.NUMPAD, init=False)
    """Which digit takes which cell."""
    notice: var[str] = var("", init=False)
    """A short message about the last input (a refusal, the computer's choice)."""

    def __init__(
        self,
        match: Match,
        *,
        layout: KeyLayout = KeyLayout.NUMPAD,
        computer_delay: float = 0.4,
        rng: random.Random | None = None,
    ) -> None:
        super().__init__()
        self.set_reactive(GameScreen.match, match)
        self.set_reactive(GameScreen.key_layout, layout)
        self.computer_delay = computer_delay
        """Seconds the computer seems to think before it moves."""
        self.rng = rng or random.Random()
        """Every random choice of the session comes from here, so a seed replays it."""
        self._computer_timer: Timer | None = None

    @property
    def board(self) -> Board:
        return self.query_one(Board)

    @property
    def scoreboard(self) -> Scoreboard:
        return self.query_one(Scoreboard)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="play"):
                yield Board(id="board")
                yield Static(id="status")
            with Vertical(id="sidebar"):
                yield Scoreboard()
                yield MoveHistory(id="history")
        yield Footer()
        yield TooSmall()

    def on_mount(self) -> None:
        self.board.key_layout = self.key_layout
        self.watch_match(self.match, self.match)
        self.board.focus()
        self._start_game()

    # State flows down.

    def watch_match(self, old: Match, match: Match) -> None:
        self.notice = ""
        self.board.game = match.game
        self.board.hints = ()
        self.scoreboard.match = match
        self.query_one(MoveHistory).match = match
        self._show_status()
        if match.played > old.played:
            self.post_message(self.GameFinished(match))

    def watch_key_layout(self, layout: KeyLayout) -> None:
        self.board.key_layout = layout

    def watch_notice(self) -> None:
        self._show_status()

    def _show_status(self) -> None:
        status = self.query_one("#status", Static)
        text = Content(self.notice or describe(self.match))
        if status.content != text:
            status.update(text, layout=False)  # two lines, always: no new layout needed
        status.set_class(bool(self.notice), "-notice")

    # Intent flows up.

    def on_board_cell_chosen(self, event: Board.CellChosen) -> None:
        match, cell = self.match, event.cell
        self.board.cursor = cell  # here, so that the cursor and the move share one frame
        if match.phase is Phase.OVER:
            self.notice = "This match is over: press n or Enter for the next one."
        elif match.computer_to_move:
            self.notice = f"Wait: {short(match.players[match.to_move or 0].name)} is thinking…"
        else:
            try:
                self.match = match.play(cell)
            except IllegalMove:
                self.notice = self._refusal(cell)
            else:
                self._computer_turn()

    def _refusal(self, cell: int) -> str:
        assert self.match.game is not None
        key = self.key_layout.key_for(cell)
        holder = self.match.game.board[cell]
        return f"Cell {key} ({CELL_NAMES[cell]}) is taken by {holder}."

    def action_undo(self) -> None:
        """Take back the last move (against the computer: its reply and your move)."""
        try:
            match = self.match.undo()
        except MatchError as refusal:
            self.notice = f"{str(refusal).capitalize()}."
            return
        self._cancel_computer()
        self.match = match

    def action_hint(self) -> None:
        """Mark the best cells for the player to move and say where best play leads."""
        match = self.match
        if match.phase is not Phase.PLAYING or match.game is None:
            self.notice = "A hint needs a match in progress."
            return
        if match.computer_to_move:
            self.notice = "Wait for the computer's move."
            return
        analysis = analyse(match.game)
        keys = [self.key_layout.key_for(cell) for cell in analysis.best_moves]
        best = keys[0] if len(keys) == 1 else f"{', '.join(keys[:-1])} or {keys[-1]}"
        if len(keys) == len(match.game.legal_moves()):
            best = "any free cell"
        self.board.hints = analysis.best_moves
        self.notice = f"Hint: {best}. {analysis.summary.capitalize()}."

    def action_next_match(self) -> None:
        if self.match.phase is not Phase.OVER:
            self.notice = "Finish this match first."
            return
        self.match = self.match.next_game()
        self._start_game()

    # The flow of a match.

    def _start_game(self) -> None:
        """Before each game: the chooser picks a mark (the computer does it by itself)."""
        match = self.match
        if match.phase is not Phase.CHOOSING:
            self._computer_turn()
            return
        chooser = match.players[match.chooser]
        if chooser.is_computer:
            mark = choose_mark(self.rng)
            self._marks_chosen(mark)
            self.notice = f"{short(chooser.name)} chose {mark}."
        else:
            self.app.push_screen(MarkChoiceScreen(chooser.name), self._marks_chosen)

    def _marks_chosen(self, mark: Mark | None) -> None:
        if mark is None:
            self.app.exit(self.match)
            return
        self.match = self.match.choose_mark(mark, self.rng)
        self._computer_turn()

    def _computer_turn(self) -> None:
        """If the computer is to move, let it reply after a short visible pause."""
        if not self.match.computer_to_move or self._computer_timer is not None:
            return
        # A zero-interval Timer divides by zero in Textual when it fires late: keep it positive.
        delay = max(self.computer_delay, 0.001)
        self._computer_timer = self.set_timer(delay, self._computer_moves)

    def _cancel_computer(self) -> None:
        if self._computer_timer is not None:
            self._computer_timer.stop()
            self._computer_timer = None

    def _computer_moves(self) -> None:
        self._computer_timer = None
        match = self.match
        index = match.to_move
        if match.game is None or index is None or not match.players[index].is_computer:
            return
        level = match.players[index].level
        assert level is not None
        self.match = match.play(choose_move(match.game, level, self.rng))
