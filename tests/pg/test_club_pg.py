"""The club's store on PostgreSQL keeps the SQLite record's promises (the same tests run on both
stores), and those of a database shared by several club processes: matches of one player
finished at once from two processes all count, a newer schema is refused in one sentence, a
restart or an outage of PostgreSQL loses no finished match and writes none twice, the registry
of tables, and LISTEN/NOTIFY between processes."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import math
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from limits import EVENT_LIMIT
from pg.conftest import Cluster
from record.test_club_record import (
    ADA,
    BOB,
    CY,
    HOUR,
    NOW,
    add_key,
    drawn,
    key,
    won_by_first,
)
from record.test_club_record import (  # the keys' rules, run here on both stores
    test_a_ban_never_refuses_anothers_key as test_a_ban_never_refuses_anothers_key,
)
from record.test_club_record import (
    test_a_handle_holds_few_keys as test_a_handle_holds_few_keys,
)
from record.test_club_record import (
    test_a_key_belongs_to_one_handle as test_a_key_belongs_to_one_handle,
)
from record.test_club_record import (
    test_a_key_joins_by_a_login_with_a_word as test_a_key_joins_by_a_login_with_a_word,
)
from record.test_club_record import (
    test_the_owner_sees_and_removes_keys as test_the_owner_sees_and_removes_keys,
)
from tictactoe.cli import main
from tictactoe.club.registry_pg import TABLES_CHANNEL, ClubTable, TableRegistry
from tictactoe.core.ai import Level
from tictactoe.core.club import CLAIMS_PER_HOUR, START, Rating, rated
from tictactoe.core.engine import Mark
from tictactoe.core.key_words import word_refused
from tictactoe.core.series import Player
from tictactoe.record.club import ClubRecord, ClubUnavailable, UnknownHandle, club_path
from tictactoe.record.club_pg import PG_SCHEMA_VERSION, PostgresClubRecord, migrate
from tictactoe.record.club_store import ClubStore, open_club_store
from tictactoe.record.match import MatchRecord

Opener = Callable[[], ClubStore]
"""Opens the test's club once more: another process, or the club after a restart."""


@pytest.fixture(params=["sqlite", "postgresql"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    opened: list[ClubStore] = []
    if request.param == "sqlite":
        path = club_path(tmp_path)

        def make() -> ClubStore:
            store: ClubStore = ClubRecord(path)
            opened.append(store)
            return store
    else:
        dsn: str = request.getfixturevalue("database")

        def make() -> ClubStore:
            store: ClubStore = PostgresClubRecord(dsn, timeout=2.0)
            opened.append(store)
            return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def club(opener: Opener) -> ClubStore:
    store = opener()
    assert store.enter("Ada", ADA, "10.0.0.1", NOW).refusal is None
    assert store.enter("bob", BOB, "10.0.0.2", NOW).refusal is None
    return store


@pytest.fixture
def pg(database: str) -> Iterator[PostgresClubRecord]:
    store = PostgresClubRecord(database, timeout=2.0)
    assert store.enter("Ada", ADA, "10.0.0.1", NOW).refusal is None
    assert store.enter("bob", BOB, "10.0.0.2", NOW).refusal is None
    yield store
    store.close()


# The SQLite record's promises, on both stores.


def test_the_first_key_claims_a_free_handle_and_only_its_keys_come_in(club: ClubStore) -> None:
    again = club.enter("ADA", key(1, "another comment"), "10.9.9.9", NOW + 1)
    assert again.refusal is None and again.handle == "ada" and not again.guest
    other = club.enter("ada", CY, "10.0.0.3", NOW + 2)
    assert other.refusal == "The handle ada belongs to another key; choose another handle."
    assert add_key(club, "ada", CY) is None
    assert club.enter("ada", CY, "10.0.0.3", NOW + 3).refusal is None
    assert add_key(club, "ada", CY, NOW + 3) is None, "a key added twice is kept once"
    (ada, bob) = club.players()
    assert ada.handle == "ada" and len(ada.fingerprints) == 2 and ada.last_seen == NOW + 4
    assert bob.handle == "bob" and len(bob.fingerprints) == 1


def test_refusals_are_one_sentence(club: ClubStore) -> None:
    nobody = club.enter("nobody-here+abcdefgh", CY, "10.0.0.3", NOW).refusal
    assert nobody == word_refused("nobody-here")
    not_key = club.enter("ada+abcdefgh", "ssh-ed25519 !!!", "10.0.0.3", NOW).refusal
    assert not_key == "That public key is not written in base64."
    reserved = club.enter("admin", CY, "10.0.0.3", NOW).refusal
    assert reserved == "The handle admin is reserved; please choose another."


def test_a_login_without_a_key_is_a_guest_not_kept(club: ClubStore) -> None:
    guest = club.enter("ada", None, "10.0.0.3", NOW)
    assert guest.guest and guest.handle.startswith("guest-") and guest.rating == START
    assert [row.handle for row in club.players()] == ["ada", "bob"]


def test_new_handles_are_bounded_per_address_per_hour(opener: Opener) -> None:
    club = opener()
    for number in range(CLAIMS_PER_HOUR):
        assert club.enter(f"p{number}", key(100 + number), "203.0.113.9", NOW).refusal is None
    refused = club.enter("one-more", key(200), "203.0.113.9", NOW + 10).refusal
    assert refused is not None and "this address this hour" in refused
    assert club.enter("p0", key(100), "203.0.113.9", NOW + 11).refusal is None, "no new claim"
    assert club.enter("one-more", key(200), "203.0.113.9", NOW + HOUR + 1).refusal is None


def test_a_ban_refuses_the_handle_and_its_keys_until_it_ends(club: ClubStore) -> None:
    version = club.bans_version()
    club.ban("Bob", NOW + HOUR)
    assert club.bans_version() != version
    assert club.banned_until("bob", NOW) == NOW + HOUR
    refused = club.enter("bob", BOB, "10.0.0.2", NOW + 1).refusal
    assert refused == "bob is banned until 2027-01-15 09:00 UTC."
    assert club.enter("bob2", BOB, "10.0.0.2", NOW + 2).refusal == refused
    assert club.enter("bob", BOB, "10.0.0.2", NOW + HOUR).refusal is None, "the ban has ended"
    club.ban("bob", None)
    assert club.banned_until("bob", NOW) == math.inf
    version = club.bans_version()
    assert club.unban("bob") and not club.unban("bob")
    assert club.bans_version() != version
    with pytest.raises(UnknownHandle, match=r"No player is called zed\."):
        club.ban("zed", None)


def test_a_ban_by_the_owner_is_seen_by_the_running_club_at_once(
    club: ClubStore, opener: Opener
) -> None:
    seen = club.bans_version()
    opener().ban("ada", None)  # `tictactoe club ban`, another process in real life
    assert club.bans_version() != seen
    assert club.enter("ada", ADA, "10.0.0.1", NOW).refusal == "ada is banned for ever."


def test_a_rated_match_moves_both_ratings_with_the_match(club: ClubStore) -> None:
    after = club.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW)
    assert after == rated(START, START, 0)
    assert club.rating("ada") == after[0] and club.rating("bob") == after[1]
    first, second = club.ladder()
    assert (first.rank, first.handle, first.matches, first.wins) == (1, "ada", 1, 1)
    assert (second.rank, second.handle, second.losses) == (2, "bob", 1)
    club.finish("t1", ("bob", "ada"), True, drawn("bob", "ada"), NOW + 60)
    assert [(row.handle, row.matches, row.draws) for row in club.ladder()] == [
        ("ada", 2, 1),
        ("bob", 2, 1),
    ]
    (last, earlier) = club.recent("ADA")
    assert last.players == (Player("bob"), Player("ada")) and last.winner is None
    assert earlier.moves == (0, 3, 1, 4, 2) and earlier.result() == "ada won"
    assert earlier.finished_at is not None and earlier.finished_at.timestamp() == NOW
    assert len(earlier.positions()) == 6, "replayable move by move"


def test_recent_matches_say_whether_they_moved_the_ratings(club: ClubStore) -> None:
    club.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW)
    club.finish("t2", ("ada", "bob"), False, won_by_first("ada", "bob"), NOW + 1)
    guest = club.enter("x", None, "10.0.0.9", NOW).handle
    club.finish("t3", ("ada", guest), True, won_by_first("ada", guest), NOW + 2)
    assert [rated for _, rated in club.recent_rated("ada")] == [False, False, True]
    assert [match for match, _ in club.recent_rated("ada")] == club.recent("ada")


def test_unrated_matches_are_kept_but_move_no_rating(club: ClubStore) -> None:
    assert club.finish("t2", ("ada", "bob"), False, won_by_first("ada", "bob"), NOW) is None
    guest = club.enter("x", None, "10.0.0.9", NOW).handle
    assert club.finish("t3", ("ada", guest), True, won_by_first("ada", guest), NOW) is None
    computer = MatchRecord(
        (Player("ada"), Player.computer(Level.HARD)), (Mark.X, Mark.O), 0, (0, 3, 1, 4, 2), 0
    )
    assert club.finish("t4", ("ada", "computer"), True, computer, NOW) is None
    assert club.ladder() == [] and club.rating("ada") == START
    assert club.recent("ada")[0].players[1] == Player.computer(Level.HARD)
    assert len(club.recent("ada")) == 3


def test_a_restart_keeps_players_keys_ratings_bans_and_matches(
    club: ClubStore, opener: Opener
) -> None:
    add_key(club, "ada", CY)
    club.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW)
    club.ban("bob", NOW + HOUR)
    before = (club.players(), club.ladder(), club.recent("ada"), club.bans_version())
    club.close()
    again = opener()
    assert (again.players(), again.ladder(), again.recent("ada"), again.bans_version()) == before
    assert again.banned_until("bob", NOW) == NOW + HOUR
    assert again.enter("ada", CY, "10.0.0.1", NOW).refusal is None


def test_matches_finished_from_many_threads_and_processes_are_all_counted(
    club: ClubStore, opener: Opener
) -> None:
    second = opener()  # another process's store, in real life

    def play(store: ClubStore, times: int) -> None:
        for number in range(times):
            store.finish(f"t{number}", ("ada", "bob"), True, drawn("ada", "bob"), NOW)

    threads = [threading.Thread(target=play, args=(s, 10)) for s in (club, club, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert club.unsaved == second.unsaved == 0
    assert [row.matches for row in club.ladder()] == [30, 30]
    assert len(club.recent("ada", limit=100)) == 30


def test_ratings_read_back_exactly(club: ClubStore) -> None:
    after = club.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW)
    assert after is not None
    assert isinstance(club.rating("ada"), Rating) and club.rating("ada") == after[0]


def test_the_club_opens_sqlite_by_default_and_postgresql_when_asked(
    tmp_path: Path, database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TICTACTOE_DATABASE", raising=False)
    sqlite = open_club_store(tmp_path, None)
    assert isinstance(sqlite, ClubRecord) and sqlite.path == club_path(tmp_path)
    sqlite.close()
    postgres = open_club_store(tmp_path, database)
    assert isinstance(postgres, PostgresClubRecord)
    postgres.close()
    monkeypatch.setenv("TICTACTOE_DATABASE", database)
    from_environment = open_club_store(None, None)
    assert isinstance(from_environment, PostgresClubRecord)
    from_environment.close()


# What only a shared database must promise.


def test_a_failure_mid_finish_leaves_no_half_and_loses_nothing(
    pg: PostgresClubRecord, database: str
) -> None:
    with psycopg.connect(database, autocommit=True) as other:
        other.execute(
            "CREATE FUNCTION on_fire() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            " IF NEW.player = (SELECT id FROM players WHERE handle = 'bob') THEN"
            " RAISE EXCEPTION 'the disk is on fire'; END IF; RETURN NEW; END $$"
        )
        other.execute(
            "CREATE TRIGGER fail_midway BEFORE INSERT ON rating_history FOR EACH ROW"
            " EXECUTE FUNCTION on_fire()"
        )
    assert pg.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW) is None
    assert pg.unsaved == 1 and pg.problem is not None and "on fire" in pg.problem
    assert pg.recent("ada") == [] and pg.ladder() == []

    with psycopg.connect(database, autocommit=True) as other:
        other.execute("DROP TRIGGER fail_midway ON rating_history")
    after = pg.finish("t1", ("ada", "bob"), True, drawn("ada", "bob"), NOW + 60)
    assert pg.unsaved == 0 and pg.problem is None
    assert after == rated(*rated(START, START, 0), None), "the match that waited is rated first"
    with psycopg.connect(database) as db:
        history = db.execute(
            "SELECT count(*), count(DISTINCT match) FROM rating_history"
        ).fetchone()
    assert history == (4, 2)


def test_a_hundred_matches_of_one_player_finished_at_once_from_two_processes_all_count(
    database: str,
) -> None:
    stores = [PostgresClubRecord(database, timeout=10.0) for _ in range(2)]
    opponents = ("bob", "cy", "dan", "eve")
    for number, handle in enumerate(("ada", *opponents), 1):
        assert stores[0].enter(handle, key(number), f"10.0.0.{number}", NOW).refusal is None
    start = threading.Barrier(4)

    def play(store: PostgresClubRecord, worker: int) -> None:
        start.wait()
        for number in range(25):
            other = opponents[(worker + number) % len(opponents)]
            # Half with ada first, half with ada second: the rows are locked in one order anyway.
            players = ("ada", other) if number % 2 else (other, "ada")
            winner = (None, 0, 1)[number % 3]
            match = dataclasses.replace(won_by_first(*players), winner=winner)
            store.finish(f"t{worker}", players, True, match, NOW + number)

    threads = [
        threading.Thread(target=play, args=(stores[worker % 2], worker)) for worker in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert [store.unsaved for store in stores] == [0, 0]
    ada = next(row for row in stores[1].ladder() if row.handle == "ada")
    assert ada.matches == 100 and ada.wins + ada.draws + ada.losses == 100
    with psycopg.connect(database) as db:
        sigmas = [
            sigma
            for (sigma,) in db.execute(
                "SELECT sigma FROM rating_history JOIN players ON players.id = player"
                " WHERE handle = 'ada' ORDER BY rating_history.id"
            )
        ]
    assert len(sigmas) == 100
    assert all(later < earlier for earlier, later in itertools.pairwise(sigmas)), (
        "each update started from the one before it: none was lost"
    )
    assert stores[0].rating("ada").sigma == sigmas[-1]
    for store in stores:
        store.close()


def test_a_newer_schema_or_another_programs_tables_are_refused_in_one_sentence(
    pg: PostgresClubRecord, database: str, postgres: Cluster
) -> None:
    assert migrate(database) == (PG_SCHEMA_VERSION, PG_SCHEMA_VERSION), "nothing to do twice"
    with psycopg.connect(database, autocommit=True) as db:
        db.execute("UPDATE schema_version SET version = version + 1")
    with pytest.raises(ClubUnavailable) as refused:
        PostgresClubRecord(database)
    sentence = str(refused.value)
    assert sentence == (
        f"The club's database 127.0.0.1:{postgres.port}/{database.rsplit('/', 1)[1]} has"
        f" schema version {PG_SCHEMA_VERSION + 1}, newer than this tictactoe's"
        f" {PG_SCHEMA_VERSION}; please upgrade tictactoe."
    )
    other = postgres.create_database()
    with psycopg.connect(other, autocommit=True) as db:
        db.execute("CREATE TABLE players (name text)")
    with pytest.raises(ClubUnavailable, match="holds some other program's tables"):
        migrate(other)
    postgres.drop_database(other)


def test_a_fresh_database_is_migrated_by_itself(database: str) -> None:
    assert migrate(database) == (0, PG_SCHEMA_VERSION)
    with psycopg.connect(database) as db:
        assert db.execute("SELECT application, version FROM schema_version").fetchall() == [
            ("tictactoe-club", PG_SCHEMA_VERSION)
        ]
    store = PostgresClubRecord(database)
    assert store.ladder() == []
    store.close()


def test_postgresql_restarted_or_away_loses_no_match_and_writes_none_twice(
    pg: PostgresClubRecord, database: str, postgres: Cluster
) -> None:
    assert pg.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW)
    postgres.restart()
    assert pg.finish("t1", ("ada", "bob"), True, drawn("ada", "bob"), NOW + 1)
    assert pg.unsaved == 0

    version = pg.bans_version()
    postgres.stop()
    try:
        assert pg.finish("t1", ("bob", "ada"), True, won_by_first("bob", "ada"), NOW + 2) is None
        assert pg.unsaved == 1 and pg.problem is not None
        refused = pg.enter("ada", ADA, "10.0.0.1", NOW + 3).refusal
        assert (
            refused == "The club cannot reach its records just now; please try again in a minute."
        )
        assert pg.bans_version() == version
        with pytest.raises(ClubUnavailable, match=r"^The club's database .* cannot be used"):
            pg.ladder()
    finally:
        postgres.start()
    written: list[tuple[Rating, Rating] | None] = []
    for _attempt in range(30):  # each waits up to the store's timeout for a connection
        written += [ratings for _match, ratings in pg.save_pending()]
        if not pg.unsaved:
            break
    assert written == [rated(*rated(*rated(START, START, 0), None)[::-1], 0)]
    assert pg.unsaved == 0 and pg.problem is None
    (notice,) = pg.take_notices()
    assert "1 finished matches that waited are written" in notice
    pg.close()  # writes what waits once more: nothing
    with psycopg.connect(database) as db:
        assert db.execute("SELECT count(*), count(DISTINCT uid) FROM matches").fetchone() == (3, 3)
        assert db.execute("SELECT count(*) FROM rating_history").fetchone() == (6,)


async def test_a_notification_reaches_another_process(database: str) -> None:
    sender, receiver = (TableRegistry(PostgresClubRecord(database)) for _ in range(2))
    try:
        async with receiver.listen("club events") as messages:
            await asyncio.to_thread(sender.notify, "club events", "table t1 opened")
            assert await asyncio.wait_for(anext(messages), EVENT_LIMIT) == "table t1 opened"
            await asyncio.to_thread(sender.notify, "another channel", "not for us")
            await asyncio.to_thread(sender.notify, "club events", "table t1 closed")
            assert await asyncio.wait_for(anext(messages), EVENT_LIMIT) == "table t1 closed"
    finally:
        sender.record.close()
        receiver.record.close()


async def test_every_process_sees_the_registry_of_tables(database: str) -> None:
    first, second = (TableRegistry(PostgresClubRecord(database)) for _ in range(2))
    table = ClubTable("t1", "process-a", "ada", True, 3, ("ada",), "open", NOW)
    try:
        async with second.listen(TABLES_CHANNEL) as told:
            await asyncio.to_thread(first.register_table, table)
            assert await asyncio.wait_for(anext(told), EVENT_LIMIT) == "t1"
            assert second.live_tables(NOW + 1) == [table]
            assert first.update_table("t1", players=("ada", "bob"), state="1-0")
            assert await asyncio.wait_for(anext(told), EVENT_LIMIT) == "t1"
            (seen,) = second.live_tables(NOW + 1)
            assert (seen.players, seen.state, seen.matches) == (("ada", "bob"), "1-0", 3)

        other = ClubTable("t2", "process-b", "cy", False, None, ("cy",), "open", NOW + 20)
        second.register_table(other)
        assert second.live_tables(NOW + 30, within=15) == [other], "process-a fell silent"
        assert first.heartbeat("process-a", NOW + 30) == 1
        assert [t.id for t in second.live_tables(NOW + 30, within=15)] == ["t1", "t2"]
        assert second.forget_dead(NOW + 100, within=15) == ["process-a", "process-b"]
        assert second.live_tables(NOW + 30) == []

        first.register_table(table)
        assert first.forget_process("process-a") == 1 and not first.remove_table("t1")
        first.register_table(other)
        assert first.remove_table("t2") and second.live_tables(NOW) == []
        assert not first.update_table("t2", state="gone")
    finally:
        first.record.close()
        second.record.close()


def test_the_migrate_command_does_the_schema_alone(
    database: str,
    postgres: Cluster,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TICTACTOE_DATABASE", raising=False)
    where = f"127.0.0.1:{postgres.port}/{database.rsplit('/', 1)[1]}"
    assert main(["club", "migrate", "--database", database]) == 0
    assert capsys.readouterr().out == (
        f"The club's database {where} went from schema version 0 to {PG_SCHEMA_VERSION}.\n"
    )
    monkeypatch.setenv("TICTACTOE_DATABASE", database)
    assert main(["club", "migrate"]) == 0
    assert "already" in capsys.readouterr().out

    with psycopg.connect(database, autocommit=True) as db:
        db.execute("UPDATE schema_version SET version = version + 1")
    assert main(["club", "migrate"]) == 2
    refused = capsys.readouterr().err
    assert refused.startswith("tictactoe club migrate: The club's database") and "newer" in refused
    assert refused.count("\n") == 1

    monkeypatch.delenv("TICTACTOE_DATABASE")
    assert main(["club", "migrate"]) == 2
    assert "--database postgresql://" in capsys.readouterr().err
    unreachable = f"postgresql://postgres@127.0.0.1:{postgres.port}/no_such_database"
    assert main(["club", "migrate", "--database", unreachable]) == 2
    assert "could not be used" in capsys.readouterr().err


class CommitDropper:
    """A TCP relay to PostgreSQL that, when armed, drops the connection instead of passing on
    the server's answer to a COMMIT: the transaction is written, its client never hears so."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.armed = threading.Event()
        self.dropped = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.address = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                client, _ = self._listener.accept()
                server = socket.create_connection(("127.0.0.1", self.port))
                for source, sink, watch in ((client, server, False), (server, client, True)):
                    threading.Thread(
                        target=self._pump, args=(source, sink, watch), daemon=True
                    ).start()

    def _pump(self, source: socket.socket, sink: socket.socket, watch: bool) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if watch and self.armed.is_set() and b"COMMIT\x00" in data:
                    self.armed.clear()
                    self.dropped.set()
                    break
                sink.sendall(data)
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def close(self) -> None:
        self._listener.close()


def test_a_match_written_whose_answer_was_lost_is_not_written_twice(
    database: str, postgres: Cluster
) -> None:
    relay = CommitDropper(postgres.port)
    through = database.replace(f":{postgres.port}/", f":{relay.address}/")
    store = PostgresClubRecord(through, timeout=5.0)
    try:
        assert store.enter("ada", ADA, "10.0.0.1", NOW).refusal is None
        assert store.enter("bob", BOB, "10.0.0.2", NOW).refusal is None
        relay.armed.set()
        assert store.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW) is None
        assert relay.dropped.is_set() and store.unsaved == 1 and store.problem is not None
        assert [ratings for _match, ratings in store.save_pending()] == [rated(START, START, 0)], (
            "the ratings it gave, read back"
        )
        assert store.unsaved == 0
        assert [(row.handle, row.matches) for row in store.ladder()] == [("ada", 1), ("bob", 1)]
    finally:
        store.close()
        relay.close()
    with psycopg.connect(database) as db:
        assert db.execute("SELECT count(*) FROM matches").fetchone() == (1,)
        assert db.execute("SELECT count(*) FROM rating_history").fetchone() == (2,)


def test_the_owner_s_commands_take_the_database(
    database: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:

    monkeypatch.delenv("TICTACTOE_DATABASE", raising=False)
    assert main(["club", "migrate", "--database", database]) == 0
    capsys.readouterr()
    assert main(["club", "ladder", "--database", database, "--json"]) == 0
    assert capsys.readouterr().out.strip() == "[]"
    assert main(["club", "ban", "nobody", "--database", database]) == 2
