"""The real thing: `tictactoe club` in a terminal, and players with the real `ssh` in theirs.

Every program runs in a pseudo-terminal of its own (`online.test_end_to_end.Terminal`), on
127.0.0.1; each player's keys are made with `ssh-keygen` in the test's folder, and `ssh` is given
only those (no agent, no configuration of the person's own).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from online.test_end_to_end import WAIT, Terminal
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)

pytestmark = [pytest.mark.usefixtures("ssh"), pytest.mark.slow]


@dataclass
class Club:
    """A club running in its terminal, and the terminals of those who came in."""

    server: Terminal
    port: int
    folder: Path
    players: list[Terminal] = field(default_factory=list)

    def key(self, name: str) -> Path:
        """A key pair called `name`, made once; the private key's file."""
        path = self.folder / "keys" / name
        if not path.exists():
            path.parent.mkdir(exist_ok=True)
            subprocess.run(
                ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)],
                check=True,
            )
        return path

    def ssh(self, handle: str, key: str | None) -> Terminal:
        """`ssh -p PORT HANDLE@127.0.0.1` with the key called `key`, or with none (a guest)."""
        line = [
            "ssh",
            "-F",
            "none",
            "-tt",
            "-o",
            "StrictHostKeyChecking=accept-new",
            "-o",
            f"UserKnownHostsFile={self.folder / 'known_hosts'}",
            "-o",
            "LogLevel=ERROR",
            "-o",
            "PasswordAuthentication=no",
        ]
        if key is None:
            line += ["-o", "PubkeyAuthentication=no"]
        else:
            line += ["-o", "IdentitiesOnly=yes", "-i", str(self.key(key))]
        player = Terminal([*line, "-p", str(self.port), f"{handle}@127.0.0.1"])
        self.players.append(player)
        return player

    def close(self) -> None:
        for player in self.players:
            player.close()
        if self.server.poll() is None:
            os.kill(self.server.pid, signal.SIGTERM)
            with contextlib.suppress(AssertionError):
                self.server.finish()
        self.server.close()


def open_club(tmp_path: Path, *options: str, data: Path | None = None) -> Club:
    """`tictactoe club` in a terminal, listening on 127.0.0.1, its data in `data` (default: a
    folder in `tmp_path`, where the players' keys and known_hosts are kept)."""
    server = Terminal(
        [
            sys.executable,
            "-m",
            "tictactoe",
            "club",
            "--listen",
            "127.0.0.1",
            "--ssh-port",
            "0",
            "--data",
            str(data or tmp_path / "data"),
            *options,
        ]
    )
    opened = server.expect(r"port (\d+): players type")
    return Club(server, int(opened[1]), tmp_path)


@pytest.fixture
def club(tmp_path: Path) -> Iterator[Club]:
    running = open_club(tmp_path)
    try:
        yield running
    finally:
        running.close()


def sit_down(club: Club, unrated: bool = False) -> tuple[Terminal, Terminal]:
    """Alice and Bob come in; Alice opens a table, Bob sits, Alice takes X: their terminals."""
    alice = club.ssh("alice", "alice")
    bob = club.ssh("bob", "bob")
    alice.expect("Open tables")
    bob.expect("Open tables")
    alice.from_now().send(b"u\r" if unrated else b"o\r")  # the dialog: Enter opens as shown
    bob.expect(r"alice (1500 ± \d+|unrated) Classic · open")
    bob.from_now().send(b"\r")
    alice.expect("alice, choose your mark")
    bob.from_now()
    alice.from_now().send(b"x")
    bob.expect(r"alice \(X\) to move")
    return alice, bob


def test_a_key_claims_a_handle_another_key_is_refused_and_no_key_is_a_guest(club: Club) -> None:
    alice = club.ssh("Alice", "alice")
    alice.expect(r"alice · Classic 1500 ± \d+")
    alice.expect("Open tables")

    thief = club.ssh("alice", "mallory")
    thief.expect(r"The handle alice belongs to another key[^.]*\.")
    assert thief.finish() == 1
    assert "Open tables" not in thief.text  # no game was started for it

    guest = club.ssh("zed", None)
    guest.expect(r"guest-[a-z0-9]+ · guest, unrated")

    alice.from_now().send(b"q")  # the lobby's q ends the session
    assert alice.finish() == 0


def move(player: Terminal, key: bytes, other: Terminal, drawn: str) -> None:
    """`player` presses `key`; `drawn` (a line of the moves' list) shows on both screens."""
    other.from_now()
    player.from_now().send(key)
    player.expect(drawn)
    other.expect(drawn)


def test_two_players_meet_play_a_rated_match_and_a_third_sees_the_ladder(club: Club) -> None:
    alice, bob = sit_down(club)  # a rated, open-ended table Alice opened and Bob sat at
    move(alice, b"7", bob, "alice X top-left")
    move(bob, b"4", alice, "bob O left")
    move(alice, b"8", bob, "alice X top")
    move(bob, b"5", alice, "bob O centre")
    move(alice, b"9", bob, "alice wins!")

    bob.from_now().send(b"q")  # leaves the table: the series ends for both, back to the lobby
    bob.expect("Open tables")
    alice.expect("bob left the series")

    carol = club.ssh("carol", "carol")
    carol.expect("carol · Classic 1500")
    ladder = carol.expect(r"1 alice (\d+) ± \d+ 1 0 0 2 bob (\d+) ± \d+ 0 0 1")
    assert int(ladder[1]) > 1500 > int(ladder[2])


def test_the_club_stops_on_sigterm_telling_every_player(club: Club) -> None:
    alice = club.ssh("alice", "alice")
    alice.expect("Open tables")
    os.kill(club.server.pid, signal.SIGTERM)
    assert club.server.finish() == 128 + signal.SIGTERM
    alice.expect("The club has closed.")
    alice.finish()  # her ssh ends, whatever its status
    assert re.search("Traceback", club.server.text) is None


def owner(club: Club, *command: str) -> subprocess.CompletedProcess[str]:
    """The club's owner runs `tictactoe club COMMAND … --data DIR` beside the running club."""
    argv = [
        sys.executable,
        "-m",
        "tictactoe",
        "club",
        *command,
        "--data",
        str(club.folder / "data"),
    ]
    return subprocess.run(argv, capture_output=True, text=True, timeout=WAIT, check=False)


def test_a_ban_ends_a_running_session_and_refuses_the_key_until_unbanned(club: Club) -> None:
    alice = club.ssh("alice", "alice")
    bob = club.ssh("bob", "bob")
    alice.expect("Open tables")
    bob.expect("Open tables")
    alice.from_now().send(b"o\r")
    bob.expect(r"alice 1500 ± \d+ Classic · open")
    bob.from_now().send(b"\r")
    bob.expect("alice is choosing a mark")

    assert owner(club, "ban", "alice").returncode == 0
    alice.expect("You are banned from this club for ever.")
    assert alice.finish() == 1  # the session ends, the club having ended it
    bob.expect("alice was banned: the series is over.")  # back in the lobby, not kept waiting
    bob.expect("Open tables")

    again = club.ssh("alice", "alice")
    again.expect("banned")
    assert again.finish() == 1

    assert owner(club, "unban", "alice").returncode == 0
    back = club.ssh("alice", "alice")
    back.expect(r"alice · Classic 1500 ± \d+")


def test_a_watcher_follows_a_table_and_goes_back_to_the_lobby(club: Club) -> None:
    alice = club.ssh("alice", "alice")
    bob = club.ssh("bob", "bob")
    carol = club.ssh("carol", None)
    for player in (alice, bob, carol):
        player.expect("Open tables")
    alice.from_now().send(b"u\r")  # an unrated table
    bob.expect(r"alice unrated Classic · open")
    bob.from_now().send(b"\r")
    alice.expect("alice, choose your mark")
    carol.expect(r"alice v bob Classic 0–0 0 0")
    carol.from_now().send(b"\t\r")  # Enter on the table in play: watch it
    carol.expect("watching")
    alice.from_now().send(b"x")
    carol.expect(r"alice \(X\) to move")
    alice.send(b"5")
    carol.expect("alice X centre")
    carol.from_now().send(b"q")  # a watcher's q: back to the lobby, the series goes on
    carol.expect("You stopped watching.")
    carol.expect("Open tables")
    bob.from_now().send(b"1")
    alice.expect("bob O bottom-left")


def test_a_dropped_seat_comes_back_with_its_key(club: Club) -> None:
    alice, bob = sit_down(club)
    alice.send(b"5")
    bob.expect("alice X centre")
    bob.close()  # the ssh client killed: the link drops without a word
    alice.expect("Waiting for bob to come back")
    again = club.ssh("bob", "bob")
    again.expect("alice X centre")  # straight back at the seat, the board as it was
    alice.from_now()
    again.from_now().send(b"1")
    alice.expect("bob O bottom-left")


def test_a_seat_away_past_the_grace_loses_the_match(tmp_path: Path) -> None:
    club = open_club(tmp_path, "--grace", "1")
    try:
        alice, bob = sit_down(club)
        move(alice, b"5", bob, "alice X centre")
        move(bob, b"1", alice, "bob O bottom-left")  # both have moved: leaving loses
        bob.close()
        alice.expect("bob did not come back in time")
        alice.expect(r"alice · Classic (1[6-9]\d\d) ± \d+")  # back in the lobby, the match won
    finally:
        club.close()


def test_quick_pair_sits_with_the_waiting_player_and_a_held_key_changes_nothing(
    club: Club,
) -> None:
    alice = club.ssh("alice", "alice")
    bob = club.ssh("bob", "bob")
    alice.expect("Open tables")
    bob.expect("Open tables")
    alice.from_now().send(b"p" * 40)  # nobody waits: one table opens; the rest are refused
    alice.expect("Nobody is waiting: your table is open.")
    alice.expect("waiting for someone to sit")
    bob.expect(r"alice 1500 ± \d+ Classic · open")
    assert len(re.findall(r"alice 1500 ± \d+ Classic · open", bob.text)) >= 1
    bob.from_now().send(b"p")  # the closest waiting player: Alice
    alice.expect("alice, choose your mark")
    bob.expect("alice is choosing a mark")
    assert club.server.poll() is None
