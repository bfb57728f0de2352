"""The code of a hosted series.

A code is the only secret of a hosted series: whoever has it may take the free seat or
watch. It is 6 characters from an alphabet with no look-alikes (no 0/O, no 1/I), 5 bits
each: 30 bits from `secrets`, typed in any case.
"""

from __future__ import annotations

import secrets
from typing import Final

__all__ = ["ALPHABET", "CODE_LENGTH", "new_code", "normalise_code"]

ALPHABET: Final = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
"""32 characters that cannot be taken for one another: 5 bits each."""
CODE_LENGTH: Final = 6


def new_code() -> str:
    """A fresh code: 30 random bits from `secrets`."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(text: str) -> str | None:
    """`text` as a code (upper case, spaces and dashes dropped), or None if it cannot be one."""
    code = "".join(text.split()).replace("-", "").upper()
    if len(code) != CODE_LENGTH or any(char not in ALPHABET for char in code):
        return None
    return code
