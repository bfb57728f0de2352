"""Players and results in words, as the record screen, the replay and the final lines show them.

Pure: no Textual, no file. The record keeps players apart by kind; these words
keep them apart for a reader too ("Computer (hard)" the computer, "Computer (hard)
(person)" a person who chose that name).
"""

from __future__ import annotations

from typing import Final

from tictactoe.core.ai import Level
from tictactoe.core.engine import LINES
from tictactoe.core.names import name_key, short
from tictactoe.core.players import COMPUTER_NAME, Player

__all__ = ["LINE", "LINE_WORDS", "display_name", "result_text", "side_by_side"]

LINE: Final = 80
"""The longest sentence said, in characters: one line of a braille display or a terminal."""

LINE_WORDS: Final = dict(
    zip(
        LINES,
        (
            "the top row",
            "the middle row",
            "the bottom row",
            "the left column",
            "the middle column",
            "the right column",
            "the diagonal from the top-left",
            "the diagonal from the top-right",
        ),
        strict=True,
    )
)
"""Each line of three in three rows of three, in words: classic's winning cells, Ultimate's
winning boards."""


def display_name(player: Player, width: int | None = None) -> str:
    """How the record names a player: the computer with its level, a person by name,
    marked "(person)" when that name would pass for the computer's.

    With `width`, a person's name is shortened to that many cells (`short`); the
    computer's words and the "(person)" mark, which tell players apart, stay whole.
    """
    if player.level is not None:
        return f"{COMPUTER_NAME} ({player.level.value})"
    name = player.name if width is None else short(player.name, width)
    if name_key(player.name) in _LOOKALIKES:
        return f"{name} (person)"
    return name


def side_by_side(players: tuple[Player, Player], width: int | None = None) -> tuple[str, str]:
    """The two players' names where they show together (the move list, the final score):
    their names, shortened to `width` cells; but against the computer, a person whose name
    would pass for the computer's is told apart as the record does ("Computer (person)"
    and "Computer (hard)": the computer's words and the mark stay whole)."""
    computer = any(player.level is not None for player in players)
    lookalike = any(
        player.level is None and name_key(player.name) in _LOOKALIKES for player in players
    )
    if computer and lookalike:
        room = None if width is None else max(1, width - len(" (person)"))
        first, second = (display_name(player, room) for player in players)
    else:
        first, second = (
            player.name if width is None else short(player.name, width) for player in players
        )
    return first, second


_LOOKALIKES: Final = frozenset(
    name_key(name)
    for name in (COMPUTER_NAME, *(f"{COMPUTER_NAME} ({level.value})" for level in Level))
)
"""Names a person might have that would pass for the computer's."""


def result_text(
    players: tuple[Player, Player], winner: int | None, width: int | None = None
) -> str:
    """ "Ada won" or "Draw": how a match between `players` ended (`winner` an index, or None);
    the winner's name shortened to `width` cells if given (see `display_name`)."""
    if winner is None:
        return "Draw"
    return f"{display_name(players[winner], width)} won"
