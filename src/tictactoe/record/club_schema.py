"""The schema of a club's own SQLite file: `CLUB_MIGRATIONS`, one step a version (`PRAGMA
user_version`). PostgreSQL's is `tictactoe.record.club_schema_pg`: the same tables, in its types.
"""

from __future__ import annotations

from typing import Final

__all__ = ["CLUB_MIGRATIONS"]

_SCHEMA_V1: Final = (
    """CREATE TABLE players (
        id         INTEGER PRIMARY KEY,
        handle     TEXT NOT NULL UNIQUE
                   CHECK (length(handle) BETWEEN 1 AND 20 AND handle NOT GLOB '*[^a-z0-9_-]*'),
        claimed_at REAL NOT NULL,
        last_seen  REAL NOT NULL
    )""",
    """CREATE TABLE keys (
        id          INTEGER PRIMARY KEY,
        player      INTEGER NOT NULL REFERENCES players (id),
        type        TEXT NOT NULL,
        data        TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        added_at    REAL NOT NULL,
        UNIQUE (player, data)
    )""",
    "CREATE INDEX keys_by_data ON keys (data)",
    """CREATE TABLE ratings (
        player  INTEGER PRIMARY KEY REFERENCES players (id),
        mu      REAL NOT NULL,
        sigma   REAL NOT NULL CHECK (sigma > 0),
        matches INTEGER NOT NULL CHECK (matches = wins + draws + losses),
        wins    INTEGER NOT NULL CHECK (wins >= 0),
        draws   INTEGER NOT NULL CHECK (draws >= 0),
        losses  INTEGER NOT NULL CHECK (losses >= 0)
    )""",
    "CREATE INDEX ratings_by_points ON ratings ((mu - 3 * sigma))",
    """CREATE TABLE matches (
        id          INTEGER PRIMARY KEY,
        finished_at TEXT NOT NULL,
        club_table  TEXT NOT NULL,
        handle1     TEXT NOT NULL,
        handle2     TEXT NOT NULL,
        level1      TEXT CHECK (level1 IN ('easy', 'medium', 'hard')),
        level2      TEXT CHECK (level2 IN ('easy', 'medium', 'hard')),
        rated       INTEGER NOT NULL CHECK (rated IN (0, 1)),
        mark1       TEXT NOT NULL CHECK (mark1 IN ('X', 'O')),
        first_mover INTEGER NOT NULL CHECK (first_mover IN (1, 2)),
        moves       TEXT NOT NULL CHECK (length(moves) <= 9 AND moves NOT GLOB '*[^0-8]*'),
        winner      INTEGER CHECK (winner IN (1, 2))
    )""",
    "CREATE INDEX matches_by_handle1 ON matches (handle1, id)",
    "CREATE INDEX matches_by_handle2 ON matches (handle2, id)",
    """CREATE TRIGGER a_match_is_never_changed BEFORE UPDATE ON matches BEGIN
        SELECT RAISE(ABORT, 'a recorded match is never changed');
    END""",
    """CREATE TABLE rating_history (
        id     INTEGER PRIMARY KEY,
        player INTEGER NOT NULL REFERENCES players (id),
        match  INTEGER NOT NULL REFERENCES matches (id),
        mu     REAL NOT NULL,
        sigma  REAL NOT NULL,
        UNIQUE (player, match)
    )""",
    """CREATE TABLE bans (
        player    INTEGER PRIMARY KEY REFERENCES players (id),
        until     REAL,
        banned_at REAL NOT NULL
    )""",
    """CREATE TABLE claims (
        id      INTEGER PRIMARY KEY,
        address TEXT NOT NULL,
        at      REAL NOT NULL,
        handle  TEXT NOT NULL
    )""",
    "CREATE INDEX claims_by_address ON claims (address, at)",
    """CREATE TABLE counters (
        name  TEXT PRIMARY KEY,
        value INTEGER NOT NULL
    )""",
    "INSERT INTO counters (name, value) VALUES ('bans', 0)",
)

_SCHEMA_V2: Final = (
    # A key joins a handle only through a login made with it (`tictactoe.core.key_words`): the
    # keys that claimed their handles were so proven, those pasted in were not, and go; a key
    # proven for several handles stays with the first.
    """CREATE TABLE key_words (
        player  INTEGER PRIMARY KEY REFERENCES players (id),
        digest  TEXT NOT NULL UNIQUE,
        expires REAL NOT NULL
    )""",
    """DELETE FROM keys WHERE id IN (SELECT keys.id FROM keys JOIN players
        ON players.id = keys.player WHERE keys.added_at <> players.claimed_at)""",
    "DELETE FROM keys WHERE id NOT IN (SELECT min(id) FROM keys GROUP BY data)",
    "DROP INDEX keys_by_data",
    "CREATE UNIQUE INDEX keys_by_data ON keys (data)",
)

_SCHEMA_V3: Final = (
    # A ladder for each game: a rating is a player's in one game (`variant`), a match is of one
    # game, and everything kept before is classic. SQLite changes a key or a check only by
    # making the table again: the new matches and history are made and filled, the old ones
    # dropped (the history first, which refers to the matches), and the new ones renamed.
    """CREATE TABLE ratings_by_game (
        player  INTEGER NOT NULL REFERENCES players (id),
        variant TEXT NOT NULL CHECK (variant IN ('classic', 'ultimate')),
        mu      REAL NOT NULL,
        sigma   REAL NOT NULL CHECK (sigma > 0),
        matches INTEGER NOT NULL CHECK (matches = wins + draws + losses),
        wins    INTEGER NOT NULL CHECK (wins >= 0),
        draws   INTEGER NOT NULL CHECK (draws >= 0),
        losses  INTEGER NOT NULL CHECK (losses >= 0),
        PRIMARY KEY (player, variant)
    )""",
    """INSERT INTO ratings_by_game (player, variant, mu, sigma, matches, wins, draws, losses)
        SELECT player, 'classic', mu, sigma, matches, wins, draws, losses FROM ratings""",
    "DROP TABLE ratings",
    "ALTER TABLE ratings_by_game RENAME TO ratings",
    "CREATE INDEX ratings_by_points ON ratings (variant, (mu - 3 * sigma))",
    """CREATE TABLE matches_by_game (
        id          INTEGER PRIMARY KEY,
        finished_at TEXT NOT NULL,
        club_table  TEXT NOT NULL,
        handle1     TEXT NOT NULL,
        handle2     TEXT NOT NULL,
        level1      TEXT CHECK (level1 IN ('easy', 'medium', 'hard')),
        level2      TEXT CHECK (level2 IN ('easy', 'medium', 'hard')),
        rated       INTEGER NOT NULL CHECK (rated IN (0, 1)),
        mark1       TEXT NOT NULL CHECK (mark1 IN ('X', 'O')),
        first_mover INTEGER NOT NULL CHECK (first_mover IN (1, 2)),
        moves       TEXT NOT NULL CHECK (moves NOT GLOB '*[^0-8]*'
                    AND length(moves) <= CASE variant WHEN 'classic' THEN 9 ELSE 162 END),
        winner      INTEGER CHECK (winner IN (1, 2)),
        variant     TEXT NOT NULL CHECK (variant IN ('classic', 'ultimate'))
    )""",
    """INSERT INTO matches_by_game (id, finished_at, club_table, handle1, handle2, level1,
        level2, rated, mark1, first_mover, moves, winner, variant)
        SELECT id, finished_at, club_table, handle1, handle2, level1, level2, rated, mark1,
        first_mover, moves, winner, 'classic' FROM matches""",
    """CREATE TABLE history_by_game (
        id     INTEGER PRIMARY KEY,
        player INTEGER NOT NULL REFERENCES players (id),
        match  INTEGER NOT NULL REFERENCES matches_by_game (id),
        mu     REAL NOT NULL,
        sigma  REAL NOT NULL,
        UNIQUE (player, match)
    )""",
    "INSERT INTO history_by_game SELECT id, player, match, mu, sigma FROM rating_history",
    "DROP TABLE rating_history",
    "DROP TABLE matches",
    "ALTER TABLE matches_by_game RENAME TO matches",
    "ALTER TABLE history_by_game RENAME TO rating_history",
    "CREATE INDEX matches_by_handle1 ON matches (handle1, id)",
    "CREATE INDEX matches_by_handle2 ON matches (handle2, id)",
    """CREATE TRIGGER a_match_is_never_changed BEFORE UPDATE ON matches BEGIN
        SELECT RAISE(ABORT, 'a recorded match is never changed');
    END""",
)

CLUB_MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (_SCHEMA_V1, _SCHEMA_V2, _SCHEMA_V3)
"""`CLUB_MIGRATIONS[n]` takes a club file from `PRAGMA user_version` n to n + 1 (as the game
record's `MIGRATIONS`: released steps are never edited, later ones appended)."""
