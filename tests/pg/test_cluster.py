"""One club across two `tictactoe club` processes on one PostgreSQL database, with the real `ssh`.

Every program runs in a pseudo-terminal of its own (`online.test_end_to_end.Terminal`); the
database is the tests' own throwaway cluster (`conftest.postgres`), on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from club.test_club_end_to_end import Club, move, open_club
from online.test_end_to_end import WAIT, Terminal
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from pg.conftest import Cluster
from pg.processes import club_processes
from pg.simulated import play_for
from tictactoe.club.cluster import HEARTBEAT_EVERY, TABLE_LIFETIME

LOAD_PAIRS = 100
LOAD_SECONDS = 60.0
LOAD_PACE = 0.5
"""Seconds a simulated player takes to act once it is its turn, on average (a person's pace)."""
LOAD_BOUND = 60.0
"""Seconds the load test may take beyond its minute of play: processes started and stopped."""

pytestmark = [pytest.mark.usefixtures("ssh"), pytest.mark.slow]


def club_process(folder: Path, name: str, database: str) -> Club:
    """`tictactoe club --database …` in a terminal: its own data folder, the club's host key;
    the players' keys and known_hosts in `folder`, shared."""
    options = ("--host-key", str(folder / "host_key"), "--database", database)
    return open_club(folder, *options, data=folder / name)


@pytest.fixture
def two(tmp_path: Path, database: str) -> Iterator[tuple[Club, Club]]:
    first = club_process(tmp_path, "first", database)
    second = club_process(tmp_path, "second", database)
    try:
        yield first, second
    finally:
        first.close()
        second.close()


def owner(database: str, *command: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "tictactoe", "club", *command, "--database", database]
    return subprocess.run(argv, capture_output=True, text=True, timeout=WAIT, check=False)


def tables(database: str) -> list[tuple[str, str]]:
    """The registry: (table id, process) of each row."""
    with psycopg.connect(database, autocommit=True) as conn:
        rows = conn.execute("SELECT id, process FROM tables ORDER BY id").fetchall()
    return [(str(table), str(process)) for table, process in rows]


def matches(database: str) -> int:
    with psycopg.connect(database, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM matches").fetchone()
    assert row is not None
    return int(row[0])


def across(first: Club, second: Club) -> tuple[Terminal, Terminal]:
    """Alice on the first process opens a rated table; Bob on the second sits; Alice takes X."""
    alice = first.ssh("alice", "alice")
    bob = second.ssh("bob", "bob")
    alice.expect("Open tables")
    bob.expect("Open tables")
    alice.from_now().send(b"o\r")  # the dialog: Enter opens as shown
    bob.expect(r"alice 1500 ± \d+ Classic · open")
    bob.from_now().send(b"\r")
    alice.expect("alice, choose your mark")
    bob.from_now()
    alice.from_now().send(b"x")
    bob.expect(r"alice \(X\) to move")
    return alice, bob


def test_a_table_of_one_process_is_played_from_another_and_both_ladders_show_it(
    two: tuple[Club, Club], database: str
) -> None:
    first, second = two
    alice, bob = across(first, second)
    move(alice, b"7", bob, "alice X top-left")
    move(bob, b"4", alice, "bob O left")
    move(alice, b"8", bob, "alice X top")
    move(bob, b"5", alice, "bob O centre")
    move(alice, b"9", bob, "alice wins!")
    bob.from_now().send(b"q")
    bob.expect("Open tables")
    alice.expect("bob left the series")

    assert matches(database) == 1
    ladder = owner(database, "ladder")
    assert ladder.returncode == 0, ladder.stderr
    assert [line.split()[1] for line in ladder.stdout.splitlines()[1:3]] == ["alice", "bob"]
    carol = second.ssh("carol", "carol")  # a lobby of the other process shows it too
    carol.expect(r"1 alice (\d+) ± \d+ 1 0 0 2 bob (\d+) ± \d+ 0 0 1")

    assert owner(database, "ban", "bob").returncode == 0  # bob is on the second process
    bob.expect("You are banned from this club for ever.")
    again = first.ssh("bob", "bob")  # and refused at the first
    again.expect("banned")
    assert again.finish() == 1


def test_a_process_killed_mid_series_the_other_goes_on_and_the_registry_forgets(
    two: tuple[Club, Club], database: str
) -> None:
    first, second = two
    carol = second.ssh("carol", "carol")
    dave = second.ssh("dave", "dave")
    carol.expect("Open tables")
    dave.expect("Open tables")
    carol.from_now().send(b"u\r")
    dave.expect(r"carol unrated Classic · open")
    dave.from_now().send(b"\r")
    carol.expect("carol, choose your mark")
    carol.from_now().send(b"x")
    dave.expect(r"carol \(X\) to move")

    alice, bob = across(first, second)  # bob, on the second, at the first's table
    move(alice, b"5", bob, "alice X centre")
    processes = {process for _table, process in tables(database)}
    assert len(processes) == 2

    os.kill(first.server.pid, signal.SIGKILL)
    first.server.finish()
    bob.expect("The link to the table was lost.")  # bob is back in his lobby, told
    alice.finish()  # alice's ssh ends with the process she came in through
    move(carol, b"5", dave, "carol X centre")  # the second's table goes on
    deadline = time.monotonic() + TABLE_LIFETIME + 4 * HEARTBEAT_EVERY + WAIT
    while len({process for _table, process in tables(database)}) > 1:
        assert time.monotonic() < deadline, tables(database)
        time.sleep(0.2)
    assert bob.poll() is None


def logged(path: Path, *lines: str) -> None:
    """Wait until the club's log at `path` holds each of `lines` (within `WAIT` seconds)."""
    deadline = time.monotonic() + WAIT
    while True:
        text = path.read_text() if path.exists() else ""
        if all(line in text for line in lines):
            return
        assert time.monotonic() < deadline, f"{path} lacks {lines}: {text}"
        time.sleep(0.2)


def test_postgresql_restarted_mid_series_the_match_is_written_once_it_is_back(
    two: tuple[Club, Club], database: str, postgres: Cluster, tmp_path: Path
) -> None:
    first, second = two
    logs = (tmp_path / "first" / "club.log", tmp_path / "second" / "club.log")
    alice, bob = across(first, second)
    move(alice, b"7", bob, "alice X top-left")
    postgres.stop()
    try:
        move(bob, b"4", alice, "bob O left")  # the table goes on without the database
        move(alice, b"8", bob, "alice X top")
        move(bob, b"5", alice, "bob O centre")
        for log in logs:  # each process says it lost the database
            logged(log, "is away; tables in play go on")
        move(alice, b"9", bob, "alice wins!")  # a match that waits
        late = first.ssh("erin", "erin")
        late.expect("The club cannot reach its records just now; please try again in a minute.")
        assert late.finish() == 1
    finally:
        postgres.start()
    deadline = time.monotonic() + WAIT
    while matches(database) < 1:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    time.sleep(4 * HEARTBEAT_EVERY)
    assert matches(database) == 1
    ladder = owner(database, "ladder")
    assert [line.split()[1] for line in ladder.stdout.splitlines()[1:3]] == ["alice", "bob"]
    # each process says it has the database again; the first, the match it wrote
    logged(logs[0], "answers again", "wrote a match of alice and bob that waited")
    logged(logs[1], "answers again")


async def test_two_hundred_players_over_two_processes_for_a_minute_every_match_written_once(
    database: str,
) -> None:
    """The issue's load test: two club processes (tests/pg/processes.py), 100 pairs of simulated
    players in this process, each pair's table opened on one process and sat at from the other,
    playing at a person's pace for a minute; then both processes stopped."""
    async with asyncio.timeout(LOAD_SECONDS + LOAD_BOUND):
        async with club_processes(database, 2) as clubs:
            played = await play_for(clubs, LOAD_PAIRS, LOAD_SECONDS, LOAD_PACE)
            ended = [await club.stopped() for club in clubs]
    assert all(ended)  # each stopped on SIGTERM and said so
    assert [club.process.returncode for club in clubs] == [0, 0]
    assert len(played.finished) == LOAD_PAIRS  # every table was sat at from the other process
    assert sum(played.finished.values()) > LOAD_PAIRS  # most tables finished several matches
    with psycopg.connect(database, autocommit=True) as conn:
        written: dict[str, int] = {
            str(table): int(count)
            for table, count in conn.execute(
                "SELECT club_table, count(*) FROM matches GROUP BY club_table"
            )
        }
        rated = conn.execute("SELECT sum(matches) FROM ratings").fetchone()
    # Every finished match once; and, the time up, the match a seat left after both had moved,
    # its loss (whether both had moved as the authority took the leave, the player's last state
    # may not have shown yet): at most one more a table.
    for table, finished in played.finished.items():
        assert written.get(table, 0) - finished in (0, 1), (table, finished, written.get(table))
    assert set(written) <= set(played.finished)
    assert rated is not None and rated[0] == 2 * sum(written.values())


def test_a_club_process_against_a_newer_schema_refuses_in_one_sentence(
    tmp_path: Path, database: str
) -> None:
    assert owner(database, "migrate").returncode == 0
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("UPDATE schema_version SET version = version + 1")
    argv = [sys.executable, "-m", "tictactoe", "club", "--ssh-port", "0", "--listen", "127.0.0.1"]
    argv += ["--data", str(tmp_path / "data"), "--database", database]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=WAIT, check=False)
    assert done.returncode == 2
    assert "newer than this tictactoe's" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
