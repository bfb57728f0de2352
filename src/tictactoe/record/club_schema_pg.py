"""The schema of a club's PostgreSQL database, and its migration (`migrate`): made and migrated
when a club starts (or by `tictactoe club migrate`), one step a version in `schema_version`,
under a lock so that two processes starting at once migrate once. A database of a newer schema,
or holding another program's tables, is refused in one sentence.

Beside the club's store, the schema holds the registry of every process's tables (`tables`),
which `tictactoe.club.registry_pg` keeps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final, LiteralString

import psycopg
from psycopg.conninfo import conninfo_to_dict

from tictactoe.record.club_sql import ClubUnavailable

__all__ = ["APPLICATION", "PG_MIGRATIONS", "PG_SCHEMA_VERSION", "migrate", "reason", "where"]

Connection = psycopg.Connection[tuple[Any, ...]]

APPLICATION: Final = "tictactoe-club"
"""What `schema_version.application` holds in a club's database: another program's is refused."""

_MIGRATION_LOCK: Final = 0x7469637461630001
"""The advisory lock two club processes starting at once take to migrate one after the other."""

_SCHEMA_V1: Final[tuple[LiteralString, ...]] = (
    """CREATE TABLE players (
        id         bigserial PRIMARY KEY,
        handle     text NOT NULL UNIQUE CHECK (handle ~ '^[a-z0-9_-]{1,20}$'),
        claimed_at double precision NOT NULL,
        last_seen  double precision NOT NULL
    )""",
    """CREATE TABLE keys (
        id          bigserial PRIMARY KEY,
        player      bigint NOT NULL REFERENCES players (id),
        type        text NOT NULL,
        data        text NOT NULL,
        fingerprint text NOT NULL,
        added_at    double precision NOT NULL,
        UNIQUE (player, data)
    )""",
    "CREATE INDEX keys_by_data ON keys (data)",
    """CREATE TABLE ratings (
        player  bigint PRIMARY KEY REFERENCES players (id),
        mu      double precision NOT NULL,
        sigma   double precision NOT NULL CHECK (sigma > 0),
        matches integer NOT NULL CHECK (matches = wins + draws + losses),
        wins    integer NOT NULL CHECK (wins >= 0),
        draws   integer NOT NULL CHECK (draws >= 0),
        losses  integer NOT NULL CHECK (losses >= 0)
    )""",
    "CREATE INDEX ratings_by_points ON ratings ((mu - 3 * sigma))",
    """CREATE TABLE matches (
        id          bigserial PRIMARY KEY,
        uid         uuid NOT NULL UNIQUE,
        finished_at timestamptz NOT NULL,
        club_table  text NOT NULL,
        handle1     text NOT NULL,
        handle2     text NOT NULL,
        level1      text CHECK (level1 IN ('easy', 'medium', 'hard')),
        level2      text CHECK (level2 IN ('easy', 'medium', 'hard')),
        rated       boolean NOT NULL,
        mark1       text NOT NULL CHECK (mark1 IN ('X', 'O')),
        first_mover smallint NOT NULL CHECK (first_mover IN (1, 2)),
        moves       text NOT NULL CHECK (moves ~ '^[0-8]{0,9}$'),
        winner      smallint CHECK (winner IN (1, 2))
    )""",
    "CREATE INDEX matches_by_handle1 ON matches (handle1, id)",
    "CREATE INDEX matches_by_handle2 ON matches (handle2, id)",
    """CREATE FUNCTION a_match_is_never_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'a recorded match is never changed'; END
    $$""",
    """CREATE TRIGGER a_match_is_never_changed BEFORE UPDATE ON matches
        FOR EACH ROW EXECUTE FUNCTION a_match_is_never_changed()""",
    """CREATE TABLE rating_history (
        id     bigserial PRIMARY KEY,
        player bigint NOT NULL REFERENCES players (id),
        match  bigint NOT NULL REFERENCES matches (id),
        mu     double precision NOT NULL,
        sigma  double precision NOT NULL,
        UNIQUE (player, match)
    )""",
    """CREATE TABLE bans (
        player    bigint PRIMARY KEY REFERENCES players (id),
        until     double precision,
        banned_at double precision NOT NULL
    )""",
    """CREATE TABLE claims (
        id      bigserial PRIMARY KEY,
        address text NOT NULL,
        at      double precision NOT NULL,
        handle  text NOT NULL
    )""",
    "CREATE INDEX claims_by_address ON claims (address, at)",
    """CREATE TABLE counters (
        name  text PRIMARY KEY,
        value bigint NOT NULL
    )""",
    "INSERT INTO counters (name, value) VALUES ('bans', 0)",
    """CREATE TABLE tables (
        id        text PRIMARY KEY,
        process   text NOT NULL,
        owner     text NOT NULL,
        rated     boolean NOT NULL,
        matches   integer CHECK (matches > 0),
        players   text[] NOT NULL,
        state     text NOT NULL,
        heartbeat double precision NOT NULL
    )""",
    "CREATE INDEX tables_by_process ON tables (process)",
    "CREATE INDEX tables_by_heartbeat ON tables (heartbeat)",
)

_SCHEMA_V2: Final[tuple[LiteralString, ...]] = (
    # A key joins a handle only through a login made with it (`tictactoe.core.key_words`): the
    # keys that claimed their handles were so proven, those pasted in were not, and go; a key
    # proven for several handles stays with the first.
    """CREATE TABLE key_words (
        player  bigint PRIMARY KEY REFERENCES players (id),
        digest  text NOT NULL UNIQUE,
        expires double precision NOT NULL
    )""",
    """DELETE FROM keys USING players
        WHERE players.id = keys.player AND keys.added_at <> players.claimed_at""",
    "DELETE FROM keys AS a USING keys AS b WHERE a.data = b.data AND a.id > b.id",
    "DROP INDEX keys_by_data",
    "CREATE UNIQUE INDEX keys_by_data ON keys (data)",
)

_SCHEMA_V3: Final[tuple[LiteralString, ...]] = (
    # A ladder for each game: a rating is a player's in one game (`variant`), a match and a
    # table are of one game, and everything kept before is classic (the default only fills
    # the rows there are: every new row names its game).
    """ALTER TABLE ratings ADD COLUMN variant text NOT NULL DEFAULT 'classic'
        CHECK (variant IN ('classic', 'ultimate'))""",
    "ALTER TABLE ratings ALTER COLUMN variant DROP DEFAULT",
    "ALTER TABLE ratings DROP CONSTRAINT ratings_pkey",
    "ALTER TABLE ratings ADD PRIMARY KEY (player, variant)",
    "DROP INDEX ratings_by_points",
    "CREATE INDEX ratings_by_points ON ratings (variant, (mu - 3 * sigma))",
    """ALTER TABLE matches ADD COLUMN variant text NOT NULL DEFAULT 'classic'
        CHECK (variant IN ('classic', 'ultimate'))""",
    "ALTER TABLE matches ALTER COLUMN variant DROP DEFAULT",
    "ALTER TABLE matches DROP CONSTRAINT matches_moves_check",
    """ALTER TABLE matches ADD CONSTRAINT matches_moves_check CHECK (moves ~ '^[0-8]*$'
        AND length(moves) <= CASE variant WHEN 'classic' THEN 9 ELSE 162 END)""",
    "ALTER TABLE tables ADD COLUMN variant text NOT NULL DEFAULT 'classic'",
    "ALTER TABLE tables ALTER COLUMN variant DROP DEFAULT",
)

PG_MIGRATIONS: Final[tuple[tuple[LiteralString, ...], ...]] = (_SCHEMA_V1, _SCHEMA_V2, _SCHEMA_V3)
"""`PG_MIGRATIONS[n]` takes a club's database from schema version n to n + 1 (as the SQLite
record's: released steps are never edited, later ones appended)."""

PG_SCHEMA_VERSION: Final = len(PG_MIGRATIONS)
"""The schema version this tictactoe makes and reads."""


def where(dsn: str) -> str:
    """The database `dsn` names, for a sentence: host, port and name, never a password."""
    try:
        parts = conninfo_to_dict(dsn)
    except psycopg.Error:
        return "(an address that cannot be read)"
    host = str(parts.get("host") or parts.get("hostaddr") or "localhost")
    port = str(parts.get("port") or 5432)
    name = str(parts.get("dbname") or parts.get("user") or "")
    return f"{host}:{port}/{name}"


def migrate(dsn: str, *, connect_timeout: float = 5.0) -> tuple[int, int]:
    """Make or migrate the club's schema in the database at `dsn`: (the version found, the
    version now). ClubUnavailable, one sentence, when it cannot be reached, is another
    program's, or is of a newer schema than this tictactoe knows."""
    try:
        with psycopg.connect(
            dsn, autocommit=True, connect_timeout=max(1, math.ceil(connect_timeout))
        ) as conn:
            return _migrate(conn, dsn)
    except psycopg.Error as error:
        raise ClubUnavailable(
            f"The club's database {where(dsn)} could not be used ({reason(error)})."
        ) from None


def _migrate(conn: Connection, dsn: str) -> tuple[int, int]:
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        if _one(conn, "SELECT to_regclass('schema_version')") is None:
            if _one(conn, "SELECT to_regclass('players')") is not None:
                raise ClubUnavailable(
                    f"The club's database {where(dsn)} holds some other program's tables."
                )
            conn.execute(
                "CREATE TABLE schema_version ("
                " only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),"
                " application text NOT NULL, version integer NOT NULL)"
            )
            conn.execute(
                "INSERT INTO schema_version (application, version) VALUES (%s, 0)",
                (APPLICATION,),
            )
        row = conn.execute("SELECT application, version FROM schema_version").fetchone()
        if row is None or row[0] != APPLICATION:
            raise ClubUnavailable(
                f"The club's database {where(dsn)} holds some other program's tables."
            )
        found = int(row[1])
        if found > PG_SCHEMA_VERSION:
            raise ClubUnavailable(
                f"The club's database {where(dsn)} has schema version {found}, newer than"
                f" this tictactoe's {PG_SCHEMA_VERSION}; please upgrade tictactoe."
            )
        for version in range(found, PG_SCHEMA_VERSION):
            for statement in PG_MIGRATIONS[version]:
                conn.execute(statement)
            conn.execute("UPDATE schema_version SET version = %s", (version + 1,))
    return found, PG_SCHEMA_VERSION


def _one(conn: Connection, query: LiteralString, params: Sequence[object] = ()) -> Any:
    """The first column of the first row `query` returns, or None when it returns none."""
    row = conn.execute(query, params).fetchone()
    return None if row is None else row[0]


def reason(error: psycopg.Error) -> str:
    """An error of the database in a few words: its first line, without a trailing stop."""
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__).rstrip(".")
