"""Preferences remembered across runs (theme, digit layout, the relay for a friend online, the
terminal's cursor shown, the game last chosen):
configuration, not the record.

They live in the user's config directory, never beside the game record. The file
is kept by the rules of `safe_files`: atomic writes, damaged files moved aside,
newer formats left alone, failures reported once and never fatal. A single value
the game cannot use is dropped with a notice; the others are kept.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

import platformdirs

from tictactoe.core.keys import KeyLayout
from tictactoe.core.names import quoted
from tictactoe.core.rules import VARIANTS
from tictactoe.doors.relay_target import parse_relay
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
    relay: str | None = None
    """The relay last used to host a series from the new-game screen (`USER@HOST[:PORT]`)."""
    plain: bool = False
    """Whether the game starts line by line (`--plain`), for a screen reader."""
    cursor: bool = False
    """Whether the terminal's own cursor shows on the board (`--show-cursor`), for a magnifier."""
    variant: str | None = None
    """The game last chosen on the new-game screen ("classic" or "ultimate")."""

    def to_json(self) -> dict[str, object]:
        chosen: dict[str, object] = {"variant": self.variant} if self.variant else {}
        data: dict[str, object] = {
            "version": SETTINGS_VERSION,
            "theme": self.theme,
            "keys": self.keys.value if self.keys else None,
            "relay": self.relay,
            "plain": self.plain,
            "cursor": self.cursor,
        }
        return data | chosen  # the game once chosen

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Settings:
        """The settings `data` holds; a value the game cannot use is left out."""
        return cls.read(data)[0]

    @classmethod
    def read(cls, data: dict[str, object]) -> tuple[Settings, list[str]]:
        """The settings `data` holds, and for each value left out, why, in words.

        Each value stands on its own: a digit layout the game does not know costs
        that choice only, never the theme beside it.
        """
        problems = []
        theme, keys = data.get("theme"), data.get("keys")
        if theme is not None and not isinstance(theme, str):
            problems.append("has a theme that is not a name")
            theme = None
        layouts = {layout.value: layout for layout in KeyLayout}
        if keys is not None and not isinstance(keys, str):
            problems.append("has a digit layout that is not a name")
        elif keys and keys not in layouts:
            known = " and ".join(layouts)
            problems.append(
                f"has a digit layout the game does not know ({quoted(keys)}; it knows {known})"
            )
        given, relay = data.get("relay"), None
        if given is not None:
            try:
                relay = str(parse_relay(given if isinstance(given, str) else ""))
            except ValueError:
                problems.append("has a relay that is not USER@HOST[:PORT]")
        keys = layouts.get(keys) if isinstance(keys, str) else None
        plain = data.get("plain", False)
        if not isinstance(plain, bool):
            problems.append("says whether to play line by line in a way that is not true or false")
            plain = False
        cursor = data.get("cursor", False)
        if not isinstance(cursor, bool):
            problems.append("says whether to show the cursor in a way that is not true or false")
            cursor = False
        variant = data.get("variant")
        if variant is not None and (not isinstance(variant, str) or variant not in VARIANTS):
            known = " and ".join(VARIANTS)
            problems.append(
                f"has a variant the game does not know ({quoted(str(variant))}; it knows {known})"
            )
            variant = None
        chosen = cls(theme=theme, keys=keys, relay=relay, plain=plain, cursor=cursor)
        return replace(chosen, variant=variant), problems


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
                self.path, SETTINGS_VERSION, Settings.read, "The settings file"
            )
        except LeaveAlone as error:
            self._writable = False
            return [str(error)]
        if loaded is None:
            return [warning] if warning else []
        self.settings, problems = loaded
        return [
            f"The settings file {self.path} {problem}, so the default is used."
            for problem in problems
        ]

    def update(
        self,
        *,
        theme: str | None = None,
        keys: KeyLayout | None = None,
        relay: str | None = None,
        plain: bool | None = None,
        cursor: bool | None = None,
        variant: str | None = None,
    ) -> list[str]:
        """Remember a new choice and save it; a failure is reported once, then kept quiet.
        None leaves a choice as it was; an empty `relay` forgets the relay."""
        changes: dict[str, object] = {
            name: value
            for name, value in (("theme", theme), ("keys", keys), ("variant", variant))
            if value
        }
        if relay is not None:
            changes["relay"] = relay or None
        if plain is not None:
            changes["plain"] = plain
        if cursor is not None:
            changes["cursor"] = cursor
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
