"""A seat and a watcher of an online series in words, through the real `ssh`.

Alice hosts in her full-screen terminal; Bob joins with `ssh -tt … CODE@HOST plain` (a terminal
of his own, the line view in it), Carol with `ssh … CODE@HOST plain` and no terminal asked for
(her `ssh` reads and echoes her lines itself). What each of them is sent is read whole: the
sentences in order, the other side's moves the moment they land, the final score, and no
escape byte anywhere.
"""

from __future__ import annotations

import os
import re
import signal
import sys
from pathlib import Path

import pytest

from online.test_end_to_end import Series, Terminal
from online.test_end_to_end import hosted as hosted  # the fixture: Alice hosts, full screen
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from online.test_ssh_door import ssh_line
from tictactoe.core.narration import LINE
from tictactoe.record import GameRecord

pytestmark = [pytest.mark.usefixtures("ssh"), pytest.mark.slow]


def in_words(series: Series, *ssh_options: str) -> Terminal:
    """Someone joins line by line: the invitation's line, and the word `plain` after it."""
    line = ssh_line(
        series.port, series.code, series.known_hosts, *ssh_options, "-o", "LogLevel=ERROR"
    )
    person = Terminal([*line, "plain"])
    series.friends.append(person)
    return person


def bob_in_words(series: Series) -> Terminal:
    """Bob takes the seat in words, with a terminal of his own, and Alice takes X."""
    bob = in_words(series, "-tt")
    bob.expect(re.escape("Your name (Enter: Player 2):"))
    bob.send(b"Bob\r")
    series.host.expect("Alice, choose your mark")
    series.host.send(b"x")
    return bob


def said(terminal: Terminal) -> list[str]:
    """The lines a terminal was sent, as sent (no escape sequence is taken out)."""
    return [line.strip() for line in terminal.raw.decode(errors="replace").splitlines()]


def test_a_seat_and_a_watcher_play_and_follow_in_words(hosted: Series) -> None:
    alice = hosted.host
    bob = in_words(hosted, "-tt")
    bob.expect(re.escape("Your name (Enter: Player 2):"))
    bob.send(b"Bob\r")
    bob.expect("Tic-tac-toe: Alice against Bob.")
    alice.expect("Alice, choose your mark")
    alice.send(b"x")
    bob.expect(re.escape("Alice (X) to move."))

    carol = in_words(hosted)  # no terminal of her own on the host: her ssh echoes
    carol.expect(re.escape("Your name (Enter: Player 2):"))
    carol.send(b"Carol\n")
    carol.expect("You are watching.")

    alice.send(b"5")
    bob.expect(re.escape("Alice (X) takes the centre, 5."))
    bob.expect(re.escape("Bob (O), your move:"))
    carol.expect(re.escape("Alice (X) takes the centre, 5."))
    bob.send(b"7\r")  # a burst of his: in order, the taken one refused in a sentence
    bob.expect(re.escape("Bob (O) takes the top-left, 7."))
    carol.expect(re.escape("Bob (O) takes the top-left, 7."))
    alice.send(b"1")
    bob.expect(re.escape("Alice (X) takes the bottom-left, 1."))
    bob.send(b"1\r3\r")
    bob.expect("is taken")
    bob.expect(re.escape("Bob (O) takes the bottom-right, 3."))
    carol.send(b"5\n")  # a watcher's key acts on nothing: one sentence
    carol.expect("watching")
    alice.send(b"9")
    bob.expect(re.escape("Alice (X) wins: 9, 5, 1, the diagonal from the top-right."))
    carol.expect(re.escape("Alice (X) wins: 9, 5, 1, the diagonal from the top-right."))
    bob.expect(re.escape("n and Enter: next match; q and Enter: quit:"))

    carol.send(b"q\n")  # a watcher leaves alone
    assert carol.finish() == 0
    assert "You stopped watching." in said(carol)
    bob.send(b"s\rq\r")
    assert bob.finish() == 0
    bob_said = said(bob)
    assert "Alice (X) 1, Bob (O) 0, draws 0; 1 match played." in bob_said
    assert "You ended the series." in bob_said and "Final score" in bob_said
    for person in (bob, carol):
        assert b"\x1b" not in person.raw
        assert all(len(line) <= LINE for line in said(person))
    alice.expect("Bob left the series.")


def test_the_host_hosts_in_words_and_a_friend_plays_full_screen(tmp_path: Path) -> None:
    record = tmp_path / "record.sqlite3"
    alice = Terminal(
        [
            *(sys.executable, "-m", "tictactoe", "host", "--plain", "--player1", "Alice"),
            *("--record", str(record), "--listen", "127.0.0.1", "--ssh-port", "0", "--no-web"),
        ]
    )
    series = Series(alice, "", 0, tmp_path / "known_hosts", friends=[])
    try:
        invitation = alice.expect(r"ssh -p (\d+) ([A-Z0-9]+)@127\.0\.0\.1")
        series.code, series.port = invitation[2], int(invitation[1])
        alice.expect("Waiting for a friend to join.")
        alice.send(b"i\r")  # the invitation again, in words
        alice.expect(r"paste one of these lines:.*paste one of these lines:")
        bob = series.ssh("Bob")  # the full-screen seat
        alice.expect(re.escape("Alice, choose X or O:"))
        alice.send(b"x\r5\r")
        bob.expect(r"1\. Alice X centre")
        bob.send(b"1")
        alice.expect(re.escape("Bob (O) takes the bottom-left, 1."))
        alice.send(b"7\r")
        bob.expect(r"3\. Alice X top-left")  # a key before Bob's turn is not his move
        bob.send(b"2")
        alice.expect(re.escape("Bob (O) takes the bottom, 2."))
        alice.send(b"3\r")
        alice.expect(re.escape("Alice (X) wins: 7, 5, 3, the diagonal from the top-left."))
        bob.expect("Alice wins")
        alice.send(b"q\r")
        assert alice.finish() == 0
        alice_said = said(alice)
        assert "You ended the series." in alice_said and "Final score" in alice_said
        assert b"\x1b" not in alice.raw
        assert all(len(line) <= LINE for line in alice_said)
        bob.expect("Alice ended the series")
        assert bob.finish() == 0
        assert GameRecord(record).players(limit=2)[0].player.name == "Alice"
    finally:
        series.close()
    assert series.left_behind() == []


def test_a_seat_in_words_that_drops_takes_its_seat_back(hosted: Series) -> None:
    """Bob's ssh dies without a word: his game is hung up, and that is a dropped link (the
    series waits for him), not Bob leaving; he joins in words again and is back."""
    alice = hosted.host
    bob = bob_in_words(hosted)
    bob.expect(re.escape("Alice (X) to move."))
    alice.from_now().send(b"5")
    bob.expect(re.escape("Alice (X) takes the centre, 5."))

    os.kill(bob.pid, signal.SIGKILL)  # his ssh, gone without a word
    alice.expect(r"Bob's connection dropped\.")
    assert bob.finish() == -signal.SIGKILL

    again = in_words(hosted, "-tt")
    again.expect(re.escape("Your name (Enter: Player 2):"))
    again.send(b"Bob\r")
    again.expect(re.escape("Bob (O), your move:"))
    alice.expect("Bob is back.")
    again.send(b"1\r")
    alice.expect(r"2\. Bob O bottom-left")
