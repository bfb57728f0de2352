"""A newcomer's first hour at a real club (`tictactoe club` in its terminal, the real `ssh`, keys
made in the test's folder): the club says at once that it is starting and whether KSM is on; a
login without a key is told it is a guest and how to come with a key; a second session of a
seated player is told where its seat is, and takes it back once the first is lost."""

from __future__ import annotations

import re

import pytest

from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from tictactoe.club.server import STARTING, merging_said

from .test_club_end_to_end import Club, sit_down
from .test_club_end_to_end import club as club  # the fixture: a club running in its terminal

pytestmark = [pytest.mark.usefixtures("ssh"), pytest.mark.slow]


def test_the_club_says_at_once_it_is_starting_and_whether_ksm_is_on(club: Club) -> None:
    said = club.server.text
    assert STARTING in said and said.index(STARTING) < said.index("players type"), said
    merging = merging_said()
    if merging is not None:  # a kernel with KSM: on or off, said
        club.server.expect(re.escape(merging))


def test_a_login_without_a_key_is_told_it_is_a_guest_and_how_to_come_with_one(
    club: Club,
) -> None:
    guest = club.ssh("alice", None)
    guest.expect("Open tables")
    guest.expect("You came in without a key, as a guest")
    guest.expect(r"ssh-keygen -t ed25519")
    guest.expect(rf"ssh -p {club.port}[\s▌]+alice@HOST")  # the toast may wrap there


def test_a_second_session_is_told_where_its_seat_is_and_takes_it_back(club: Club) -> None:
    alice, bob = sit_down(club)
    again = club.ssh("alice", "alice")
    again.expect("Open tables")
    again.expect("You are playing at a table in another session")
    alice.close()  # her first session lost: her seat waits for her
    bob.expect("Waiting for alice to come back")
    again.from_now().send(b"p")  # p takes it back
    again.expect(r"alice \(X\) to move")
