"""How a session is set up: what the command line (or a test) asks for."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tictactoe.ai import Level
from tictactoe.keys import KeyLayout
from tictactoe.series import FirstMove, Player, Series

__all__ = ["GameConfig"]


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything the app needs to know before the first screen."""

    player1: str | None = None
    player2: str | None = None
    level: Level | None = None
    """The computer's level when playing against it; None for hot seat."""
    first_move: FirstMove = FirstMove.CHOOSER
    keys: KeyLayout | None = None
    """The digit layout asked for; None means the remembered one, else the keypad's."""
    computer_delay: float = 0.4
    """Seconds the computer appears to think."""
    seed: int | None = None
    """Seed for every random choice, so a session can be replayed."""
    save: bool = True
    stats_file: Path | None = None

    def initial_series(self) -> Series | None:
        """The series to start with, when the command line said enough to skip the new-game screen.

        Raises NameClash when the two names are the same.
        """
        if self.level is not None and self.player1 is not None:
            return Series.new(self.player1, Player.computer(self.level), self.first_move)
        if self.level is None and self.player1 is not None and self.player2 is not None:
            return Series.new(self.player1, self.player2, self.first_move)
        return None
