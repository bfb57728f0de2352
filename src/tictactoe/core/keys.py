"""Which digit key takes which cell: the numeric keypad's layout or a phone's."""

from __future__ import annotations

from enum import StrEnum
from typing import Final

__all__ = ["KeyLayout"]

_KEYPAD: Final = "789456123"
_PHONE: Final = "123456789"


class KeyLayout(StrEnum):
    """How the digits 1-9 map onto the board."""

    NUMPAD = "numpad"
    """7 8 9 on the top row, 1 2 3 on the bottom, like a keyboard's keypad."""
    PHONE = "phone"
    """1 2 3 on the top row, like a phone."""

    @property
    def keys(self) -> str:
        """The digit for each cell, cell 0 (top-left) first."""
        return _KEYPAD if self is KeyLayout.NUMPAD else _PHONE

    def key_for(self, cell: int) -> str:
        """The digit a person presses to take `cell`."""
        return self.keys[cell]

    def cell_for(self, key: str) -> int:
        """The cell that the digit `key` takes; ValueError for anything but 1-9."""
        if len(key) != 1 or key not in self.keys:
            raise ValueError(f"{key!r} is not a digit from 1 to 9")
        return self.keys.index(key)

    @property
    def other(self) -> KeyLayout:
        return KeyLayout.PHONE if self is KeyLayout.NUMPAD else KeyLayout.NUMPAD
