"""Drive the real app with random input, as a terminal sends it; check that it tells the truth.

`fuzz(seed, events, config)` starts `TicTacToeApp` under `run_test` and sends it
`events` random inputs the way a terminal's driver does: `app.post_message` with a
`Key`, a `MouseDown` and `MouseUp` (the app makes the `Click`), or a `Resize` from
10x5 to 200x60. Inputs come one at a time or in *bursts* of 2 to 8 posted with no
settling between them, as type-ahead arrives; a few bursts are a terminal being
dragged to new sizes. After each single input or burst the harness waits until the
app has handled everything it was sent (`settle`), then `_Run.check` compares what is
*painted* (the text `Widget.render_lines` draws) with the core's `GameScreen.series`:
each cell paints the drawing of the core's mark for its room (`mark_art`) or its own
digit, every mark on the board at one size (the biggest the smallest cell takes); the
winning line and only it has a double border; the status line names the player it should;
the cards and the tally carry the core's score; the move history lists the match's moves,
each line with its player (the name perhaps shortened with an ellipsis, or left out where
not even its first character fits), mark and cell (whole). A mark dialog is open exactly
while a person is to choose; the players' lifetime records match the series.
A bug of the app that a check finds is a failure, unless it is one of the `KNOWN_BUGS`:
those are counted, and named in the summary, until they are fixed.

Against the computer, each app draws its thinking time: none, or a real pause of
0.05-0.2 s. The harness never waits for the computer by default: after a step it
waits only now and then (`PATIENCE`), so the next input often arrives while the
computer is thinking, and its step then lands between, or inside, later bursts.
The model checks follow every change of the series (a `watch`): each is one
person's move, the computer's step, an undo, a choice of marks or the next match;
finished matches are never lost or altered; the score equals the finished matches,
each heard once as `MatchFinished`. When the app quits (q, ctrl+q, the dialog's
Quit) its return value is checked and a fresh app takes over, so the count goes on.

Replaying: every random draw comes from `random.Random(seed)`, a fixed number per
step and per input, the app's own seed included, so the run makes the same decisions
each time: `fuzz(seed, k, config)` sends the same first k inputs. Where an input
depends on the screen (a digit aimed at a free cell, a click on a visible widget, the
key that closes the help) it follows the state. In hot seat the state depends on the
inputs alone, so a failure at input k comes back exactly. Against the computer, when
its step lands relative to the inputs depends on the clock (as in a terminal), so a
replay may take another path; a failure lists the computer's steps among the recent
inputs, which is what to reproduce from.

Speed: `Pilot.press` and `Pilot.pause()` sleep until the process looks idle (20-200 ms
an input). Here inputs go straight onto the app's queue and `settle` polls for an
empty queue with `pilot.pause(0)`, which also lays out and paints. Knowing the queue is
empty takes reading Textual's private state, which `tictactoe.adapters.idle` does under
the adapters' contract (`pending_work`).
"""

from __future__ import annotations

import random
import re
import time
import traceback
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, TypeVar

from rich.cells import cell_len
from textual import events
from textual.command import CommandPalette
from textual.errors import NoWidget
from textual.geometry import Region, Size
from textual.message import Message
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from app.conftest import SquareView, inside, painted
from tictactoe.adapters.idle import pending_work
from tictactoe.config import GameConfig
from tictactoe.core.ai import Level
from tictactoe.core.engine import CELL_NAMES, Mark
from tictactoe.core.series import Phase, Series
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.screens.game import CHORES_AFTER, GameScreen
from tictactoe.tui.screens.help import HelpScreen
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen
from tictactoe.tui.screens.record import RecordScreen
from tictactoe.tui.widgets.board import Board, Cell, mark_art
from tictactoe.tui.widgets.scoreboard import PlayerCard
from tictactoe.tui.widgets.status import lay_out
from tictactoe.tui.widgets.too_small import MIN_HEIGHT, MIN_WIDTH, TOO_SMALL, TooSmall

__all__ = ["CONFIGS", "REPORTS", "FuzzFailure", "FuzzReport", "fuzz", "summary"]

T = TypeVar("T")

CONFIGS: Final[dict[str, GameConfig]] = {
    "hot seat": GameConfig(player1="Ada", player2="Bob", computer_delay=0, save=False),
    **{
        f"vs {level.value}": GameConfig(player1="Ada", level=level, computer_delay=0, save=False)
        for level in Level
    },
}
"""The four ways to play, each starting at the mark dialog (names and delay are drawn per app)."""

COMPUTER_DELAYS: Final = (0.1, 0.0, 0.2, 0.0, 0.05, 0.0)
"""The computer's thinking time in the first, second... app of a run (then again)."""
PATIENCE: Final = 0.35
"""How often the harness waits for the computer's step before the next input."""
COMPUTER_PATIENCE: Final = 5.0
"""Seconds past its thinking time that the computer may take before the app counts as stuck."""

START_SIZE: Final = (80, 24)
EDGE_WIDTHS: Final = (10, MIN_WIDTH - 1, MIN_WIDTH, MIN_WIDTH + 1, 79, 80, 200)
EDGE_HEIGHTS: Final = (5, MIN_HEIGHT - 1, MIN_HEIGHT, MIN_HEIGHT + 1, 27, 28, 60)
"""Sizes either side of the app's breakpoints, tried now and then."""

NAMES: Final[tuple[tuple[str, str], ...]] = (
    ("Ada", "Bob"),
    ("[bold]Eve[/]", "Mallory"),
    ("Zoë 🎲", "李雷"),
    ("A name far too long to fit in the sidebar of any terminal at all", "Bo"),
    ("o", "x"),
)
"""Each app draws a pair: markup, wide characters, a long name, names like the marks."""

# Keys, and how often each is pressed relative to the others. Digits, arrows and
# Enter/Space keep matches moving; x/o answer the mark dialog; n/Enter start the next one.
KEY_WEIGHTS: Final[dict[str, float]] = {
    **{str(digit): 4.5 for digit in range(1, 10)},
    "up": 2.5,
    "down": 2.5,
    "left": 2.5,
    "right": 2.5,
    "enter": 5,
    "space": 3,
    "x": 3,
    "o": 3,
    "n": 4,
    "u": 1.5,
    "ctrl+z": 0.5,
    "h": 1.5,
    "escape": 2,
    "s": 0.8,
    "question_mark": 0.4,
    "f1": 0.2,
    "tab": 1,
    "shift+tab": 0.5,
    "ctrl+c": 0.2,
    "ctrl+s": 0.2,
    "ctrl+p": 0.3,  # alone, then escape: the palette's commands are never run
    "q": 0.35,
    "ctrl+q": 0.15,
}
KEY_WEIGHTS_ON: Final[dict[type[Screen[Any]], dict[str, float]]] = {
    HelpScreen: {"escape": 25},
    RecordScreen: {"escape": 25},
    MarkChoiceScreen: {"x": 12, "o": 12},
}
"""Keys pressed more often while a screen is on top, as people do: close help, pick a mark.

(It keeps the slow screens, help above all, from taking most of the time.)"""
_CHARS: Final[dict[str, str]] = {
    "enter": "\r",
    "space": " ",
    "escape": "\x1b",
    "tab": "\t",
    "question_mark": "?",
}

BURST_CHANCE: Final = 0.35
MAX_BURST: Final = 8
DRAG_CHANCE: Final = 0.05
"""Of the bursts: how many are resizes only, a terminal being dragged."""
RESIZE_CHANCE: Final = 0.02
RESIZE_CHANCE_WHEN_SMALL: Final = 0.2
"""Below the minimum size the game hides; a few inputs there are enough."""
CLICK_CHANCE: Final = 0.12
NEW_GAME_SCREEN_CHANCE: Final = 0.25
"""How often an app after a quit starts at the new-game screen instead of the config's series."""
AIM_CHANCE: Final = 0.35
"""How often a digit or a click on a cell goes for a free cell, so that matches get finished."""
DRAWS: Final = 6
"""Random numbers drawn for every input, used or not, so that one seed makes one sequence."""
RECENT: Final = 24
"""Inputs (and the computer's steps) quoted in a failure message."""
MAX_ROUNDS: Final = 200

KNOWN_BUGS: Final[dict[str, str]] = {}
"""Bugs of the app that the fuzz finds and counts without failing, until they are fixed:
each is named in the session's summary with how often it was seen. Remove an entry with
its fix, and the fuzz fails on it again."""


# Inputs, sent as a terminal's driver sends them: public API only.


@dataclass(frozen=True, slots=True)
class Key:
    key: str

    def __str__(self) -> str:
        return f"key {self.key}"


@dataclass(frozen=True, slots=True)
class Click:
    x: int
    y: int
    target: str
    palette: bool = False
    """The spot opens the command palette."""

    def __str__(self) -> str:
        return f"click {self.target} at ({self.x}, {self.y})"


@dataclass(frozen=True, slots=True)
class Resize:
    width: int
    height: int

    def __str__(self) -> str:
        return f"resize {self.width}x{self.height}"


Input = Key | Click | Resize


def send(app: TicTacToeApp, item: Input) -> None:
    """Post `item` to the app's queue; nothing waits for it to be handled."""
    if isinstance(item, Key):
        key = item.key
        app.post_message(events.Key(key, _CHARS.get(key, key if len(key) == 1 else None)))
    elif isinstance(item, Click):
        for press in (events.MouseDown, events.MouseUp):  # the app turns the two into a Click
            app.post_message(
                press(None, item.x, item.y, 0, 0, 1, False, False, False, item.x, item.y)
            )
    else:
        size = Size(item.width, item.height)
        app.post_message(events.Resize(size, size))


def _over(app: TicTacToeApp) -> bool:
    """The app has exited (a quit, or an exception: `run_test` re-raises that on the way out)."""
    return app.return_code is not None


async def settle(app: TicTacToeApp, pilot: Pilot[Series | None]) -> None:
    """Wait until the app has handled every input and everything they led to, and painted.

    Each `pilot.pause(0)` lets the top screen's widgets handle what they had queued,
    then lays out and paints; handlers queue more (a key becomes an intent, an intent
    a new screen), so rounds go on until nothing is queued anywhere. The computer's
    timer is not waited for: its step is an input of its own.
    """
    for _ in range(MAX_ROUNDS):
        if _over(app):
            return
        await pilot.pause(0)
        if _over(app) or pending_work(app) is None:
            return
    raise FuzzFailure(f"the app kept itself busy for {MAX_ROUNDS} rounds: {pending_work(app)}")


# Reading what is painted.


def words(widget: Widget) -> str:
    """The text `widget` paints, its lines joined and every run of spaces made one."""
    return " ".join(painted(widget).split())


def content_lines(widget: Widget) -> list[str]:
    """The lines painted inside `widget`'s border, stripped, without trailing blank ones."""
    lines = [line.strip() for line in inside(widget)]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def shows_name(text: str, name: str) -> bool:
    """`text` shows `name`, whole or cut short with an ellipsis ("A name far…")."""
    if name in text:
        return True
    if "…" not in text:
        return False
    return any(short in text for short in shortened(name)[1:])


def shortened(name: str) -> list[str]:
    """`name` cut short with an ellipsis: "…", "A…", "A …", "A n…" and so on."""
    return [f"{name[:length]}…" for length in range(len(name))]


def cropped(lines: Iterable[str]) -> tuple[str, ...]:
    """`lines` without blank rows, without the margin they all share, right-trimmed."""
    rows = [line.rstrip() for line in lines if line.strip()]
    left = min((len(row) - len(row.lstrip()) for row in rows), default=0)
    return tuple(row[left:] for row in rows)


def number(pattern: str, text: str) -> int | None:
    found = re.search(pattern, text)
    return int(found.group(1)) if found else None


# The run.


ON_THE_WAY: Final = 20 * CHORES_AFTER
"""How long after its end a match may still be on its way to the record, in the fuzz test's
eyes: it is handed over `CHORES_AFTER` later, by a timer that a busy machine (two test workers
on two cores) may run late."""


class FuzzFailure(AssertionError):
    """An invariant broke; the message names the seed, the input and the inputs before it."""

    def __init__(self, message: str, report: FuzzReport | None = None) -> None:
        super().__init__(message)
        self.report = report
        """The run so far; `report.events` inputs replay the failure with the same seed."""


@dataclass
class FuzzReport:
    """What a run did."""

    seed: int
    config: str
    events: int = 0
    """Inputs sent: keys, clicks and resizes, those inside bursts included."""
    bursts: int = 0
    """Inputs sent several at a time, with no settling between them."""
    during_pause: int = 0
    """Inputs sent while the computer was due to act (thinking, or about to)."""
    apps: int = 0
    """Apps started: one more after every quit."""
    matches: int = 0
    """Matches finished, all apps together."""
    kinds: Counter[str] = field(default_factory=Counter)
    """Inputs by kind: key, click, resize."""
    known: Counter[str] = field(default_factory=Counter)
    """Checks that found one of the `KNOWN_BUGS`, by bug."""
    seconds: float = 0.0
    failed: bool = False

    @property
    def rate(self) -> float:
        """Inputs a second."""
        return self.events / self.seconds if self.seconds else 0.0


REPORTS: list[FuzzReport] = []
"""Every run of this process, failed ones included: the test session's summary reads it."""


def summary(reports: Sequence[FuzzReport]) -> str:
    """One line for a test session or a soak: counts, seeds, failures, speed."""
    events = sum(report.events for report in reports)
    seconds = sum(report.seconds for report in reports)
    seeds = sorted({report.seed for report in reports})
    each = ", ".join(f"{report.config} {report.events}" for report in reports)
    known = sum((report.known for report in reports), Counter[str]())
    return (
        f"fuzz: {events} events ({each}), {sum(report.bursts for report in reports)} bursts, "
        f"{sum(report.during_pause for report in reports)} inputs during the computer's pause, "
        f"{sum(report.matches for report in reports)} matches, "
        f"{sum(report.failed for report in reports)} failed, "
        f"seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}, "
        f"{seconds:.1f} s ({events / (seconds or 1):.0f} events/s)"
        + "".join(f"; known bug {bug!r} seen {count} times" for bug, count in known.items())
    )


async def fuzz(
    seed: int,
    events: int,
    config: GameConfig,
    on_progress: Callable[[FuzzReport], None] | None = None,
) -> FuzzReport:
    """Send `events` random inputs to the app set up by `config`; FuzzFailure says what broke."""
    run = _Run(seed, events, config, on_progress)
    REPORTS.append(run.report)
    started = time.perf_counter()
    try:
        while run.report.events < events:
            await run.session()
    finally:
        run.report.seconds = time.perf_counter() - started
    return run.report


def config_label(config: GameConfig) -> str:
    return "hot seat" if config.level is None else f"vs {config.level.value}"


class _Run:
    """One call of `fuzz`: the random source, the counts, and what one app has shown so far."""

    def __init__(
        self,
        seed: int,
        events: int,
        config: GameConfig,
        on_progress: Callable[[FuzzReport], None] | None,
    ) -> None:
        self.rng = random.Random(seed)
        self.events = events
        self.config = config
        self.on_progress = on_progress
        self.report = FuzzReport(seed=seed, config=config_label(config))
        self.recent: deque[str] = deque(maxlen=RECENT)
        self.size = START_SIZE
        # Per app:
        self.finished_heard: set[Message] = set()
        """MatchFinished messages the app handled (the hook hears each at every pump)."""
        self.finished_at: dict[Message, float] = {}
        """When each of them was first heard (`time.monotonic`)."""
        self.watched: GameScreen | None = None
        self.series: Series | None = None
        """The series as the last change left it."""
        self.shown: list[Series] = []
        """Every value the series took, in order."""
        self.broken: list[str] = []
        """Changes of the series that no input explains, found by the watcher."""
        self.due_since: float | None = None
        """When the computer last became due to act, while it still is."""
        self.delay = 0.0

    # Failures.

    def fail(self, what: str) -> FuzzFailure:
        self.report.failed = True
        events = self.report.events
        lines = [
            f"fuzz {self.report.config!r}, seed {self.report.seed}, after {events} inputs: {what}",
            f"replay: fuzz(seed={self.report.seed}, events={events}, "
            f"config=CONFIGS[{self.report.config!r}])",
            "recent inputs, oldest first:",
            *(f"  {line}" for line in self.recent),
        ]
        return FuzzFailure("\n".join(lines), self.report)

    def known_bug(self, bug: str, what: str) -> None:
        """A check found `bug` (`what` in detail): counted if it is one of the `KNOWN_BUGS`."""
        if bug not in KNOWN_BUGS:
            raise self.fail(what)
        self.report.known[bug] += 1

    def note(self, item: Input, burst: tuple[int, int] | None) -> None:
        where = f" (burst, {burst[0]} of {burst[1]})" if burst else ""
        self.recent.append(f"#{self.report.events} {item}{where}")
        self.report.kinds[type(item).__name__.lower()] += 1
        self.report.events += 1

    # One app's life.

    def app_config(self) -> GameConfig:
        names, seed, screen = self.rng.random(), self.rng.getrandbits(32), self.rng.random()
        first, second = NAMES[int(names * len(NAMES))]
        self.delay = COMPUTER_DELAYS[self.report.apps % len(COMPUTER_DELAYS)]
        config = replace(self.config, seed=seed, computer_delay=self.delay)
        if self.report.apps > 0 and screen < NEW_GAME_SCREEN_CHANCE:
            return replace(config, player1=None, player2=None, level=None)
        return replace(config, player1=first, player2=second)

    async def session(self) -> None:
        config = self.app_config()
        self.report.apps += 1
        self.recent.append(
            f"(app {self.report.apps}: {config.player1!r} v {config.player2!r}, "
            f"{config_label(config) if config.player1 else 'new-game screen'}, "
            f"computer delay {config.computer_delay:g} s, seed {config.seed})"
        )
        self.finished_heard = set()
        self.finished_at = {}
        self.watched = None
        self.series = None
        self.shown = []
        self.broken = []
        self.due_since = None

        def hear(message: Message) -> None:
            if isinstance(message, GameScreen.MatchFinished):
                self.finished_heard.add(message)
                self.finished_at.setdefault(message, time.monotonic())

        app = TicTacToeApp(config)
        failure: FuzzFailure | None = None
        try:
            async with app.run_test(size=self.size, message_hook=hear) as pilot:
                try:
                    await settle(app, pilot)
                    self.check(app)
                    while self.report.events < self.events and not _over(app):
                        await self.step(app, pilot)
                        if self.on_progress is not None:
                            self.on_progress(self.report)
                except FuzzFailure as error:
                    failure = error if error.report else self.fail(str(error))
                except Exception:
                    failure = self.fail(f"the harness raised\n{traceback.format_exc()}")
        except Exception as error:  # run_test re-raises the app's exception on the way out
            crash = "the app raised " + "".join(traceback.format_exception(error)).rstrip()
            raise failure or self.fail(crash) from error
        if failure is not None:
            raise failure
        if _over(app):
            self.check_result(app)
        self.report.matches += len(self.series.finished) if self.series else 0

    def check_result(self, app: TicTacToeApp) -> None:
        """After a quit: the app hands back the series as it stood, and has recorded it."""
        result = app.return_value
        if self.series is None:
            if result is not None:
                raise self.fail(f"no series was played, yet the app returned {result!r}")
            return
        # What a quit promises: the score printed, the score recorded and the last score
        # shown agree. (The series may still move on after the result was taken, when a
        # click on the mark dialog's X or O sent just before the quit was still on its way
        # to the button. An answer cannot change a score, so it is not counted here.)
        if result is None or not any(shown is result for shown in self.shown):
            raise self.fail(f"the app returned {result!r}, a series it never showed")
        if self.series is None or result.finished != self.series.finished:
            message = f"the app returned {result!r}, the screen last showed {self.series!r}"
            raise self.fail(message)
        self.check_record(app, result)

    # Steps: inputs, then settle and check; now and then wait for the computer.

    async def step(self, app: TicTacToeApp, pilot: Pilot[Series | None]) -> None:
        rng = self.rng
        burst, length, patience = rng.random(), rng.random(), rng.random()
        if isinstance(app.screen, CommandPalette):
            # Only ever closed again: one of its commands writes screenshot files.
            inputs: list[Input] = [Key("escape")]
            self.draws(1)
        elif burst < BURST_CHANCE:
            count = 2 + int(length * (MAX_BURST - 1))
            drag = burst < BURST_CHANCE * DRAG_CHANCE
            inputs = self.burst([self.pick(app, self.draws(1), drag) for _ in range(count)])
        else:
            inputs = [self.pick(app, self.draws(1), drag=False)]
        inputs = inputs[: self.events - self.report.events]
        if len(inputs) > 1:
            self.report.bursts += 1
        if self.computer_due(app):
            self.report.during_pause += len(inputs)
        for index, item in enumerate(inputs):
            self.note(item, (index + 1, len(inputs)) if len(inputs) > 1 else None)
            if isinstance(item, Resize):
                self.size = (item.width, item.height)
            send(app, item)
        await settle(app, pilot)
        self.check(app)
        if isinstance(app.screen, CommandPalette) and len(inputs) > 1:
            raise self.fail("a burst opened the command palette")  # ctrl+p is never in one
        if patience < PATIENCE and self.computer_due(app):
            await self.let_the_computer_act(app, pilot)
            self.check(app)

    def burst(self, picked: list[Input]) -> list[Input]:
        """The inputs of a burst, less those that would drive the palette.

        No ctrl+p, nor a click that opens the palette (its footer key, the header's
        icon): the palette would take the keys after it as a command to run, saving
        a screenshot perhaps.
        """
        kept: list[Input] = []
        for item in picked:
            key = item.key if isinstance(item, Key) else None
            left_out = (isinstance(item, Click) and item.palette) or key == "ctrl+p"
            if not left_out:
                kept.append(item)
        return kept

    def computer_due(self, app: TicTacToeApp) -> bool:
        game = app.game_screen
        return game is not None and not _over(app) and game.series.awaits_computer

    async def let_the_computer_act(self, app: TicTacToeApp, pilot: Pilot[Series | None]) -> None:
        deadline = time.monotonic() + self.delay + COMPUTER_PATIENCE
        while self.computer_due(app):
            if time.monotonic() > deadline:
                raise self.fail(
                    f"the computer has not acted {self.delay + COMPUTER_PATIENCE:g} s after"
                    " it was due"
                )
            await pilot.pause(0.005)
            await settle(app, pilot)

    def draws(self, inputs: int) -> list[float]:
        return [self.rng.random() for _ in range(inputs * DRAWS)]

    def pick(self, app: TicTacToeApp, draws: list[float], drag: bool) -> Input:
        """One input from `DRAWS` random numbers, suited to the screen on top."""
        kind, *rest = draws
        width, height = app.size
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        resize_chance = RESIZE_CHANCE_WHEN_SMALL if small else RESIZE_CHANCE
        if drag or kind < resize_chance:
            return self.pick_size(small, rest)
        if kind < resize_chance + CLICK_CHANCE:
            return self.pick_click(app, rest)
        return self.pick_key(app, rest)

    def pick_key(self, app: TicTacToeApp, draws: Sequence[float]) -> Key:
        choice, aim, which = draws[:3]
        weights = KEY_WEIGHTS | KEY_WEIGHTS_ON.get(type(app.screen), {})
        key = _weighted(list(weights), list(weights.values()), choice)
        free = self.free_cells(app)
        game = app.game_screen
        if key.isdigit() and free and game is not None and aim < AIM_CHANCE:
            key = game.key_layout.key_for(free[int(which * len(free))])
        return Key(key)

    def pick_size(self, small: bool, draws: Sequence[float]) -> Resize:
        mode, across, down, edge_across, edge_down = draws[:5]
        if mode < (0.6 if small else 0.3):  # room to play
            return Resize(_between(MIN_WIDTH, 100, across), _between(MIN_HEIGHT, 32, down))
        if mode < 0.8:
            return Resize(_between(10, 200, across), _between(5, 60, down))
        return Resize(
            EDGE_WIDTHS[int(edge_across * len(EDGE_WIDTHS))],
            EDGE_HEIGHTS[int(edge_down * len(EDGE_HEIGHTS))],
        )

    def pick_click(self, app: TicTacToeApp, draws: Sequence[float]) -> Click:
        """A button or field of the top screen, a cell (even under a dialog), or any spot."""
        what, which, aim, across, down = draws[:5]
        screen = app.screen
        game = app.game_screen
        buttons = [
            widget
            for widget in screen.query("Button, RadioButton, Input")
            if not isinstance(widget, Cell)  # the cells have their own share, aimed or not
        ]
        target: Widget | SquareView | None = None
        if buttons and what < 0.6:
            weights = [0.25 if button.id == "quit" else 1.0 for button in buttons]
            target = _weighted(buttons, weights, which)
            description = f"#{target.id}"
        elif game is not None and what < 0.92:
            free = self.free_cells(app)
            cells = free if free and aim < AIM_CHANCE else tuple(range(9))
            assert isinstance(game.board, Board)
            target = SquareView(game.board, cells[int(which * len(cells))])
            description = f"square {target.cell}"
        else:
            description = "anywhere"
        region = Region(0, 0, *app.size)
        if target is not None:
            visible = target.region.intersection(region)
            if visible.area:
                region = visible
            else:
                description += " (hidden)"
        x = region.x + int(across * region.width)
        y = region.y + int(down * region.height)
        try:
            under: Widget | None = app.get_widget_at(x, y)[0]
        except NoWidget:
            under = None
        # The footer's palette key, or the header's icon: both open the command palette.
        palette = under is not None and (
            under.has_class("-command-palette") or under in app.screen.query("HeaderIcon")
        )
        return Click(x, y, description, palette)

    @staticmethod
    def free_cells(app: TicTacToeApp) -> tuple[int, ...]:
        """The cells a move could take now (none outside play)."""
        game = app.game_screen
        match = game.series.match if game else None
        return match.legal_moves() if match else ()

    # Watching the series change, one intent at a time.

    def watch(self, game: GameScreen) -> None:
        if self.watched is game:
            return
        self.watched = game
        self.series = game.series
        self.shown = [game.series]
        game.watch(game, "series", self.changed, init=False)

    def changed(self, old: Series, new: Series) -> None:
        """Every value the screen takes: log the computer's steps, and keep what is unexplained.

        (It runs inside the app: it records, and `check` raises.)
        """
        what = _change(old, new)
        if what is None:
            self.broken.append(f"unexplained change of the series: {old!r} -> {new!r}")
        elif what.startswith("the computer"):
            self.recent.append(f"   ({what})")
        self.series = new
        self.shown.append(new)

    # The invariants.

    def check(self, app: TicTacToeApp) -> None:
        if _over(app):
            return  # a quit, or an exception that run_test raises on the way out
        game = app.game_screen
        if game is None:
            return
        self.watch(game)
        if self.broken:
            raise self.fail(self.broken[0])
        series = game.series
        if series != self.series:
            raise self.fail(f"the screen holds {series!r}, its last change was {self.series!r}")
        self.check_score(series)
        self.check_record(app, series)
        self.check_flow(app, game, series)
        self.check_board(app, game, series)
        self.check_status(game, series)
        self.check_sidebar(game, series)
        self.check_too_small(app)

    def check_score(self, series: Series) -> None:
        """The score is the finished matches, each heard once."""
        winners = Counter(finished.winner for finished in series.finished)
        counts = (series.wins[0], series.wins[1], series.draws, series.played)
        expected = (winners[0], winners[1], winners[None], len(series.finished))
        if counts != expected:
            raise self.fail(f"wins, wins, draws, played: {counts}, finished matches: {expected}")
        heard = len(self.finished_heard)
        if heard != len(series.finished):
            raise self.fail(f"{len(series.finished)} matches finished, {heard} MatchFinished heard")

    def check_record(self, app: TicTacToeApp, series: Series) -> None:
        """The lifetime record counts this series exactly (each app starts from an empty one).

        The one check of the record: the place to follow its storage when it changes. A match
        is handed to the record `CHORES_AFTER` after it ends: those that ended just now may be
        missing from it still, the last ones first.
        """
        recorded = {row.player: row for row in app.record.players(limit=10)}
        got = []
        for player in series.players:
            record = recorded.get(player)
            got.append((record.wins, record.losses, record.draws) if record else (0, 0, 0))
        now = time.monotonic()
        on_the_way = sum(1 for at in self.finished_at.values() if now - at < ON_THE_WAY)
        finished = series.finished
        for handed in range(len(finished), len(finished) - on_the_way - 1, -1):
            winners = Counter(match.winner for match in finished[:handed])
            want = [(winners[index], winners[1 - index], winners[None]) for index in (0, 1)]
            if got == want:
                return
        want = [(series.wins[index], series.wins[1 - index], series.draws) for index in (0, 1)]
        raise self.fail(f"the record gives {got}, the series {want}")

    def check_flow(self, app: TicTacToeApp, game: GameScreen, series: Series) -> None:
        dialogs = [screen for screen in app.screen_stack if isinstance(screen, MarkChoiceScreen)]
        person_chooses = series.phase is Phase.CHOOSING and not series.awaits_computer
        if person_chooses != bool(dialogs) or len(dialogs) > 1:
            raise self.fail(
                f"the series is {series.phase} (the computer due: {series.awaits_computer}), "
                f"{len(dialogs)} mark dialog(s) open"
            )
        if dialogs:
            chooser = series.players[series.chooser].name
            asking = dialogs[0].query_one("#question")
            question = words(asking) if asking.is_on_screen else chooser
            if dialogs[0].chooser != chooser or not shows_name(question, chooser):
                raise self.fail(f"the mark dialog asks {question!r}, the chooser is {chooser!r}")
        if series.awaits_computer:
            now = time.monotonic()
            self.due_since = self.due_since or now
            if now - self.due_since > self.delay + COMPUTER_PATIENCE:
                raise self.fail(f"the computer has been due for {now - self.due_since:.1f} s")
        else:
            self.due_since = None
        if (
            app.screen is game
            and app.size.width >= MIN_WIDTH
            and app.size.height >= MIN_HEIGHT
            and app.focused is not game.board
        ):
            raise self.fail(f"the board lost the keyboard focus to {app.focused!r}")

    def check_board(self, app: TicTacToeApp, game: GameScreen, series: Series) -> None:
        """Each cell paints the core's mark (its drawing for the cell's room) or its digit;
        the winning line, and only it, has a double border; one cursor, hints on free cells."""
        board = game.board
        assert isinstance(board, Board)
        match = series.match
        marks: tuple[Mark | None, ...] = match.board if match else (None,) * 9
        winning = set(match.winning_cells) if match else set()
        squares = [SquareView(board, cell) for cell in range(9)]
        cursors = {square.cell for square in squares if square.shows("cursor")}
        if cursors != {board.cursor}:
            raise self.fail(f"the cursor is at {board.cursor}, cells {cursors} show it")
        hints = {square.cell for square in squares if square.shows("hint")}
        if not all(marks[cell] is None for cell in hints) or (
            hints and series.phase is not Phase.PLAYING
        ):
            raise self.fail(f"cells {hints} are hinted on {match!r}")
        for square in squares:
            mark, key = marks[square.cell], game.key_layout.key_for(square.cell)
            if (square.mark, square.key) != (mark, key) or square.shows("win") != (
                square.cell in winning
            ):
                raise self.fail(
                    f"cell {square.cell} holds {square.mark or 'nothing'} (key {square.key!r},"
                    f" win: {square.shows('win')}); the core says {mark or 'empty'} (key {key},"
                    f" winning cells {sorted(winning)})"
                )
        if not board.is_on_screen:
            return
        drawings: dict[Mark, set[tuple[str, ...]]] = {Mark.X: set(), Mark.O: set()}
        for square in squares:
            mark, key = marks[square.cell], game.key_layout.key_for(square.cell)
            lines = painted(square).splitlines()
            rows = cropped(line[1:-1] for line in lines[1:-1])  # inside the border
            expected = (
                cropped(mark_art(mark, square.widget.art_room).splitlines()) if mark else (key,)
            )
            if rows != expected:
                raise self.fail(
                    f"cell {square.cell} paints {rows}, the core says {mark or 'empty'}"
                    f" (key {key}): {expected}"
                )
            if mark:
                drawings[mark].add(rows)
            double = lines[0].startswith("╔")
            if double != (square.cell in winning):
                raise self.fail(
                    f"cell {square.cell} {'has' if double else 'lacks'} the winning line's"
                    f" border, the winning cells are {sorted(winning)}"
                )
        rooms = [square.widget.own_room for square in squares]
        smallest = Size(min(room.width for room in rooms), min(room.height for room in rooms))
        given = {square.widget.art_room for square in squares}
        if given != {smallest}:
            raise self.fail(f"the cells draw marks for rooms {given}, the smallest is {smallest}")
        sizes = {(len(rows), max(map(len, rows))) for both in drawings.values() for rows in both}
        if any(len(both) > 1 for both in drawings.values()) or len(sizes) > 1:
            raise self.fail(f"the marks are not drawn alike, at one size: {drawings}")

    def check_status(self, game: GameScreen, series: Series) -> None:
        """The status line: the notice, or who acts and how the match stands, in words."""
        if not game.status.is_on_screen:
            return
        text = words(game.status)
        if game.notice:
            # As the status line words it for its size (shorter wordings when narrow); cut
            # after its lines, perhaps, where even those do not fit.
            width, height = game.status.content_size
            laid_out = lay_out(game.notice.phrases, width, max(1, height))
            if not text or not "".join(laid_out.split()).startswith("".join(text.split())):
                raise self.fail(f"the status line shows {text!r}, the notice is {game.notice!r}")
            return
        actor = series.actor
        wanted: tuple[str, ...]
        if series.phase is Phase.CHOOSING:
            name, wanted = series.players[series.chooser].name, ("choos",)
        elif series.winner is not None:
            name, wanted = series.players[series.winner].name, ("wins",)
        elif actor is None:
            name, wanted = "", ("draw",)
        elif series.awaits_computer:
            name, wanted = series.players[actor].name, ("thinking",)
        else:
            assert series.match is not None
            name, wanted = series.players[actor].name, (f"({series.match.to_move})", "to move")
        if not shows_name(text, name) or not all(word in text for word in wanted):
            raise self.fail(f"the status line shows {text!r} for {series!r}")

    def check_sidebar(self, game: GameScreen, series: Series) -> None:
        """Each card: the marker of the player to move or the winner, name, mark, wins, level;
        the tally: draws and matches played."""
        if not game.scoreboard.is_on_screen:
            return
        for index, player in enumerate(series.players):
            card = game.query_one(f"#player-{index + 1}", PlayerCard)
            lines = content_lines(card)
            top, detail = [*lines, "", ""][:2]
            to_move, winner = series.to_move == index, series.winner == index
            marker = "▶" if to_move else "★" if winner else ""
            mark = str(series.marks[index]) if series.marks else "·"
            wins = series.wins[index]
            ok = (
                (top[:1] in ("▶", "★")) == bool(marker)
                and top.startswith(marker)
                and shows_name(top, player.name)
                and detail.startswith(mark)
                and f"{wins} win{'' if wins == 1 else 's'}" in detail
                and (player.level is None or str(player.level) in detail or detail.endswith("…"))
                and (card.has_class("-to-move"), card.has_class("-winner")) == (to_move, winner)
            )
            if not ok:
                raise self.fail(
                    f"player {index + 1}'s card shows {lines} (classes {sorted(card.classes)})"
                    f" for {series!r}"
                )
        tally = words(game.query_one("#tally", Static))
        if (number(r"Draws (\d+)", tally), number(r"Played (\d+)", tally)) != (
            series.draws,
            series.played,
        ):
            raise self.fail(f"the tally shows {tally!r}: {series.draws} draws, {series.played}")
        self.check_history(game, series)

    def check_history(self, game: GameScreen, series: Series) -> None:
        """The latest moves, numbered, each naming its player (perhaps shortened with an
        ellipsis, or left out where not even its first character fits), mark and cell
        (always whole)."""
        panel = game.query_one("#history")
        lines = content_lines(panel)
        moves = series.history()
        if not moves:
            if lines != ["No moves yet"]:
                raise self.fail(f"the move history shows {lines} before any move")
            return
        hidden = number(r"^… (\d+) earlier$", lines[0]) if lines else None
        listed = lines[1:] if hidden is not None else lines
        first = len(moves) - len(listed) + 1
        # Under a count of the hidden ones; else every move, or the latest when one line fits.
        counted = hidden == first - 1 if hidden is not None else first == 1 or len(listed) == 1
        if not listed or not counted:
            raise self.fail(f"the move history shows {lines} for {len(moves)} moves")
        for number_, line in enumerate(listed, start=first):
            player, mark, cell = moves[number_ - 1]
            head, move = f"{number_}. ", f"{mark} {CELL_NAMES[cell]}"
            name = series.players[player].name
            # The name whole, or cut to fit down to its first character and an ellipsis;
            # no name where even that would not fit; the move whole.
            fitting = {f"{head}{shown} {move}" for shown in (name, *shortened(name)[1:])}
            least = min(fitting, key=cell_len)
            if cell_len(least) > panel.content_size.width:
                fitting.add(f"{head}{move}")
            if line not in fitting:
                raise self.fail(f"move {number_} shows as {line!r}, not {head}{name} {move!r}")

    def check_too_small(self, app: TicTacToeApp) -> None:
        width, height = app.size
        if (width >= MIN_WIDTH and height >= MIN_HEIGHT) or isinstance(app.screen, CommandPalette):
            return
        notice = words(app.screen.query_one(TooSmall))
        if not notice or not TOO_SMALL.startswith(notice.rstrip("…")):
            raise self.fail(f"at {width}x{height} the screen shows {notice!r}, not how to enlarge")


def _change(old: Series, new: Series) -> str | None:
    """What turned `old` into `new`, in words, or None if no one input explains it."""
    if new.players != old.players or new.finished[: len(old.finished)] != old.finished:
        return None
    before, after = old.match, new.match
    if new == old:
        return "nothing"
    if after is None:
        return "the next match" if old.phase is Phase.OVER and new == old.next_match() else None
    if before is None:
        fresh = not after.moves and new.marks is not None
        same = (new.chooser, new.wins, new.draws) == (old.chooser, old.wins, old.draws)
        if not (fresh and same):
            return None
        assert new.marks is not None
        return f"the computer chose {new.marks[new.chooser]}" if old.awaits_computer else "marks"
    if after.moves[:-1] == before.moves and len(after.moves) == len(before.moves) + 1:
        cell = CELL_NAMES[after.moves[-1]]
        return f"the computer took {cell}" if old.awaits_computer else f"a move: {cell}"
    if before.moves[: len(after.moves)] == after.moves and not before.is_over:
        return "an undo"
    return None


def _weighted(items: Sequence[T], weights: Iterable[float], draw: float) -> T:
    """The item a draw in [0, 1) lands on, each taking its share by weight."""
    weights = list(weights)
    goal = draw * sum(weights)
    for item, weight in zip(items, weights, strict=True):
        goal -= weight
        if goal < 0:
            return item
    return items[-1]


def _between(low: int, high: int, draw: float) -> int:
    return low + int(draw * (high - low + 1))
