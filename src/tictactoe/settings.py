"""Preferences remembered across runs (theme, digit layout): configuration, not the record.

They live in the user's config directory, never beside the game record. The file
is kept by the rules of `safe_files`: atomic writes, damaged files moved aside,
newer formats left alone, failures reported once and never fatal.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

import platformdirs

from tictactoe.keys import KeyLayout
from tictactoe.safe_files import LeaveAlone, atomic_write_json, read_json_file

__all__ = ["SETTINGS_VERSION", "Settings", "SettingsStore", "default_settings_path"]

SETTINGS_VERSION: Final = 1


def default_settings_path() -> Path:
    """Where the settings live: the user's config directory (platformdirs)."""
    return platformdirs.user_config_path("tictactoe") / "settings.json"


@dataclass(frozen=True, slots=True)
class Settings:
    """What a player chose last time; None means "no choice made"."""

    theme: str | None = None
    keys: KeyLayout | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "version": SETTINGS_VERSION,
            "theme": self.theme,
            "keys": self.keys.value if self.keys else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Settings:
        theme, keys = data.get("theme"), data.get("keys")
        if theme is not None and not isinstance(theme, str):
            raise ValueError("theme is not a name")
        if keys is not None and not isinstance(keys, str):
            raise ValueError("keys is not a layout name")
        return cls(theme=theme, keys=KeyLayout(keys) if keys else None)


class SettingsStore:
    """Loads and saves `Settings` at `path`; with no path (--no-save) it keeps them in memory."""

    def __init__(self, path: Path | None) -> None:
        self.path: Final = path
        self.settings = Settings()
        """The settings in force."""
        self._writable = path is not None

    def load(self) -> list[str]:
        """Read the file; returns warnings for the player (damage, newer format)."""
        if self.path is None:
            return []
        try:
            loaded, warning = read_json_file(
                self.path, SETTINGS_VERSION, Settings.from_json, "The settings file"
            )
        except LeaveAlone as error:
            self._writable = False
            return [str(error)]
        self.settings = loaded or Settings()
        return [warning] if warning else []

    def update(self, *, theme: str | None = None, keys: KeyLayout | None = None) -> list[str]:
        """Remember a new choice and save it; a failure is reported once, then kept quiet."""
        changes = {name: value for name, value in (("theme", theme), ("keys", keys)) if value}
        new = replace(self.settings, **changes)  # type: ignore[arg-type]
        if new == self.settings:
            return []
        self.settings = new
        if self.path is None or not self._writable:
            return []
        try:
            atomic_write_json(self.path, new.to_json())
        except OSError as error:
            self._writable = False
            return [f"Settings could not be saved to {self.path} ({error.strerror or error})."]
        return []
