"""Player names: user text made safe to show, compared as a person would, and shortened.

A name may come from the command line, the new-game screen or a file on disk; all
of them pass through `clean_name` before anything shows them, so no control or
escape character ever reaches the terminal. Pure functions, no Textual.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from rich.cells import cell_len

__all__ = [
    "DEFAULT_NAMES",
    "MAX_NAME_LENGTH",
    "NAME_WIDTH",
    "clean_name",
    "name_key",
    "quoted",
    "short",
]

DEFAULT_NAMES: Final = ("Player 1", "Player 2")
"""The names of players who gave none."""

MAX_NAME_LENGTH: Final = 60
"""The longest name kept, in characters: the new-game fields and every other source alike."""

NAME_WIDTH: Final = 20
"""Terminal cells a name may take inside a sentence before it ends in an ellipsis."""

_JOINERS: Final = frozenset("\u200c\u200d")
"""Format characters that belong inside names (emoji sequences, some scripts)."""


def _is_control(char: str) -> bool:
    category = unicodedata.category(char)
    return category in {"Cc", "Cs", "Cn"} or (category == "Cf" and char not in _JOINERS)


def clean_name(raw: str, default: str) -> str:
    """A name as it will be shown and kept: NFC, no control characters, spaces tidied.

    Never empty (`default` stands in) and at most `MAX_NAME_LENGTH` characters.
    """
    text = unicodedata.normalize("NFC", raw)
    kept = "".join(
        " " if char.isspace() else char for char in text if char.isspace() or not _is_control(char)
    )
    name = " ".join(kept.split())[:MAX_NAME_LENGTH].strip()
    return name or default


def name_key(name: str) -> str:
    """What two names are compared by: they clash when a person could not tell them apart.

    Unicode normalisation (NFKC, so "José" typed two ways is one name), case folding,
    and no invisible characters (zero-width joiners and other format characters).
    """
    visible = "".join(
        char for char in unicodedata.normalize("NFKC", name) if unicodedata.category(char) != "Cf"
    )
    return unicodedata.normalize("NFKC", " ".join(visible.split()).casefold())


def short(name: str, width: int = NAME_WIDTH) -> str:
    """`name` cut to at most `width` terminal cells: a literal prefix and an ellipsis."""
    if cell_len(name) <= width:
        return name
    prefix = ""
    for char in name:
        if cell_len(prefix + char) > width - 1:
            break
        prefix += char
    return prefix + "…"


def quoted(text: str, limit: int = 40) -> str:
    """`text` quoted, with every character a terminal would act on written as an escape:
    for telling a player about text that could not be used (from a file, say)."""
    shown = "".join(
        char if char.isprintable() else char.encode("unicode_escape", "backslashreplace").decode()
        for char in text[:limit]
    )
    return f"“{shown}{'…' if len(text) > limit else ''}”"
