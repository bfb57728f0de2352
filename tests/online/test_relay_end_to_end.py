"""The relay for real: `tictactoe host --relay USER@127.0.0.1:PORT` in a terminal, a real `sshd`
as the relay, and a friend with the real `ssh` in another terminal, joining by the relay's line.

The host's home is the test's (`~/.ssh/id_ed25519` and `~/.ssh/known_hosts` as a person has
them); everything listens and connects on 127.0.0.1.
"""

from __future__ import annotations

import base64
import re
import sys
import time
from pathlib import Path

import pytest

from online.relay_server import RelayServer, is_open
from online.relay_server import relay_server as relay_server  # the fixture
from online.test_end_to_end import WAIT, Series, Terminal, a_match_won_by_alice, begin, move

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ptys, /proc"),
    pytest.mark.slow,
]


def host_with_relay(tmp_path: Path, relay: RelayServer) -> Series:
    """`tictactoe host --relay` in a terminal, its invitation drawn; the series, whose `port` is
    the door's own (the local line's)."""
    terminal = Terminal(
        [
            *(sys.executable, "-m", "tictactoe", "host", "--player1", "Alice", "--no-save"),
            *("--no-web", "--listen", "127.0.0.1", "--ssh-port", "0", "--relay", relay.target),
        ]
    )
    local = terminal.expect(r"On this machine only:[ █]+ssh -p (\d+) ([A-Z0-9]+)@127\.0\.0\.1")
    terminal.expect("Waiting for a friend")
    return Series(terminal, local[2], int(local[1]), tmp_path / "known_hosts", friends=[])


def relay_line(alice: Terminal, code: str) -> int:
    """The relay's port, once its line is drawn first in the invitation."""
    found = alice.expect(rf"From anywhere, through the relay:[ █]+ssh -p (\d+) {code}@127\.0\.0\.1")
    return int(found[1])


def test_a_friend_on_another_network_plays_through_the_relay(
    tmp_path: Path, relay_server: RelayServer
) -> None:
    relay_server.start()
    relay_server.trust()
    hosted = host_with_relay(tmp_path, relay_server)
    try:
        alice = hosted.host
        port = relay_line(alice, hosted.code)
        line = f"ssh -p {port} {hosted.code}@127.0.0.1"

        alice.from_now().send(b"c")  # to the clipboard, through the terminal (OSC 52)
        alice.expect(re.escape(f"Copied {line}"))
        assert b"\x1b]52;c;" + base64.b64encode(line.encode()) in alice.raw

        hosted.port = port  # Bob types the relay's line
        bob = begin(hosted)
        a_match_won_by_alice(alice, bob)

        alice.from_now()
        alice.send(b"q")
        assert alice.finish() == 0
        assert bob.finish() == 0
        assert "You ended the series." in alice.text
        deadline = time.monotonic() + WAIT
        while is_open(port):  # the relay's port closes with the host
            assert time.monotonic() < deadline, "the relay's port is still open"
            time.sleep(0.05)
    finally:
        hosted.close()
    assert hosted.left_behind() == []


@pytest.mark.parametrize(
    ("options", "trusted", "sentence"),
    [
        ((), False, r"The relay's key is not known here: run ssh -p \d+ \S+@127\.0\.0\.1 once"),
        (("AllowTcpForwarding no",), True, "refused to forward a port to this game"),
    ],
    ids=["unknown-key", "refused-forward"],
)
def test_a_relay_that_cannot_be_used_is_one_sentence_and_the_local_door_plays(
    tmp_path: Path,
    relay_server: RelayServer,
    options: tuple[str, ...],
    trusted: bool,
    sentence: str,
) -> None:
    relay_server.start(*options)
    if trusted:
        relay_server.trust()
    hosted = host_with_relay(tmp_path, relay_server)
    try:
        alice = hosted.host
        alice.expect(sentence)
        assert "From anywhere, through the relay" not in alice.text
        bob = begin(hosted)  # by the local line
        move(alice, b"7", bob, "1. Alice X top-left")
        move(bob, b"5", alice, "2. Bob O centre")
    finally:
        hosted.close()
    assert hosted.left_behind() == []
