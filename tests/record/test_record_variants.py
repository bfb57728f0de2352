"""The game record keeps each match's game: a record made before there was a second game walks up
to the new schema with every match classic and nothing lost, and an Ultimate match is written as
its variant writes it (two digits a move) and read back whole, counted apart from classic's."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

from tictactoe.core.ai import Level
from tictactoe.core.engine import Mark
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.players import Player
from tictactoe.core.rules import CLASSIC, ULTIMATE
from tictactoe.record import MIGRATIONS, SCHEMA_VERSION, GameRecord, PlayerSort
from tictactoe.record.opening import not_ours

ADA, BOB, HARD = Player("Ada"), Player("Bob"), Player.computer(Level.HARD)
WHEN = datetime(2026, 11, 20, 18, 0, tzinfo=UTC)

V1_MATCHES = [
    # finished_at, player1, player2, mark1, first_mover, moves, winner
    ("2026-11-20 18:00:00", 1, 2, "X", 1, "03142", 1),
    ("2026-11-20 18:09:00", 2, 1, "O", 2, "402635178", None),
    ("2026-11-20 18:18:00", 1, 3, "X", 1, "4081635", 2),
]
"""Three classic matches as the record of version 1 holds them (Ada, Bob, the hard computer)."""


def record_of_version_1(path: Path) -> None:
    """A record made as the game made it before it had a second game: version 1's statements,
    its players, three matches written as its own code wrote them, and an old stats.json's
    imported totals."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("BEGIN")
    for statement in MIGRATIONS[0]:
        db.execute(statement)
    db.execute("PRAGMA user_version = 1")
    db.executemany(
        "INSERT INTO players (id, kind, name, level) VALUES (?, ?, ?, ?)",
        [
            (1, "person", "Ada", None),
            (2, "person", "Bob", None),
            (3, "computer", "Computer", "hard"),
        ],
    )
    db.executemany(
        "INSERT INTO matches (finished_at, player1, player2, mark1, first_mover, moves,"
        " winner) VALUES (?, ?, ?, ?, ?, ?, ?)",
        V1_MATCHES,
    )
    db.execute(
        "INSERT INTO imports (id, digest, source, imported_at)"
        " VALUES (1, 'abc', 'stats.json', '2026-11-19 10:00:00')"
    )
    db.execute(
        "INSERT INTO imported_totals (import_id, player, wins, losses, draws)"
        " VALUES (1, 2, 4, 5, 6)"
    )
    db.execute("COMMIT")
    db.close()


def test_a_record_of_version_1_walks_up_keeping_every_match_as_classic(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    record_of_version_1(path)
    assert not_ours(path) is None

    record = GameRecord(path)
    assert record.match_count() == 3 == record.match_count(variant="classic")
    assert record.match_count(variant="ultimate") == 0
    newest, middle, oldest = record.recent()
    assert [match.id for match in (newest, middle, oldest)] == [3, 2, 1]
    assert {match.variant for match in (newest, middle, oldest)} == {"classic"}
    assert oldest.players == (ADA, BOB) and oldest.moves == (0, 3, 1, 4, 2)
    assert (oldest.marks, oldest.first_mover, oldest.winner) == ((Mark.X, Mark.O), 0, 0)
    assert (middle.players, middle.marks, middle.first_mover) == ((BOB, ADA), (Mark.O, Mark.X), 1)
    assert middle.moves == (4, 0, 2, 6, 3, 5, 1, 7, 8) and middle.winner is None
    assert newest.players == (ADA, HARD) and newest.winner == 1
    assert oldest.finished_at == WHEN
    assert middle.positions()[-1].is_draw and oldest.positions()[-1].winner is Mark.X
    totals = {row.player: (row.wins, row.losses, row.draws) for row in record.players()}
    assert totals == {ADA: (1, 1, 1), BOB: (4, 6, 7), HARD: (1, 0, 0)}  # Bob's imported 4, 5, 6
    assert record.players(variant="ultimate") == [] and record.player_count("ultimate") == 0
    assert record.take_notices() == []
    record.close()

    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,) == (2,)
    rows = db.execute(
        "SELECT finished_at, player1, player2, mark1, first_mover, moves, winner, variant"
        " FROM matches ORDER BY id"
    ).fetchall()
    assert rows == [(*row, "classic") for row in V1_MATCHES]
    assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    db.close()


def test_a_record_of_version_1_still_counts_what_is_added_and_taken_out(tmp_path: Path) -> None:
    """The triggers made again keep the totals equal to the matches after the step too."""
    path = tmp_path / "record.sqlite3"
    record_of_version_1(path)
    record = GameRecord(path)
    record.add(FinishedMatch((ADA, BOB), (Mark.X, Mark.O), 0, (0, 3, 1, 4, 2), 0, WHEN))
    record.close()
    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM matches WHERE id = 1")
    totals = dict(
        db.execute("SELECT player, wins || '-' || losses || '-' || draws FROM totals").fetchall()
    )
    assert totals == {1: "1-1-1", 2: "4-6-7", 3: "1-0-0"}
    db.close()


def ultimate_match(seed: int, players: tuple[Player, Player] = (ADA, BOB)) -> FinishedMatch:
    """A whole Ultimate match of random moves, as a series hands it over."""
    rng = random.Random(seed)
    state = ULTIMATE.new(Mark.X)
    while not state.is_over:
        state = state.play(rng.choice(state.legal_moves()))
    return FinishedMatch.of(players, state, (Mark.X, Mark.O), variant="ultimate").at(WHEN)


def test_an_ultimate_match_is_written_two_digits_a_move_and_read_back_whole(
    tmp_path: Path,
) -> None:
    path = tmp_path / "record.sqlite3"
    record = GameRecord(path)
    played = ultimate_match(3)
    assert max(played.moves) > 8 and len(played.moves) > 9
    record.add(played)
    record.add(FinishedMatch((ADA, BOB), (Mark.X, Mark.O), 0, (0, 3, 1, 4, 2), 0, WHEN))
    record.close()

    db = sqlite3.connect(path)
    ((variant, moves),) = db.execute(
        "SELECT variant, moves FROM matches WHERE variant = 'ultimate'"
    ).fetchall()
    db.close()
    assert variant == "ultimate" and moves == ULTIMATE.write_moves(played.moves)
    assert len(moves) == 2 * len(played.moves)
    assert moves[:2] == f"{played.moves[0] // 9}{played.moves[0] % 9}"

    again = GameRecord(path)
    (read,) = again.recent(variant="ultimate")
    assert read.id is not None and dataclasses.replace(read, id=None) == played
    assert again.match(read.id) == read and read.positions()[-1].is_over
    assert again.match_count() == 2 and again.recent(variant="classic")[0].variant == "classic"
    winner = played.winner
    ultimate_totals = {
        row.player: (row.wins, row.losses, row.draws) for row in again.players(variant="ultimate")
    }
    assert ultimate_totals == {
        ADA: (int(winner == 0), int(winner == 1), int(winner is None)),
        BOB: (int(winner == 1), int(winner == 0), int(winner is None)),
    }
    assert {row.player: row.wins for row in again.players()} == {ADA: 1, BOB: 0}
    assert again.has_played("ultimate") and again.has_played("classic")
    assert again.head_to_head((ADA, BOB), variant="ultimate").matches == 1
    assert again.head_to_head((ADA, BOB)).matches == 2
    assert again.match_count((BOB, ADA), variant="ultimate") == 1


def test_each_games_players_sort_by_every_column_from_an_index(tmp_path: Path) -> None:
    record = GameRecord(tmp_path / "record.sqlite3")
    for seed in range(4):
        record.add(ultimate_match(seed, (ADA, HARD) if seed % 2 else (BOB, ADA)))
    for sort in PlayerSort:
        for descending in (True, False):
            rows = record.players(sort, descending=descending, variant="ultimate")
            assert {row.player for row in rows} == {ADA, BOB, HARD}
    assert record.players() == [] and not record.has_played("classic")
    assert record.player_count("ultimate") == 3


def test_the_record_refuses_moves_that_are_not_its_games() -> None:
    """The file's own checks: an Ultimate row of odd digits, a classic row of too many."""
    db = sqlite3.connect(":memory:")
    for steps in MIGRATIONS:
        for statement in steps:
            db.execute(statement)
    db.execute(
        "INSERT INTO players (id, kind, name) VALUES (1, 'person', 'Ada'), (2, 'person', 'B')"
    )
    insert = (
        "INSERT INTO matches (finished_at, variant, player1, player2, mark1, first_mover, moves)"
        " VALUES ('2026-11-20 18:00:00', ?, 1, 2, 'X', 1, ?)"
    )
    for variant, moves in [
        ("ultimate", "401"),
        ("classic", "4001"),
        ("ultimate", "49"),
        ("go", "4"),
    ]:
        try:
            db.execute(insert, (variant, moves * (3 if variant == "classic" else 1)))
        except sqlite3.IntegrityError:
            continue
        raise AssertionError(f"{variant} {moves!r} was kept")
    db.execute(insert, ("ultimate", ULTIMATE.write_moves((36, 1))))
    db.execute(insert, ("classic", CLASSIC.write_moves((4, 0, 8, 1, 7))))


def test_ready_brings_a_record_of_version_1_up_to_date_off_the_screens_thread(
    tmp_path: Path,
) -> None:
    """`ready` (what the app awaits in a thread of its own before the record screen reads)
    opens the file and runs the step: the reads after it find it done."""
    path = tmp_path / "record.sqlite3"
    record_of_version_1(path)
    record = GameRecord(path)
    opened = threading.Thread(target=record.ready, args=(5,))
    opened.start()
    opened.join(30)
    assert not opened.is_alive()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    db.close()
    assert record.match_count(variant="classic") == 3
    record.close()


FIXTURE = Path(__file__).parent / "fixtures" / "record-version-1.sqlite3"
"""A record written by the game's own code before the record knew games (schema version 1, the
code of c9ac92e's parent, through `GameRecord.add` and its import of an old stats.json): Ada,
Bob, the hard computer, three classic matches and Grace's imported totals; the file as that
code left it, its write-ahead log folded in."""


def test_a_record_written_by_the_code_of_version_1_keeps_every_match_as_classic(
    tmp_path: Path,
) -> None:
    path = tmp_path / "record.sqlite3"
    path.write_bytes(FIXTURE.read_bytes())
    before = sqlite3.connect(path)
    assert before.execute("PRAGMA user_version").fetchone() == (1,)
    rows = before.execute(
        "SELECT id, finished_at, player1, player2, mark1, first_mover, moves, winner"
        " FROM matches ORDER BY id"
    ).fetchall()
    before.close()

    record = GameRecord(path)
    record.ready()
    after = sqlite3.connect(path)
    assert after.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    assert (
        after.execute(
            "SELECT id, finished_at, player1, player2, mark1, first_mover, moves, winner"
            " FROM matches WHERE variant = 'classic' ORDER BY id"
        ).fetchall()
        == rows
    )
    after.close()
    newest, middle, oldest = record.recent()
    assert all(match.variant == "classic" for match in (newest, middle, oldest))
    assert oldest.players == (ADA, BOB) and oldest.winner == 0
    assert oldest.moves == (0, 3, 1, 4, 2) and oldest.positions()[-1].winner is Mark.X
    assert middle.positions()[-1].is_draw and newest.players == (ADA, HARD)
    assert newest.winner == 1 and newest.positions()[-1].winner is Mark.O
    totals = {row.player: (row.wins, row.losses, row.draws) for row in record.players()}
    assert totals == {
        ADA: (1, 1, 1),
        BOB: (0, 1, 1),
        HARD: (1, 0, 0),
        Player("Grace"): (4, 5, 6),
    }
    assert not record.has_played("ultimate") and record.take_notices() == []
    record.close()
