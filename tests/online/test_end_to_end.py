"""The real thing: `tictactoe host` in a terminal, and friends with the real `ssh` in theirs.

Every program runs in a pseudo-terminal of its own (100 x 32, xterm-256color), as a
person's terminal runs it; all of them listen and connect on 127.0.0.1. What a terminal
shows is read from the bytes the program wrote, its escape sequences taken out: the words
of a Textual screen are there, in the order drawn.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import socket
import struct
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from limits import EVENT_LIMIT
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from online.test_ssh_door import ssh_line
from tictactoe.core.seats import Watching
from tictactoe.host.hosting import JOIN_CODE

pty = pytest.importorskip("pty")
termios = pytest.importorskip("termios")
fcntl = pytest.importorskip("fcntl")

pytestmark = [pytest.mark.usefixtures("ssh"), pytest.mark.slow]

SIZE = (100, 32)
"""Columns and rows of every terminal."""

WAIT = EVENT_LIMIT
"""The longest any one step may take (a step may start a Python program, on a busy machine)."""

ESCAPES = re.compile(
    rb"\x1b(?:\[[0-?]*[ -/]*[@-~]"  # CSI: cursor moves, colours, modes
    rb"|\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: titles, colours asked
    rb"|P[^\x1b]*\x1b\\"  # DCS
    rb"|[()][0-9A-Za-z]"  # character sets
    rb"|[ -~])"  # any other two-byte sequence
)


def words(raw: bytes) -> str:
    """What a terminal shows of `raw`, its escape sequences taken out."""
    return ESCAPES.sub(b"", raw).decode(errors="replace")


class Terminal:
    """A program in a pseudo-terminal of its own, its session led by it.

    Every open terminal is read whenever one of them is waited on: no program is held
    back by a full terminal while the test looks at another.
    """

    opened: ClassVar[list[Terminal]] = []

    def __init__(self, argv: Sequence[str]) -> None:
        environment = {
            name: value
            for name, value in os.environ.items()
            if name not in ("COLUMNS", "LINES", "TEXTUAL_DRIVER", "SSH_AUTH_SOCK")
        }
        environment["TERM"] = "xterm-256color"
        started, exec_done = os.pipe()  # the child's end closes on exec
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the program, nothing else
            try:
                os.close(started)
                columns, rows = SIZE
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
                os.execvpe(argv[0], list(argv), environment)
            finally:
                os._exit(127)
        os.close(exec_done)
        os.read(started, 1)
        os.close(started)
        os.set_blocking(self.fd, False)
        self.raw = b""
        self.mark = 0
        """Where `expect` starts looking in `raw`."""
        self.readable = True
        self.returncode: int | None = None
        Terminal.opened.append(self)

    def read(self) -> None:
        """Take whatever the program has written."""
        while self.readable:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            except OSError:  # the program has ended and its terminal has closed
                chunk = b""
            if not chunk:
                self.readable = False
                return
            self.raw += chunk

    @classmethod
    def read_all(cls, timeout: float) -> None:
        """Wait up to `timeout` for any terminal to have something, and read them all."""
        fds = [t.fd for t in cls.opened if t.readable]
        if fds:
            select.select(fds, [], [], timeout)
        else:
            time.sleep(timeout)
        for terminal in list(cls.opened):
            terminal.read()

    @property
    def text(self) -> str:
        """The words shown since the last `from_now`, every run of spaces and line ends as
        one space (a status line may wrap)."""
        return " ".join(words(self.raw[self.mark :]).split())

    def from_now(self) -> Terminal:
        """Look only at what is drawn after this."""
        self.read()
        self.mark = len(self.raw)
        return self

    def expect(self, pattern: str, timeout: float = WAIT) -> re.Match[str]:
        """Wait until `pattern` (a regular expression) shows; the match."""
        deadline = time.monotonic() + timeout
        while (found := re.search(pattern, self.text)) is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} did not show; the screen said: {self.text!r}")
            if not self.readable and self.poll() is not None:
                raise AssertionError(
                    f"{pattern!r} did not show before the program ended ({self.returncode});"
                    f" the screen said: {self.text!r}"
                )
            Terminal.read_all(0.02)
        return found

    def send(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def type(self, *keys: bytes) -> None:
        """Keys one at a time, as a person types them."""
        for key in keys:
            self.send(key)
            time.sleep(0.1)

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def finish(self, timeout: float = WAIT) -> int:
        """Wait for the program to end, reading all it writes; its exit status."""
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            assert time.monotonic() < deadline, (
                f"still running {timeout} s later; the screen said: {self.text!r}"
            )
            Terminal.read_all(0.02)
        self.read()
        return self.returncode  # type: ignore[return-value]

    def close(self) -> None:
        """End the program (and its process group) if it is still there; close the terminal."""
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.returncode = -signal.SIGKILL
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
            self.readable = False
        if self in Terminal.opened:
            Terminal.opened.remove(self)


def leftovers(code: str, sessions: Sequence[int]) -> list[str]:
    """Processes still running that belong to the series: the code in their command line (the
    ssh clients) or their environment (the seats' games), or in one of `sessions` (those of the
    terminals)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            status = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            state, session = status[0], int(status[3])
            given = f"{JOIN_CODE}={code}".encode() in (entry / "environ").read_bytes()
            if state != "Z" and (code in command or given or session in sessions):
                found.append(f"{entry.name}: {command}")
    return found


@dataclass
class Series:
    """A series hosted by Alice in her terminal, and the terminals of those who came in."""

    host: Terminal
    code: str
    port: int
    known_hosts: Path
    friends: list[Terminal]

    def ssh(self, name: str | None = None) -> Terminal:
        """Someone runs the invitation's line; with `name`, gives it at the name field."""
        line = ssh_line(self.port, self.code, self.known_hosts, "-tt", "-o", "LogLevel=ERROR")
        friend = Terminal(line)
        self.friends.append(friend)
        if name is not None:
            friend.expect("Your name")
            friend.from_now().send(name.encode() + b"\r")
        return friend

    def left_behind(self) -> list[str]:
        return leftovers(self.code, [t.pid for t in (self.host, *self.friends)])

    def close(self) -> None:
        """Every terminal closed; the host stopped as a person would stop it, if it is
        still there; then no process of the series may be left once it had time to go."""
        for friend in self.friends:
            friend.close()
        if self.host.poll() is None:
            os.kill(self.host.pid, signal.SIGTERM)
            with contextlib.suppress(AssertionError):
                self.host.finish()
        self.host.close()
        deadline = time.monotonic() + WAIT
        while self.left_behind() and time.monotonic() < deadline:
            time.sleep(0.05)


def host(tmp_path: Path, *options: str, record: Path | None = None) -> Series:
    """`tictactoe host` in a terminal, waiting with its invitation on 127.0.0.1; keeping its
    record in `record`, or nothing."""
    terminal = Terminal(
        [
            sys.executable,
            "-m",
            "tictactoe",
            "host",
            "--player1",
            "Alice",
            *(("--no-save",) if record is None else ("--record", str(record))),
            "--listen",
            "127.0.0.1",
            "--ssh-port",
            "0",
            *(options or ("--no-web",)),
        ]
    )
    invitation = terminal.expect(r"ssh -p (\d+) ([A-Z0-9]+)@127\.0\.0\.1")
    terminal.expect("Waiting for a friend")
    return Series(terminal, invitation[2], int(invitation[1]), tmp_path / "known_hosts", friends=[])


@pytest.fixture
def hosted(tmp_path: Path) -> Iterator[Series]:
    series = host(tmp_path)
    try:
        yield series
    finally:
        series.close()
        assert series.left_behind() == []


def begin(series: Series) -> Terminal:
    """Bob comes in by ssh and gives his name; Alice takes X. Bob's terminal."""
    bob = series.ssh("Bob")
    series.host.expect("Alice, choose your mark")
    bob.expect("Alice is choosing a mark")
    series.host.from_now().send(b"x")
    bob.expect(r"Alice \(X\) to move")
    return bob


def move(player: Terminal, key: bytes, other: Terminal, drawn: str) -> None:
    """`player` presses `key`; `drawn` (a line of the moves' list) shows on both screens."""
    player.from_now()
    other.from_now()
    player.send(key)
    player.expect(drawn)
    other.expect(drawn)


def test_a_whole_series_from_two_terminals_ends_for_both_with_q(hosted: Series) -> None:
    alice = hosted.host
    bob = begin(hosted)
    bob.from_now().send(b"5")  # not his turn: refused on his own screen, nothing sent
    bob.expect("It is Alice's turn.")
    move(alice, b"7", bob, "1. Alice X top-left")
    move(bob, b"8", alice, "2. Bob O top")
    move(alice, b"5", bob, "3. Alice X centre")
    move(bob, b"9", alice, "4. Bob O top-right")
    move(alice, b"3", bob, "5. Alice X bottom-right")
    alice.expect("Alice wins!")
    bob.expect("Alice wins!")

    alice.from_now().send(b"n")
    bob.from_now().expect("Bob, choose your mark")
    alice.expect("Bob is choosing a mark")
    bob.send(b"o")
    move(bob, b"5", alice, "1. Bob O centre")

    alice.from_now()
    bob.send(b"q")
    assert bob.finish() == 0
    assert alice.finish() == 0
    for terminal, farewell in ((alice, "Bob left the series."), (bob, "You ended the series.")):
        after = terminal.text
        assert farewell in after
        assert re.search(r"Final score\s+Alice\s+1\s+Bob\s+0\s+Draws\s+0", after), after
    assert hosted.left_behind() == []


def a_match_won_by_alice(alice: Terminal, bob: Terminal) -> None:
    """Alice (X) wins the first match down the diagonal, Bob (O) taking the top row."""
    move(alice, b"7", bob, "1. Alice X top-left")
    move(bob, b"8", alice, "2. Bob O top")
    move(alice, b"5", bob, "3. Alice X centre")
    move(bob, b"9", alice, "4. Bob O top-right")
    move(alice, b"3", bob, "5. Alice X bottom-right")
    alice.expect("Alice wins!")
    bob.expect("Alice wins!")


def the_series(series: Series) -> list[str]:
    """The command lines of the processes the series' code is in (clients and games)."""
    return [line.split(": ", 1)[1] for line in leftovers(series.code, [])]


def test_a_dropped_friend_takes_his_seat_back_with_the_same_name(hosted: Series) -> None:
    alice = hosted.host
    bob = begin(hosted)
    a_match_won_by_alice(alice, bob)
    alice.send(b"n")
    bob.expect("Bob, choose your mark")
    bob.send(b"o")
    move(bob, b"5", alice, "1. Bob O centre")

    alice.from_now()
    os.kill(bob.pid, signal.SIGKILL)  # his ssh, gone without a word
    alice.expect(r"Bob's connection dropped\.")
    alice.expect(r"Waiting for Bob to come back \(\d:\d\d\)\.")
    alice.from_now().send(b"7")
    alice.expect("The series is paused: waiting for Bob.")
    assert bob.finish() == -signal.SIGKILL

    again = hosted.ssh("Bob")
    again.expect(r"Alice \(X\) to move")  # his screen as it was, score included
    again.expect("1. Bob O centre")
    again.expect(r"\bX 1 win\b")  # Alice's card
    again.expect(r"\bO 0 wins\b")  # his
    alice.expect("Bob is back.")
    move(alice, b"7", again, "2. Alice X top-left")
    commands = the_series(hosted)
    assert len(commands) == 2, commands  # his new ssh and its game: the old game has gone
    game = next(command for command in commands if " join " in command)
    assert hosted.code not in game  # the code is on no game's command line


def test_a_third_comer_watches_read_only_and_the_players_see_the_count(
    hosted: Series,
) -> None:
    alice = hosted.host
    bob = begin(hosted)
    move(alice, b"7", bob, "1. Alice X top-left")

    alice.from_now()
    carol = hosted.ssh("Carol")
    carol.expect("Tic-tac-toe — watching")
    carol.expect("1. Alice X top-left")
    carol.expect(r"Bob \(O\) to move")
    alice.expect("online · 1 watching")
    carol.from_now().send(b"5")
    carol.expect(re.escape(str(Watching())))

    carol.from_now()
    move(bob, b"5", alice, "2. Bob O centre")
    carol.expect("2. Bob O centre")

    alice.from_now()
    carol.send(b"q")  # a watcher leaves alone: the series goes on
    assert carol.finish() == 0
    alice.expect(r"Tic-tac-toe — online\s")
    move(alice, b"3", bob, "3. Alice X bottom-right")


def test_sigterm_on_the_host_ends_every_session_with_a_sentence(
    tmp_path: Path,
) -> None:
    series = host(tmp_path, "--web-port", "0")  # both doors open
    try:
        alice = series.host
        bob = begin(series)
        carol = series.ssh("Carol")
        carol.expect(r"Alice \(X\) to move")
        move(alice, b"7", bob, "1. Alice X top-left")

        for terminal in series.friends:
            terminal.from_now()
        os.kill(alice.pid, signal.SIGTERM)
        for friend in (bob, carol):
            assert friend.finish() == 0, friend.text
            friend.expect("The host's game was stopped: the series has ended.", timeout=0)
        assert alice.finish() == 143
        assert re.search(r"Final score\s+Alice\s+0\s+Bob\s+0", alice.text)
        assert series.left_behind() == []
    finally:
        series.close()


def test_a_browser_and_half_open_connections_at_the_ssh_port_do_not_stop_the_series(
    hosted: Series,
) -> None:
    alice = hosted.host
    bob = begin(hosted)
    move(alice, b"7", bob, "1. Alice X top-left")

    with socket.create_connection(("127.0.0.1", hosted.port), timeout=WAIT) as browser:
        assert browser.recv(256).startswith(b"SSH-2.0-")
        browser.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/html\r\n\r\n")
        while browser.recv(4096):  # the door closes it
            pass
    half_open = []
    try:
        for _ in range(20):
            with contextlib.suppress(OSError):  # beyond the door's bound, refused: fine
                half_open.append(socket.create_connection(("127.0.0.1", hosted.port), WAIT))
        move(bob, b"5", alice, "2. Bob O centre")
        move(alice, b"3", bob, "3. Alice X bottom-right")
    finally:
        for connection in half_open:
            connection.close()
    assert "tictactoe.online" not in alice.text  # no log line over the host's screen
