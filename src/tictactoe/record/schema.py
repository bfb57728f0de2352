"""The record file's shape: its tables, and the steps that bring an older file up to date.

`MIGRATIONS[n]` takes a file from `PRAGMA user_version` n to n + 1. A released step
is never edited: a later schema appends its own, so a file of any earlier version
walks up one step at a time, all missing steps in one transaction. The README shows
these statements as the documentation of the file (a test keeps the two equal).

Only a file the game made is ever written to: one whose version it knows and whose
tables are exactly those of that version (none for a new, empty file). Any other
database is left byte for byte as it is.
"""

from __future__ import annotations

import functools
import sqlite3
from typing import Final

from tictactoe.record.database import transaction

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "TIME_FORMAT",
    "Migrations",
    "NotOurs",
    "check_ours",
    "migrate",
]

TIME_FORMAT: Final = "%Y-%m-%d %H:%M:%S"
"""How `finished_at` is written: UTC, the format of SQLite's own datetime()."""

_SCHEMA_V1: Final = (
    """CREATE TABLE players (
        id    INTEGER PRIMARY KEY,
        kind  TEXT NOT NULL CHECK (kind IN ('person', 'computer')),
        name  TEXT NOT NULL,
        level TEXT CHECK (level IN ('easy', 'medium', 'hard')),
        CHECK ((kind = 'person') = (level IS NULL))
    )""",
    "CREATE UNIQUE INDEX one_person_a_name ON players (name) WHERE kind = 'person'",
    "CREATE UNIQUE INDEX one_computer_a_level ON players (level) WHERE kind = 'computer'",
    "CREATE INDEX players_by_name ON players (name COLLATE NOCASE, id)",
    """CREATE TABLE matches (
        id          INTEGER PRIMARY KEY,
        finished_at TEXT NOT NULL,
        player1     INTEGER NOT NULL REFERENCES players (id),
        player2     INTEGER NOT NULL REFERENCES players (id),
        mark1       TEXT NOT NULL CHECK (mark1 IN ('X', 'O')),
        first_mover INTEGER NOT NULL CHECK (first_mover IN (1, 2)),
        moves       TEXT NOT NULL
                    CHECK (length(moves) BETWEEN 5 AND 9 AND moves NOT GLOB '*[^0-8]*'),
        winner      INTEGER CHECK (winner IN (1, 2)),
        CHECK (player1 <> player2)
    )""",
    "CREATE INDEX matches_by_pair ON matches (player1, player2)",
    """CREATE TABLE imports (
        id          INTEGER PRIMARY KEY,
        digest      TEXT NOT NULL UNIQUE,
        source      TEXT NOT NULL,
        imported_at TEXT NOT NULL
    )""",
    """CREATE TABLE imported_totals (
        import_id INTEGER NOT NULL REFERENCES imports (id),
        player    INTEGER NOT NULL REFERENCES players (id),
        wins      INTEGER NOT NULL CHECK (wins >= 0),
        losses    INTEGER NOT NULL CHECK (losses >= 0),
        draws     INTEGER NOT NULL CHECK (draws >= 0),
        PRIMARY KEY (import_id, player)
    )""",
    """CREATE TABLE totals (
        player   INTEGER PRIMARY KEY REFERENCES players (id),
        wins     INTEGER NOT NULL DEFAULT 0,
        losses   INTEGER NOT NULL DEFAULT 0,
        draws    INTEGER NOT NULL DEFAULT 0,
        matches  INTEGER GENERATED ALWAYS AS (wins + losses + draws) VIRTUAL,
        win_rate REAL GENERATED ALWAYS AS
                 (CAST(wins AS REAL) / nullif(wins + losses + draws, 0)) VIRTUAL
    )""",
    "CREATE INDEX totals_by_matches ON totals (matches, player)",
    "CREATE INDEX totals_by_wins ON totals (wins, player)",
    "CREATE INDEX totals_by_losses ON totals (losses, player)",
    "CREATE INDEX totals_by_draws ON totals (draws, player)",
    "CREATE INDEX totals_by_win_rate ON totals (win_rate, player)",
    """CREATE TRIGGER count_a_match AFTER INSERT ON matches BEGIN
        INSERT INTO totals (player, wins, losses, draws)
            VALUES (NEW.player1, NEW.winner IS 1, NEW.winner IS 2, NEW.winner IS NULL),
                   (NEW.player2, NEW.winner IS 2, NEW.winner IS 1, NEW.winner IS NULL)
            ON CONFLICT (player) DO UPDATE SET wins = wins + excluded.wins,
                losses = losses + excluded.losses, draws = draws + excluded.draws;
    END""",
    """CREATE TRIGGER uncount_a_match AFTER DELETE ON matches BEGIN
        UPDATE totals SET wins = wins - (OLD.winner IS 1), losses = losses - (OLD.winner IS 2),
                          draws = draws - (OLD.winner IS NULL)
            WHERE player = OLD.player1;
        UPDATE totals SET wins = wins - (OLD.winner IS 2), losses = losses - (OLD.winner IS 1),
                          draws = draws - (OLD.winner IS NULL)
            WHERE player = OLD.player2;
    END""",
    """CREATE TRIGGER a_match_is_never_changed BEFORE UPDATE ON matches BEGIN
        SELECT RAISE(ABORT, 'a recorded match is never changed; delete it instead');
    END""",
    """CREATE TRIGGER count_imported_totals AFTER INSERT ON imported_totals BEGIN
        INSERT INTO totals (player, wins, losses, draws)
            VALUES (NEW.player, NEW.wins, NEW.losses, NEW.draws)
            ON CONFLICT (player) DO UPDATE SET wins = wins + excluded.wins,
                losses = losses + excluded.losses, draws = draws + excluded.draws;
    END""",
    """CREATE TRIGGER uncount_imported_totals AFTER DELETE ON imported_totals BEGIN
        UPDATE totals SET wins = wins - OLD.wins, losses = losses - OLD.losses,
                          draws = draws - OLD.draws
            WHERE player = OLD.player;
    END""",
    """CREATE TRIGGER imported_totals_are_never_changed BEFORE UPDATE ON imported_totals BEGIN
        SELECT RAISE(ABORT, 'imported totals are never changed; delete them instead');
    END""",
)

_TOTALS_ORDERS: Final = ("matches", "wins", "losses", "draws", "win_rate")
"""The columns the Players table sorts by, each with its index over `totals`."""

_SCHEMA_V2: Final = (
    # Each match says which game it was a match of; every match of version 1 was classic.
    # The table is made again, as SQLite changes a CHECK: an Ultimate move takes two digits.
    "DROP TRIGGER count_a_match",
    "DROP TRIGGER uncount_a_match",
    "DROP TRIGGER a_match_is_never_changed",
    "DROP TRIGGER count_imported_totals",
    "DROP TRIGGER uncount_imported_totals",
    """CREATE TABLE matches_v2 (
        id          INTEGER PRIMARY KEY,
        finished_at TEXT NOT NULL,
        variant     TEXT NOT NULL DEFAULT 'classic'
                    CHECK (variant IN ('classic', 'ultimate')),
        player1     INTEGER NOT NULL REFERENCES players (id),
        player2     INTEGER NOT NULL REFERENCES players (id),
        mark1       TEXT NOT NULL CHECK (mark1 IN ('X', 'O')),
        first_mover INTEGER NOT NULL CHECK (first_mover IN (1, 2)),
        moves       TEXT NOT NULL CHECK (moves NOT GLOB '*[^0-8]*' AND CASE variant
                        WHEN 'classic' THEN length(moves) BETWEEN 5 AND 9
                        ELSE length(moves) BETWEEN 2 AND 162 AND length(moves) % 2 = 0 END),
        winner      INTEGER CHECK (winner IN (1, 2)),
        CHECK (player1 <> player2)
    )""",
    """INSERT INTO matches_v2
        (id, finished_at, variant, player1, player2, mark1, first_mover, moves, winner)
        SELECT id, finished_at, 'classic', player1, player2, mark1, first_mover, moves, winner
        FROM matches""",
    "DROP TABLE matches",
    "ALTER TABLE matches_v2 RENAME TO matches",
    "CREATE INDEX matches_by_pair ON matches (player1, player2, variant)",
    "CREATE INDEX matches_by_variant ON matches (variant, id)",
    # The totals are kept for each game apart; those of version 1 were all classic.
    *(f"DROP INDEX totals_by_{order}" for order in _TOTALS_ORDERS),
    "ALTER TABLE totals RENAME TO totals_v1",
    """CREATE TABLE totals (
        variant  TEXT NOT NULL,
        player   INTEGER NOT NULL REFERENCES players (id),
        wins     INTEGER NOT NULL DEFAULT 0,
        losses   INTEGER NOT NULL DEFAULT 0,
        draws    INTEGER NOT NULL DEFAULT 0,
        matches  INTEGER GENERATED ALWAYS AS (wins + losses + draws) VIRTUAL,
        win_rate REAL GENERATED ALWAYS AS
                 (CAST(wins AS REAL) / nullif(wins + losses + draws, 0)) VIRTUAL,
        PRIMARY KEY (variant, player)
    )""",
    """INSERT INTO totals (variant, player, wins, losses, draws)
        SELECT 'classic', player, wins, losses, draws FROM totals_v1""",
    "DROP TABLE totals_v1",
    *(
        f"CREATE INDEX totals_by_{order} ON totals (variant, {order}, player)"
        for order in _TOTALS_ORDERS
    ),
    """CREATE TRIGGER count_a_match AFTER INSERT ON matches BEGIN
        INSERT INTO totals (variant, player, wins, losses, draws)
            VALUES (NEW.variant, NEW.player1,
                    NEW.winner IS 1, NEW.winner IS 2, NEW.winner IS NULL),
                   (NEW.variant, NEW.player2,
                    NEW.winner IS 2, NEW.winner IS 1, NEW.winner IS NULL)
            ON CONFLICT (variant, player) DO UPDATE SET wins = wins + excluded.wins,
                losses = losses + excluded.losses, draws = draws + excluded.draws;
    END""",
    """CREATE TRIGGER uncount_a_match AFTER DELETE ON matches BEGIN
        UPDATE totals SET wins = wins - (OLD.winner IS 1), losses = losses - (OLD.winner IS 2),
                          draws = draws - (OLD.winner IS NULL)
            WHERE variant = OLD.variant AND player = OLD.player1;
        UPDATE totals SET wins = wins - (OLD.winner IS 2), losses = losses - (OLD.winner IS 1),
                          draws = draws - (OLD.winner IS NULL)
            WHERE variant = OLD.variant AND player = OLD.player2;
    END""",
    """CREATE TRIGGER a_match_is_never_changed BEFORE UPDATE ON matches BEGIN
        SELECT RAISE(ABORT, 'a recorded match is never changed; delete it instead');
    END""",
    """CREATE TRIGGER count_imported_totals AFTER INSERT ON imported_totals BEGIN
        INSERT INTO totals (variant, player, wins, losses, draws)
            VALUES ('classic', NEW.player, NEW.wins, NEW.losses, NEW.draws)
            ON CONFLICT (variant, player) DO UPDATE SET wins = wins + excluded.wins,
                losses = losses + excluded.losses, draws = draws + excluded.draws;
    END""",
    """CREATE TRIGGER uncount_imported_totals AFTER DELETE ON imported_totals BEGIN
        UPDATE totals SET wins = wins - OLD.wins, losses = losses - OLD.losses,
                          draws = draws - OLD.draws
            WHERE variant = 'classic' AND player = OLD.player;
    END""",
)

MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (_SCHEMA_V1, _SCHEMA_V2)
"""`MIGRATIONS[n]` takes a database at `PRAGMA user_version` n to n + 1, in one transaction.

Version 0 is an empty file. A later schema appends its steps here; nothing is ever
edited in place, so a database of any earlier version walks up one step at a time.
"""

SCHEMA_VERSION: Final = len(MIGRATIONS)
"""The `PRAGMA user_version` this code writes; a file with a higher one is left alone."""


class NotOurs(Exception):
    """The file is a database, but not one this code may write to; the message says why."""


Migrations = tuple[tuple[str, ...], ...]
"""The steps of a file's schema, as `MIGRATIONS`: the game record's, or the club's."""


def check_ours(db: sqlite3.Connection, migrations: Migrations = MIGRATIONS) -> int:
    """The schema version of a file this game made (0 for a new, empty one); reads only.

    `migrations` are the steps of the kind of file it should be (the game record's by default).

    NotOurs for any other database: a version this code does not know (newer, or
    negative), or tables other than those its version has, such as another
    program's. Such a file is left byte for byte as it is.
    """
    own = not db.in_transaction
    if own:  # the version and the tables read in one snapshot, not either side of a migration
        db.execute("BEGIN")
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        tables = _tables(db)
    finally:
        if own and db.in_transaction:
            db.execute("COMMIT")
    if version > len(migrations):
        raise NotOurs(
            f"was written by a newer version of tictactoe (schema {version}), "
            "so it is left as it is"
        )
    if version < 0 or tables != _tables_at(migrations, version):
        raise NotOurs("is a database of some other program, so it is left as it is")
    return version


def _tables(db: sqlite3.Connection) -> frozenset[str]:
    """The file's own tables (SQLite's internal ones, such as `sqlite_stat1`, left out)."""
    rows = db.execute(
        "SELECT name FROM sqlite_master"
        " WHERE type = 'table' AND name NOT LIKE 'sqlite~_%' ESCAPE '~'"
    )
    return frozenset(str(name) for (name,) in rows)


@functools.cache
def _tables_at(migrations: Migrations, version: int) -> frozenset[str]:
    """The tables a file of the game's at `version` holds: the steps up to it, made in memory."""
    db = sqlite3.connect(":memory:")
    try:
        for steps in migrations[:version]:
            for statement in steps:
                db.execute(statement)
        return _tables(db)
    finally:
        db.close()


def migrate(db: sqlite3.Connection, migrations: Migrations = MIGRATIONS) -> None:
    """Run every step the file is missing, in one transaction (NotOurs as `check_ours`).

    The file is looked at again once the write lock is held: another game may have
    made the tables meanwhile.
    """
    with transaction(db):
        version = check_ours(db, migrations)
        for steps in migrations[version:]:
            for statement in steps:
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {len(migrations)}")
