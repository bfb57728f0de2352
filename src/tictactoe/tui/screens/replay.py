"""The Replay tab of the record screen: a recorded match on a board, move by move.

Its actions step through the moves (`step`, `first`, `last`: the record screen runs
them for ←/→ and Home/End, in turn with its other keys), and the move list marks
where you are (▶, and highlighted; clicking a line jumps to it). The board is the one the
game itself shows for the match's variant (`boards.board_for`: classic's `Board`, the Ultimate
board), shown a position at a time; it takes no input here. The pane has the class of its
match's variant (`-classic`, `-ultimate`), for the stylesheet.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.reactive import var
from textual.widgets import OptionList, Static, TabPane
from textual.widgets.option_list import Option

from tictactoe.core.labels import display_name, result_text
from tictactoe.core.names import NAME_WIDTH, short
from tictactoe.core.rules import CLASSIC, VARIANTS, Position, Variant, variant
from tictactoe.record import MatchRecord
from tictactoe.tui.widgets.board import Board
from tictactoe.tui.widgets.boards import BOARDS, GameBoard, board_for

__all__ = ["ReplayPane", "local_time", "move_lines"]


def local_time(when: datetime | None) -> str:
    """A recorded time as the player's clock shows it: "2026-11-21 14:03"."""
    return when.astimezone().strftime("%Y-%m-%d %H:%M") if when else "unknown time"


CURRENT: Final = "▶ "
"""What marks the current line of the move list, so it shows without colour too."""


RESULT_NAME_WIDTH: Final = 12
"""Cells the winner's name may take in the result on the title line ("Ada won")."""


def move_lines(match: MatchRecord, width: int | None = None) -> list[str]:
    """The move list: "Start" and then one line a move, "3. Ada X top-left". A name takes
    at most `NAME_WIDTH` cells, and fewer where its line would not fit in `width`: the name
    is shortened, the move kept whole. A move whose words come in pieces (an Ultimate move:
    its board, then its cell) goes on to a second line between them where the whole name
    would otherwise not fit; the name is left out where even its first letter would not."""
    positions = match.positions()
    game = variant(match.variant)
    lines = [f"Start: {match.marks[match.first_mover]} to move"]
    for number, (before, cell) in enumerate(zip(positions, match.moves, strict=False), start=1):
        head, phrases = f"{number}. ", game.move_phrases(cell)
        tail, rest = f" {before.to_move} {' '.join(phrases)}", ""
        mover = display_name(match.players[match.marks.index(before.to_move)])
        room = NAME_WIDTH if width is None else min(NAME_WIDTH, width - len(head + tail))
        if room < len(short(mover)) and len(phrases) > 1:
            tail, rest = f" {before.to_move} {phrases[0]}", " ".join(phrases[1:])
            room = min(NAME_WIDTH, (width or 0) - len(head + tail))
        # a name cut to its ellipsis says nothing: the mark says who moved
        line = head + short(mover, room) + tail if room > 1 else head + tail.lstrip()
        lines.append(line + (f"\n{' ' * len(head)}{rest}" if rest else ""))
    lines = lines[: len(positions)]
    return lines


class ReplayPane(TabPane, can_focus=True):
    """Shows `match` one position at a time; `step` is how many moves have been played."""

    match: var[MatchRecord | None] = var(None, init=False, always_update=True)
    """The recorded match on show, or None before one is chosen."""
    step: var[int] = var(0, init=False)
    """Moves played in the position on show: 0 is the empty board."""

    def __init__(self) -> None:
        super().__init__("Replay", id="replay")
        self._from_start = False
        """Whether the match on show opened at its start (else at its last move)."""
        self._positions: tuple[Position, ...] = ()
        """The board before the first move and after each one."""
        self._board: GameBoard | None = None
        """The board of the match on show's variant, once a match is shown."""
        self._lines: list[str] = []
        """The move list's lines, without the mark of the current one."""

    @property
    def game_board(self) -> GameBoard:
        """The board the match on show is drawn on, its variant's (made with the first match
        shown)."""
        assert self._board is not None, "no match has been shown yet"
        return self._board

    @property
    def board(self) -> Board:
        """The classic board, while a classic match is on show."""
        return self.query_one("#replay-board", Board)

    @property
    def moves(self) -> OptionList:
        return self.query_one("#replay-moves", OptionList)

    def compose(self) -> ComposeResult:
        yield Static(
            "No match chosen yet: pick one under Recent matches or Head to head and press Enter.",
            id="replay-empty",
            markup=False,
        )

    def on_mount(self) -> None:
        self.set_class(True, "-empty")

    async def show(self, match: MatchRecord, *, from_start: bool = False) -> None:
        """Show `match` at its last move, or `from_start`, to be played through as it was; the
        board is made the first time (not on opening)."""
        game = VARIANTS.get(match.variant)
        if game is None:
            return
        if not self.query("#replay-match"):
            board = self._new_board(game)
            moves = OptionList(id="replay-moves", markup=False)
            moves.can_focus = False  # the pane's own keys step; a click on a line still works
            await self.mount(
                Vertical(
                    Static(id="replay-title", markup=False),
                    Horizontal(board, moves, id="replay-body"),
                    Static(id="replay-where", markup=False),
                    id="replay-match",
                )
            )
        elif not isinstance(self.game_board, BOARDS[game.name]):
            await self.game_board.remove()
            await self.query_one("#replay-body").mount(self._new_board(game), before=0)
        for name in VARIANTS:
            self.set_class(name == game.name, f"-{name}")
        self._from_start = from_start
        self.match = match

    def _new_board(self, game: Variant) -> GameBoard:
        """A board for matches of `game`, for showing only."""
        board = board_for(game, id="replay-board")
        board.can_focus = False
        board.cursor = -1  # no cell is under a cursor in a replay
        self._board = board
        return board

    def watch_match(self, match: MatchRecord | None) -> None:
        self.set_class(match is None, "-empty")
        if match is None:
            return
        self._positions = match.positions()
        first, second = match.players
        title = (
            f"{short(display_name(first))} ({match.marks[0]}) vs "
            f"{short(display_name(second))} ({match.marks[1]})"
            f" · {local_time(match.finished_at)}"
            f" · {result_text(match.players, match.winner, RESULT_NAME_WIDTH)}"
        )
        self.query_one("#replay-title", Static).update(Content(title))
        room = self._room()
        self._lines = move_lines(match, room)
        moves = self.moves
        moves.clear_options()
        moves.add_options([Option(self._line(index)) for index in range(len(self._lines))])
        self.step = 0 if self._from_start else len(self._positions) - 1
        self._show(self.step)
        # fit its lines once the list has its width (just made, or another game's)
        self.call_after_refresh(self._fit_moves)

    def _room(self) -> int | None:
        """Cells a line of the move list has beside the current move's marker; None until
        the list is laid out."""
        width = self.moves.scrollable_content_region.width - len(CURRENT)
        return width if width > 0 else None

    def _fit_moves(self) -> None:
        """Write the move list again for the width it has now (names shortened, moves whole)."""
        if self.match is None or not self.query("#replay-moves"):
            return
        lines = move_lines(self.match, self._room())
        if lines != self._lines:
            self._lines = lines
            for index in range(len(lines)):
                self.moves.replace_option_prompt_at_index(index, self._line(index))

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_moves)  # once the list has its new width

    def _words(self, move: int) -> str:
        """A move of the match on show in a few words ("centre board, top-left")."""
        return variant(self.match.variant if self.match else CLASSIC.name).short_move_words(move)

    def _line(self, index: int) -> Content:
        margin = " " * len(CURRENT)  # a move's second line, under its first
        line = self._lines[index].replace("\n", "\n" + margin)
        return Content((margin, CURRENT)[index == self.step] + line)

    def watch_step(self, old: int, step: int) -> None:
        if 0 <= old < len(self._lines):
            self.moves.replace_option_prompt_at_index(old, self._line(old))
        self._show(step)

    def _show(self, step: int) -> None:
        if not self._positions:
            return
        self.game_board.match = self._positions[step]
        self.moves.replace_option_prompt_at_index(step, self._line(step))
        self.moves.highlighted = step
        last = len(self._positions) - 1
        where = f"Move {step} of {last}" if step else f"Start · {last} moves"
        if step and self.match is not None and self.match.variant != CLASSIC.name:
            # the move in words too: below 80 columns the board takes the move list's room
            before = self._positions[step - 1]
            where += f" · {before.to_move} {self._words(self.match.moves[step - 1])}"
        if step == last and self.match is not None:
            where += f" · {result_text(self.match.players, self.match.winner, NAME_WIDTH)}"
        self.query_one("#replay-where", Static).update(Content(where))

    def action_step(self, by: int) -> None:
        self._step_to(self.step + by)

    def action_first(self) -> None:
        self._step_to(0)

    def action_last(self) -> None:
        self._step_to(len(self._positions) - 1)

    def _step_to(self, step: int) -> None:
        if self._positions:
            self.step = max(0, min(len(self._positions) - 1, step))

    @on(OptionList.OptionSelected, "#replay-moves")
    def _jump(self, event: OptionList.OptionSelected) -> None:
        """A click on a line of the move list (the list's highlight follows `step`)."""
        self.step = event.option_index

    @on(Board.CellChosen)
    def _ignore_clicks(self, event: Board.CellChosen) -> None:
        event.stop()
