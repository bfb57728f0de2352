"""`tictactoe club migrate --database DSN`: make or migrate the club's schema in PostgreSQL, and
nothing else (a club started on the database does it too; an owner may do it first, alone).

Exit status 0 when the schema is this tictactoe's; 2, with one sentence, when no database is
named, it cannot be reached, it holds another program's tables or a newer schema.
"""

from __future__ import annotations

import sys
from typing import Final

from tictactoe.record.club import ClubUnavailable
from tictactoe.record.club_store import DATABASE_VARIABLE, database_of

__all__ = ["run_migrate"]

PROG: Final = "tictactoe club migrate"


def run_migrate(database: str | None) -> int:
    """`tictactoe club migrate` of the club's `database` (None: the environment's): the exit
    status."""
    dsn = database_of(database)
    if dsn is None:
        print(
            f"{PROG}: name the club's database with --database postgresql://USER@HOST:PORT/DB"
            f" (or {DATABASE_VARIABLE}).",
            file=sys.stderr,
        )
        return 2
    from tictactoe.record.club_pg import migrate, where

    try:
        found, now = migrate(dsn)
    except ClubUnavailable as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    if found == now:
        print(f"The club's database {where(dsn)} is at schema version {now} already.")
    else:
        print(f"The club's database {where(dsn)} went from schema version {found} to {now}.")
    return 0
