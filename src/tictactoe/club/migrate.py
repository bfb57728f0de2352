"""`tictactoe club migrate`: make or migrate the club's schema, and nothing else (a club started on
its record does it too; an owner may do it first, alone): the PostgreSQL database `--database`
(or `TICTACTOE_DATABASE`) names, else the club's own file in `--data`.

Exit status 0 when the schema is this tictactoe's; 2, with one sentence, when there is no club
file, the database cannot be reached, or it holds another program's tables or a newer schema.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Final

from tictactoe.record.club import ClubRecord, ClubUnavailable, club_path
from tictactoe.record.club_schema import CLUB_MIGRATIONS
from tictactoe.record.club_store import DATABASE_VARIABLE, database_of

__all__ = ["run_migrate"]

PROG: Final = "tictactoe club migrate"


def run_migrate(database: str | None, data: Path | None = None) -> int:
    """`tictactoe club migrate` of the club's `database` (None: the environment's, else the
    club's file in `data`): the exit status."""
    dsn = database_of(database)
    try:
        if dsn is None:
            found, now, what = _migrate_file(club_path(data))
        else:
            from tictactoe.record.club_pg import migrate, where

            (found, now), what = migrate(dsn), f"The club's database {where(dsn)}"
    except ClubUnavailable as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    if found == now:
        print(f"{what} is at schema version {now} already.")
    else:
        print(f"{what} went from schema version {found} to {now}.")
    return 0


def _migrate_file(path: Path) -> tuple[int, int, str]:
    """Migrate the club's file at `path`: the version found, the version now, and its name for
    the sentence. ClubUnavailable when there is none, or it cannot be used."""
    if not path.is_file():
        raise ClubUnavailable(
            f"there is no club in {path.parent} (no {path.name} there); name a shared one with"
            f" --database postgresql://USER@HOST:PORT/DB (or {DATABASE_VARIABLE})."
        )
    try:
        with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as db:
            found = int(db.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.Error as error:
        raise ClubUnavailable(f"The club's file {path} could not be read ({error}).") from None
    ClubRecord(path).close()  # opening it migrates it
    return found, len(CLUB_MIGRATIONS), f"The club's file {path}"
