"""Ultimate tic-tac-toe in sentences a screen reader speaks whole: the small boards a move
finishes, the board the next player is sent to, how a match ended, the position on request.

Every view says the same (the line view through `tictactoe.core.narration`). A small board is
named as the engine names it ("the top-left board") with its key, the digit a person presses
for it (`KeyFor`, filled by the view's layout); a player is named by the caller (`Named`: "Ada
(X)"). Each sentence fits one line of a braille display.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from tictactoe.core.engine import Mark
from tictactoe.core.labels import LINE, LINE_WORDS
from tictactoe.core.ultimate import BOARD_NAMES, UltimateState

__all__ = [
    "NO_MOVE",
    "TWO_DIGITS",
    "board_said",
    "news",
    "play_in",
    "position",
    "result",
    "sent",
    "small_board",
]

KeyFor = Callable[[int], str]
"""The digit a person presses for a cell of three rows of three (a small board, or a cell of
one), in the layout in force."""

Named = Callable[[Mark], str]
"""A player as said, by the mark they hold: "Ada (X)"."""

NO_MOVE: Final = "{} is no move: type a board's digit, then a cell's, 1 to 9 each."
"""Digits typed that name no move (its slot: what was typed)."""

TWO_DIGITS: Final = "Type two digits, the board's then the cell's: any open board will do."
"""One digit typed while the mover may choose the board."""


def board_said(board: int, key_for: KeyFor) -> str:
    """A small board as said: "the top-left board, 7"."""
    return f"the {BOARD_NAMES[board]}, {key_for(board)}"


def _keys(boards: Sequence[int], key_for: KeyFor, last: str = ", ") -> str:
    """The keys of `boards`, in order: "7, 8, 9", or with `last` before the last key."""
    keys = [key_for(board) for board in boards]
    return keys[0] if len(keys) == 1 else f"{', '.join(keys[:-1])}{last}{keys[-1]}"


def news(before: UltimateState, after: UltimateState, named: Named, key_for: KeyFor) -> list[str]:
    """What became of the small boards between `before` and `after` (a move, or a move taken
    back): "Ada (X) wins the centre board, 5.", "The right board, 6, is drawn.", "The
    centre board, 5, is open again."."""
    said = []
    for board, (was, now) in enumerate(zip(before.small_winners, after.small_winners, strict=True)):
        if was == now:
            continue
        where = board_said(board, key_for)
        if now is None:
            said.append(f"{where.capitalize()}, is open again.")
        elif now == "draw":
            said.append(f"{where.capitalize()}, is drawn.")
        else:
            said.append(f"{named(now)} wins {where}.")
    return said


def sent(state: UltimateState, name: str) -> str | None:
    """Where the player to move (`name`) may play: "Bob must play in the top-left board.",
    "Bob may play in any open board."; None once the match is over."""
    if state.is_over:
        return None
    forced = state.forced_board
    if forced is None:
        return f"{name} may play in any open board."
    return f"{name} must play in the {BOARD_NAMES[forced]}."


def play_in(boards: Sequence[int], key_for: KeyFor) -> str:
    """A move refused outside `boards`, the boards the mover may play in, by their keys:
    "Play in the top-left board, 7.", "Play in an open board: 7, 8 or 9."."""
    if len(boards) == 1:
        return f"Play in {board_said(boards[0], key_for)}."
    return f"Play in an open board: {_keys(boards, key_for, ' or ')}."


def result(state: UltimateState, named: Named, key_for: KeyFor) -> str:
    """How a finished match ended: "Ada (X) wins: boards 7, 5, 3, the diagonal from the
    top-left.", or "A draw: every board is finished."."""
    line = state.winning_line
    if state.winner is None or line is None:
        return "A draw: every board is finished."
    return f"{named(state.winner)} wins: boards {_keys(line, key_for)}, {LINE_WORDS[line]}."


def small_board(state: UltimateState, board: int, key_for: KeyFor) -> str:
    """One small board in a sentence: "The top-left board, 7: X on 5, 9; O on 1; free 2, 3."
    (with "won by X" or "drawn" once it is finished)."""
    cells = state.board[board * 9 : board * 9 + 9]
    winner = state.small_winners[board]
    done = "" if winner is None else ", drawn" if winner == "draw" else f", won by {winner}"
    parts = []
    for mark, word in ((Mark.X, "X on"), (Mark.O, "O on"), (None, "free")):
        keys = sorted(key_for(cell) for cell, held in enumerate(cells) if held is mark)
        if keys:
            parts.append(f"{word} {', '.join(keys)}")
    return f"{board_said(board, key_for).capitalize()}{done}: {'; '.join(parts)}."


def position(state: UltimateState, name: str, key_for: KeyFor) -> list[str]:
    """The whole position, short enough to hear: the boards each mark has won, the drawn
    ones, then where the player to move (`name`) may play: the forced board and its cells,
    or the open boards by their keys."""
    winners = state.small_winners
    said = []
    for finished, words in ((Mark.X, "X has won"), (Mark.O, "O has won"), ("draw", "Drawn")):
        boards = [board for board, winner in enumerate(winners) if winner == finished]
        if boards:
            names = ", ".join(
                f"{BOARD_NAMES[board].removesuffix(' board')} {key_for(board)}" for board in boards
            )
            line = f"{words}: {names}."
            said.append(line if len(line) <= LINE else f"{words}: boards {_keys(boards, key_for)}.")
    if not said:
        said.append("No small board is finished yet.")
    forced = state.forced_board
    if state.is_over:
        return said
    if forced is not None:
        said.append(f"{name} must play in the {BOARD_NAMES[forced]}.")
        said.append(small_board(state, forced, key_for))
    else:
        said.append(f"{name} may play in any open board: {_keys(state.open_boards, key_for)}.")
    return said
