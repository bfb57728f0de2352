"""How the game record scales: 1,000,000 matches among 200,000 players.

Run it with `uv run python benchmarks/bench_record.py` (`--matches` and `--players`
change the size; `--keep PATH` builds the database there and reuses it next time).
It builds the database with the game's own schema, then prints:

- recording a match: `GameRecord.add` on the big file, one transaction each, the way
  the app records a finished match (median, 95th percentile and worst of many);
- opening the record screen: from the `s` key until the Players tab shows its first
  page, painted, in a headless app (the first use of the file, so its opening is
  counted), then from `m` until Recent matches shows its first page (median and worst);
  and the queries behind the tabs alone.

Targets (issue 8): at most 10 ms to record a match, at most 300 ms to open the screen.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import sqlite3
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from textual.widgets import DataTable

from tictactoe.config import GameConfig
from tictactoe.core.engine import GameState, Mark
from tictactoe.core.series import Player
from tictactoe.record import MIGRATIONS, GameRecord, MatchRecord, PlayerSort
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.screens.record import RecordScreen
from tictactoe.tui.widgets.paged_table import PAGE

GAMES: tuple[tuple[int, ...], ...] = (
    (0, 3, 1, 4, 2),
    (4, 0, 2, 6, 3, 5, 1, 7, 8),
    (4, 0, 8, 2, 1, 7, 6, 3, 5),
    (0, 4, 8, 2, 6, 3, 7),
    (4, 1, 0, 8, 6, 2, 3),
)
"""A few complete matches; the winner of each follows from its moves."""


def winner_of(moves: tuple[int, ...]) -> int | None:
    state = GameState.new()
    for cell in moves:
        state = state.play(cell)
    return None if state.winner is None else (0 if state.winner is Mark.X else 1)


def build(path: Path, players: int, matches: int, seed: int = 1) -> float:
    """Fill a new record with `matches` random matches among `players` people; seconds taken.

    One transaction and executemany. The per-match trigger and the pair index are set
    aside while loading and made again afterwards (the totals from one GROUP BY), the
    way any bulk load into SQLite is done; the result is the schema the game writes.
    """
    started = time.perf_counter()
    record = GameRecord(path)
    record.player_count()  # makes the schema
    record.close()
    later = {
        name: statement
        for statement in MIGRATIONS[-1]
        for name in ("count_a_match", "matches_by_pair")
        if f" {name} " in statement
    }
    rng = random.Random(seed)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA synchronous = OFF")
    db.execute("BEGIN")
    db.execute("DROP TRIGGER count_a_match")
    db.execute("DROP INDEX matches_by_pair")
    db.executemany(
        "INSERT INTO players (id, kind, name) VALUES (?, 'person', ?)",
        ((number, f"Player {number:06}") for number in range(1, players + 1)),
    )
    results = [(moves, winner_of(moves)) for moves in GAMES]
    second = datetime(2026, 1, 1, tzinfo=UTC).timestamp()

    def rows() -> object:
        for number in range(matches):
            first = rng.randrange(1, players + 1)
            other = rng.randrange(1, players)
            other += other >= first
            moves, winner = results[rng.randrange(len(results))]
            when = datetime.fromtimestamp(second + number * 30, UTC).strftime("%Y-%m-%d %H:%M:%S")
            yield (
                when,
                first,
                other,
                "X",
                1,
                "".join(map(str, moves)),
                None if winner is None else winner + 1,
            )

    db.executemany(
        "INSERT INTO matches (finished_at, player1, player2, mark1, first_mover, moves, winner)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        rows(),  # type: ignore[arg-type]
    )
    db.execute(
        "INSERT INTO totals (variant, player, wins, losses, draws)"
        " SELECT 'classic', player, sum(won), sum(lost), sum(drawn) FROM ("
        "  SELECT player1 AS player, winner IS 1 AS won, winner IS 2 AS lost,"
        "         winner IS NULL AS drawn FROM matches"
        "  UNION ALL SELECT player2, winner IS 2, winner IS 1, winner IS NULL FROM matches"
        " ) GROUP BY player"
    )
    for statement in later.values():
        db.execute(statement)
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return time.perf_counter() - started


def bench_migration(path: Path, players: int, matches: int) -> float:
    """Seconds the game takes to bring a record of schema version 1 (the classic record before
    the game had a second game), `matches` among `players`, up to date: made by version 1's own
    statements, then opened once (`GameRecord.ready`, as the record screen's opening does)."""
    rng = random.Random(3)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA synchronous = OFF")
    db.execute("BEGIN")
    for statement in MIGRATIONS[0]:
        db.execute(statement)
    db.execute("PRAGMA user_version = 1")
    db.executemany(
        "INSERT INTO players (id, kind, name) VALUES (?, 'person', ?)",
        ((number, f"Player {number:06}") for number in range(1, players + 1)),
    )
    pairs = ((rng.randrange(1, players), rng.randrange(1, players)) for _ in range(matches))
    db.executemany(
        "INSERT INTO matches (finished_at, player1, player2, mark1, first_mover, moves, winner)"
        " VALUES ('2026-01-01 12:00:00', ?, ?, 'X', 1, '402635178', NULL)",
        ((first, second + (second >= first)) for first, second in pairs),
    )
    db.execute("COMMIT")
    db.close()
    started = time.perf_counter()
    record = GameRecord(path)
    record.ready()
    seconds = time.perf_counter() - started
    assert record.match_count(variant="classic") == matches
    record.close()
    return seconds


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.2f} ms"


def bench_recording(path: Path, rounds: int) -> list[float]:
    record = GameRecord(path)
    record.player_count()  # opened: the open is not part of recording a match
    record.wait_for_check()
    rng = random.Random(2)
    times = []
    for _ in range(rounds):
        first, second = rng.sample(range(1, 200_001), 2)
        moves = GAMES[rng.randrange(len(GAMES))]
        match = MatchRecord(
            (Player(f"Player {first:06}"), Player(f"Player {second:06}")),
            (Mark.X, Mark.O),
            0,
            moves,
            winner_of(moves),
            datetime.now(UTC),
        )
        started = time.perf_counter()
        record.add(match)
        times.append(time.perf_counter() - started)
        assert record.unsaved == 0, record.take_notices()
    record.close()
    return times


def bench_queries(path: Path) -> dict[str, float]:
    record = GameRecord(path)
    record.player_count()
    record.wait_for_check()
    pair = (Player("Player 000001"), Player("Player 000002"))
    found = {}
    for name, query in {
        "players, most wins": lambda: record.players(PlayerSort.WINS),
        "players, by name": lambda: record.players(PlayerSort.NAME, descending=False),
        "players, by win rate": lambda: record.players(PlayerSort.WIN_RATE),
        "players, page 1,000 by losses": lambda: record.players(PlayerSort.LOSSES, offset=99_900),
        "player count": record.player_count,
        "recent matches": lambda: record.recent(),
        "match count": record.match_count,
        "head to head": lambda: record.head_to_head(pair),
        "their matches": lambda: record.recent(between=pair),
    }.items():
        times = []
        for _ in range(5):
            started = time.perf_counter()
            query()  # type: ignore[no-untyped-call]
            times.append(time.perf_counter() - started)
        found[name] = statistics.median(times)
    record.close()
    return found


async def open_screen_once(path: Path | None) -> tuple[float, float]:
    """Seconds from `s` to the Players tab's first page on screen, then from `m` to Recent's.

    With `path` None the record is an empty one in memory: the same screen with nothing
    to read, to tell the record's share of the time from the drawing's.
    """
    config = GameConfig(
        player1="Player 000001",
        player2="Player 000002",
        computer_delay=0,
        save=path is not None,
        record_file=path,
        settings_file=path.with_name("settings.json") if path else None,
    )
    app = TicTacToeApp(config)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press("x")
        await pilot.pause()
        started = time.perf_counter()
        app.simulate_key("s")  # as typed; Pilot.press would also wait for every animation
        while not isinstance(app.screen, RecordScreen):
            await asyncio.sleep(0)
        screen = app.screen
        while not screen.query("#players-table"):
            await asyncio.sleep(0)
        table = screen.query_one("#players-table", DataTable)
        while table.row_count < (PAGE if path else 1):
            await asyncio.sleep(0)
        await painted(screen)
        opened = time.perf_counter() - started
        started = time.perf_counter()
        app.simulate_key("m")
        while not screen.query("#recent-table"):
            await asyncio.sleep(0)
        recent = screen.query_one("#recent-table", DataTable)
        while path and recent.row_count < PAGE:
            await asyncio.sleep(0)
        await painted(screen)
        switched = time.perf_counter() - started
        app.record.wait_for_check()
    return opened, switched


async def painted(screen: RecordScreen) -> None:
    """Wait for the next refresh of `screen` to be done."""
    done = asyncio.Event()
    screen.call_after_refresh(done.set)
    await done.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=200_000)
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=300, help="matches recorded")
    parser.add_argument("--opens", type=int, default=7, help="times the screen is opened")
    parser.add_argument("--keep", type=Path, help="build the database here, reuse it if there")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        path = args.keep or Path(scratch) / "record.sqlite3"
        print(
            f"{platform.python_implementation()} {platform.python_version()}, "
            f"SQLite {sqlite3.sqlite_version}, {os.cpu_count()} cores"
        )
        if not path.exists():
            seconds = build(path, args.players, args.matches)
            print(
                f"built {args.matches:,} matches among {args.players:,} players"
                f" in {seconds:.1f} s ({path.stat().st_size / 1e6:.0f} MB)"
            )
        check = sqlite3.connect(path)
        started = time.perf_counter()
        check.execute("PRAGMA quick_check").fetchall()
        print(f"quick_check (run beside play, not waited for): {ms(time.perf_counter() - started)}")
        check.close()

        times = sorted(bench_recording(path, args.rounds))
        print(f"\nrecording a match, {len(times)} matches, one transaction each (target 10 ms)")
        print(
            f"  median {ms(statistics.median(times))}   95th percentile "
            f"{ms(times[int(len(times) * 0.95)])}   worst {ms(times[-1])}"
            f"   over 10 ms: {sum(time > 0.010 for time in times)}"
        )

        print("\nthe record screen's queries, median of 5")
        for name, seconds in bench_queries(path).items():
            print(f"  {name:<32}{ms(seconds)}")

        for label, where in (("this record", path), ("an empty record, for comparison", None)):
            runs = [asyncio.run(open_screen_once(where)) for _ in range(args.opens)]
            opens, switches = [run[0] for run in runs], [run[1] for run in runs]
            print(f"\n{label}: opening the record screen (s) to Players, {len(opens)} times")
            print(
                f"  median {ms(statistics.median(opens))}   worst {ms(max(opens))}"
                "   (target 300 ms)"
            )
            print("  then Recent matches (m), made and filled when first shown")
            print(f"  median {ms(statistics.median(switches))}   worst {ms(max(switches))}")

        older = Path(scratch) / "version-1.sqlite3"
        seconds = bench_migration(older, min(args.players, 2_000), args.matches)
        print(f"\nbringing a record of version 1 ({args.matches:,} classic matches) up to date")
        print(f"  {seconds:.2f} s, once, off the screen's thread")


if __name__ == "__main__":
    main()
