"""Where the record lives, and whether a path can hold it.

What start-up needs to know of the record without loading it: `tictactoe.record`
brings SQLite and hashlib (about 2.3 MiB), and is imported when the record is first
used, not before the first screen.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Final

import platformdirs

__all__ = [
    "CLUB_NAME",
    "RECORD_NAME",
    "default_club_folder",
    "default_legacy_path",
    "default_record_path",
    "is_database",
    "path_problem",
]

RECORD_NAME: Final = "record.sqlite3"
"""The record's file name in the user data directory."""

CLUB_NAME: Final = "club.sqlite3"
"""The club's own file (players, keys, ratings, bans, matches) in its data folder."""


def default_club_folder() -> Path:
    """A club's folder (its file, host key and log) unless `--data` says: `club` in the user
    data directory, beside the game record."""
    return platformdirs.user_data_path("tictactoe") / "club"


def default_record_path() -> Path:
    """Where the record lives unless `--record` says otherwise (the user data directory)."""
    return platformdirs.user_data_path("tictactoe") / RECORD_NAME


def default_legacy_path() -> Path:
    """Where earlier versions kept their statistics, imported once into the record."""
    return platformdirs.user_data_path("tictactoe") / "stats.json"


def is_database(path: Path) -> bool:
    """Whether the file at `path` begins as every SQLite database does (read without
    SQLite: a file that does not need no more)."""
    try:
        with path.open("rb") as file:
            return file.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def path_problem(path: Path) -> str | None:
    """Why `path` can never hold the record, as a sentence; None when it may.

    Only what is wrong for good counts: a folder, a path through a file, or anything
    else that is not a regular file (a device, a named pipe, a socket), where SQLite
    would fail at the first save and leave its journal beside it. A link is followed.
    A folder that is read-only today is a passing problem, handled while playing. So is a
    missing folder, which is made, unless a symbolic link to nothing leads to it (the folder
    would not be made where the link points), or links lead round in a loop.
    """
    try:
        path.stat()
    except OSError as error:
        if error.errno == errno.ELOOP:
            return f"{path} is a loop of symbolic links; the record needs the path of a file."
    absolute = path.absolute()
    for step in (*reversed(absolute.parents), absolute):
        if step.is_symlink() and not step.exists():  # a link to nothing
            real = Path(os.path.realpath(step))
            if step == absolute and real.parent.is_dir():
                break  # SQLite makes the file where the link points
            missing = next(part for part in (*reversed(real.parents), real) if not part.is_dir())
            return (
                f"{path} leads through a symbolic link to {missing}, a folder that does not exist."
            )
    if path.is_dir():
        return f"{path} is a folder; the record needs the path of a file."
    if path.exists() and not path.is_file():
        return (
            f"{path} is not a regular file; the record needs the path of a file"
            " (or of a link to one)."
        )
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                return f"{path} cannot be made: {parent} is a file, not a folder."
            break
    return None
