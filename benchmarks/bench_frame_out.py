"""How long the first frame waits between being made and reaching the terminal.

Textual draws a frame on the main thread and hands it to a writer thread of its own
(`WriterThread`), which writes it to the terminal. The main thread goes straight on with
the next piece of work, and the writer needs the interpreter to run: it waits until the
main thread hands it over, which Python asks of a running thread only after the switch
interval (`sys.setswitchinterval`, 5 ms by default). Writing gives the interpreter up
again, so a frame can wait several times.

Each app runs in a fresh tmux session of 100x32 on a private tmux server, as in
`bench_app.py`, with Textual's writer thread watched from inside: the moment its first
large frame (over 3,000 characters: the first screen) is queued, and the moment the
writer has flushed it. Printed, medians and ranges over the rounds:

- "queued -> flushed": the frame's wait for the writer, and the write itself;
- "flushed": when that was, from the moment the measuring script started (so after the
  interpreter's own start-up, the same for all).

Both apps run at Python's default (5 ms), and the game also at the other intervals given
(`--intervals`), set before it loads. It is a script, not a test:

    uv run python benchmarks/bench_frame_out.py                 # about a minute
    uv run python benchmarks/bench_frame_out.py --rounds 5 --intervals 0.0002
"""

from __future__ import annotations

import argparse
import contextlib
import os
import runpy
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_app import GAME_ARGS, HEIGHT, PYTHON, ROOT, WIDTH, Tmux, compile_bytecode

FRAME = 3000
"""Characters: a write larger than this is the first screen (the game's is about 13,000,
the bare app's about 7,400); what comes before it sets up the terminal."""


def child(who: str, interval: float | None, out: Path) -> None:
    """Run one app with its writer thread watched; write one line to `out`, then leave."""
    start = time.perf_counter()
    from textual.drivers._writer_thread import WriterThread

    queued: list[float] = []
    put, original_run = WriterThread.write, WriterThread.run

    def write(self: WriterThread, text: str) -> None:
        if len(text) > FRAME and not queued:
            queued.append(time.perf_counter())
        put(self, text)

    def run(self: WriterThread) -> None:
        file = self._file

        class Watched:
            def write(self, text: str) -> int:
                return file.write(text)

            def flush(self) -> None:
                file.flush()
                if queued:
                    flushed = time.perf_counter()
                    line = f"{(flushed - queued[0]) * 1e3:.3f} {(flushed - start) * 1e3:.3f}\n"
                    out.write_text(line)
                    os._exit(0)

            def fileno(self) -> int:
                return file.fileno()

        self._file = Watched()  # type: ignore[assignment]
        original_run(self)

    WriterThread.write = write  # type: ignore[method-assign]
    WriterThread.run = run  # type: ignore[method-assign]
    if interval is not None:
        sys.setswitchinterval(interval)
    if who == "bare":
        sys.argv = ["bare_app.py"]
        runpy.run_path(str(ROOT / "benchmarks" / "bare_app.py"), run_name="__main__")
    else:
        import tictactoe.__main__ as command

        sys.argv = ["tictactoe", *GAME_ARGS]
        command.main()


def session(tmux: Tmux, who: str, interval: float | None) -> tuple[float, float]:
    """One app started in a fresh tmux session: (queued -> flushed, flushed) in ms."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out"
        command = [str(PYTHON), __file__, "--child", who, "--out", str(out)]
        if interval is not None:
            command += ["--interval", str(interval)]
        tmux.command(
            f"new-session -d -s {who} -x {WIDTH} -y {HEIGHT} -c {shlex.quote(str(ROOT))} "
            + shlex.quote("exec " + shlex.join(command))
        )
        deadline = time.monotonic() + 20
        try:
            while not (out.exists() and out.read_text().endswith("\n")):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{who}: no first frame within 20 s")
                time.sleep(0.05)
        finally:
            with contextlib.suppress(RuntimeError):  # gone already once the app has written
                tmux.command(f"kill-session -t {who}")
        waited, flushed = map(float, out.read_text().split())
        return waited, flushed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument(
        "--intervals",
        default="0.001,0.0002",
        help="other switch intervals to run the game at, in seconds (comma-separated)",
    )
    parser.add_argument("--child", choices=["game", "bare"], help=argparse.SUPPRESS)
    parser.add_argument("--interval", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.interval, args.out)
        return

    compile_bytecode([ROOT / "src", ROOT / "benchmarks"])
    subjects: list[tuple[str, str, float | None]] = [
        ("game at 5 ms (Python's default)", "game", None)
    ]
    for text in filter(None, args.intervals.split(",")):
        subjects.append((f"game at {float(text) * 1e3:g} ms", "game", float(text)))
    subjects.append(("bare app at 5 ms (Python's default)", "bare", None))
    figures: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in subjects}
    tmux = Tmux(f"frame-out-{os.getpid()}")
    try:
        for _, who, interval in subjects:  # warm-up, not counted
            session(tmux, who, interval)
        for number in range(args.rounds):
            order = subjects if number % 2 == 0 else subjects[::-1]
            for label, who, interval in order:
                figures[label].append(session(tmux, who, interval))
            print(f"  round {number + 1}/{args.rounds} done", file=sys.stderr)
    finally:
        tmux.close()

    print(f"\nThe first frame, {args.rounds} sessions each in tmux {WIDTH}x{HEIGHT}; ms\n")
    print(f"{'':40s} {'queued -> flushed':>24s} {'flushed':>24s}")
    for label, rows in figures.items():
        cells: list[str] = []
        for values in zip(*rows, strict=True):
            cells.append(
                f"{statistics.median(values):6.1f} ({min(values):5.1f}-{max(values):5.1f})"
            )
        print(f"{label:40s} {cells[0]:>24s} {cells[1]:>24s}")


if __name__ == "__main__":
    main()
