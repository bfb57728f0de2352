"""Small files that must never be lost: atomic writes, damaged files moved aside.

The settings use these rules, and the game record borrows `move_aside` for a
database that turns out to be damaged. A symlinked path is followed: the file it
points at is replaced, the link stays a link. Nothing here imports Textual.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from contextlib import suppress
from datetime import datetime
from pathlib import Path
from typing import TypeVar

__all__ = ["LeaveAlone", "atomic_write_json", "move_aside", "read_json_file", "reason"]

T = TypeVar("T")


class LeaveAlone(Exception):
    """A file that must not be written to; the message says why, for the player."""


def atomic_write_json(path: Path, data: object) -> None:
    """Replace the file at `path` with `data` so that a crash leaves either the old or the new.

    The text goes to a temporary file beside the real file (so the rename cannot
    cross filesystems), is flushed to disk, and only then renamed over it. When
    `path` is a symlink, the file it points at is the one replaced.
    On any failure the temporary file is removed and the exception propagates.
    """
    import json  # here: a player who never saves a setting never needs it (~0.1 MiB)

    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    target = path.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    temporary = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        temporary.replace(target)
    except BaseException:
        with suppress(OSError):
            temporary.unlink()
        raise
    _fsync_directory(target.parent)


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
    `what` begins the warnings ("The settings file").
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
        problem = f"could not be read ({reason(error)})"
    else:
        import json  # here: with no file there is nothing to parse

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
        kept = move_aside(path)
    except OSError as error:
        raise LeaveAlone(
            f"{what} {path} {problem} and could not be moved aside ({reason(error)}), "
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


def move_aside(path: Path, companions: Iterable[str] = ()) -> Path:
    """Rename a damaged file to `<name>.corrupt-<local time>`, never over an earlier copy.

    A symlinked path is followed: the file it points at is moved, the link stays.
    Each of `companions` (suffixes such as "-wal") names a sibling file that belongs
    with it; those that exist are moved too, keeping the same suffix after the new
    name, so the set stays together. Returns the new path of the file itself.
    """
    target = path.resolve()
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    suffixes = tuple(companions)
    kept = target.with_name(f"{target.name}.corrupt-{stamp}")
    attempt = 0
    while kept.exists() or any(Path(f"{kept}{suffix}").exists() for suffix in suffixes):
        attempt += 1
        kept = target.with_name(f"{target.name}.corrupt-{stamp}-{attempt}")
    target.rename(kept)
    for suffix in suffixes:
        with suppress(FileNotFoundError):
            Path(f"{target}{suffix}").rename(Path(f"{kept}{suffix}"))
    return kept


def reason(error: OSError) -> str:
    """An OSError in a few words ("Permission denied")."""
    return error.strerror or str(error) or type(error).__name__
