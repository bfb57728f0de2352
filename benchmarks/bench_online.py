"""A move online over loopback SSH: from the key on one seat's terminal to the move drawn on
the other seat's terminal, at classic and at Ultimate, side by side.

    uv run python benchmarks/bench_online.py              # 8 matches of each: about 90 s
    uv run python benchmarks/bench_online.py --matches 2  # rougher
    uv run python benchmarks/bench_online.py --variant classic

`tictactoe host --variant VARIANT --player1 Alice --no-save --no-web --listen 127.0.0.1
--ssh-port 0` runs in a pseudo-terminal of 100 x 32 (TERM=xterm-256color) with a home folder of
its own (its SSH host key is made there); Bob comes in with the real OpenSSH client,
`ssh -tt -p PORT CODE@127.0.0.1`, in another, and gives his name. In every match the chooser takes
X and moves first, then `n`: the chooser alternates, so the seats take turns at moving first, and
within a match the moves alternate between the two terminals. A classic match is five moves (7 8
5 9 3: a win down the diagonal); an Ultimate match seventeen (X wins the top row of each of the
top three boards), each written as a person types it: the board's digit and the cell's, or the
cell's alone when the board is forced, the digits of a move written together.

A move is timed from writing its digits to the mover's terminal until the other terminal's
output, its escape sequences taken out, shows the move's line in the list of moves
("3. Alice X centre"; at Ultimate its first line, "3. Alice X", the board and cell maybe on the
next). Printed beside it: until the other terminal's
first byte after the key, and until the mover's own screen shows the line. A quiet pause precedes
every key. Targets: median at most 50 ms, 95th percentile at most 100 ms, for both games (an
Ultimate move as fast as a classic one).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import platform
import pty
import re
import select
import shutil
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from collections.abc import Sequence
from pathlib import Path

from tictactoe.core.engine import CELL_NAMES, Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.notices import Notice
from tictactoe.core.rules import CLASSIC, ULTIMATE, Variant, variant
from tictactoe.core.series import Series
from tictactoe.core.ultimate import UltimateState
from tictactoe.online.protocol import State
from tictactoe.online.wire import parse_server, to_json

NUMPAD = KeyLayout.NUMPAD
SIZE = (100, 32)
WAIT = 15.0
ESCAPES = re.compile(
    rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|P[^\x1b]*\x1b\\"
    rb"|[()][0-9A-Za-z]|[ -~])"
)
CLASSIC_MOVES = (0, 1, 4, 2, 8)
"""A classic match: the first mover wins down the diagonal."""
ULTIMATE_MOVES = (0, 1, 9, 2, 19, 10, 12, 27, 3, 28, 15, 54, 6, 55, 18, 29, 20)
"""An Ultimate match: the first mover wins the top row of each of the top three boards."""


def words(raw: bytes) -> str:
    return " ".join(ESCAPES.sub(b"", raw).decode(errors="replace").split())


class Terminal:
    """A program in a pseudo-terminal of its own."""

    def __init__(self, argv: Sequence[str], env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            try:
                columns, rows = SIZE
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
                os.execvpe(argv[0], list(argv), env)
            finally:
                os._exit(127)
        os.set_blocking(self.fd, False)
        self.raw = b""
        self.mark = 0

    def read(self) -> int:
        """Take what the program wrote; how many bytes."""
        taken = 0
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except (BlockingIOError, OSError):
                return taken
            if not chunk:
                return taken
            self.raw += chunk
            taken += len(chunk)

    def from_now(self) -> None:
        self.read()
        self.mark = len(self.raw)

    @property
    def text(self) -> str:
        return words(self.raw[self.mark :])

    def expect(self, pattern: str, *others: Terminal) -> re.Match[str]:
        deadline = time.monotonic() + WAIT
        while (found := re.search(pattern, self.text)) is None:
            if time.monotonic() > deadline:
                raise SystemExit(f"{pattern!r} did not show; the screen: {self.text[-2000:]!r}")
            select.select([self.fd, *(o.fd for o in others)], [], [], 0.02)
            self.read()
            for other in others:
                other.read()
        return found

    def settle(self, *others: Terminal, quiet: float = 0.15) -> None:
        """Read until nothing has come for `quiet` seconds."""
        while select.select([self.fd, *(o.fd for o in others)], [], [], quiet)[0]:
            self.read()
            for other in others:
                other.read()

    def stop(self, sig: int = signal.SIGTERM) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, sig)
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            self.read()
            if os.waitpid(self.pid, os.WNOHANG)[0]:
                break
            time.sleep(0.05)
        else:
            os.killpg(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


def timed_move(mover: Terminal, other: Terminal, key: str, pattern: str) -> tuple[float, ...]:
    """Seconds from the key to: the other's first byte, the line on the other's screen, the
    line on the mover's screen (`pattern` finds the line)."""
    mover.settle(other)
    mover.from_now()
    other.from_now()
    first = seen = own = None
    start = time.perf_counter()
    os.write(mover.fd, key.encode())
    deadline = start + WAIT
    while seen is None or own is None:
        if time.perf_counter() > deadline:
            raise SystemExit(
                f"{pattern!r} did not show in time; the screen: {other.text[-1500:]!r}"
            )
        ready = select.select([mover.fd, other.fd], [], [], 0.05)[0]
        now = time.perf_counter()
        if other.fd in ready and other.read() and first is None:
            first = now
        if mover.fd in ready:
            mover.read()
        if seen is None and re.search(pattern, other.text):
            seen = now
        if own is None and re.search(pattern, mover.text):
            own = now
    assert first is not None
    return first - start, seen - start, own - start


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def moves_typed(variant: Variant) -> list[tuple[str, str]]:
    """Each move of a match of `variant`: the digits typed, and what finds its line in the list
    of moves (the mover's name and mark go in the braces): its first line, which an Ultimate
    move's board and cell may not fit on."""
    moves = ULTIMATE_MOVES if variant is ULTIMATE else CLASSIC_MOVES
    state = variant.new()
    typed = []
    for number, move in enumerate(moves, start=1):
        if variant is ULTIMATE:
            assert isinstance(state, UltimateState)
            board, cell = divmod(move, 9)
            digits = "" if state.forced_board == board else NUMPAD.key_for(board)
            keys = digits + NUMPAD.key_for(cell)
            words = ""  # the move's words may go on to the next lines of its entry
        else:
            keys, words = NUMPAD.key_for(move), " " + re.escape(CELL_NAMES[move])
        typed.append((keys, rf"\b{number}\. {{}} {{}}\b{words}"))
        state = state.play(move)
    return typed


def play_series(variant: Variant, matches: int) -> tuple[list[tuple[float, ...]], list[str]]:
    """`matches` matches of `variant` hosted by Alice, Bob in by ssh: each move's times (see
    `timed_move`) and who made it."""
    home = Path(tempfile.mkdtemp(prefix="bench-online-"))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "SSH_AUTH_SOCK")}
    env.update(
        TERM="xterm-256color",
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_STATE_HOME=str(home / "state"),
    )
    host = Terminal(
        [
            *(sys.executable, "-m", "tictactoe", "host", "--player1", "Alice", "--no-save"),
            *("--variant", variant.name),
            *("--no-web", "--listen", "127.0.0.1", "--ssh-port", "0"),
        ],
        env,
    )
    bob: Terminal | None = None
    times: list[tuple[float, ...]] = []
    movers: list[str] = []
    try:
        invitation = host.expect(r"ssh -p (\d+) ([A-Z0-9]+)@127\.0\.0\.1")
        port, code = invitation[1], invitation[2]
        bob = Terminal(
            [
                *("ssh", "-tt", "-F", "none", "-o", "StrictHostKeyChecking=accept-new"),
                *("-o", f"UserKnownHostsFile={home / 'known_hosts'}", "-o", "BatchMode=yes"),
                *("-o", "LogLevel=ERROR", "-p", port, f"{code}@127.0.0.1"),
            ],
            env,
        )
        bob.expect("Your name", host)
        bob.from_now()
        os.write(bob.fd, b"Bob\r")
        seats = {"Alice": host, "Bob": bob}
        chooser, other = "Alice", "Bob"
        other_of = {"Alice": "Bob", "Bob": "Alice"}
        typed = moves_typed(variant)
        for match in range(matches):
            seats[chooser].expect(f"{chooser}, choose your mark", seats[other])
            seats[chooser].settle(seats[other])
            seats[chooser].from_now()
            seats[other].from_now()
            os.write(seats[chooser].fd, b"x")
            seats[other].expect(rf"{chooser} \(X\) to move", seats[chooser])
            mover = chooser
            for keys, line in typed:
                mark = "X" if mover == chooser else "O"
                pattern = line.format(re.escape(mover), mark)
                times.append(timed_move(seats[mover], seats[other_of[mover]], keys, pattern))
                movers.append(mover)
                mover = other_of[mover]
            seats[chooser].expect(f"{chooser} wins!", seats[other])
            seats[chooser].settle(seats[other])
            os.write(seats[chooser].fd, b"n")
            chooser, other = other, chooser
            done = [round(t[1] * 1000, 1) for t in times[-len(typed) :]]
            print(f"{variant.name} match {match + 1}: moves in ms", done)
    finally:
        if bob is not None:
            bob.stop(signal.SIGKILL)
        host.stop()
        shutil.rmtree(home, ignore_errors=True)
    return times, movers


def report(variant: Variant, times: list[tuple[float, ...]], movers: list[str]) -> float:
    """Print the figures of `variant`'s moves; the median of a move drawn on the other seat."""
    first, seen, own = ([t[i] * 1000 for t in times] for i in range(3))
    print()
    print(f"{variant.title}: {len(times)} moves, key on one seat's terminal over loopback SSH:")
    for label, values in (
        ("drawn on the other seat's terminal", seen),
        ("  the other terminal's first byte", first),
        ("  drawn on the mover's own terminal", own),
    ):
        print(
            f"  {label}: median {statistics.median(values):.1f} ms,"
            f" p95 {percentile(values, 0.95):.1f} ms, worst {max(values):.1f} ms"
        )
    for mover, label, drawn in (
        ("Alice", "the host's key, Bob's screen", seen),
        ("Bob", "Bob's key, the host's screen", seen),
        ("Alice", "the host's key, the host's own screen", own),
        ("Bob", "Bob's key, Bob's own screen", own),
    ):
        values = [t for t, m in zip(drawn, movers, strict=True) if m == mover]
        print(
            f"  {label}: median {statistics.median(values):.1f} ms,"
            f" p95 {percentile(values, 0.95):.1f} ms"
        )
    median, p95 = statistics.median(seen), percentile(seen, 0.95)
    print(
        f"  targets: median <= 50 ms ({'met' if median <= 50 else 'MISSED'}),"
        f" p95 <= 100 ms ({'met' if p95 <= 100 else 'MISSED'})"
    )
    return median


def wire_cost(variant: Variant) -> float:
    """Milliseconds to write and read back (strictly, with the check that play could reach it)
    the state a seat is sent after a move: three matches played and the fourth one move from
    its end."""
    moves = ULTIMATE_MOVES if variant is ULTIMATE else CLASSIC_MOVES
    series = Series.new("Alice", "Bob", variant=variant)
    for _ in range(3):
        series = series.choose_mark(Mark.X)
        for move in moves:
            series = series.play(move)
        series = series.next_match()
    series = series.choose_mark(Mark.X)
    for move in moves[:-1]:
        series = series.play(move)
    state = State(5, series, ("Alice", "Bob"), 0, None, Notice())
    rounds = 300
    start = time.perf_counter()
    for _ in range(rounds):
        parse_server(to_json(state))
    return (time.perf_counter() - start) * 1000 / rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=8, help="matches of each game")
    parser.add_argument("--variant", choices=["classic", "ultimate", "both"], default="both")
    args = parser.parse_args()
    if shutil.which("ssh") is None:
        raise SystemExit("the OpenSSH client (ssh) is needed")
    chosen = [CLASSIC, ULTIMATE] if args.variant == "both" else [variant(args.variant)]
    played = [(game, *play_series(game, args.matches)) for game in chosen]
    print()
    print(f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores")
    medians = {game.name: report(game, times, movers) for game, times, movers in played}
    for game, *_rest in played:
        print(
            f"{game.title}: the state after a move, written and read back: {wire_cost(game):.2f} ms"
        )
    if len(medians) == 2:
        ratio = medians["ultimate"] / medians["classic"]
        print(f"\nan Ultimate move crosses in {ratio:.2f} times a classic move's median")


if __name__ == "__main__":
    main()
