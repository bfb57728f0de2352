"""Which board widget draws which variant: the one place the game screen asks for its board."""

from __future__ import annotations

from typing import Final

from tictactoe.core.rules import Variant
from tictactoe.tui.widgets.board import Board
from tictactoe.tui.widgets.ultimate_board import UltimateBoard

__all__ = ["BOARDS", "GameBoard", "board_for"]

GameBoard = Board | UltimateBoard
"""A board widget: each shows a match of its variant, takes the digits typed and moves its
cursor alike."""

BOARDS: Final[dict[str, type[GameBoard]]] = {"classic": Board, "ultimate": UltimateBoard}
"""The board widget of each variant, by the variant's name."""


def board_for(variant: Variant, *, id: str | None = None) -> GameBoard:
    """A new board widget for matches of `variant`."""
    return BOARDS[variant.name](id=id)
