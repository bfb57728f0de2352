"""What a series refuses, and why, in words a player understands: each refusal a `SeriesError`
whose `notice` holds the sentence in its parts (for a status line to lay out).
"""

from __future__ import annotations

from tictactoe.core.engine import CELL_NAMES, Mark
from tictactoe.core.notices import Notice
from tictactoe.core.rules import CLASSIC, Variant
from tictactoe.core.ultimate import BOARD_NAMES

__all__ = ["BoardClosed", "CellTaken", "MatchOver", "NameClash", "NotYourTurn", "SeriesError"]


class SeriesError(ValueError):
    """Something the series does not allow now; the message says why, as a sentence, and
    `notice` gives that sentence in its parts (for a status line to lay out)."""

    def __init__(self, *parts: str | tuple[str, ...], notice: Notice | None = None) -> None:
        """`parts`: the phrases of the sentence, each a wording or its wordings longest first
        (or the whole `notice`, when a phrase leaves a slot for a key)."""
        self.notice = Notice.of(*parts) if notice is None else notice
        """Why, as a notice."""
        super().__init__(str(self.notice))


class NameClash(SeriesError):
    """Two people were given names that look the same."""


class MatchOver(SeriesError):
    """A move after the match is over: the keys of the next match are named by the view."""

    def __init__(self) -> None:
        next_one = ("press {keys} for the next one.", "{keys}: next match.", "{key}: next match.")
        super().__init__(
            notice=Notice.of("This match is over:") + Notice.keyed("next_match", *next_one)
        )


class NotYourTurn(SeriesError):
    """An intent from a player who may not give it now: the other one moves or chooses."""


class CellTaken(SeriesError):
    """A move on a cell that already holds a mark."""

    def __init__(self, cell: int, holder: Mark, variant: Variant = CLASSIC) -> None:
        words = variant.short_move_words(cell)
        named = f"{words} cell" if variant.cells == len(CELL_NAMES) else words
        super().__init__(f"The {named} is taken by {holder}.")
        self.cell = cell
        """The cell asked for, 0 = top-left (Ultimate's: board * 9 + cell)."""
        self.holder = holder
        """The mark already on it."""
        self.words = words
        """The cell in a few words: "top-left", "centre board, top-left"."""

    def by_key(self, key: str) -> Notice:
        """The same refusal, naming the cell by `key`, the key (or keys) that take it."""
        where = f"Cell {key} ({self.words})"
        return Notice.of(
            (f"{where} is taken by {self.holder}.", f"Cell {key} is taken by {self.holder}.")
        )


class BoardClosed(SeriesError):
    """A move outside the small boards the mover may play in (Ultimate)."""

    def __init__(self, boards: tuple[int, ...]) -> None:
        if len(boards) == 1:
            super().__init__(f"Play in the {BOARD_NAMES[boards[0]]}.")
        else:
            names = [BOARD_NAMES[board].removesuffix(" board") for board in boards]
            listed = f"{', '.join(names[:-1])} or {names[-1]}"
            super().__init__(
                (f"Play in an open board: the {listed} board.", "Play in an open board.")
            )
        self.boards = boards
        """The small boards the mover may play in."""
