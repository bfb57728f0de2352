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
    "MAX_MARKS",
    "MAX_NAME_LENGTH",
    "NAME_WIDTH",
    "clean_name",
    "graphemes",
    "name_key",
    "quoted",
    "short",
]

DEFAULT_NAMES: Final = ("Player 1", "Player 2")
"""The names of players who gave none."""

MAX_NAME_LENGTH: Final = 60
"""The longest name kept, in characters as a person counts them (`graphemes`): the new-game
fields and every other source alike."""

MAX_MARKS: Final = 30
"""Marks (and other code points joined to it) kept on one character: the limit of Unicode's
stream-safe text format (UAX #15), so a pile of combining marks cannot make a name of any size."""

NAME_WIDTH: Final = 20
"""Terminal cells a name may take inside a sentence before it ends in an ellipsis."""

_JOINERS: Final = frozenset("\u200c\u200d")
"""Format characters that belong inside names (emoji sequences, some scripts)."""

_IGNORABLE: Final = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt): characters
a terminal shows as nothing at all, the Hangul fillers among them."""

_BLANKS: Final = frozenset("\u2800")
"""Characters that take a cell but show nothing, though Unicode does not call them ignorable."""


def _is_control(char: str) -> bool:
    category = unicodedata.category(char)
    return category in {"Cc", "Cs", "Cn"} or (category == "Cf" and char not in _JOINERS)


def _is_invisible(char: str) -> bool:
    """A format character or one of Unicode's default-ignorable ones: it shows as nothing."""
    point = ord(char)
    return unicodedata.category(char) == "Cf" or any(
        start <= point <= end for start, end in _IGNORABLE
    )


def _shows(text: str) -> bool:
    """Whether `text` has anything a person can see: a character that takes a cell of its own
    and is neither a space nor invisible (a combining mark alone takes no cell)."""
    return any(
        not char.isspace()
        and char not in _BLANKS
        and not _is_invisible(char)
        and cell_len(char) > 0
        for char in text
    )


def _extends(char: str) -> bool:
    """Whether `char` belongs to the character before it: a combining mark, a joiner, a
    variation selector, an emoji skin tone or a tag."""
    return (
        unicodedata.category(char) in {"Mn", "Me", "Mc"}
        or char in _JOINERS
        or "\U0001f3fb" <= char <= "\U0001f3ff"
        or "\U000e0020" <= char <= "\U000e007f"
    )


def _is_regional(char: str) -> bool:
    """A regional indicator letter: two of them make a flag."""
    return "\U0001f1e6" <= char <= "\U0001f1ff"


def graphemes(text: str) -> list[str]:
    """`text` cut into characters as a person counts them (grapheme clusters).

    An approximation of Unicode's rules (UAX #29), close to how the terminal is
    measured here (Rich's `cell_len`): a character keeps the marks, joiners,
    variation selectors, skin tones and tags that follow it; a zero-width joiner
    also takes the character after it (emoji sequences such as 👩‍💻); two regional
    indicators make one flag. Text is never cut inside one of these; it may be cut
    where Unicode would not (an Indic conjunct, a prepended mark), which only ever
    shortens a name one character sooner.
    """
    clusters: list[str] = []
    joined = False
    for char in text:
        last = clusters[-1] if clusters else ""
        if last and (
            joined
            or _extends(char)
            or (_is_regional(char) and len(last) == 1 and _is_regional(last))
        ):
            clusters[-1] = last + char
        else:
            clusters.append(char)
        joined = char == "\u200d"
    return clusters


def clean_name(raw: str, default: str) -> str:
    """A name as it will be shown and kept: NFC, no control characters, spaces tidied.

    At most `MAX_NAME_LENGTH` characters (`graphemes`, cut whole), each with at most
    `MAX_MARKS` marks. `default` stands in for a name with nothing to see: empty, or
    only spaces, joiners, marks and other invisible characters.
    """
    text = unicodedata.normalize("NFC", raw)
    kept = "".join(
        " " if char.isspace() else char for char in text if char.isspace() or not _is_control(char)
    )
    tidied = " ".join(kept.split())
    if not (tidied.isascii() and len(tidied) <= MAX_NAME_LENGTH):  # else there is nothing to cut
        tidied = "".join(
            cluster[: 1 + MAX_MARKS] for cluster in graphemes(tidied)[:MAX_NAME_LENGTH]
        )
    name = tidied.strip()
    return name if _shows(name) else default


def name_key(name: str) -> str:
    """What two names are compared by: they clash when a person could not tell them apart.

    Unicode normalisation (NFKC, so "José" typed two ways is one name), case folding,
    and no invisible characters (joiners, variation selectors, fillers and other
    characters that show as nothing).
    """
    visible = "".join(
        char for char in unicodedata.normalize("NFKC", name) if not _is_invisible(char)
    )
    return unicodedata.normalize("NFKC", " ".join(visible.split()).casefold())


def short(name: str, width: int = NAME_WIDTH) -> str:
    """`name` cut to at most `width` terminal cells: a literal prefix of whole characters
    (`graphemes`) and an ellipsis."""
    if cell_len(name) <= width:
        return name
    prefix = ""
    for cluster in graphemes(name):
        if cell_len(prefix + cluster) > width - 1:
            break
        prefix += cluster
    return prefix + "…"


def quoted(text: str, limit: int = 40) -> str:
    """`text` quoted, with every character a terminal would act on written as an escape:
    for telling a player about text that could not be used (from a file, say)."""
    shown = "".join(
        char if char.isprintable() else char.encode("unicode_escape", "backslashreplace").decode()
        for char in text[:limit]
    )
    return f"“{shown}{'…' if len(text) > limit else ''}”"
