"""Leaving a club match: once both players have moved it is the leaver's loss, written once with
both ratings; before that the match is aborted and nothing is written; both away past the grace
is nobody's loss. The real `tictactoe club` and the real `ssh`, on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from online.test_end_to_end import WAIT, Terminal
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)

from .test_club_end_to_end import Club, move, open_club, owner, sit_down

pytestmark = [pytest.mark.usefixtures("ssh"), pytest.mark.slow]

GRACE = 4.0
"""Seconds a dropped seat is waited for here (the club's `--grace`)."""


@pytest.fixture
def club(tmp_path: Path) -> Iterator[Club]:
    running = open_club(tmp_path, "--grace", str(GRACE))
    try:
        yield running
    finally:
        running.close()


def toast(text: str) -> str:
    """A pattern for `text` as a toast shows it: wrapped, each line behind a bar."""
    return r"[\s▌]+".join(re.escape(word) for word in text.split())


def ladder(club: Club) -> dict[str, dict[str, Any]]:
    done = owner(club, "ladder", "--json")
    assert done.returncode == 0, done.stderr
    return {row["handle"]: row for row in json.loads(done.stdout)}


def written(club: Club, matches: int) -> dict[str, dict[str, Any]]:
    """The ladder, once it counts `matches` rated matches in all (waited for: the club writes
    in a thread of its own)."""
    deadline = time.monotonic() + 3 * WAIT
    while True:
        rows = ladder(club)
        if sum(row["matches"] for row in rows.values()) >= 2 * matches:
            return rows
        assert time.monotonic() < deadline, f"the ladder never counted {matches}: {rows}"
        Terminal.read_all(0.2)


def both_moved(club: Club) -> tuple[Terminal, Terminal]:
    """Alice (X) and Bob at a rated table, each having moved once."""
    alice, bob = sit_down(club)
    move(alice, b"5", bob, "alice X centre")
    move(bob, b"1", alice, "bob O bottom-left")
    return alice, bob


def test_q_after_both_moved_loses_the_match_written_once_with_both_ratings(club: Club) -> None:
    alice, bob = sit_down(club)
    alice.expect("leaving after both have moved loses")  # said before it applies
    move(alice, b"5", bob, "alice X centre")
    move(bob, b"1", alice, "bob O bottom-left")
    alice.from_now()
    bob.from_now().send(b"q")
    alice.expect(toast("bob left the match after both had moved: it counts as alice's win."))
    rows = written(club, 1)
    assert (rows["alice"]["wins"], rows["alice"]["matches"]) == (1, 1)
    assert (rows["bob"]["losses"], rows["bob"]["matches"]) == (1, 1)
    assert int(rows["alice"]["rating"].split()[0]) > 1500 > int(rows["bob"]["rating"].split()[0])
    bob.expect("Open tables")
    carol = club.ssh("carol", "carol")  # a later comer sees the same ladder: written once
    carol.expect(r"1 alice \d+ ± \d+ 1 0 0 2 bob \d+ ± \d+ 0 0 1")
    assert sum(row["matches"] for row in ladder(club).values()) == 2


def test_q_before_both_moved_aborts_the_match_and_writes_nothing(club: Club) -> None:
    alice, bob = sit_down(club)
    move(alice, b"5", bob, "alice X centre")
    alice.from_now()
    bob.from_now().send(b"q")
    alice.expect(toast("bob left before both had moved: the match was aborted, nothing recorded."))
    alice.expect("Open tables")
    owner_sees = ladder(club)
    assert owner_sees == {}, owner_sees


def test_a_ban_after_both_moved_loses_the_match(club: Club) -> None:
    alice, _bob = both_moved(club)
    alice.from_now()
    assert owner(club, "ban", "bob").returncode == 0
    alice.expect(toast("bob left the match after both had moved: it counts as alice's win."))
    rows = written(club, 1)
    assert (rows["alice"]["wins"], rows["bob"]["losses"]) == (1, 1)
    alice.expect("Open tables")
    assert sum(row["matches"] for row in ladder(club).values()) == 2


def test_a_seat_away_past_the_grace_after_both_moved_loses(club: Club) -> None:
    alice, bob = both_moved(club)
    alice.from_now()
    bob.close()  # the ssh killed
    alice.expect("Waiting for bob to come back")
    alice.expect(
        toast("bob left the match after both had moved: it counts as alice's win."), 3 * WAIT
    )
    rows = written(club, 1)
    assert (rows["alice"]["wins"], rows["bob"]["losses"]) == (1, 1)


def test_both_away_past_the_grace_aborts_the_match(club: Club) -> None:
    alice, bob = both_moved(club)
    carol = club.ssh("carol", "carol")
    carol.expect(r"alice v bob Classic 0–0 0 0")
    for player in (bob, alice):  # bob drops first: the match is not given to alice
        os.kill(player.pid, signal.SIGKILL)
        player.close()
    deadline = time.monotonic() + 3 * WAIT
    log = club.folder / "data" / "club.log"
    while "aborted" not in (log.read_text() if log.exists() else ""):
        assert time.monotonic() < deadline, "the table never ended"
        Terminal.read_all(0.2)
    assert ladder(club) == {}
