"""How a session is set up: what the command line (or a test) asks for."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tictactoe.core.ai import Level
from tictactoe.core.keys import KeyLayout
from tictactoe.core.rules import CLASSIC, Variant, variant
from tictactoe.core.series import FirstMove, Player, Series
from tictactoe.record.paths import RECORD_NAME, default_legacy_path, default_record_path
from tictactoe.settings import default_settings_path

__all__ = ["GameConfig"]


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything the app needs to know before the first screen."""

    player1: str | None = None
    player2: str | None = None
    level: Level | None = None
    """The level of the computer in player 2's seat (--player2-computer, --vs computer
    --level); None: a person sits there."""
    player1_level: Level | None = None
    """The level of the computer in player 1's seat (--player1-computer); None: a person."""
    first_move: FirstMove = FirstMove.CHOOSER
    keys: KeyLayout | None = None
    """The digit layout asked for; None means the remembered one, else the keypad's."""
    variant: str | None = None
    """The game (--variant: "classic" or "ultimate"); None: the last one chosen, else classic."""
    computer_delay: float = 0.4
    """Seconds the computer appears to think."""
    seed: int | None = None
    """Seed for every random choice, so a session can be replayed."""
    save: bool = True
    """False (--no-save) keeps nothing: the record and the settings live in memory."""
    record_file: Path | None = None
    """The game record (--record); None means the one in the user data directory."""
    stats_file: Path | None = None
    """An old stats.json (the deprecated --stats-file): imported once, the record beside it."""
    settings_file: Path | None = None
    """The settings; None means the file in the user config directory."""
    plain: bool = False
    """The line view (--plain, or TERM=dumb): sentences, line by line, for screen readers."""
    show_cursor: bool = False
    """The terminal's own cursor shown on the board's cursor cell (--show-cursor), for a magnifier;
    False leaves it to the settings."""

    def record_path(self) -> Path | None:
        """The database to keep the record in, or None to keep it in memory."""
        if not self.save:
            return None
        if self.record_file is not None:
            return self.record_file
        if self.stats_file is not None:
            return self.stats_file.with_name(RECORD_NAME)
        return default_record_path()

    def legacy_path(self) -> Path | None:
        """The old stats.json to import once: the default one, or --stats-file's.

        An explicit --record imports nothing: it touches no other file in its folder.
        """
        if not self.save or self.record_file is not None:
            return None
        return self.stats_file or default_legacy_path()

    def settings_path(self) -> Path | None:
        """Where the settings are kept, or None to keep them in memory."""
        if not self.save:
            return None
        return self.settings_file or default_settings_path()

    def game(self, remembered: str | None = None) -> Variant:
        """The game to play: --variant's, else `remembered` (the one last chosen on the
        new-game screen), else classic."""
        return variant(self.variant or remembered or CLASSIC.name)

    def initial_series(self, remembered: str | None = None) -> Series | None:
        """The series to start with, when the command line said enough to skip the new-game
        screen: each seat a named person or the computer. Its game is --variant's, else
        `remembered` (the one last chosen on that screen), else classic.

        Raises NameClash when the two names are the same.
        """
        game = self.game(remembered)
        first = self.player1 if self.player1_level is None else Player.computer(self.player1_level)
        second = self.player2 if self.level is None else Player.computer(self.level)
        if first is None or second is None:
            return None
        return Series.new(first, second, self.first_move, variant=game)
