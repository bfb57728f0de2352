"""Soak the app: the random input of tests/app/test_fuzz.py, bursts and all, at scale.

    uv run python scripts/soak.py                  # 100,000 events, seed 1
    uv run python scripts/soak.py --events 20000 --seed 7
    uv run python scripts/soak.py --config "hot seat" --seed 12 --events 170   # replay

The events go in chunks (2,500 by default), each a fresh `fuzz` run with its own seed
(the seed given, plus the chunk's number), taking hot seat and the three computer
levels in turn. After every input or burst the invariants of tests/app/fuzzing.py are
checked. A failing chunk is reported with the command that replays it (exactly in hot
seat; against the computer, its timing may take a replay elsewhere), and the soak goes
on with the next chunk. A progress line comes every few thousand events, and a summary
at the end; the exit status is 1 if anything failed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from app.fuzzing import CONFIGS, REPORTS, FuzzFailure, FuzzReport, fuzz, summary


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000, help="events in all")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first chunk")
    parser.add_argument("--chunk", type=int, default=2_500, help="events per fuzz run")
    parser.add_argument(
        "--config", choices=list(CONFIGS), help="only this way to play (default: all in turn)"
    )
    parser.add_argument(
        "--progress", type=int, default=5_000, help="a progress line every this many events"
    )
    return parser.parse_args(argv)


async def soak(args: argparse.Namespace) -> int:
    names = [args.config] if args.config else list(CONFIGS)
    started = time.perf_counter()
    done = failures = 0
    next_progress = args.progress

    def progress(report: FuzzReport) -> None:
        nonlocal next_progress
        total = done + report.events
        if total >= next_progress:
            next_progress += args.progress
            seconds = time.perf_counter() - started
            print(
                f"soak: {total}/{args.events} events, {failures} failures, "
                f"{seconds:.0f} s ({total / seconds:.0f} events/s), now {report.config}",
                flush=True,
            )

    chunk = 0
    while done < args.events:
        name = names[chunk % len(names)]
        seed = args.seed + chunk
        count = min(args.chunk, args.events - done)
        try:
            report = await fuzz(seed, count, CONFIGS[name], on_progress=progress)
        except FuzzFailure as failure:
            failures += 1
            report = failure.report or FuzzReport(seed=seed, config=name, events=count)
            print(
                f"soak: FAILURE in chunk {chunk}\n{failure}\n"
                f"replay: uv run python scripts/soak.py --config {name!r} --seed {seed} "
                f"--events {report.events}",
                flush=True,
            )
        done += report.events
        chunk += 1
    seconds = time.perf_counter() - started
    print(f"soak: {summary(REPORTS)}", flush=True)
    print(
        f"soak: {done} events in {chunk} chunks over {len(names)} ways to play, "
        f"{sum(report.apps for report in REPORTS)} apps, {failures} failures, "
        f"{seconds:.0f} s wall ({done / seconds:.1f} events/s), first seed {args.seed}",
        flush=True,
    )
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(soak(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
