"""A ladder for each game in the club's record: a rated Ultimate match moves the Ultimate ladder
alone, and a club file of the schema before (one ladder) is migrated with every rating and
match kept, as classic; an older tictactoe then refuses the file in one sentence."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tictactoe.core.club import START, rated
from tictactoe.core.engine import Mark
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.series import Player
from tictactoe.record.club import CLUB_MIGRATIONS, ClubRecord
from tictactoe.record.opening import open_for_writing
from tictactoe.record.schema import NotOurs

from .test_club_record import NOW, club, drawn, path, won_by_first

__all__ = ["club", "path"]  # the fixtures of the club record's tests

OLD_SCHEMA = 2
"""The club file's schema before each game had a ladder of its own."""


def ultimate_left(a: str, b: str) -> FinishedMatch:
    """An Ultimate match `b` left after both had moved: `a`'s win (the centre board's
    top-left, then the top-left board's top)."""
    return FinishedMatch(
        (Player(a), Player(b)), (Mark.X, Mark.O), 0, (36, 1), 0, variant="ultimate"
    )


def test_a_rated_ultimate_match_moves_the_ultimate_ladder_alone(club: ClubRecord) -> None:
    club.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW)
    classic = club.ladder()
    after = club.finish("t2", ("bob", "ada"), True, ultimate_left("bob", "ada"), NOW + 60)
    assert after == rated(START, START, 0), "a game of its own: both start afresh"
    assert club.ladder() == classic, "the classic ladder did not move"
    assert [(row.handle, row.wins, row.losses) for row in club.ladder(variant="ultimate")] == [
        ("bob", 1, 0),
        ("ada", 0, 1),
    ]
    assert club.rating("bob", "ultimate") == after[0]
    assert club.rating("bob") == classic[1].rating, "the classic rating is the classic one"
    last, first = club.recent("ada")
    assert (last.variant, last.moves, last.winner) == ("ultimate", (36, 1), 0)
    assert first.variant == "classic"


def test_an_ultimate_match_of_many_moves_is_kept_whole(club: ClubRecord) -> None:
    moves = tuple(range(0, 81, 2))
    long = FinishedMatch(
        (Player("ada"), Player("bob")), (Mark.X, Mark.O), 0, moves, None, variant="ultimate"
    )
    club.finish("t1", ("ada", "bob"), False, long, NOW)
    assert club.recent("bob")[0].moves == moves


def _old_club(path: Path) -> None:
    """A club file as the tictactoe before this one made it, with two players, a rated match
    each way, a draw and an unrated match."""
    db = sqlite3.connect(path)
    for steps in CLUB_MIGRATIONS[:OLD_SCHEMA]:
        for statement in steps:
            db.execute(statement)
    db.execute(f"PRAGMA user_version = {OLD_SCHEMA}")
    db.commit()
    db.close()


def test_the_migration_keeps_every_rating_and_match_as_classic(path: Path) -> None:
    _old_club(path)
    old = sqlite3.connect(path)
    old.execute("PRAGMA foreign_keys = ON")
    old.executemany(
        "INSERT INTO players (id, handle, claimed_at, last_seen) VALUES (?, ?, ?, ?)",
        [(1, "ada", NOW, NOW), (2, "bob", NOW, NOW)],
    )
    matches = [
        (1, "2027-01-15 08:00:00", "t1", "ada", "bob", None, None, 1, "X", 1, "03142", 1),
        (2, "2027-01-15 08:05:00", "t1", "bob", "ada", None, None, 1, "X", 1, "408217635", None),
        (3, "2027-01-15 08:10:00", "t2", "ada", "bob", None, None, 0, "O", 2, "4", 2),
    ]
    old.executemany(
        "INSERT INTO matches (id, finished_at, club_table, handle1, handle2, level1, level2,"
        " rated, mark1, first_mover, moves, winner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        matches,
    )
    old.executemany(
        "INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(1, 27.5, 7.1, 2, 1, 1, 0), (2, 22.5, 7.2, 2, 0, 1, 1)],
    )
    old.executemany(
        "INSERT INTO rating_history (player, match, mu, sigma) VALUES (?, ?, ?, ?)",
        [(1, 1, 27.0, 7.5), (2, 1, 23.0, 7.5), (2, 2, 22.5, 7.2), (1, 2, 27.5, 7.1)],
    )
    old.commit()
    old.close()

    club = ClubRecord(path)
    ladder = club.ladder()
    assert [(row.handle, row.rating.mu, row.rating.sigma, row.matches) for row in ladder] == [
        ("ada", 27.5, 7.1, 2),
        ("bob", 22.5, 7.2, 2),
    ]
    assert club.ladder(variant="ultimate") == []
    assert club.rating("ada", "ultimate") == START
    recent = club.recent("ada")
    assert [(match.id, match.variant, match.moves) for match in recent] == [
        (3, "classic", (4,)),
        (2, "classic", (4, 0, 8, 2, 1, 7, 6, 3, 5)),
        (1, "classic", (0, 3, 1, 4, 2)),
    ]
    assert [rated for _match, rated in club.recent_rated("bob")] == [False, True, True]
    club.close()
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM rating_history").fetchone() == (4,)
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with pytest.raises(sqlite3.IntegrityError, match="never changed"):
        db.execute("UPDATE matches SET winner = 2 WHERE id = 1")
    db.close()

    club = ClubRecord(path)  # the new ladder goes on from the old one
    club.finish("t3", ("ada", "bob"), True, drawn("ada", "bob"), NOW)
    assert [row.matches for row in club.ladder()] == [3, 3]
    club.close()


def test_an_older_tictactoe_refuses_the_migrated_file_in_one_sentence(path: Path) -> None:
    ClubRecord(path).close()
    with pytest.raises(NotOurs) as refusal:
        open_for_writing(path, 1.0, CLUB_MIGRATIONS[:OLD_SCHEMA])
    assert str(refusal.value) == (
        "was written by a newer version of tictactoe (schema 3), so it is left as it is"
    )
