"""What a person types in the line view, read: the command a line gives, and the move its digits
name.

A move is the digits of its variant (`Variant.move_of`): one for classic; two for Ultimate, the
small board's then the cell's, with or without a space, or one while the board is forced. Digits
that name no move are answered with the sentence that says why.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from tictactoe.core.keys import KeyLayout
from tictactoe.core.series import Play, Series
from tictactoe.core.ultimate_words import NO_MOVE, TWO_DIGITS
from tictactoe.lines.record import replay_number

__all__ = ["board_asked", "command_of", "has_boards", "quits", "reads_record", "typed_move"]

_UNPRINTABLE: Final = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def command_of(line: str) -> str:
    """The command a line typed gives: its printable characters, trimmed, in lower case."""
    return _UNPRINTABLE.sub("", line).strip().lower()


def quits(line: str) -> bool:
    """Whether the line typed is `q`, which leaves."""
    return command_of(line) == "q"


def reads_record(line: str) -> bool:
    """Whether the line typed asks for the record (`r`) or a replay (`p`): the session lets the
    matches being written reach the record first."""
    command = command_of(line)
    return command == "r" or replay_number(command) is not None


def has_boards(series: Series) -> bool:
    """Whether `series` is a game of small boards, a move typed as two digits (Ultimate)."""
    return series.variant.digits_a_move > 1


def board_asked(command: str, series: Series, layout: KeyLayout) -> int | None:
    """The small board `b` and a board's digit names (`b 7`), at a game of small boards."""
    rest = command.removeprefix("b").strip()
    if not has_boards(series) or not command.startswith("b") or len(rest) != 1:
        return None
    return layout.cell_for(rest) if rest in layout.keys else None


def typed_move(
    command: str, series: Series, layout: KeyLayout, acts_for: Callable[[int], bool]
) -> Play | str | None:
    """The move the digits of `command` take, or the sentence saying why they take none; None
    for a command that is no digits (or, at classic, more than one: `NO_CELL`'s). `acts_for`
    says whether the person typing moves for a seat."""
    if not has_boards(series):
        if len(command) == 1 and command in layout.keys:
            return Play(layout.cell_for(command))
        return None
    digits = command.replace(" ", "")
    if not (digits.isascii() and digits.isdigit()):
        return None
    if not all(digit in layout.keys for digit in digits):
        return NO_MOVE.format(digits[:9])
    cells = tuple(layout.cell_for(digit) for digit in digits)
    move = series.variant.move_of(cells, series.match)
    if move is not None:
        return Play(move)
    if len(cells) > 1:
        return NO_MOVE.format(digits[:9])
    mover = series.to_move
    if mover is not None and acts_for(mover):
        return TWO_DIGITS
    return Play(cells[0])  # no move is to be made here now: the series says why
