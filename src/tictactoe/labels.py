"""Players and results in words, as the record screen, the replay and the final lines show them.

Pure: no Textual, no file. The record keeps players apart by kind; these words
keep them apart for a reader too ("Computer (hard)" the computer, "Computer (hard)
(person)" a person who chose that name).
"""

from __future__ import annotations

from typing import Final

from tictactoe.ai import Level
from tictactoe.names import name_key
from tictactoe.series import COMPUTER_NAME, Player

__all__ = ["display_name", "result_text"]


def display_name(player: Player) -> str:
    """How the record names a player: the computer with its level, a person by name,
    marked "(person)" when that name would pass for the computer's."""
    if player.level is not None:
        return f"{COMPUTER_NAME} ({player.level.value})"
    if name_key(player.name) in _LOOKALIKES:
        return f"{player.name} (person)"
    return player.name


_LOOKALIKES: Final = frozenset(
    name_key(name)
    for name in (COMPUTER_NAME, *(f"{COMPUTER_NAME} ({level.value})" for level in Level))
)
"""Names a person might have that would pass for the computer's."""


def result_text(players: tuple[Player, Player], winner: int | None) -> str:
    """ "Ada won" or "Draw": how a match between `players` ended (`winner` an index, or None)."""
    if winner is None:
        return "Draw"
    return f"{display_name(players[winner])} won"
