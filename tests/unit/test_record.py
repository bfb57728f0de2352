"""The game record: SQLite on disk, and the promise that nothing finished is ever lost."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tictactoe.record.store
from tictactoe.core.ai import Level
from tictactoe.core.engine import GameState, Mark
from tictactoe.core.labels import display_name
from tictactoe.core.names import clean_name
from tictactoe.core.series import Player, Series
from tictactoe.record import (
    MIGRATIONS,
    SCHEMA_VERSION,
    GameRecord,
    MatchRecord,
    PlayerSort,
    PlayerTotals,
    default_legacy_path,
    default_record_path,
    path_problem,
    stats_import,
)
from tictactoe.record.opening import open_for_reading, open_for_writing

ADA, BOB, HARD = Player("Ada"), Player("Bob"), Player.computer(Level.HARD)
ADA_WINS = (0, 3, 1, 4, 2)
"""X takes the top row while O takes two of the middle row."""
DRAW = (4, 0, 2, 6, 3, 5, 1, 7, 8)
CORRUPT_COPY = re.compile(r"record\.sqlite3\.corrupt-\d{8}-\d{6}(-\d+)?")


def played(
    first: Player,
    second: Player,
    moves: tuple[int, ...] = ADA_WINS,
    *,
    marks: tuple[Mark, Mark] = (Mark.X, Mark.O),
    first_mover: int = 0,
) -> MatchRecord:
    """A finished match as the app hands it over; the winner follows from the moves."""
    state = GameState.new(first=marks[first_mover])
    for cell in moves:
        state = state.play(cell)
    assert state.is_over
    winner = None if state.winner is None else marks.index(state.winner)
    return MatchRecord((first, second), marks, first_mover, moves, winner, datetime.now(UTC))


def totals(record: GameRecord) -> dict[str, tuple[int, int, int]]:
    """Every player's (wins, losses, draws), by the name the record shows."""
    return {
        display_name(row.player): (row.wins, row.losses, row.draws)
        for row in record.players(limit=10_000)
    }


def files_in(directory: Path) -> set[str]:
    return {path.name for path in directory.iterdir()}


# Recording and reading back.


def test_matches_are_kept_across_runs_with_everything_a_replay_needs(tmp_path: Path) -> None:
    path = tmp_path / "deeper" / "record.sqlite3"
    first_run = GameRecord(path)
    first_run.add(played(ADA, BOB))
    first_run.add(played(BOB, ADA, DRAW, marks=(Mark.O, Mark.X), first_mover=1))
    first_run.close()

    second_run = GameRecord(path)
    assert totals(second_run) == {"Ada": (1, 0, 1), "Bob": (0, 1, 1)}
    newest, oldest = second_run.recent()
    assert (newest.players, newest.marks, newest.first_mover) == ((BOB, ADA), (Mark.O, Mark.X), 1)
    assert (newest.moves, newest.winner, newest.result()) == (DRAW, None, "Draw")
    assert (oldest.moves, oldest.winner, oldest.result()) == (ADA_WINS, 0, "Ada won")
    assert oldest.finished_at is not None
    assert abs((datetime.now(UTC) - oldest.finished_at).total_seconds()) < 60
    assert second_run.match(newest.id or 0) == newest
    positions = newest.positions()
    assert len(positions) == 10 and positions[0] == GameState.new(first=Mark.X)
    assert positions[-1].is_draw
    assert second_run.take_notices() == []


def test_a_match_from_a_series_is_recorded_as_played() -> None:
    series = Series.new("Ada", "Bob").choose_mark(Mark.O)
    for cell in (0, 3, 1, 4, 2):
        series = series.play(cell)
    (finished,) = series.finished
    record = GameRecord(None)
    record.add(finished)
    (match,) = record.recent()
    assert match.players == finished.players and match.finished_at is not None
    assert match.marks == (Mark.O, Mark.X)
    assert match.first_mover == 0 and match.winner == 0
    assert match.moves == (0, 3, 1, 4, 2)
    assert match.positions()[-1] == series.match


def test_the_file_is_plain_sqlite_with_the_documented_schema(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    record = GameRecord(path)
    record.add(played(ADA, HARD, DRAW))
    record.close()

    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,) == (2,)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    rows = db.execute(
        "SELECT m.finished_at, p1.kind, p1.name, p1.level, p2.kind, p2.name, p2.level,"
        " m.mark1, m.first_mover, m.moves, m.winner FROM matches AS m"
        " JOIN players AS p1 ON p1.id = m.player1 JOIN players AS p2 ON p2.id = m.player2"
    ).fetchall()
    ((finished_at, *rest),) = rows
    assert rest == [
        "person",
        "Ada",
        None,
        "computer",
        "Computer",
        "hard",
        "X",
        1,
        "402635178",
        None,
    ]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", finished_at)
    assert db.execute("SELECT datetime(?)", (finished_at,)).fetchone() == (finished_at,)
    db.close()


def test_the_totals_always_agree_with_the_matches(tmp_path: Path) -> None:
    """The totals table is kept by triggers: it equals a plain count over `matches`."""
    path = tmp_path / "record.sqlite3"
    record = GameRecord(path)
    rng = random.Random(3)
    people = [Player(name) for name in ("Ada", "Bob", "Cy", "Dee")]
    for _ in range(60):
        first, second = rng.sample([*people, HARD, Player.computer(Level.EASY)], 2)
        if first.is_computer and second.is_computer:
            continue
        record.add(played(first, second, rng.choice((ADA_WINS, DRAW, (4, 0, 8, 2, 1, 7, 6, 3, 5)))))
    record.close()

    db = sqlite3.connect(path)
    counted = db.execute(
        "SELECT player, sum(won), sum(lost), sum(drawn) FROM ("
        " SELECT player1 AS player, winner IS 1 AS won, winner IS 2 AS lost,"
        "        winner IS NULL AS drawn FROM matches"
        " UNION ALL"
        " SELECT player2, winner IS 2, winner IS 1, winner IS NULL FROM matches"
        ") GROUP BY player ORDER BY player"
    ).fetchall()
    kept = db.execute("SELECT player, wins, losses, draws FROM totals ORDER BY player").fetchall()
    assert counted == kept
    with pytest.raises(sqlite3.IntegrityError, match="never changed"):
        db.execute("UPDATE matches SET winner = 1")
    db.execute("DELETE FROM matches WHERE id = 1")
    (matches,) = db.execute("SELECT count(*) FROM matches").fetchone()
    (counted_after,) = db.execute("SELECT sum(wins + losses + draws) FROM totals").fetchone()
    assert counted_after == 2 * matches
    db.close()


def test_players_are_told_apart_by_kind_never_by_name(tmp_path: Path) -> None:
    record = GameRecord(tmp_path / "record.sqlite3")
    impostor = Player("Computer (hard)")
    record.add(played(impostor, HARD))  # the person wins
    record.add(played(HARD, Player("Computer")))  # the computer wins
    rows = {(row.player, row.wins, row.losses) for row in record.players()}
    assert rows == {(impostor, 1, 0), (HARD, 1, 1), (Player("Computer"), 0, 1)}
    assert record.head_to_head((impostor, HARD)).wins == (1, 0)


def test_every_computer_level_is_its_own_player(tmp_path: Path) -> None:
    record = GameRecord(tmp_path / "record.sqlite3")
    for level in Level:
        record.add(played(ADA, Player.computer(level), DRAW))
    assert totals(record) == {
        "Ada": (0, 0, 3),
        "Computer (easy)": (0, 0, 1),
        "Computer (medium)": (0, 0, 1),
        "Computer (hard)": (0, 0, 1),
    }


def test_nothing_is_read_or_made_until_it_is_needed(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    legacy = tmp_path / "stats.json"
    legacy.write_text('{"version": 1, "players": {}}', encoding="utf-8")
    record = GameRecord(path, legacy=legacy)
    assert files_in(tmp_path) == {"stats.json"}
    assert record.where() == f"Kept in {path}"
    record.add(played(ADA, BOB))
    assert "record.sqlite3" in files_in(tmp_path)
    assert "stats.json.imported" in files_in(tmp_path)


def test_no_save_keeps_everything_in_memory_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    record = GameRecord(None)
    record.add(played(ADA, BOB))
    assert totals(record) == {"Ada": (1, 0, 0), "Bob": (0, 1, 0)}
    assert record.unsaved == 0
    assert record.where() == "Not saved this session (--no-save)"
    record.close()
    assert files_in(tmp_path) == set()


def test_the_default_places_are_the_user_data_folder() -> None:
    import platformdirs

    assert default_record_path() == platformdirs.user_data_path("tictactoe") / "record.sqlite3"
    assert default_legacy_path() == platformdirs.user_data_path("tictactoe") / "stats.json"


# The record screen's queries.


def crowd(path: Path, players: int) -> GameRecord:
    """A record where person i has won i matches against a rival and drawn one."""
    record = GameRecord(path)
    assert record.player_count() == 0  # the first use makes the schema
    db = sqlite3.connect(path)
    with db:
        db.execute("INSERT INTO players (id, kind, name) VALUES (1, 'person', 'Rival')")
        db.executemany(
            "INSERT INTO players (id, kind, name) VALUES (?, 'person', ?)",
            [(number + 2, f"Player {number:04}") for number in range(players)],
        )
        db.executemany(
            "INSERT INTO matches (finished_at, player1, player2, mark1, first_mover, moves, winner)"
            " VALUES ('2026-01-01 12:00:00', ?, 1, 'X', 1, ?, ?)",
            [
                (number + 2, "01234" if win else "402635178", 1 if win else None)
                for number in range(players)
                for win in [True] * number + [False]
            ],
        )
    db.close()
    return record


def test_players_sort_by_every_column_both_ways_a_page_at_a_time(tmp_path: Path) -> None:
    record = crowd(tmp_path / "record.sqlite3", 30)
    assert record.player_count() == 31

    by_wins = record.players(PlayerSort.WINS, limit=3)
    assert [row.player.name for row in by_wins] == ["Player 0029", "Player 0028", "Player 0027"]
    next_page = record.players(PlayerSort.WINS, offset=3, limit=3)
    assert [row.player.name for row in next_page] == ["Player 0026", "Player 0025", "Player 0024"]
    fewest = record.players(PlayerSort.WINS, descending=False, limit=2)
    assert [(row.player.name, row.wins) for row in fewest] == [("Rival", 0), ("Player 0000", 0)]
    by_name = record.players(PlayerSort.NAME, descending=False, limit=2)
    assert [row.player.name for row in by_name] == ["Player 0000", "Player 0001"]
    assert record.players(PlayerSort.NAME, limit=1)[0].player.name == "Rival"
    most_losses = record.players(PlayerSort.LOSSES, limit=1)[0]
    assert (most_losses.player.name, most_losses.losses) == ("Rival", sum(range(30)))
    assert record.players(PlayerSort.DRAWS, limit=1)[0].draws == 30
    assert record.players(PlayerSort.MATCHES, limit=1)[0].matches == sum(range(30)) + 30
    best = record.players(PlayerSort.WIN_RATE, limit=1)[0]
    assert best.player.name == "Player 0029" and best.win_rate == pytest.approx(29 / 30)
    worst = record.players(PlayerSort.WIN_RATE, descending=False, limit=2)
    assert {row.win_rate for row in worst} == {0.0}


@pytest.mark.parametrize("sort", list(PlayerSort))
@pytest.mark.parametrize("descending", [True, False])
def test_every_sort_reads_an_index_not_the_whole_table(
    tmp_path: Path, sort: PlayerSort, descending: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No sort over all players: each order is an index, so a page costs the same at any size."""
    seen: list[str] = []

    def traced(path: Path, busy_timeout: float) -> sqlite3.Connection:
        """The connection the record screen's queries go through, each statement noted."""
        reader = open_for_reading(path, busy_timeout)
        reader.set_trace_callback(seen.append)
        return reader

    monkeypatch.setattr(tictactoe.record.store, "open_for_reading", traced)
    record = crowd(tmp_path / "record.sqlite3", 5)
    seen.clear()
    record.players(sort, descending=descending)
    db = sqlite3.connect(tmp_path / "record.sqlite3")
    (query,) = [statement for statement in seen if "FROM totals" in statement]
    plan = " | ".join(row[-1] for row in db.execute(f"EXPLAIN QUERY PLAN {query}"))
    assert "TEMP B-TREE" not in plan, plan
    assert "INDEX" in plan, plan


def test_recent_matches_come_newest_first_in_pages(tmp_path: Path) -> None:
    record = GameRecord(tmp_path / "record.sqlite3")
    for number in range(7):
        record.add(played(Player(f"P{number}"), BOB))
    assert record.match_count() == 7
    first_page = record.recent(limit=3)
    assert [match.players[0].name for match in first_page] == ["P6", "P5", "P4"]
    second_page = record.recent(before=first_page[-1].id, limit=3)
    assert [match.players[0].name for match in second_page] == ["P3", "P2", "P1"]
    assert [m.players[0].name for m in record.recent(before=second_page[-1].id)] == ["P0"]


def test_head_to_head_counts_both_orders_and_nothing_else(tmp_path: Path) -> None:
    record = GameRecord(tmp_path / "record.sqlite3")
    record.add(played(ADA, BOB))  # Ada wins
    record.add(played(BOB, ADA))  # Bob wins
    record.add(played(BOB, ADA, marks=(Mark.O, Mark.X), first_mover=1))  # Ada (X) wins
    record.add(played(ADA, BOB, DRAW))
    record.add(played(ADA, HARD))  # not between them

    head = record.head_to_head((ADA, BOB))
    assert (head.wins, head.draws, head.matches) == ((2, 1), 1, 4)
    assert head.first is not None and head.last is not None and head.first <= head.last
    assert record.head_to_head((BOB, ADA)).wins == (1, 2)
    assert record.match_count(between=(ADA, BOB)) == 4
    assert len(record.recent(between=(BOB, ADA))) == 4
    assert record.head_to_head((ADA, Player("Zoe"))).matches == 0
    assert record.recent(between=(ADA, Player("Zoe"))) == []


def test_names_read_from_the_file_are_untrusted_text(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    GameRecord(path).add(played(ADA, BOB))
    db = sqlite3.connect(path)
    with db:
        db.execute(
            "UPDATE players SET name = ? WHERE name = 'Ada'",
            ("Eve\x1b[41mRED\x1b[0m\x1b]2;PWNED\x07x",),
        )
        db.execute("UPDATE players SET name = CAST(x'426fff62' AS TEXT) WHERE name = 'Bob'")
    db.close()

    record = GameRecord(path)
    names = {row.player.name for row in record.players()}
    (match,) = record.recent()
    assert names == {"Eve[41mRED[0m]2;PWNEDx", "Bo\ufffdb"}
    assert {player.name for player in match.players} == names
    assert all("\x1b" not in name and "\x07" not in name for name in names)


def test_a_match_with_damaged_moves_replays_as_far_as_it_is_legal(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    GameRecord(path).add(played(ADA, BOB))
    db = sqlite3.connect(path)
    with db:
        db.execute("DROP TRIGGER a_match_is_never_changed")
        db.execute("PRAGMA ignore_check_constraints = ON")
        db.execute("UPDATE matches SET moves = '00123', winner = 7, mark1 = '?'")
    db.close()
    (match,) = GameRecord(path).recent()
    assert match.moves == (0, 0, 1, 2, 3)
    assert len(match.positions()) == 2
    assert match.winner is None and match.marks == (Mark.X, Mark.O)


# A damaged or foreign file.


@pytest.mark.parametrize(
    "content",
    [
        b"not a database at all, just text\n" * 50,
        b"\x00" * 4096,
        b"SQLite format 3\x00" + b"\xff" * 500,
    ],
    ids=["text", "zeros", "a damaged header"],
)
def test_a_file_that_is_not_a_database_is_moved_aside_and_play_goes_on(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "record.sqlite3"
    path.write_bytes(content)
    record = GameRecord(path)

    record.add(played(ADA, BOB))

    (notice,) = record.take_notices()
    (copy,) = files_in(tmp_path) - {"record.sqlite3", "record.sqlite3-wal", "record.sqlite3-shm"}
    assert CORRUPT_COPY.fullmatch(copy)
    assert (tmp_path / copy).read_bytes() == content, "the damaged file is kept whole"
    assert str(path) in notice and copy in notice and "fresh record" in notice
    assert record.unsaved == 0
    assert totals(GameRecord(path)) == {"Ada": (1, 0, 0), "Bob": (0, 1, 0)}


def damage_page(path: Path, page: int) -> None:
    """Scribble over one page of a database file."""
    with path.open("r+b") as file:
        file.seek((page - 1) * 4096)
        file.write(b"\xde\xad\xbe\xef" * 1024)


def test_a_file_damaged_where_a_match_is_written_is_moved_aside_and_play_goes_on(
    tmp_path: Path,
) -> None:
    path = tmp_path / "record.sqlite3"
    GameRecord(path).add(played(ADA, BOB))
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    (root,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'matches'").fetchone()
    db.close()
    damage_page(path, root)

    record = GameRecord(path)
    record.add(played(BOB, ADA))

    (notice,) = record.take_notices()
    assert "was damaged (database disk image is malformed)" in notice
    assert [name for name in files_in(tmp_path) if CORRUPT_COPY.fullmatch(name)]
    assert totals(record) == {"Ada": (0, 1, 0), "Bob": (1, 0, 0)}


def test_a_file_that_fails_the_integrity_check_is_moved_aside_and_nothing_is_lost(
    tmp_path: Path,
) -> None:
    """Damage that play never reads is found by the integrity check, which runs beside play."""
    path = tmp_path / "record.sqlite3"
    legacy = tmp_path / "stats.json"
    legacy.write_text('{"version": 1, "players": {"Zoe": {"wins": 1, "losses": 0, "draws": 0}}}')
    GameRecord(path, legacy=legacy).add(played(ADA, BOB))
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    (root,) = db.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'imported_totals'"
    ).fetchone()
    db.close()
    damage_page(path, root)

    record = GameRecord(path, check_after=0)
    record.add(played(BOB, ADA))  # goes into the damaged file: nothing it touches is damaged
    assert record.take_notices() == []
    record.wait_for_check()
    record.add(played(ADA, BOB, DRAW))

    (notice,) = record.take_notices()
    assert "was damaged (the integrity check found:" in notice
    (copy,) = [name for name in files_in(tmp_path) if CORRUPT_COPY.fullmatch(name)]
    assert copy in notice
    record.close()
    fresh = GameRecord(path)
    assert totals(fresh) == {"Ada": (0, 1, 1), "Bob": (1, 0, 1)}, "this session's matches are kept"
    fresh.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    db.close()


def test_a_file_from_a_newer_version_is_left_alone_and_the_matches_kept_in_memory(
    tmp_path: Path,
) -> None:
    path = tmp_path / "record.sqlite3"
    first = GameRecord(path)
    first.add(played(ADA, BOB))
    first.wait_for_check()  # its check beside play may still be at the file: let it end
    first.finish()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    before = path.read_bytes()

    record = GameRecord(path)
    record.add(played(ADA, BOB))
    record.add(played(ADA, BOB))

    (notice,) = record.take_notices()
    assert "newer version" in notice and "left as it is" in notice
    assert record.unsaved == 2
    assert path.read_bytes() == before


@pytest.mark.parametrize("before_a_match", [False, True])
def test_a_file_left_alone_is_never_said_to_be_saved_later(
    tmp_path: Path, before_a_match: bool
) -> None:
    """It cannot be: nothing is ever written to it. The notice and the record screen say so."""
    path = tmp_path / "notes.db"
    db = sqlite3.connect(path)
    db.executescript(NOTES)
    db.close()

    record = GameRecord(path)
    if before_a_match:
        record.players()  # the record screen opened first
    record.add(played(ADA, BOB))

    (notice,) = record.take_notices()
    assert notice == (
        f"The game record {path} is a database of some other program, so it is left as it is."
        " Play goes on, but this session's matches are kept in memory only and will not be saved."
    )
    assert record.where() == (
        f"Not saved this session: {path} is a database of some other program,"
        " so it is left as it is"
    )


def test_a_failure_that_may_pass_counts_one_match_in_the_singular(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file", encoding="utf-8")
    record = GameRecord(blocker / "record.sqlite3")
    record.add(played(ADA, BOB))
    (notice,) = record.take_notices()
    assert notice.endswith(
        "Play goes on. 1 finished match is kept in memory and tried again as play goes on"
        " and at quit."
    )
    assert record.where().startswith("1 match of this session not saved yet")


NOTES = (
    "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"
    " INSERT INTO notes (body) VALUES ('precious');"
)
OURS = "".join(f"{statement};" for steps in MIGRATIONS for statement in steps)
NOT_OURS = {
    "its own table, version -1": f"{NOTES} PRAGMA user_version = -1;",
    "its own table, version 0": NOTES,
    "its own table, the game's version": f"{NOTES} PRAGMA user_version = {SCHEMA_VERSION};",
    "the game's tables and one more": f"{OURS} {NOTES} PRAGMA user_version = {SCHEMA_VERSION};",
    "no table, version -1": "PRAGMA user_version = -1;",
    "no table, version 2**31 - 1": "PRAGMA user_version = 2147483647;",
}


@pytest.mark.parametrize("script", NOT_OURS.values(), ids=NOT_OURS.keys())
def test_a_database_the_game_did_not_make_is_left_byte_for_byte(
    tmp_path: Path, script: str
) -> None:
    path = tmp_path / "notes.db"
    db = sqlite3.connect(path)
    db.executescript(script)
    db.close()
    before = path.read_bytes()

    record = GameRecord(path)
    record.add(played(ADA, BOB))
    record.add(played(BOB, ADA))
    assert record.players() == []
    record.close()

    (notice,) = record.take_notices()
    assert str(path) in notice and "left as it is" in notice
    assert record.unsaved == 2, "the session's matches stay in memory"
    assert path.read_bytes() == before
    assert files_in(tmp_path) == {"notes.db"}


def test_an_empty_file_is_made_a_record(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    path.write_bytes(b"")
    record = GameRecord(path)
    record.add(played(ADA, BOB))
    assert record.take_notices() == []
    assert record.unsaved == 0
    assert GameRecord(path).match_count() == 1


def test_an_old_schema_is_migrated_step_by_step() -> None:
    assert len(MIGRATIONS) == SCHEMA_VERSION
    db = sqlite3.connect(":memory:")
    for version, steps in enumerate(MIGRATIONS):
        assert db.execute("PRAGMA user_version").fetchone() == (version,)
        for statement in steps:
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {version + 1}")
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"players", "matches", "totals", "imports", "imported_totals"} <= tables


# Failing to write: nothing is lost, the player is told once.


def test_a_full_disk_keeps_matches_in_memory_and_retries_after_each_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "record.sqlite3"
    opened: list[sqlite3.Connection] = []

    def kept(path: Path | None, busy_timeout: float) -> sqlite3.Connection:
        """The record's writing connection, kept here to cap its file's size."""
        opened.append(open_for_writing(path, busy_timeout))
        return opened[-1]

    monkeypatch.setattr(tictactoe.record.store, "open_for_writing", kept)
    record = GameRecord(path)
    record.add(played(ADA, BOB))
    (db,) = opened
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "database or disk is full"
    newcomers = [Player(f"Newcomer {number} " + "x" * 5000) for number in range(5)]
    for newcomer in newcomers:
        record.add(played(newcomer, BOB, DRAW))  # each needs new pages

    (notice,) = record.take_notices()
    assert "full" in notice and str(path) in notice and "kept in memory" in notice
    assert record.unsaved == 5
    assert "5 matches of this session not saved yet" in record.where()

    db.execute("PRAGMA max_page_count = 1000000")
    record.add(played(BOB, ADA))
    assert record.unsaved == 0
    assert record.take_notices() == [f"The game record {path} is saved again."]
    names = [match.players[0].name[:10] for match in GameRecord(path).recent()]
    assert names == ["Bob", *(f"Newcomer {number}" for number in reversed(range(5))), "Ada"]


def test_a_lock_held_too_long_keeps_the_match_until_the_next_try(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    record = GameRecord(path, busy_timeout=0.1)
    record.add(played(ADA, BOB))
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")

    record.add(played(ADA, BOB))
    assert record.unsaved == 1
    (notice,) = record.take_notices()
    assert "locked" in notice

    other.execute("COMMIT")
    other.close()
    record.save_pending()  # as at quit
    assert record.unsaved == 0
    assert GameRecord(path).match_count() == 2


def test_a_new_file_another_game_is_still_making_is_waited_for(tmp_path: Path) -> None:
    """Two games starting at once on a new file: the second waits for the first.

    The first still holds the file's write lock in its old journal mode; switching the
    file to WAL then fails at once with "database is locked" instead of waiting out the
    busy timeout (SQLite's busy handler is not asked for that lock), and one game in a
    few of eight started together reported its record could not be opened.
    """
    path = tmp_path / "record.sqlite3"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # as a game does to make the tables

    def finish_making() -> None:
        other.execute("COMMIT")
        other.close()

    release = threading.Timer(0.3, finish_making)
    release.start()
    try:
        record = GameRecord(path, busy_timeout=10)
        record.add(played(ADA, BOB))
    finally:
        release.join()
    assert record.take_notices() == []
    assert record.unsaved == 0
    assert GameRecord(path).match_count() == 1


def test_a_folder_that_cannot_be_made_keeps_matches_in_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file", encoding="utf-8")
    record = GameRecord(blocker / "record.sqlite3")
    record.add(played(ADA, BOB))
    record.add(played(ADA, BOB))
    (notice,) = record.take_notices()
    assert "could not be opened" in notice
    assert record.unsaved == 2
    assert record.players() == [] and record.recent() == []


def test_a_symlinked_record_is_followed_and_the_link_stays_a_link(tmp_path: Path) -> None:
    target = tmp_path / "synced" / "record.sqlite3"
    target.parent.mkdir()
    GameRecord(target).add(played(ADA, BOB))
    link = tmp_path / "record.sqlite3"
    link.symlink_to(target)

    record = GameRecord(link)
    record.add(played(BOB, ADA))
    record.close()

    assert link.is_symlink() and link.resolve() == target.resolve()
    assert files_in(tmp_path) == {"synced", "record.sqlite3"}
    assert GameRecord(target).match_count() == 2


# Many games at once, and a game killed while it writes.

WORKER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from tictactoe.record import GameRecord, MatchRecord
    from tictactoe.core.engine import Mark
    from tictactoe.core.series import Player

    path, name, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    record = GameRecord(path, busy_timeout=30)
    while not go.exists():
        time.sleep(0.001)
    for _ in range(50):
        record.add(MatchRecord((Player(name), Player("Rival")), (Mark.X, Mark.O), 0,
                               (0, 3, 1, 4, 2), 0))
    print(record.unsaved, *record.take_notices())
    """
)


def test_eight_games_recording_at_once_are_all_counted(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    go = tmp_path / "go"
    names = [f"Player {number}" for number in range(8)]
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(path), name, str(go)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for name in names
    ]
    time.sleep(0.5)
    go.touch()
    outputs = [worker.communicate(timeout=120)[0] for worker in workers]

    assert [worker.returncode for worker in workers] == [0] * 8
    assert outputs == ["0\n"] * 8, "nothing unsaved, no notices"
    record = GameRecord(path)
    assert record.match_count() == 400
    assert totals(record) == {**dict.fromkeys(names, (50, 0, 0)), "Rival": (0, 400, 0)}


KILLED_WORKER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from tictactoe.record import GameRecord, MatchRecord
    from tictactoe.core.engine import Mark
    from tictactoe.core.series import Player

    record = GameRecord(Path(sys.argv[1]))
    run = sys.argv[2]
    for number in range(100_000):
        name = f"{run} {number}"
        record.add(MatchRecord((Player(name), Player("Rival")), (Mark.X, Mark.O), 0,
                               (4, 0, 2, 6, 3, 5, 1, 7, 8), None))
        assert record.unsaved == 0
        print(name, flush=True)
    """
)


def test_a_game_killed_while_writing_leaves_a_whole_database_with_every_committed_match(
    tmp_path: Path,
) -> None:
    path = tmp_path / "record.sqlite3"
    rng = random.Random(11)
    committed: list[str] = []
    for run in range(8):
        worker = subprocess.Popen(
            [sys.executable, "-c", KILLED_WORKER, str(path), f"run{run}"],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert worker.stdout is not None
        first = worker.stdout.readline()  # the worker is up and writing
        time.sleep(rng.uniform(0.0, 0.4))
        worker.send_signal(signal.SIGKILL)
        rest = worker.stdout.read()
        worker.wait()
        assert worker.returncode == -signal.SIGKILL
        committed += [line for line in (first + rest).splitlines() if line]

        db = sqlite3.connect(path)
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        stored = {row[0] for row in db.execute("SELECT name FROM players")}
        missing = set(committed) - stored
        assert not missing, f"committed but lost: {sorted(missing)[:5]}"
        (count,) = db.execute("SELECT count(*) FROM matches").fetchone()
        assert len(committed) <= count <= len(committed) + run + 1  # at most one a kill
        db.close()
    assert len(committed) > 8


# The path given on the command line.


def test_paths_that_can_never_hold_the_record_are_refused(tmp_path: Path) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("x", encoding="utf-8")
    assert path_problem(Path("/")) == "/ is a folder; the record needs the path of a file."
    assert path_problem(tmp_path) is not None and "is a folder" in (path_problem(tmp_path) or "")
    assert "is a file, not a folder" in (path_problem(a_file / "record.sqlite3") or "")
    assert "is a file, not a folder" in (path_problem(a_file / "deeper" / "r.sqlite3") or "")
    assert path_problem(tmp_path / "new" / "folders" / "record.sqlite3") is None
    assert path_problem(tmp_path / "record.sqlite3") is None
    assert path_problem(Path("/dev/null")) == (
        "/dev/null is not a regular file;"
        " the record needs the path of a file (or of a link to one)."
    )
    link = tmp_path / "link.sqlite3"
    link.symlink_to(a_file)
    assert path_problem(link) is None
    home = tmp_path / "home"  # a home folder that is a link: new folders are made through it
    home.symlink_to(tmp_path)
    assert path_problem(home / ".local" / "share" / "tictactoe" / "record.sqlite3") is None
    ahead = tmp_path / "ahead.sqlite3"  # a link to a file not made yet, in a folder that is
    ahead.symlink_to(tmp_path / "later.sqlite3")
    assert path_problem(ahead) is None


def test_a_record_that_is_not_a_regular_file_is_left_alone(tmp_path: Path) -> None:
    """Start-up refuses one; should one turn up later, nothing is written beside it."""
    path = tmp_path / "record.sqlite3"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # as /dev/null
    except OSError as error:
        pytest.skip(f"no device node can be made here ({error.strerror})")
    record = GameRecord(path)
    record.add(played(ADA, BOB))
    (notice,) = record.take_notices()
    assert "is not a regular file, so it is left as it is" in notice
    assert record.unsaved == 1
    assert files_in(tmp_path) == {"record.sqlite3"}


# The old stats.json, imported once.


def write_legacy(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def test_an_old_stats_file_is_imported_once_and_renamed(tmp_path: Path) -> None:
    legacy = tmp_path / "stats.json"
    write_legacy(
        legacy,
        json.dumps(
            {
                "version": 1,
                "players": {
                    "Ada": {"wins": 3, "losses": 1, "draws": 2},
                    "Computer (hard)": {"wins": 7, "losses": 0, "draws": 4},
                    "Zoë 🎲": {"wins": 0, "losses": 0, "draws": 0},
                },
            }
        ),
    )
    record = GameRecord(tmp_path / "record.sqlite3", legacy=legacy)
    record.add(played(ADA, HARD, DRAW))

    assert totals(record) == {"Ada": (3, 1, 3), "Computer (hard)": (7, 0, 5)}
    assert {row.player for row in record.players()} == {ADA, HARD}
    (notice,) = record.take_notices()
    assert "was imported" in notice and "2 players' totals" in notice
    assert "stats.json.imported" in notice
    assert not legacy.exists()
    assert (tmp_path / "stats.json.imported").exists()
    assert record.head_to_head((ADA, HARD)).matches == 1, "imported totals are not matches"
    record.close()

    (tmp_path / "stats.json.imported").rename(legacy)  # the same file turns up again
    again = GameRecord(tmp_path / "record.sqlite3", legacy=legacy)
    assert totals(again) == {"Ada": (3, 1, 3), "Computer (hard)": (7, 0, 5)}, "not twice"
    assert again.take_notices() == []
    assert not legacy.exists()


HOSTILE = {
    "escape sequences": ('"Eve\\u001b[41mRED\\u001b[0m\\u001b]2;PWNED\\u0007x"', "escape"),
    "a lone surrogate": ('"\\ud800"', "surrogate"),
    "a bell": ('"Ding\\u0007"', "escape"),
    "an empty name": ('""', "empty"),
    "a name with nothing to see": ('"\\u200d\\u3164"', "nothing to see"),
}
BAD_COUNTS = {
    "a 4,300-digit count": ("9" * 4300, "digit"),
    "a huge count": ("10000000000", "not a count"),
    "a negative count": ("-1", "not a count"),
    "a fraction": ("1.5", "not a count"),
    "true": ("true", "not a count"),
    "text": ('"3"', "str"),
    "null": ("null", "NoneType"),
    "NaN": ("NaN", "not a count"),
    "a list": ("[1]", "list"),
}


def legacy_with(entry: str) -> str:
    """An old stats file with Bob, a good entry, and `entry` beside him."""
    return '{"version": 1, "players": {"Bob": {"wins": 1, "losses": 2, "draws": 0}, ' + entry + "}}"


def import_of(tmp_path: Path, text: str) -> tuple[GameRecord, str]:
    legacy = tmp_path / "stats.json"
    write_legacy(legacy, text)
    record = GameRecord(tmp_path / "record.sqlite3", legacy=legacy)
    record.player_count()
    (notice,) = record.take_notices()
    assert "\x1b" not in notice and "\x07" not in notice
    notice.encode("utf-8")  # a notice never carries a lone surrogate to the terminal
    return record, notice


@pytest.mark.parametrize(("name", "why"), HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_names_in_an_old_stats_file_are_refused_one_by_one(
    tmp_path: Path, name: str, why: str
) -> None:
    record, notice = import_of(
        tmp_path, legacy_with(name + ': {"wins": 9, "losses": 0, "draws": 0}')
    )
    assert totals(record) == {"Bob": (1, 2, 0)}
    assert "1 entry was refused" in notice and why in notice


@pytest.mark.parametrize(("value", "why"), BAD_COUNTS.values(), ids=BAD_COUNTS.keys())
def test_counts_that_cannot_be_counts_are_refused_one_by_one(
    tmp_path: Path, value: str, why: str
) -> None:
    record, notice = import_of(
        tmp_path, legacy_with('"Ada": {"wins": ' + value + ', "losses": 0, "draws": 0}')
    )
    assert totals(record) == {"Bob": (1, 2, 0)}
    assert "“Ada” (wins is" in notice and why in notice
    assert len(notice) < 400


def test_wrong_shapes_of_an_entry_are_refused_one_by_one(tmp_path: Path) -> None:
    entries = (
        '"A": 5, "B": {"wins": 1}, "C": {"wins": 1, "losses": 0, "draws": 0, "elo": 3},'
        ' "D": {"wins": 1, "wins": 1, "losses": 0, "draws": 0}'
    )
    record, notice = import_of(tmp_path, legacy_with(entries))
    assert totals(record) == {"Bob": (1, 2, 0)}
    assert "4 entries were refused" in notice


def test_duplicate_keys_never_drop_a_record_silently(tmp_path: Path) -> None:
    text = (
        '{"version": 1,'
        ' "players": {"Ada": {"wins": 2, "losses": 0, "draws": 0},'
        '             "Eve": {"wins": 1, "losses": 0, "draws": 0},'
        '             "Eve": {"wins": 5, "losses": 0, "draws": 0}},'
        ' "players": {"Bob": {"wins": 0, "losses": 2, "draws": 0}}}'
    )
    record, notice = import_of(tmp_path, text)
    assert totals(record) == {"Ada": (2, 0, 0), "Bob": (0, 2, 0)}
    assert "“Eve” (listed 2 times)" in notice


WITH = ("", "-wal", "-shm")
"""The record's file and SQLite's own files beside it."""


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"\xff\xfe not text", "is not valid text"),
        (b'{"version": 1, "players": {"Ada"', "is not valid JSON"),
        (b"[1, 2]", "is not a statistics file (not a JSON object)"),
        (b'{"version": 2, "players": {}}', "is not a statistics file of format 1"),
        (b'{"version": 1}', "has no players object"),
        (b"[" * 100_000, "is not valid JSON"),
    ],
)
def test_an_old_file_that_cannot_be_read_at_all_is_left_as_it_is_with_a_notice(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    legacy = tmp_path / "stats.json"
    legacy.write_bytes(content)
    record = GameRecord(tmp_path / "record.sqlite3", legacy=legacy)
    assert record.players() == []
    (notice,) = record.take_notices()
    assert notice == (
        f"The old statistics file {legacy} {problem}, so nothing was imported; it is left as it is."
    )
    assert legacy.read_bytes() == content
    assert files_in(tmp_path) <= {"stats.json", *(f"record.sqlite3{end}" for end in WITH)}


def test_the_record_imports_nothing_from_textual() -> None:
    code = "import sys, tictactoe.record; print(any(m.startswith('textual') for m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "False"


def test_player_totals_give_a_win_rate_only_after_a_match() -> None:
    assert PlayerTotals(ADA, 0, 0, 0).win_rate is None
    assert PlayerTotals(ADA, 1, 2, 1).win_rate == 0.25
    assert PlayerTotals(ADA, 1, 2, 1).matches == 4


def test_the_docs_show_the_schema_as_the_code_makes_it() -> None:
    docs = Path(__file__).parents[2] / "docs" / "record.md"
    readme = " ".join(docs.read_text(encoding="utf-8").split())
    for steps in MIGRATIONS:
        for statement in steps:
            assert " ".join(statement.split()) + ";" in readme, statement.splitlines()[0]


@given(st.text(max_size=70) | st.sampled_from(["Ada", "Zoë 🎲", "a  b", " Ada", "A\u0301da"]))
def test_the_quick_check_of_an_imported_name_agrees_with_clean_name(name: str) -> None:
    assert stats_import._is_clean(name) == (clean_name(name, "") == name)


def test_a_big_old_file_is_imported_beside_play_and_nothing_waits_long(tmp_path: Path) -> None:
    legacy = tmp_path / "stats.json"
    players = {
        f"Player {number:05}": {"wins": 1, "losses": 2, "draws": 3} for number in range(25_000)
    }
    write_legacy(legacy, json.dumps({"version": 1, "players": players}))
    assert legacy.stat().st_size > 1_000_000
    record = GameRecord(tmp_path / "record.sqlite3", legacy=legacy, busy_timeout=30)

    started = time.perf_counter()
    record.add(played(ADA, BOB))
    assert time.perf_counter() - started < 5  # the import goes on beside play
    record.wait_for_import()
    record.save_pending()

    assert record.unsaved == 0
    assert record.player_count() == 25_002
    (row,) = record.players(PlayerSort.NAME, descending=False, offset=44, limit=1)
    assert (row.player.name, row.wins, row.losses, row.draws) == ("Player 00042", 1, 2, 3)
    (notice,) = record.take_notices()
    assert "25000 players' totals" in notice
    assert not legacy.exists() and (tmp_path / "stats.json.imported").exists()


def test_a_file_another_game_makes_its_tables_in_while_it_is_checked_is_ours(
    tmp_path: Path,
) -> None:
    from tictactoe.record.schema import check_ours, migrate

    path = tmp_path / "record.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    other = sqlite3.connect(path, isolation_level=None, timeout=5)
    made: list[bool] = []

    def meanwhile(statement: str) -> None:
        if "sqlite_master" in statement and not made:  # between the version and the tables
            made.append(True)
            migrate(other)

    db.set_trace_callback(meanwhile)
    try:
        assert check_ours(db) == 0  # the file as it was when the check began: new and empty
        assert made
    finally:
        db.close()
        other.close()


def test_a_file_swapped_for_another_programs_database_during_play_gets_one_true_sentence(
    tmp_path: Path,
) -> None:
    """The matches are not added to it (it is left byte for byte as it is), and nothing
    says they were."""
    path = tmp_path / "record.sqlite3"
    record = GameRecord(path)
    record.add(played(ADA, BOB))
    record.add(played(ADA, BOB))
    assert record.take_notices() == []
    foreign = tmp_path / "notes.db"
    db = sqlite3.connect(foreign)
    db.executescript(NOTES)
    db.close()
    before = foreign.read_bytes()
    foreign.replace(path)
    for companion in ("-wal", "-shm"):
        path.with_name(path.name + companion).unlink(missing_ok=True)

    record.add(played(ADA, BOB))

    (notice,) = record.take_notices()
    assert "added" not in notice and "written to it again" not in notice, notice
    assert "some other program" in notice and "will not be saved" in notice, notice
    assert path.read_bytes() == before
    assert record.unsaved == 3
