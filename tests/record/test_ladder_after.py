"""The ladder the club works out after a rated match (`ladder_after`) is the one the store reads
back: played against a real club record, match after match, with a short ladder so that players
come into it and fall out of it."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

from tictactoe.core.ladder import ladder_after
from tictactoe.record.club import ClubRecord, club_path

from .test_club_record import NOW, key, won_by_first

HANDLES = ("ada", "bob", "cy", "dan", "eve", "fay")
LIMIT = 4
"""Rows shown: fewer than the players, so that the ladder fills up and players leave it."""


def test_the_ladder_worked_out_is_the_ladder_read(tmp_path: Path) -> None:
    club = ClubRecord(club_path(tmp_path))
    for number, handle in enumerate(HANDLES, 1):
        assert club.enter(handle, key(number), f"10.0.0.{number}", NOW).refusal is None
    rng = random.Random(7)
    worked_out = read_again = 0
    try:
        for number in range(120):
            players = tuple(rng.sample(HANDLES, 2))
            winner = rng.choice((0, 1, None))
            match = dataclasses.replace(won_by_first(*players), winner=winner)
            before = club.ladder(LIMIT)
            after = club.finish(f"t{number}", (players[0], players[1]), True, match, NOW + number)
            assert after is not None, "a rated match between two members"
            expected = tuple(club.ladder(LIMIT))
            found = ladder_after(before, LIMIT, (players[0], players[1]), after, winner)
            if found is None:
                read_again += 1
            else:
                worked_out += 1
                assert found == expected, f"after match {number} of {players}, won by {winner}"
    finally:
        club.close()
    assert worked_out > read_again > 0, (worked_out, read_again)
