"""`tictactoe club` with many players in its lobby, through real SSH: how fast the lobby answers,
and what each player costs in memory (issue 38: a club of 500 players).

    uv run python benchmarks/bench_club.py                  # 200 players: a few minutes
    uv run python benchmarks/bench_club.py --players 500    # the memory figure
    uv run python benchmarks/bench_club.py --players 20     # rough, quick

The club runs as `tictactoe club --listen 127.0.0.1 --ssh-port 0 --data TMP` (a temporary folder,
removed after). Its record is made beforehand with each player's handle claimed by the player's
key (the club takes few new handles an hour from one address); each player is an asyncssh client
with its key, from an address of its own in 127.0.0.0/8 (the door takes few connections from one
address), one SSH connection and one session with a pseudo-terminal of 80 x 24 each, a few
arriving at a time. Each client keeps only the last few thousand characters of its screen's text
(escape sequences taken out).

What it prints, each beside its target:
- the first lobby screen: from asking for the session to "Open tables" on its screen;
- a new table seen in every lobby: from a player's `o` until its handle shows in each of the
  others' lobbies (the open table's row), a few tables one after another;
- a move drawn on the other seat: at a table two players play a drawn match, each digit timed from
  the mover's key until the move's line shows on the other's screen;
- memory: the PSS of every process of the club (the club, its warm parent, every player's game)
  over the players, from /proc/PID/smaps_rollup, and the club's own resident memory;
- with `--busy N`, a busy club: N players each open a table and take it back, again and again
  (every `--every` seconds), as a busy club's tables start and end, while the moves at a table
  and a new table on every lobby are timed again; beside them, the CPU the players' games spent
  a second, and how many lobby snapshots the club sent.

With 200 players, most of what is timed is the club's work on a machine whose two cores it shares
with this benchmark's 200 SSH clients: the load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import asyncssh

SIZE = (80, 24)
ARRIVING = 6
"""Players connecting at the same time."""
PER_ADDRESS = 12
"""Players from one loopback address, at most (the door takes 16 connections from one, and 4
logging in at once: those arriving at once come from different addresses)."""
WAIT = 60.0
"""Seconds any one thing may take before the benchmark gives up."""
TAIL = 4000
"""Characters of its screen's text each client keeps."""
TABLES = 5
"""New tables opened one after another, each timed on every other lobby."""
DRAW = (("7", "top-left"), ("8", "top"), ("9", "top-right"), ("5", "centre"), ("4", "left"))
DRAW += (("6", "right"), ("2", "bottom"), ("1", "bottom-left"), ("3", "bottom-right"))
"""A drawn match as keypad digits and the cell each names, X first."""
MATCHES = 3
"""Drawn matches played at the timed table (each between two other players)."""
ESCAPES = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|P[^\x1b]*\x1b\\"
    r"|[()][0-9A-Za-z]|[ -~])"
)
TARGETS = {"first": 300.0, "table": 200.0, "move": 50.0, "pss": 20.0}


class Player(asyncssh.SSHClientSession[str]):
    """One player's session: the text its screen has shown lately, and who waits for what."""

    def __init__(self, handle: str) -> None:
        self.handle = handle
        self.tail = ""
        self._carry = ""
        self._waiting: list[tuple[re.Pattern[str], asyncio.Future[float]]] = []
        self.channel: asyncssh.SSHClientChannel[str] | None = None
        self.connection: asyncssh.SSHClientConnection | None = None

    def data_received(self, data: str, datatype: asyncssh.DataType) -> None:
        now = time.perf_counter()
        text = self._carry + data
        cut = text.rfind("\x1b")
        if cut >= 0 and len(text) - cut < 64 and not ESCAPES.match(text, cut):
            text, self._carry = text[:cut], text[cut:]  # an escape sequence not yet whole
        else:
            self._carry = ""
        plain = " ".join(ESCAPES.sub(" ", text).split())
        self.tail = (self.tail + " " + plain)[-TAIL:]
        for pattern, seen in list(self._waiting):
            if not seen.done() and pattern.search(self.tail):
                seen.set_result(now)
                self._waiting.remove((pattern, seen))

    def from_now(self) -> Player:
        """Forget what was shown so far: what is waited for next must come after this."""
        self.tail = ""
        return self

    def expect(self, pattern: str) -> asyncio.Future[float]:
        """When `pattern` shows (`time.perf_counter()`), from what has been shown since
        `from_now`."""
        seen: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        compiled = re.compile(pattern)
        if compiled.search(self.tail):
            seen.set_result(time.perf_counter())
        else:
            self._waiting.append((compiled, seen))
        return seen

    def send(self, keys: str) -> float:
        assert self.channel is not None
        self.channel.write(keys)
        return time.perf_counter()

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()


async def within(seen: asyncio.Future[float], player: Player, what: str) -> float:
    """When `seen` came, or SystemExit with what `player`'s screen showed last."""
    try:
        return await asyncio.wait_for(seen, WAIT)
    except TimeoutError:
        raise SystemExit(f"{player.handle} never showed {what}: ...{player.tail[-600:]}") from None


def handle_of(number: int) -> str:
    return f"p{number:04d}"


def seed(data: Path, keys: list[asyncssh.SSHKey]) -> None:
    """The club's record with each player's handle claimed by its key."""
    from tictactoe.record.club import ClubRecord
    from tictactoe.record.paths import CLUB_NAME

    record = ClubRecord(data / CLUB_NAME)
    try:
        now = time.time()
        for number, key in enumerate(keys):
            line = key.export_public_key().decode().strip()
            address = f"10.{number // 60000}.{number // 250 % 240}.{number % 250 + 1}"
            entry = record.enter(handle_of(number), line, address, now)
            assert entry.refusal is None, entry.refusal
    finally:
        record.close()


async def start_club(data: Path, options: Sequence[str] = ()) -> tuple[subprocess.Popen[str], int]:
    club = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tictactoe",
            "club",
            *("--listen", "127.0.0.1", "--ssh-port", "0"),
            "--data",
            str(data),
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    assert club.stdout is not None
    loop = asyncio.get_running_loop()
    line = await asyncio.wait_for(loop.run_in_executor(None, club.stdout.readline), WAIT)
    if line.startswith("Starting"):  # the line said while the record is read
        line = await asyncio.wait_for(loop.run_in_executor(None, club.stdout.readline), WAIT)
    found = re.search(r"port (\d+): players type", line)
    if found is None:
        club.kill()
        sys.exit(f"the club did not start: {line!r}")
    return club, int(found[1])


async def arrive(
    port: int, number: int, key: asyncssh.SSHKey, addresses: int
) -> tuple[Player, float]:
    """Player `number` comes in: its session, and ms from asking for it to the lobby shown."""
    address = f"127.0.0.{2 + number % addresses}"
    connection = await asyncssh.connect(
        "127.0.0.1",
        port,
        username=handle_of(number),
        client_keys=[key],
        known_hosts=None,
        local_addr=(address, 0),
        agent_path=None,
        config=None,
    )
    player = Player(handle_of(number))
    player.connection = connection
    started = time.perf_counter()
    channel, _ = await connection.create_session(
        lambda: player, term_type="xterm-256color", term_size=SIZE, encoding="utf-8"
    )
    player.channel = channel
    shown = await asyncio.wait_for(player.expect("Open tables"), WAIT)
    return player, (shown - started) * 1000


def tree(root: int) -> list[int]:
    """`root` and every process descended from it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def terminals() -> set[int]:
    """The processes whose controlling terminal is a pseudo-terminal's (the players' games)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[4]) >> 8 & 0xFF in range(136, 144):  # Unix98 pseudo-terminals
                    found.add(int(entry.name))
    return found


def memory(pid: int) -> tuple[float, float, float]:
    """PSS, RSS and private memory of `pid` in MiB (0 when it has gone)."""
    values = {"Pss": 0.0, "Rss": 0.0, "Private_Clean": 0.0, "Private_Dirty": 0.0}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            name, _, rest = line.partition(":")
            if name in values:
                values[name] = int(rest.split()[0]) / 1024
    return values["Pss"], values["Rss"], values["Private_Clean"] + values["Private_Dirty"]


KSM = Path("/sys/kernel/mm/ksm")
"""The kernel's same-page merging: on when `run` says 1 (`echo 1 > /sys/kernel/mm/ksm/run`)."""


def ksm() -> tuple[str, float]:
    """Whether KSM is on (and how fast it scans), and the CPU seconds its thread has used."""
    try:
        state = "on" if (KSM / "run").read_text().strip() == "1" else "off"
        state += f", {(KSM / 'pages_to_scan').read_text().strip()} pages a scan"
        state += f" every {(KSM / 'sleep_millisecs').read_text().strip()} ms"
    except OSError:
        return "not in this kernel", 0.0
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == "ksmd":
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                return state, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return state, 0.0


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def line(name: str, values: list[float], target: float) -> str:
    if not values:
        return f"{name}: no figures"
    return (
        f"{name}: median {statistics.median(values):6.1f} ms, p95 {p95(values):6.1f} ms,"
        f" max {max(values):6.1f} ms over {len(values)}   (target: p95 ≤ {target:.0f} ms)"
    )


def cpu(pids: list[int]) -> float:
    """Seconds of CPU the processes `pids` have spent (user and system)."""
    ticks = 0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


async def new_tables(players: list[Player], tables: int) -> list[float]:
    """Players open a table one after another; ms until each other lobby shows it."""
    times: list[float] = []
    for opener in players[:tables]:
        others = [player.from_now() for player in players if player is not opener]
        seen = [player.expect(rf"{opener.handle} 1500") for player in others]
        opened = opener.from_now().send("o\r")  # o: the dialog; Enter: open as it shows
        done = [
            await within(when, player, "the new table")
            for when, player in zip(seen, others, strict=True)
        ]
        times += [(when - opened) * 1000 for when in done]
        await within(opener.expect("waiting for someone to sit"), opener, "its table")
        opener.send("c")  # taken back: the next table is the only one open
        await asyncio.sleep(1.0)
    return times


async def moves(first: Player, second: Player) -> list[float]:
    """`first` opens a table, `second` sits, they play a drawn match: ms per move until the other
    seat shows it."""
    await sit(first, second)
    return await play(first, second)


async def sit(first: Player, second: Player) -> None:
    """`first` opens a table and `second` sits at it (the only table open), `first` takes X."""
    sits = second.from_now().expect(rf"{first.handle} 1500")
    first.from_now().send("o\r")
    await within(sits, second, "the table")
    choosing = first.expect(f"{first.handle}, choose your mark")
    second.send("\r")
    await within(choosing, first, "the mark dialog")
    started = second.from_now().expect(r"\(X\) to move")
    first.send("x")
    await within(started, second, "the match")


async def play(first: Player, second: Player) -> list[float]:
    """At their table, `first` (X) and `second` play a drawn match, then leave: ms per move
    until the other seat shows it."""
    times: list[float] = []
    for turn, (digit, cell) in enumerate(DRAW):
        mover, other = (first, second) if turn % 2 == 0 else (second, first)
        mark = "X" if turn % 2 == 0 else "O"
        other.from_now()
        drawn = other.expect(rf"{mover.handle} {mark} {cell}\b")
        both = mover.from_now().expect(rf"{mover.handle} {mark} {cell}\b")
        sent = mover.send(digit)
        times.append((await within(drawn, other, cell) - sent) * 1000)
        await within(both, mover, cell)
    back = [player.from_now().expect("Open tables") for player in (first, second)]
    second.send("q")  # leaves the table: both back in the lobby
    await asyncio.wait_for(asyncio.gather(*back), WAIT)
    return times


async def churn(player: Player, every: float, busy: asyncio.Event) -> int:
    """`player` opens a table and takes it back, again and again, until `busy` is cleared: the
    changes a busy club's lobbies see (each time, its row shows on every lobby, then goes)."""
    times = 0
    while busy.is_set():
        player.from_now().send("o\r")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(player.expect("waiting for someone to sit"), WAIT)
        await asyncio.sleep(every / 2)
        player.send("c")
        await asyncio.sleep(every / 2)
        times += 1
    return times


async def busy_club(
    club: subprocess.Popen[str],
    players: list[Player],
    games: list[int],
    churning: int,
    every: float,
) -> None:
    """The moves at a table and a new table on the lobbies, timed again while `churning`
    players open and take back tables every `every` seconds."""
    timed_pairs = 2 * min(MATCHES, (len(players) - churning - 2) // 2)
    churners = players[:churning]
    quiet = players[churning : len(players) - timed_pairs]
    seated = players[len(players) - timed_pairs :]  # players who have not sat anywhere yet
    pairs = list(zip(seated[::2], seated[1::2], strict=True))
    for first, second in pairs:  # seated first: the Enter that sits finds their own table
        await sit(first, second)
    busy = asyncio.Event()
    busy.set()
    tasks = [asyncio.create_task(churn(player, every, busy)) for player in churners]
    try:
        await asyncio.sleep(5)  # the churn under way
        began, spent = time.perf_counter(), {pid: cpu([pid]) for pid in [club.pid, *games]}
        timed: list[float] = []
        for first, second in pairs:
            timed += await play(first, second)
        took = time.perf_counter() - began
        each = sorted(((cpu([pid]) - was) / took for pid, was in spent.items() if pid != club.pid))
        club_cpu = (cpu([club.pid]) - spent[club.pid]) / took
        tables = await new_tables(quiet, 3) if len(quiet) > 3 else []
    finally:
        busy.clear()
        done = await asyncio.gather(*tasks, return_exceptions=True)
    churned = sum(each for each in done if isinstance(each, int))
    print(f"a busy club: {churning} players opening and taking back a table every {every:.1f} s")
    print(line(f"  a move on the other seat ({len(players)} in)", timed, TARGETS["move"]))
    print(line(f"  new table on {len(quiet) - 1} lobbies", tables, TARGETS["table"]))
    busiest = sum(each[-churning:])
    print(
        f"        CPU a second ({len(os.sched_getaffinity(0))} cores): the players' games"
        f" {sum(each):.2f} s (the {churning} busiest {busiest:.2f} s, each other"
        f" {statistics.median(each[:-churning]) * 1000:.0f} ms at the median), the club"
        f" {club_cpu:.2f} s; {churned} tables opened and taken back"
    )


async def bench(
    count: int,
    data: Path,
    opened: int,
    arriving: int,
    churning: int = 0,
    every: float = 2.0,
    settle: float = 5.0,
) -> None:
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(count)]
    seed(data, keys)
    club, port = await start_club(data)
    players: list[Player] = []
    processes: list[int] = []
    try:
        first: list[float] = []
        addresses = max(arriving, -(-count // PER_ADDRESS))
        gate = asyncio.Semaphore(arriving)

        async def one(number: int) -> None:
            async with gate:
                player, took = await arrive(port, number, keys[number], addresses)
            players.append(player)
            first.append(took)

        began = time.perf_counter()
        club_before, clients_before = cpu([club.pid]), time.process_time()
        games_before = cpu(tree(club.pid)[1:])  # the warm parent's warm-up
        await asyncio.gather(*(one(number) for number in range(count)))
        print(f"{count} players in the lobby after {time.perf_counter() - began:.0f} s")
        print(line("first lobby screen", first, TARGETS["first"]))
        arrived = tree(club.pid)
        print(
            "        CPU an arrival: the club"
            f" {(cpu([club.pid]) - club_before) / count * 1000:.0f} ms, the warm parent and"
            f" the player's game {(cpu(arrived[1:]) - games_before) / count * 1000:.0f} ms,"
            " the SSH client"
            f" (this benchmark) {(time.process_time() - clients_before) / count * 1000:.0f} ms"
        )
        _, scanned = ksm()
        await asyncio.sleep(settle)  # settled: every lobby drawn, nobody typing
        merging, scanned_now = ksm()
        processes = tree(club.pid)
        figures = {pid: memory(pid) for pid in processes}
        pss = sum(pss for pss, _, _ in figures.values())
        ttys = terminals()
        own = [private for pid, (_, _, private) in figures.items() if pid in ttys]
        print(
            f"memory: {pss / count:5.1f} MiB PSS a player ({pss:.0f} MiB over {len(processes)}"
            f" processes), the club itself {figures[club.pid][1]:.0f} MiB resident"
            f"   (target: ≤ {TARGETS['pss']:.0f} MiB a player)"
        )
        print(
            f"        the kernel's KSM: {merging}; its thread"
            f" {(scanned_now - scanned) / settle:.0%} of a core over the {settle:.0f} s settling"
        )
        if own:
            print(
                f"        each game's own (private) memory: median"
                f" {statistics.median(own):5.1f} MiB, max {max(own):5.1f} MiB"
                " (what each more player adds)"
            )
        players.sort(key=lambda player: player.handle)
        games = [pid for pid in processes if pid in ttys]
        idle, began = cpu(games), time.perf_counter()
        await asyncio.sleep(3)
        idle = (cpu(games) - idle) / (time.perf_counter() - began)
        print(
            f"        CPU a second with nobody typing: the players' games {idle:.2f} s"
            f" ({idle / max(1, len(games)) * 1000:.1f} ms each)"
        )
        spent = cpu([club.pid]), cpu(games)
        tables = await new_tables(players, opened)
        print(line(f"new table on {count - 1} lobbies", tables, TARGETS["table"]))
        club_cpu, games_cpu = cpu([club.pid]) - spent[0], cpu(games) - spent[1]
        print(
            f"        CPU a new table (opened, then taken back): the club"
            f" {club_cpu / opened * 1000:.0f} ms, the players' games"
            f" {games_cpu / opened * 1000:.0f} ms"
        )
        timed: list[float] = []
        for pair in range(min(MATCHES, count // 2)):
            first_player, second_player = players[2 * pair], players[2 * pair + 1]
            timed += await moves(first_player, second_player)
        print(line(f"a move on the other seat ({count} in)", timed, TARGETS["move"]))
        if churning:
            await busy_club(club, players, games, churning, every)
        print(f"load average: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    finally:
        for player in players:
            player.close()
        await asyncio.sleep(1)
        club.send_signal(signal.SIGTERM)
        try:
            club.wait(WAIT)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(club.pid, signal.SIGKILL)
            club.wait()
        await asyncio.sleep(1)
        left = [pid for pid in processes if alive(pid)]
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        print(f"processes left after the club stopped: {len(left)}")
        log = data / "club.log"
        if log.exists() and sys.exc_info()[0] is not None:
            print("the club's log ends:", *log.read_text().splitlines()[-10:], sep="\n  ")


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@contextlib.contextmanager
def folder() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="bench-club-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--tables", type=int, default=TABLES, help="new tables timed")
    parser.add_argument(
        "--arriving", type=int, default=ARRIVING, help="players connecting at the same time"
    )
    parser.add_argument(
        "--busy", type=int, default=0, metavar="N", help="players opening and taking back tables"
    )
    parser.add_argument("--every", type=float, default=2.0, help="seconds a busy player's loop")
    parser.add_argument(
        "--settle",
        type=float,
        default=5.0,
        help="seconds in the lobby before the memory is read (longer: the kernel's KSM merges)",
    )
    args = parser.parse_args()
    count = args.players
    if sys.platform != "linux":
        sys.exit("This benchmark reads /proc: it runs on Linux.")
    if not 2 <= count <= 1000:
        sys.exit("--players is from 2 to 1000")
    if args.busy and count < args.busy + 2 * MATCHES + 4:
        sys.exit(f"--busy {args.busy} needs at least {args.busy + 2 * MATCHES + 4} players")
    with folder() as path:
        data = path / "data"
        data.mkdir()
        tables, arriving = max(1, min(args.tables, count - 1)), max(1, args.arriving)
        asyncio.run(
            bench(count, data, tables, arriving, max(0, args.busy), args.every, args.settle)
        )


if __name__ == "__main__":
    main()
