"""What the club asks of its store (`ClubStore`), and which store a club opens
(`open_club_store`): its own SQLite file by default, or PostgreSQL when several club processes
share one club (`--database postgresql://…` or `TICTACTOE_DATABASE`).

Both `tictactoe.record.club.ClubRecord` and `tictactoe.record.club_pg.PostgresClubRecord`
satisfy `ClubStore`, each a `tictactoe.record.club_sql.SqlClubStore`; psycopg is imported only
when a PostgreSQL address is given.
"""

from __future__ import annotations

import os
from collections.abc import Container
from pathlib import Path
from typing import Final, Protocol

from tictactoe.core.club import Entry, LadderRow, PlayerRow, Rating
from tictactoe.core.finished import CLASSIC_NAME, FinishedMatch
from tictactoe.core.key_words import KeyRow

__all__ = ["DATABASE_VARIABLE", "ClubStore", "database_of", "open_club_store"]

DATABASE_VARIABLE: Final = "TICTACTOE_DATABASE"
"""The environment variable that names the club's PostgreSQL database when `--database` does not."""


class ClubStore(Protocol):
    """The club's store: players, keys, bans, ratings and finished matches.

    Each method's meaning is `SqlClubStore`'s (see `tictactoe.record.club_sql`).
    """

    problem: str | None
    """Why the last write failed, in words; None when everything is written."""

    def enter(
        self, handle: str, key: str | None, address: str, now: float, *, taken: Container[str] = ()
    ) -> Entry: ...

    def would_refuse(self, handle: str, key: str, address: str, now: float) -> str | None: ...

    def key_word(self, handle: str, now: float) -> str: ...

    def keys(self, handle: str) -> list[KeyRow]: ...

    def remove_key(self, handle: str, fingerprint: str) -> bool: ...

    def ban(self, handle: str, until: float | None, now: float | None = None) -> None: ...

    def unban(self, handle: str) -> bool: ...

    def banned_until(self, handle: str, now: float) -> float | None: ...

    def bans_version(self) -> int: ...

    def finish(
        self, table: str, players: tuple[str, str], rated: bool, match: FinishedMatch, now: float
    ) -> tuple[Rating, Rating] | None: ...

    @property
    def unsaved(self) -> int: ...

    def rating(self, handle: str, variant: str = CLASSIC_NAME) -> Rating: ...

    def ladder(self, limit: int = 100, variant: str = CLASSIC_NAME) -> list[LadderRow]: ...

    def recent(self, handle: str, limit: int = 10) -> list[FinishedMatch]: ...

    def recent_rated(self, handle: str, limit: int = 10) -> list[tuple[FinishedMatch, bool]]: ...

    def players(self) -> list[PlayerRow]: ...

    def take_notices(self) -> list[str]: ...

    def close(self) -> None: ...


def database_of(database: str | None) -> str | None:
    """The PostgreSQL address a club uses: `database` (from `--database`), else
    `TICTACTOE_DATABASE`, else None (the club's own SQLite file)."""
    return database or os.environ.get(DATABASE_VARIABLE) or None


def open_club_store(data_dir: Path | None, database: str | None = None) -> ClubStore:
    """The club's store: PostgreSQL at `database` (or `TICTACTOE_DATABASE`), else the SQLite
    file in `data_dir` (or the default club folder). ClubUnavailable, one sentence, when it
    cannot be used."""
    address = database_of(database)
    if address is not None:
        from tictactoe.record.club_pg import PostgresClubRecord

        return PostgresClubRecord(address)
    from tictactoe.record.club import ClubRecord, club_path

    return ClubRecord(club_path(data_dir))
