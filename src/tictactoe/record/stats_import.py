"""Reading the statistics file of earlier versions (stats.json) for a one-time import.

That file held totals per name, `{"version": 1, "players": {NAME: {"wins": W,
"losses": L, "draws": D}}}`, and nothing about single matches. Its content is
untrusted: each entry is checked on its own and refused, with a reason, when its
name holds control or escape characters or a lone surrogate, when it appears more
than once (duplicate keys, duplicate "players" objects), or when a count is not a
whole number between 0 and `MAX_COUNT`. Nothing here raises for the file's sake,
writes anything, or imports Textual.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

from tictactoe.core.ai import Level
from tictactoe.core.names import MAX_NAME_LENGTH, clean_name, quoted
from tictactoe.core.series import COMPUTER_NAME, Player

__all__ = ["MAX_COUNT", "ImportedTotals", "LegacyStats", "read_legacy_stats"]

MAX_COUNT: Final = 10**9
"""The largest count believed: nobody has played a billion matches."""

_COUNTS: Final = ("wins", "losses", "draws")
_COMPUTERS: Final = {f"{COMPUTER_NAME} ({level.value})": level for level in Level}
"""How the old file named the computer at each level."""


@dataclass(frozen=True, slots=True)
class ImportedTotals:
    """One player's totals as the old file had them."""

    player: Player
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True, slots=True)
class LegacyStats:
    """What an old stats file holds that can be believed, and what was refused."""

    totals: tuple[ImportedTotals, ...] = ()
    refused: tuple[str, ...] = ()
    """One line per refused entry: the name as printable text, and why."""
    problem: str | None = None
    """Why nothing at all could be read (not JSON, not the old format), or None."""


class _Duplicated:
    """A JSON object that names a key more than once: its pairs, all of them, in order."""

    def __init__(self, pairs: list[tuple[str, object]]) -> None:
        self.pairs = pairs


def _object(pairs: list[tuple[str, object]]) -> dict[str, object] | _Duplicated:
    """A JSON object as a dict, unless a key repeats: then nothing is dropped."""
    found = dict(pairs)
    return found if len(found) == len(pairs) else _Duplicated(pairs)


def _pairs(value: dict[str, object] | _Duplicated) -> list[tuple[str, object]]:
    return value.pairs if isinstance(value, _Duplicated) else list(value.items())


class _Unbelievable:
    """A JSON number that cannot be a count: too many digits, a fraction, NaN."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text if len(self.text) <= 20 else f"a {len(self.text)}-digit number"


def _parse_int(text: str) -> int | _Unbelievable:
    return int(text) if len(text) <= 18 else _Unbelievable(text)


def read_legacy_stats(raw: bytes) -> LegacyStats:
    """Parse an old stats file's bytes; every entry is believed or refused on its own."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return LegacyStats(problem="is not valid text")
    try:
        data = json.loads(
            text,
            object_pairs_hook=_object,
            parse_int=_parse_int,
            parse_float=_Unbelievable,
            parse_constant=_Unbelievable,
        )
    except (ValueError, RecursionError):
        return LegacyStats(problem="is not valid JSON")
    if not isinstance(data, dict | _Duplicated):
        return LegacyStats(problem="is not a statistics file (not a JSON object)")
    top = _pairs(data)
    versions = [value for key, value in top if key == "version"]
    if not versions or any(type(version) is not int or version != 1 for version in versions):
        return LegacyStats(problem="is not a statistics file of format 1")
    tables = [value for key, value in top if key == "players"]
    if not tables or not all(isinstance(table, dict | _Duplicated) for table in tables):
        return LegacyStats(problem="has no players object")

    entries: dict[str, list[object]] = {}
    for table in tables:
        assert isinstance(table, dict | _Duplicated)
        for name, counts in _pairs(table):
            entries.setdefault(name, []).append(counts)
    totals: list[ImportedTotals] = []
    refused: list[str] = []
    for name, found in entries.items():
        why = _why_refused(name, found)
        if why:
            refused.append(f"{quoted(name)} ({why})")
            continue
        counts = found[0]
        assert isinstance(counts, dict)
        wins, losses, draws = (int(counts[count]) for count in _COUNTS)
        if wins + losses + draws == 0:
            continue
        level = _COMPUTERS.get(name)
        player = Player.computer(level) if level else Player(name)
        totals.append(ImportedTotals(player, wins, losses, draws))
    return LegacyStats(tuple(totals), tuple(refused))


def _is_clean(name: str) -> bool:
    """True when `clean_name` would keep `name` as it is (quick for a printable ASCII name)."""
    if name.isascii() and name.isprintable():
        return len(name) <= MAX_NAME_LENGTH and name == name.strip() and "  " not in name
    return clean_name(name, "") == name


def _why_refused(name: str, found: list[object]) -> str | None:
    if len(found) > 1:
        return f"listed {len(found)} times"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "a lone surrogate in the name"
    if not name.strip():
        return "an empty name"
    if not clean_name(name, ""):
        return "nothing to see in the name"
    if not _is_clean(name):
        return "control or escape characters in the name"
    (counts,) = found
    if not isinstance(counts, dict | _Duplicated):
        return "not an object of wins, losses and draws"
    keys = [key for key, _ in _pairs(counts)]
    if sorted(keys) != sorted(_COUNTS):
        return f"expected wins, losses and draws once each, found {', '.join(map(quoted, keys))}"
    for key, value in _pairs(counts):
        if type(value) is not int or not 0 <= value <= MAX_COUNT:
            shown = repr(value) if isinstance(value, int | _Unbelievable) else type(value).__name__
            return f"{key} is {shown}, not a count"
    return None
