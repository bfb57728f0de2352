"""The two sides of a series (`Player`): a person with a name, or the computer at a level."""

from __future__ import annotations

from typing import Final, NamedTuple

from tictactoe.core.ai import Level

__all__ = ["COMPUTER_NAME", "Player"]

COMPUTER_NAME: Final = "Computer"
"""What the computer is called on screen; it is told apart by its kind, never by this name."""


class Player(NamedTuple):
    """One side of the series: a person with a name, or the computer at a level.

    Players are told apart by kind: a person may be called "Computer (hard)" and is
    still a person; the computer is never merged with anyone by its name.
    """

    name: str
    level: Level | None = None
    """The computer's strength, or None for a person."""

    @classmethod
    def computer(cls, level: Level) -> Player:
        """The computer at `level`."""
        return cls(COMPUTER_NAME, Level(level))

    @property
    def is_computer(self) -> bool:
        return self.level is not None
