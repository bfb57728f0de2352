"""Lifetime statistics per player name, kept in a small JSON file across runs.

This is the one core module that touches the disk, and it promises that nothing
is ever lost: writes are atomic, a damaged file is moved aside rather than
overwritten, a file from a newer version is left alone, an unwritable location is
reported once and never raised, and two processes finishing matches at the same
moment are both counted (an exclusive lock around read-merge-write). It imports
nothing from Textual; the shell shows the warnings it returns.

`read_json_file` and `atomic_write_json` carry the same rules for any other small
versioned JSON file, such as the settings.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Final, TypeVar

import platformdirs

from tictactoe.series import COMPUTER_NAME, Player

__all__ = [
    "STATS_VERSION",
    "LeaveAlone",
    "LoadResult",
    "Record",
    "Stats",
    "StatsStore",
    "atomic_write_json",
    "default_stats_path",
    "read_json_file",
    "stats_name",
]

STATS_VERSION: Final = 1
"""The format this code reads and writes; a file with a higher number is left alone."""

_COUNTS: Final = ("wins", "losses", "draws")

T = TypeVar("T")


def default_stats_path() -> Path:
    """Where the statistics live unless `--stats-file` says otherwise."""
    return platformdirs.user_data_path("tictactoe") / "stats.json"


def stats_name(player: Player) -> str:
    """The name a player's results are kept under: each computer level is its own player."""
    if player.level is None:
        return player.name
    return f"{COMPUTER_NAME} ({player.level.value})"


# The model: immutable values, no I/O.


@dataclass(frozen=True, slots=True)
class Record:
    """One player's lifetime results."""

    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def matches(self) -> int:
        return self.wins + self.losses + self.draws


class Stats(Mapping[str, Record]):
    """Every player's `Record`, by name; adding a result gives a new `Stats`."""

    __slots__ = ("_records",)

    def __init__(self, records: Mapping[str, Record] | None = None) -> None:
        self._records: dict[str, Record] = dict(records or {})

    def __getitem__(self, name: str) -> Record:
        return self._records[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def __repr__(self) -> str:
        return f"Stats({self._records!r})"

    def with_result(self, winner: str | None, names: tuple[str, str]) -> Stats:
        """These stats plus one finished match between `names`; `winner` None is a draw."""
        first, second = names
        if first == second:
            raise ValueError(f"a match needs two different players, not {first!r} twice")
        if winner is not None and winner not in names:
            raise ValueError(f"the winner {winner!r} did not play in this match")
        records = dict(self._records)
        for name in names:
            record = records.get(name, Record())
            if winner is None:
                record = replace(record, draws=record.draws + 1)
            elif name == winner:
                record = replace(record, wins=record.wins + 1)
            else:
                record = replace(record, losses=record.losses + 1)
            records[name] = record
        return Stats(records)

    def ranked(self) -> list[tuple[str, Record]]:
        """The table the stats screen shows: most wins first, then fewest losses, then name."""
        return sorted(
            self._records.items(),
            key=lambda row: (-row[1].wins, row[1].losses, row[0].casefold(), row[0]),
        )

    def to_json(self) -> dict[str, object]:
        """The file's contents, players in name order so the file diffs well."""
        players = {
            name: {count: getattr(record, count) for count in _COUNTS}
            for name, record in sorted(self._records.items())
        }
        return {"version": STATS_VERSION, "players": players}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Stats:
        """Parse a version-checked file; ValueError names what is out of shape."""
        if set(data) != {"version", "players"}:
            raise ValueError(f"expected the keys version and players, found {sorted(data)}")
        players = data["players"]
        if not isinstance(players, dict):
            raise ValueError("players is not an object")
        records = {}
        for name, counts in players.items():
            if not isinstance(counts, dict) or set(counts) != set(_COUNTS):
                raise ValueError(f"the entry for {name!r} does not hold wins, losses and draws")
            for count in _COUNTS:
                if not _is_count(counts[count]):
                    raise ValueError(f"{name!r} has {count} = {counts[count]!r}")
            records[name] = Record(**counts)
        return cls(records)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


# Safe files, for the statistics and anything else small and precious.


class LeaveAlone(Exception):
    """A file that must not be written to; the message says why, for the player."""


def atomic_write_json(path: Path, data: object) -> None:
    """Replace `path` with `data` so that a crash leaves either the old file or the new one.

    The text goes to a temporary file in the same directory (so the rename cannot
    cross filesystems), is flushed to disk, and only then renamed over `path`.
    On any failure the temporary file is removed and the exception propagates.
    """
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    temporary = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        temporary.replace(path)
    except BaseException:
        with suppress(OSError):
            temporary.unlink()
        raise
    _fsync_directory(path.parent)


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable; best effort, as some systems cannot open a directory."""
    with suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def read_json_file(
    path: Path,
    version: int,
    parse: Callable[[dict[str, object]], T],
    what: str = "The file",
) -> tuple[T | None, str | None]:
    """Read a JSON object of the form {"version": N, ...} and `parse` it.

    Returns (value, None); or (None, None) when there is no file; or (None, warning)
    when the file was damaged, unreadable or out of shape (`parse` raised
    ValueError or TypeError) and has been moved aside to a timestamped copy, so a fresh file
    may be written. Raises `LeaveAlone` when the file must not be overwritten: it
    has a newer version, or it is damaged and could not be moved aside.
    `what` begins the warnings ("The statistics file").
    """
    if path.exists() and not path.is_file():
        raise LeaveAlone(
            f"{what} {path} is not a regular file (a folder?), "
            "so it is left as it is and nothing will be saved to it."
        )
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, None
    except OSError as error:
        problem = f"could not be read ({_reason(error)})"
    else:
        try:
            data = json.loads(raw)
        except UnicodeDecodeError:
            problem = "is not valid text (it may be damaged)"
        except (ValueError, RecursionError):
            problem = "is not valid JSON (it may be damaged or cut short)"
        else:
            try:
                return parse(_check_version(data, version, f"{what} {path}")), None
            except (ValueError, TypeError) as error:
                problem = f"is not in the expected shape ({error})"
    try:
        kept = _move_aside(path)
    except OSError as error:
        raise LeaveAlone(
            f"{what} {path} {problem} and could not be moved aside ({_reason(error)}), "
            "so it is left as it is and nothing will be saved to it."
        ) from error
    return None, f"{what} {path} {problem}. It was kept as {kept.name} and a fresh one was started."


def _check_version(data: object, version: int, label: str) -> dict[str, object]:
    if not isinstance(data, dict):
        raise ValueError(f"expected an object, found {type(data).__name__}")
    found = data.get("version")
    if not isinstance(found, int) or isinstance(found, bool) or found < 1:
        raise ValueError(f"version is {found!r}")
    if found > version:
        raise LeaveAlone(
            f"{label} was written by a newer version of tictactoe (format {found}), "
            "so it is left untouched and nothing will be saved to it."
        )
    return data


def _move_aside(path: Path) -> Path:
    """Rename a damaged file to `<name>.corrupt-<local time>`, never over an earlier copy."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    kept = path.with_name(f"{path.name}.corrupt-{stamp}")
    attempt = 0
    while kept.exists():
        attempt += 1
        kept = path.with_name(f"{path.name}.corrupt-{stamp}-{attempt}")
    path.rename(kept)
    return kept


def _reason(error: OSError) -> str:
    return error.strerror or str(error) or type(error).__name__


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the sibling `<name>.lock` while the body runs.

    Best effort: where no lock can be had (no fcntl, a read-only directory) the body
    runs unlocked; its write then fails and is reported, which beats refusing to play.
    """
    try:
        fd: int | None = os.open(path.with_name(f"{path.name}.lock"), os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        fd = None
    try:
        if fd is not None:
            _flock(fd)
        yield
    finally:
        if fd is not None:
            os.close(fd)


def _flock(fd: int) -> None:
    try:
        import fcntl
    except ImportError:
        return
    with suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_EX)


# The store: the model on disk.


@dataclass(frozen=True, slots=True)
class LoadResult:
    """The statistics, and anything the player should be told about the file."""

    stats: Stats
    warnings: list[str]


class StatsStore:
    """The statistics file of one run; `path` None (`--no-save`) keeps everything in memory.

    Results that could not be written yet stay pending and go into the next
    successful write, so a passing problem (a full disk) loses nothing.
    """

    def __init__(self, path: Path | None) -> None:
        self.path: Final = path
        self._saved = Stats()
        """What the file held when last read or written."""
        self._pending: list[tuple[str | None, tuple[str, str]]] = []
        """Results (winner, names) not yet in the file."""
        self._warned: set[str] = set()
        """Kinds of lasting trouble already reported, so each is reported once."""

    @property
    def stats(self) -> Stats:
        """Everything known: the file's contents plus the results not yet saved."""
        stats = self._saved
        for winner, names in self._pending:
            stats = stats.with_result(winner, names)
        return stats

    def load(self) -> LoadResult:
        """Read the file (a missing one is empty stats); never raises for the file's sake."""
        warnings: list[str] = []
        if self.path is not None:
            with _locked(self.path):
                self._read(warnings)
        return LoadResult(self.stats, warnings)

    def record(self, player1: str, player2: str, winner: str | None) -> list[str]:
        """Count one finished match; returns warnings for the player, usually none.

        Under the lock the file is read again, so results another process wrote
        meanwhile are kept, and this one is added to them.
        """
        names = (player1, player2)
        self.stats.with_result(winner, names)  # refuse a bad result before keeping it
        self._pending.append((winner, names))
        warnings: list[str] = []
        if self.path is None:
            return warnings
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with _locked(self.path):
                if self._read(warnings):
                    atomic_write_json(self.path, self.stats.to_json())
                    self._saved, self._pending = self.stats, []
        except OSError as error:
            self._warn_once(
                "write",
                f"Statistics could not be saved to {self.path} ({_reason(error)}). "
                "Play goes on; new results are kept and saved once that works again.",
                warnings,
            )
        return warnings

    def _read(self, warnings: list[str]) -> bool:
        """Refresh `_saved` from the file; False when the file is to be left alone."""
        assert self.path is not None
        try:
            stats, warning = read_json_file(
                self.path, STATS_VERSION, Stats.from_json, "The statistics file"
            )
        except LeaveAlone as error:
            self._warn_once("leave alone", str(error), warnings)
            return False
        self._saved = stats or Stats()
        if warning is not None:
            warnings.append(warning)
        return True

    def _warn_once(self, kind: str, message: str, warnings: list[str]) -> None:
        if kind not in self._warned:
            self._warned.add(kind)
            warnings.append(message)
