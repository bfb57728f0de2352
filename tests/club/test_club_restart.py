"""A restart keeps the club: players and their keys, ratings, bans; with the real `ssh`.

The club runs in its terminal as in `test_club_end_to_end` (whose helpers these are), is stopped
with SIGTERM, and is started again on the same `--data`.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from club.test_club_end_to_end import move, open_club, owner, sit_down
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)

pytestmark = [pytest.mark.usefixtures("ssh"), pytest.mark.slow]

LADDER = r"1 alice (\d+) ± \d+ 1 0 0 2 bob (\d+) ± \d+ 0 0 1"
"""The lobby's ladder once Alice has beaten Bob in a rated match, each rating whole."""


def test_a_restart_keeps_players_their_keys_ratings_and_bans(tmp_path: Path) -> None:
    club = open_club(tmp_path)
    try:
        alice, bob = sit_down(club)  # Alice's key claims alice, Bob's bob: a rated table
        move(alice, b"7", bob, "alice X top-left")
        move(bob, b"4", alice, "bob O left")
        move(alice, b"8", bob, "alice X top")
        move(bob, b"5", alice, "bob O centre")
        move(alice, b"9", bob, "alice wins!")
        bob.from_now().send(b"q")  # the series ends for both: back in the lobby
        alice.expect("bob left the series")
        alice.expect("Open tables")
        alice.expect(LADDER)
        ladder = json.loads(owner(club, "ladder", "--json").stdout)  # the owner's, exact
        assert [row["handle"] for row in ladder] == ["alice", "bob"]
        rating = {row["handle"]: row["rating"] for row in ladder}

        alice.from_now().send(b"k")  # Alice adds a second key: k's word, and a login with it
        word = alice.expect(r"ssh -p \d+ (alice\+[a-z0-9]{8})@HOST")[1]
        alice.send(b"\r")
        second = club.ssh(word, "second")
        second.expect(f"alice · Classic {rating['alice']}")
        second.from_now().send(b"q")
        assert second.finish() == 0

        carol = club.ssh("carol", "carol")  # Carol claims her handle; the owner bans her
        carol.expect(r"carol · Classic 1500 ± \d+")
        assert owner(club, "ban", "carol").returncode == 0
        carol.expect("You are banned from this club for ever.")
        assert carol.finish() == 1

        os.kill(club.server.pid, signal.SIGTERM)  # stopped as a service manager stops it
        assert club.server.finish() == 128 + signal.SIGTERM
        alice.expect("The club has closed.")
    finally:
        club.close()

    club = open_club(tmp_path)  # the same --data: the same record and host key
    try:
        alice = club.ssh("alice", "alice")
        alice.expect(
            f"alice · Classic {rating['alice']}"
        )  # her key is still alice's, her rating kept
        shown = alice.expect(LADDER)  # the same ladder, in the lobby and as the owner reads it
        assert [shown[1], shown[2]] == [rating[each].split()[0] for each in ("alice", "bob")]
        assert json.loads(owner(club, "ladder", "--json").stdout) == ladder

        thief = club.ssh("alice", "mallory")  # another key still is not
        thief.expect(r"The handle alice belongs to another key[^.]*\.")
        assert thief.finish() == 1

        carol = club.ssh("carol", "carol")  # still banned, at the door
        carol.expect("carol is banned for ever.")
        assert carol.finish() == 1
        assert "Open tables" not in carol.text

        again = club.ssh("alice", "second")  # the key added with k's word, with `ssh -i second`
        again.expect(f"alice · Classic {rating['alice']}")
    finally:
        club.close()
