"""A ladder for each game on PostgreSQL: the SQLite record's tests of it run on both stores, and a
club database of the schema before (one ladder) is migrated, by `tictactoe club migrate` or by
a club that opens it, with every rating, match and table kept, as classic."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import psycopg
import pytest

from pg.test_club_pg import club as club
from pg.test_club_pg import opener as opener
from record import test_club_games
from record.test_club_record import NOW, drawn
from tictactoe.cli import main
from tictactoe.club.cluster_tables import remote_table
from tictactoe.club.registry_pg import ClubTable, TableRegistry
from tictactoe.core.club import START
from tictactoe.record.club_pg import PG_MIGRATIONS, PG_SCHEMA_VERSION, PostgresClubRecord

# The SQLite record's tests of a ladder for each game, run here on both stores.
test_a_rated_ultimate_match_moves_the_ultimate_ladder_alone = (
    test_club_games.test_a_rated_ultimate_match_moves_the_ultimate_ladder_alone
)
test_an_ultimate_match_of_many_moves_is_kept_whole = (
    test_club_games.test_an_ultimate_match_of_many_moves_is_kept_whole
)

OLD_SCHEMA = 2
"""The club database's schema before each game had a ladder of its own."""


def _old_club(dsn: str) -> None:
    """A club database as the tictactoe before this one made it: two players, a rated match each
    way, an unrated one, their ratings and history, and a table in the registry."""
    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute(
            "CREATE TABLE schema_version (only_row boolean PRIMARY KEY DEFAULT true"
            " CHECK (only_row), application text NOT NULL, version integer NOT NULL)"
        )
        db.execute("INSERT INTO schema_version VALUES (true, 'tictactoe-club', %s)", (OLD_SCHEMA,))
        for steps in PG_MIGRATIONS[:OLD_SCHEMA]:
            for statement in steps:
                db.execute(statement)
        db.execute(
            "INSERT INTO players (handle, claimed_at, last_seen) VALUES"
            " ('ada', %s, %s), ('bob', %s, %s)",
            (NOW, NOW, NOW, NOW),
        )
        when = datetime(2027, 1, 15, 8, tzinfo=UTC)
        for one, two, rated, mark, first, moves, winner in [
            ("ada", "bob", True, "X", 1, "03142", 1),
            ("bob", "ada", True, "X", 1, "408217635", None),
            ("ada", "bob", False, "O", 2, "4", 2),
        ]:
            db.execute(
                "INSERT INTO matches (uid, finished_at, club_table, handle1, handle2, rated,"
                " mark1, first_mover, moves, winner)"
                " VALUES (%s, %s, 't1', %s, %s, %s, %s, %s, %s, %s)",
                (uuid.uuid4(), when, one, two, rated, mark, first, moves, winner),
            )
        db.execute(
            "INSERT INTO ratings VALUES (1, 27.5, 7.1, 2, 1, 1, 0), (2, 22.5, 7.2, 2, 0, 1, 1)"
        )
        db.execute(
            "INSERT INTO rating_history (player, match, mu, sigma) VALUES"
            " (1, 1, 27.0, 7.5), (2, 1, 23.0, 7.5), (2, 2, 22.5, 7.2), (1, 2, 27.5, 7.1)"
        )
        db.execute(
            "INSERT INTO tables VALUES ('p1-1', 'p1', 'ada', true, NULL, '{ada}', '{}', %s)",
            (NOW,),
        )


def test_the_migration_keeps_every_rating_match_and_table_as_classic(
    database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _old_club(database)
    assert main(["club", "migrate", "--database", database]) == 0
    assert (
        f"went from schema version {OLD_SCHEMA} to {PG_SCHEMA_VERSION}" in capsys.readouterr().out
    )
    store = PostgresClubRecord(database, timeout=2.0)
    try:
        ladder = store.ladder()
        assert [(row.handle, row.rating.mu, row.rating.sigma, row.matches) for row in ladder] == [
            ("ada", 27.5, 7.1, 2),
            ("bob", 22.5, 7.2, 2),
        ]
        assert store.ladder(variant="ultimate") == []
        assert store.rating("ada", "ultimate") == START
        assert [(match.id, match.variant, match.moves) for match in store.recent("ada")] == [
            (3, "classic", (4,)),
            (2, "classic", (4, 0, 8, 2, 1, 7, 6, 3, 5)),
            (1, "classic", (0, 3, 1, 4, 2)),
        ]
        (table,) = TableRegistry(store).live_tables(NOW - 1)
        assert (table.id, table.owner) == ("p1-1", "ada")
        with psycopg.connect(database, autocommit=True) as db:
            assert db.execute("SELECT count(*) FROM rating_history").fetchone() == (4,)
            assert db.execute("SELECT DISTINCT variant FROM tables").fetchall() == [("classic",)]
            with pytest.raises(psycopg.errors.RaiseException, match="never changed"):
                db.execute("UPDATE matches SET winner = 2 WHERE id = 1")
        store.finish("t3", ("ada", "bob"), True, drawn("ada", "bob"), NOW)
        assert [row.matches for row in store.ladder()] == [3, 3], "the ladder goes on"
    finally:
        store.close()


def test_a_club_opening_the_old_database_migrates_it(database: str) -> None:
    _old_club(database)
    store = PostgresClubRecord(database, timeout=2.0)
    try:
        assert [row.handle for row in store.ladder()] == ["ada", "bob"]
        assert len(store.recent("bob")) == 3
    finally:
        store.close()


def test_another_process_sees_each_tables_game(database: str) -> None:
    """An Ultimate table of one process is listed as Ultimate by every other: its registry row
    names the game, and the row a lobby shows of it says so."""
    first, second = (TableRegistry(PostgresClubRecord(database)) for _ in range(2))
    state = json.dumps(
        {
            "url": "ws://127.0.0.1:9/tables/a-1/link",
            "code": "ABC234",
            "key": "k",
            "rating": "1500 ± 500",
            "playing": False,
            "score": [0, 0, 0],
            "watchers": 0,
            "away": None,
        }
    )
    table = ClubTable("a-1", "a", "ada", True, 3, ("ada",), state, NOW, "ultimate")
    try:
        first.register_table(table)
        (seen,) = second.live_tables(NOW + 1)
        assert seen == table
        remote = remote_table(seen)
        assert remote is not None
        assert (remote.row().variant, remote.row().rating) == ("ultimate", "1500 ± 500")
    finally:
        first.record.close()
        second.record.close()
