"""The game against a bare Textual app, both started the same way in a real terminal.

Each app is started in a fresh detached tmux session of 100x32 on a private tmux
server, from the project's own interpreter (`.venv/bin/python`, not `uv run`, so
uv's start-up is not measured), and watched from outside with `capture-pane`:

- time to first paint: from asking tmux for the session to the first capture that
  shows the app's first screen, a dialog over the board (the game, started with both
  names: the mark modal's "choose your mark"; the bare app: its dialog's question);
- key-to-screen latency, once the app is ready (the game: X chosen; the bare app: its
  dialog closed): from `send-keys`
  of a digit to the first capture that shows the move drawn in its cell ("mark"),
  and to the first that also shows the status line naming the next player ("screen
  settled"). The bare app's only change is one button's label turning to "X";
- peak memory: the app process's VmHWM in /proc/<pid>/status just before it is
  stopped (the pane runs `exec python ...`, so the pane's pid is Python's).

tmux is driven through one control-mode client (`tmux -C`), so a poll costs a round
trip on a pipe rather than a process start, and its answers are read through a buffer:
a capture costs about 0.05 ms whatever the screen shows. Captures come every 0.5 ms after
a key (a move takes about 5 ms to show) and every 2 ms while an app starts (about 250 ms),
so that tmux answering them takes little from the starting app on a small machine. Besides
the medians it prints the lower quartile of first paint: the host's noise only adds time,
and one app's slow tail can move a ratio of medians either way. The apps take turns, round
after round;
the figures are medians. Then the imports: `python -X importtime`'s top offenders,
what the game imports that the bare app does not, and what each game module adds
in-process on top of a bare Textual app. It is a script, not a test:

    uv run python benchmarks/bench_app.py              # about two minutes
    uv run python benchmarks/bench_app.py --rounds 3   # rougher
    PYTHONPATH=/tmp/copy/src uv run python benchmarks/bench_app.py   # try a changed copy
    uv run python benchmarks/bench_app.py --before /tmp/old/src      # and an older one beside

(`PYTHONPATH` reaches both apps through the tmux server's environment; the bare app
does not import the game, so only the game changes.) With `--before`, the game from that
`src/` folder (say, `git archive <commit> src | tar -x -C /tmp/old`, then compiled with
`python -m compileall`) takes its turn in every round too, and its figures are printed
beside the game's, so a change is measured against the code before it in the same minutes.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
WIDTH, HEIGHT = 100, 32
TARGETS = {
    "time to first paint (ms)": 1.25,
    "key to mark drawn (ms)": 2.0,
    "key to screen settled (ms)": 2.0,
    "peak memory, VmHWM (MiB)": 1.15,
}
"""Each figure's ratio to the bare app's, at most: the guard the game keeps (not a chase)."""
TIMEOUT = 20.0
GAME_ARGS = ("--player1", "Ada", "--player2", "Bob", "--no-save", "--delay", "0")


@dataclass(frozen=True)
class Subject:
    """One app under test and how to recognise it on screen."""

    label: str
    command: list[str]
    first_paint: Callable[[str], bool]
    """True once the capture shows the app's first screen, ready for input."""
    prepare: Callable[[Tmux, str], None]
    """Whatever must happen before moves can be made (the game: choose X)."""
    moves: list[tuple[str, dict[str, Callable[[str], bool]]]]
    """Each key to send, and when the capture shows each part of its effect:
    "mark" (the move drawn in its cell) and "screen" (everything it changes)."""


class Tmux:
    """A private tmux server, driven through one control-mode client."""

    def __init__(self, socket: str) -> None:
        self.socket = socket
        base = ["tmux", "-L", socket, "-f", "/dev/null"]
        subprocess.run(
            [*base, "new-session", "-d", "-s", "control", "-x", "80", "-y", "24", "sleep 86400"],
            check=True,
            env=os.environ | {"TMUX": ""},
        )
        self.client = subprocess.Popen(
            [*base, "-C", "attach-session", "-t", "control"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
            env=os.environ | {"TMUX": ""},
        )
        assert self.client.stdout is not None
        # Commands go out unbuffered; answers come in through a buffer. Read unbuffered,
        # each line of an answer costs a system call per byte, and a capture's cost would
        # grow with what the screen shows: the instrument, not the app, would make a fuller
        # screen look slower.
        self.out = open(  # noqa: SIM115 - it lives as long as the client
            self.client.stdout.fileno(), "rb", buffering=1 << 16, closefd=False
        )
        self.command("set-option -g status off")

    def command(self, line: str) -> str:
        """Run one tmux command; its output (raises on a tmux error)."""
        assert self.client.stdin is not None
        self.client.stdin.write(line.encode() + b"\n")
        while True:
            output, ours = self._block(line)
            if ours:
                return output

    def _block(self, line: str) -> tuple[str, bool]:
        """The next output block, and whether it answers this client's command.

        Blocks with flags 0 (such as the one for the attach itself) are not ours.
        """
        while True:  # skip notifications between blocks
            raw = self.out.readline()
            if not raw:
                raise RuntimeError("tmux control client went away")
            if raw.startswith(b"%begin "):
                ours = raw.split()[-1] != b"0"
                break
        lines: list[bytes] = []
        while True:
            raw = self.out.readline()
            if not raw:
                raise RuntimeError("tmux control client went away")
            if raw.startswith((b"%end ", b"%error ")):
                text = b"".join(lines).decode("utf-8", errors="replace")
                if raw.startswith(b"%error") and ours:
                    raise RuntimeError(f"tmux: {line}: {text}")
                return text, ours
            lines.append(raw)

    def capture(self, session: str) -> str:
        return self.command(f"capture-pane -p -t {session}:")

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):  # the server may answer by going away
            self.command("kill-server")
        self.client.wait(timeout=5)


def wait_for(tmux: Tmux, session: str, shown: Callable[[str], bool], poll: float) -> float:
    """Poll until `shown(capture)`; the perf_counter() of the capture that showed it."""
    return wait_for_all(tmux, session, {"": shown}, poll)[""]


def wait_for_all(
    tmux: Tmux, session: str, shown: dict[str, Callable[[str], bool]], poll: float
) -> dict[str, float]:
    """Poll until every test holds; for each, the perf_counter() of the first capture
    that passed it."""
    deadline = time.perf_counter() + TIMEOUT
    seen: dict[str, float] = {}
    while True:
        text = tmux.capture(session)
        now = time.perf_counter()
        for name, test in shown.items():
            if name not in seen and test(text):
                seen[name] = now
        if len(seen) == len(shown):
            return seen
        if now > deadline:
            raise TimeoutError(f"{session}: gave up waiting; the screen shows:\n{text}")
        time.sleep(poll)


@dataclass
class Figures:
    first_paint: list[float] = field(default_factory=list)
    key_mark: list[float] = field(default_factory=list)
    key_screen: list[float] = field(default_factory=list)
    peak_kib: list[int] = field(default_factory=list)


def vm_hwm_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    assert match, status
    return int(match.group(1))


def run_session(
    tmux: Tmux,
    subject: Subject,
    name: str,
    polls: tuple[float, float],
    settle: float,
    figures: Figures | None,
) -> None:
    """One session of `subject`; `polls` are the seconds between captures while waiting
    for the first paint, and for a key."""
    paint_poll, poll = polls
    command = "exec " + shlex.join(subject.command)
    start = time.perf_counter()
    tmux.command(
        f"new-session -d -s {name} -x {WIDTH} -y {HEIGHT} -c {shlex.quote(str(ROOT))} "
        + shlex.quote(command)
    )
    painted = wait_for(tmux, name, subject.first_paint, paint_poll)
    pid = int(tmux.command(f"list-panes -t {name}: -F '#{{pane_pid}}'").split()[0])
    comm = Path(f"/proc/{pid}/comm").read_text().strip()
    assert comm.startswith("python"), f"the pane runs {comm!r}, not Python"
    subject.prepare(tmux, name)
    time.sleep(settle)  # let start-up leftovers finish before timing keys
    keys: list[dict[str, float]] = []
    for key, shown in subject.moves:
        sent = time.perf_counter()
        tmux.command(f"send-keys -t {name}: {key}")
        seen = wait_for_all(tmux, name, shown, poll)
        keys.append({part: at - sent for part, at in seen.items()})
        time.sleep(0.1)
    peak = vm_hwm_kib(pid)
    tmux.command(f"kill-session -t {name}")
    if figures is not None:
        figures.first_paint.append(painted - start)
        figures.key_mark.extend(key["mark"] for key in keys)
        figures.key_screen.extend(key["screen"] for key in keys)
        figures.peak_kib.append(peak)


# The two subjects.


def drawn_marks(text: str) -> int:
    """How many big marks the game's board shows (each X has two lines " ██ ██ ", each
    O two lines with "█████"; at 100x32 the cells are big enough for that art)."""
    return text.count(" ██ ██ ") // 2 + text.count("█████") // 2


def marks_shown(count: int) -> Callable[[str], bool]:
    return lambda text: drawn_marks(text) == count


def marks_and_status_shown(count: int, status: str) -> Callable[[str], bool]:
    return lambda text: drawn_marks(text) == count and status in text


def labels_shown(count: int) -> Callable[[str], bool]:
    """The bare app: `count` buttons read "X" (nothing else on its screen has an X)."""
    return lambda text: text.count("X") == count


def game_subject(poll: float, source: Path | None = None) -> Subject:
    """The game; from the `src/` folder `source` instead of the project's, if given."""
    # Keypad layout: 5 centre, 1 bottom-left, 9 top-right, 3 bottom-right, 7 top-left,
    # 8 top: nobody completes a line, and the turn changes at every move.
    moves: list[tuple[str, dict[str, Callable[[str], bool]]]] = []
    for index, digit in enumerate("519378"):
        status = "Bob (O) to move" if index % 2 == 0 else "Ada (X) to move"
        marks = index + 1
        shown = {"mark": marks_shown(marks), "screen": marks_and_status_shown(marks, status)}
        moves.append((digit, shown))

    def prepare(tmux: Tmux, session: str) -> None:
        tmux.command(f"send-keys -t {session}: x")
        wait_for(
            tmux,
            session,
            lambda text: "Ada (X) to move" in text and "choose your mark" not in text,
            poll,
        )

    command = [str(PYTHON), "-m", "tictactoe", *GAME_ARGS]
    if source is not None:  # env execs Python, so the pane's process is still Python's
        command = ["env", f"PYTHONPATH={source}", *command]
    return Subject(
        "game" if source is None else "before",
        command,
        lambda text: "choose your mark" in text,
        prepare,
        moves,
    )


def bare_subject(poll: float) -> Subject:
    moves: list[tuple[str, dict[str, Callable[[str], bool]]]] = []
    for index, digit in enumerate("519378"):
        # The only change is the button's label: it is both the "mark" and the "screen".
        changed = labels_shown(index + 1)
        moves.append((digit, {"mark": changed, "screen": changed}))

    def prepare(tmux: Tmux, session: str) -> None:
        tmux.command(f"send-keys -t {session}: x")
        wait_for(
            tmux,
            session,
            lambda text: "Bare sidebar" in text and "Bare dialog" not in text,
            poll,
        )

    return Subject(
        "bare",
        [str(PYTHON), str(ROOT / "benchmarks" / "bare_app.py")],
        lambda text: "Bare dialog" in text,
        prepare,
        moves,
    )


# What the imports cost.

_IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)$")


@dataclass
class Imported:
    name: str
    cumulative_us: int
    parent: str | None = None


def import_tree(code: str, extra_path: str | None = None) -> dict[str, Imported]:
    """Every module that `code` imports, with its cumulative time and importer."""
    env = os.environ | ({"PYTHONPATH": extra_path} if extra_path else {})
    result = subprocess.run(
        [str(PYTHON), "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=env,
    )
    modules: dict[str, Imported] = {}
    pending: dict[int, list[Imported]] = {}
    for line in result.stderr.splitlines():
        found = _IMPORT_LINE.match(line)
        if not found:
            continue
        depth = len(found.group(3)) // 2
        module = Imported(found.group(4), int(found.group(2)))
        for child in pending.pop(depth + 1, []):
            child.parent = module.name
        pending.setdefault(depth, []).append(module)
        modules[module.name] = module
    return modules


GAME_IMPORTS = "import tictactoe.cli, tictactoe.tui.app"
BARE_IMPORTS = "import bare_app"

# Each module of the game, imported one after another in a fresh interpreter that has
# already imported what any Textual app imports (textual.app and the bare app's widgets),
# so each figure is what that module adds. Unlike -X importtime, this also counts the
# widgets that `textual.widgets` loads lazily through importlib (Markdown, DataTable…),
# which -X importtime leaves out of its tree and folds into the importer's own time.
_OWN_MODULES = [
    "tictactoe.core.engine",
    "tictactoe.core.ai",
    "tictactoe.core.series",
    "tictactoe.core.keys",
    "tictactoe.config",
    "tictactoe.cli",
    "tictactoe.tui.widgets.too_small",
    "tictactoe.tui.widgets.board",
    "tictactoe.tui.widgets.scoreboard",
    "tictactoe.tui.widgets.history",
    "tictactoe.tui.screens.mark_choice",
    "tictactoe.tui.screens.game",
    "tictactoe.tui.screens.help",
    "tictactoe.tui.screens.new_game",
    "tictactoe.tui.screens.record",
    "tictactoe.record",
    "tictactoe.settings",
    "tictactoe.tui.app",
]
_OWN_COST = r"""
import sys, time
import textual.app
from textual.containers import Grid, Horizontal
from textual.widgets import Button, Footer, Static
costs = []
for name in sys.argv[1:]:
    start = time.perf_counter()
    __import__(name)
    costs.append(f"{name}={(time.perf_counter() - start) * 1e3:.3f}")
print(";".join(costs))
"""


def own_module_costs(runs: int) -> dict[str, float]:
    """Milliseconds each game module adds on top of a bare Textual app, medians."""
    samples: dict[str, list[float]] = {name: [] for name in _OWN_MODULES}
    for _ in range(runs):
        out = subprocess.run(
            [str(PYTHON), "-c", _OWN_COST, *_OWN_MODULES],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        ).stdout
        for item in out.strip().split(";"):
            name, cost = item.split("=")
            samples[name].append(float(cost))
    return {name: statistics.median(values) for name, values in samples.items()}


def import_report(runs: int) -> None:
    game_runs = [import_tree(GAME_IMPORTS) for _ in range(runs)]
    bare_runs = [import_tree(BARE_IMPORTS, str(ROOT / "benchmarks")) for _ in range(runs)]
    app_runs = [import_tree("import tictactoe.tui.app") for _ in range(runs)]

    def median_cumulative(trees: list[dict[str, Imported]], name: str) -> float:
        return statistics.median(tree[name].cumulative_us for tree in trees if name in tree) / 1e3

    def total(trees: list[dict[str, Imported]]) -> float:
        return (
            statistics.median(
                sum(m.cumulative_us for m in tree.values() if m.parent is None) for tree in trees
            )
            / 1e3
        )

    game, bare = game_runs[0], bare_runs[0]
    print(f"\nImports (python -X importtime, median of {runs} runs each)")
    print(f"  game: {GAME_IMPORTS:<38} {total(game_runs):6.1f} ms, {len(game)} modules")
    print(f"  bare: {BARE_IMPORTS:<38} {total(bare_runs):6.1f} ms, {len(bare)} modules")

    print('\n  Top 10 by cumulative time, python -X importtime -c "import tictactoe.tui.app":')
    ranked = sorted(app_runs[0], key=lambda name: median_cumulative(app_runs, name), reverse=True)
    for name in ranked[:10]:
        print(f"    {median_cumulative(app_runs, name):6.1f} ms  {name}")

    extra = {name for name in game if name not in bare}
    roots = [
        module
        for name, module in game.items()
        if name in extra
        and not name.startswith("tictactoe")
        and (
            module.parent is None
            or module.parent not in extra
            or module.parent.startswith("tictactoe")
        )
    ]
    roots.sort(key=lambda module: median_cumulative(game_runs, module.name), reverse=True)
    print(
        "\n  Imported by the game and not by the bare app (whole subtrees, and who imports them):"
    )
    for module in roots[:8]:
        print(
            f"    {median_cumulative(game_runs, module.name):6.1f} ms  {module.name:<28}"
            f" <- {module.parent or '(top)'}"
        )

    costs = own_module_costs(runs * 2)
    print(
        f"\n  What each game module adds on top of a bare Textual app"
        f" (in-process, median of {runs * 2} fresh interpreters; lazily loaded Textual widgets"
        f" included):"
    )
    for name, cost in costs.items():
        if cost >= 0.95:
            print(f"    {cost:6.1f} ms  {name}")
    print(f"    {sum(costs.values()):6.1f} ms  all of them")


# The run.


def compile_bytecode(sources: list[Path]) -> None:
    """Compile every module both apps load, as an installed program has it.

    Python writes its bytecode caches on the first import, unless the environment says
    not to (PYTHONDONTWRITEBYTECODE, which this machine sets): then each start compiles
    Textual from source again, and the game, which loads more of Textual, pays more of it.
    A player's interpreter finds them compiled.
    """
    site = subprocess.run(
        [str(PYTHON), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    folders = [site, *map(str, sources)]
    subprocess.run(
        [str(PYTHON), "-m", "compileall", "-q", *folders], check=True, stdout=subprocess.DEVNULL
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="sessions of each app (default 7)")
    parser.add_argument(
        "--poll", type=float, default=0.0005, help="seconds between captures after a key"
    )
    parser.add_argument(
        "--paint-poll",
        type=float,
        default=0.002,
        help="seconds between captures while waiting for the first paint",
    )
    parser.add_argument("--settle", type=float, default=0.5, help="pause before the first key")
    parser.add_argument("--no-imports", action="store_true", help="skip the importtime report")
    parser.add_argument(
        "--before", type=Path, metavar="SRC", help="also run the game from this src/ folder"
    )
    args = parser.parse_args()
    if not PYTHON.exists():
        sys.exit(f"no {PYTHON}: run `uv sync` first")

    compile_bytecode([ROOT / "src", *([args.before] if args.before else [])])
    game, bare = game_subject(args.poll), bare_subject(args.poll)
    subjects = [game, bare]
    if args.before is not None:
        subjects.insert(1, game_subject(args.poll, args.before.resolve()))
    figures = {subject.label: Figures() for subject in subjects}
    polls = (args.paint_poll, args.poll)
    tmux = Tmux(f"ttt-bench-{os.getpid()}")
    try:
        for subject in subjects:  # warm-up: compile caches, the disk cache
            run_session(tmux, subject, f"warm-{subject.label}", polls, args.settle, None)
        for round_ in range(args.rounds):
            order = subjects if round_ % 2 == 0 else subjects[::-1]
            for subject in order:
                name = f"{subject.label}-{round_}"
                run_session(tmux, subject, name, polls, args.settle, figures[subject.label])
            print(f"  round {round_ + 1}/{args.rounds} done", file=sys.stderr)
    finally:
        tmux.close()

    g, b = figures[game.label], figures[bare.label]
    rows = [
        (
            "time to first paint (ms)",
            [x * 1e3 for x in g.first_paint],
            [x * 1e3 for x in b.first_paint],
        ),
        ("key to mark drawn (ms)", [x * 1e3 for x in g.key_mark], [x * 1e3 for x in b.key_mark]),
        (
            "key to screen settled (ms)",
            [x * 1e3 for x in g.key_screen],
            [x * 1e3 for x in b.key_screen],
        ),
        (
            "peak memory, VmHWM (MiB)",
            [x / 1024 for x in g.peak_kib],
            [x / 1024 for x in b.peak_kib],
        ),
    ]
    print(
        f"\n{args.rounds} sessions of each app in tmux {WIDTH}x{HEIGHT}, taking turns; medians"
        f" ({len(g.key_mark)} and {len(b.key_mark)} key presses)\n"
    )
    print(f"{'metric':<30} {'game':>8} {'bare':>8} {'ratio':>7}  target      result")
    for metric, game_values, bare_values in rows:
        gm, bm = statistics.median(game_values), statistics.median(bare_values)
        ratio, target = gm / bm, TARGETS[metric]
        verdict = "met" if ratio <= target else "NOT met"
        print(f"{metric:<30} {gm:8.1f} {bm:8.1f} {ratio:6.2f}x  <= {target:.2f}x  {verdict}")
    print("\nSpread (min-max): ", end="")
    print(
        "; ".join(
            f"{metric.split(' (')[0]} game {min(gv):.1f}-{max(gv):.1f},"
            f" bare {min(bv):.1f}-{max(bv):.1f}"
            for metric, gv, bv in rows
        )
    )

    def lower_quartile(values: list[float]) -> float:
        return statistics.quantiles(values, n=4)[0] if len(values) > 1 else values[0]

    # The host's noise only ever adds time, and one app's slow tail can move a median
    # ratio either way: the faster sessions of each show the gap with less of it.
    gq, bq = lower_quartile(rows[0][1]), lower_quartile(rows[0][2])
    print(
        f"Lower quartile of first paint (the quieter sessions): game {gq:.1f}, bare {bq:.1f},"
        f" {gq / bq:.2f}x"
    )

    if "before" in figures:
        f = figures["before"]
        before = [
            [x * 1e3 for x in f.first_paint],
            [x * 1e3 for x in f.key_mark],
            [x * 1e3 for x in f.key_screen],
            [x / 1024 for x in f.peak_kib],
        ]
        print(f"\nThe game before ({args.before}), in the same rounds:\n")
        print(f"{'metric':<30} {'before':>8} {'game':>8} {'bare':>8} {'before':>7} {'game':>7}")
        for (metric, game_values, bare_values), before_values in zip(rows, before, strict=True):
            fm, gm = statistics.median(before_values), statistics.median(game_values)
            bm = statistics.median(bare_values)
            print(f"{metric:<30} {fm:8.1f} {gm:8.1f} {bm:8.1f} {fm / bm:6.2f}x {gm / bm:6.2f}x")

    if not args.no_imports:
        import_report(5)


if __name__ == "__main__":
    main()
