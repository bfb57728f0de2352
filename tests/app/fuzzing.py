"""Drive the real app with random input and check, after every event, that it still tells the truth.

`fuzz(seed, events, config)` starts `TicTacToeApp(config)` under Pilot and sends it
`events` random inputs: the game's keys, clicks on cells and buttons, and terminal
resizes from 10x5 to 200x60. After each one it waits until the app has handled it (and
the computer has replied), then `_Run.check` verifies: no exception; every cell holds
the core's mark and paints that mark's drawing (or its digit when empty); the cursor,
the winning line and the hints sit on sensible cells; the scoreboard, the status line,
the move history and the lifetime statistics say what the `Series` says; wins + draws =
games played = games finished. When the app quits (q, ctrl+q, the modal's Quit) its
return value is checked too and a fresh app takes over, so the count goes on.

Speed: Pilot's `press` and `pause` sleep until the process looks idle (40-85 ms an
input). Here an input goes straight onto the app's message queue; `_settle` waits only
until every message pump of the app has emptied its queue, a resize also for the app's
1/120 s debounce timer, and `_paint` then lays out and paints as the screen's own timer
would. What is left is the app's own work: some 20-40 inputs a second.

Everything random comes from `random.Random(seed)`, the app's own seed included, and
the computer is always let move before the next input, so a seed replays: the input
that failed as number k comes back as number k of `fuzz(seed, k + 1, config)`.
"""

from __future__ import annotations

import asyncio
import random
import time
import traceback
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Final

from textual import events
from textual.command import CommandPalette
from textual.geometry import Offset, Region, Size
from textual.message_pump import MessagePump
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from app.conftest import painted
from tictactoe.ai import Level
from tictactoe.app import TicTacToeApp
from tictactoe.config import GameConfig
from tictactoe.engine import Mark
from tictactoe.screens.game import GameScreen
from tictactoe.screens.help import HelpScreen
from tictactoe.screens.mark_choice import MarkChoiceScreen
from tictactoe.screens.stats import StatsScreen
from tictactoe.series import Phase, Series
from tictactoe.stats import stats_name
from tictactoe.widgets.board import Cell, mark_art
from tictactoe.widgets.history import MoveHistory, history_lines
from tictactoe.widgets.status import describe
from tictactoe.widgets.too_small import MIN_HEIGHT, MIN_WIDTH

__all__ = ["CONFIGS", "REPORTS", "FuzzFailure", "FuzzReport", "fuzz"]

CONFIGS: Final[dict[str, GameConfig]] = {
    "hot seat": GameConfig(player1="Ada", player2="Bob", computer_delay=0, save=False),
    **{
        f"vs {level.value}": GameConfig(player1="Ada", level=level, computer_delay=0, save=False)
        for level in Level
    },
}
"""The four ways to play, each starting at the mark modal (names are redrawn per app)."""

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
# Enter/Space keep games moving; x/o answer the mark modal; n/Enter start the next game.
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
    "question_mark": 0.8,
    "f1": 0.5,
    "tab": 1,
    "shift+tab": 0.5,
    "ctrl+c": 0.2,
    "ctrl+s": 0.2,
    "ctrl+p": 0.3,  # always followed by escape: the palette's commands are never run
    "q": 0.5,
    "ctrl+q": 0.2,
}
KEY_WEIGHTS_ON: Final[dict[type[Screen[Any]], dict[str, float]]] = {
    HelpScreen: {"escape": 25},
    StatsScreen: {"escape": 25},
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
RESIZE_CHANCE: Final = 0.03
RESIZE_CHANCE_WHEN_SMALL: Final = 0.2
"""Below the minimum size the game hides; a few inputs there are enough."""
CLICK_CHANCE: Final = 0.12
NEW_GAME_SCREEN_CHANCE: Final = 0.25
"""How often an app after a quit starts at the new-game screen instead of the config's match."""
AIM_CHANCE: Final = 0.35
"""How often a digit or a click on a cell goes for a free cell, so that games get finished."""
RECENT: Final = 15
"""Inputs quoted in a failure message."""
COMPUTER_PATIENCE: Final = 5.0
"""Seconds the computer may take to reply before the app counts as frozen."""


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
    apps: int = 0
    """Apps started: one more after every quit."""
    games: int = 0
    """Games finished, all apps together."""
    kinds: Counter[str] = field(default_factory=Counter)
    """Inputs by kind: key, click, resize."""
    seconds: float = 0.0
    failed: bool = False

    @property
    def rate(self) -> float:
        """Inputs a second."""
        return self.events / self.seconds if self.seconds else 0.0


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


REPORTS: list[FuzzReport] = []
"""Every run of this process, failed ones included: the test session's summary reads it."""


# Input without Pilot's idle sleeps.

PilotT = Pilot[Series | None]


def _pumps(app: TicTacToeApp) -> Iterator[MessagePump]:
    yield app
    for screen in app.screen_stack:
        yield from screen.walk_children(with_self=True)


def _over(app: TicTacToeApp) -> bool:
    return app._exit or app._exception is not None


async def _settle(app: TicTacToeApp, pilot: PilotT) -> None:
    """Wait until every message pump of the app has handled all it was sent.

    One `_wait_for_screen` round lets each pump of the screen on top handle what it
    had queued; handlers may queue more (a key becomes a binding's action, that a
    message, that a new screen), so rounds go on until every queue is empty.
    """
    for _ in range(200):
        if _over(app):
            return
        await pilot._wait_for_screen()
        if _over(app):
            return
        if not any(not pump._message_queue.empty() or pump._next_callbacks for pump in _pumps(app)):
            return
    raise FuzzFailure("the app kept itself busy for 200 rounds (a message loop?)")


async def _paint(app: TicTacToeApp, pilot: PilotT) -> None:
    """Lay out and paint now, as the screen's 60 Hz timer would, until nothing is left to do.

    (Callbacks waiting for a refresh may ask for another one: the board repaints its
    squares after a resize that way.)
    """
    for _ in range(10):
        if _over(app):
            return
        screen = app.screen
        screen._on_timer_update()
        await _settle(app, pilot)
        if _over(app) or not (
            screen._layout_required
            or screen._dirty_widgets
            or screen._repaint_required
            or screen._callbacks
        ):
            return
    raise FuzzFailure("the screen still needs painting after 10 updates")


async def _press(app: TicTacToeApp, pilot: PilotT, key: str) -> None:
    """What Pilot.press does, less its sleeps: a Key event on the app's queue."""
    event = events.Key(key, _CHARS.get(key, key if len(key) == 1 else None))
    event.set_sender(app)
    app.post_message(event)
    await _settle(app, pilot)


async def _resize(app: TicTacToeApp, pilot: PilotT, size: Size) -> None:
    """What Pilot.resize_terminal does, less its sleeps."""
    app._driver._size = size  # type: ignore[union-attr]  # the headless driver's size
    app.post_message(events.Resize(size, size))
    await _settle(app, pilot)
    # The app passes a resize on to its screens after a short timer (1/120 s): wait for it.
    for _ in range(500):
        if _over(app) or (app._resize_timer is None and app._resize_event is None):
            break
        await asyncio.sleep(0.002)
    else:
        raise FuzzFailure("the app did not pass the resize on to its screens")
    await _settle(app, pilot)


async def _click(app: TicTacToeApp, pilot: PilotT, where: Offset) -> None:
    """Mouse down, up and click at `where` on the top screen, as Pilot.click sends them."""
    screen = app.screen
    arguments: dict[str, Any] = {
        "widget": screen,
        "x": where.x,
        "y": where.y,
        "delta_x": 0,
        "delta_y": 0,
        "button": 1,
        "shift": False,
        "meta": False,
        "ctrl": False,
        "screen_x": where.x,
        "screen_y": where.y,
    }
    for event in (
        events.MouseDown(**arguments),
        events.MouseUp(**arguments),
        events.Click(**arguments, chain=1),
    ):
        if _over(app) or app.screen is not screen:
            return  # the press or release already changed screens
        app.mouse_position = where
        screen._forward_event(event)
        await _settle(app, pilot)


async def _let_computer_move(app: TicTacToeApp, pilot: PilotT) -> None:
    """Give the computer's timer (1 ms in tests) time to fire, and settle after its move."""
    deadline = time.monotonic() + COMPUTER_PATIENCE
    while not _over(app):
        game = app.game_screen
        if game is None or not game.match.awaits_computer:
            return
        if time.monotonic() > deadline:
            raise FuzzFailure(f"the computer has not moved in {COMPUTER_PATIENCE:g} s")
        await asyncio.sleep(0.002)
        await _settle(app, pilot)


def _text(widget: Static) -> str:
    """The text a Static (or Label) was last given, without painting it."""
    visual = widget.visual
    return str(getattr(visual, "plain", visual))


class _Run:
    """One call of `fuzz`: the random source, the count, and the inputs so far."""

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
        self.finished_messages: list[GameScreen.MatchFinished] = []
        """MatchFinished messages the app handled (it records statistics on each)."""
        self.finished_seen = 0
        """Games seen going from in progress to over, input by input."""
        self.was_over = False
        self.last_match: Series | None = None

    # Failures.

    def fail(self, what: str) -> FuzzFailure:
        self.report.failed = True
        events = self.report.events
        last = self.recent[-1] if self.recent else "the start"
        last = f"input {last}" if last.startswith("#") else last
        lines = [
            f"fuzz {self.report.config!r}, seed {self.report.seed}: after {last}: {what}",
            f"replay: fuzz(seed={self.report.seed}, events={events}, "
            f"config=CONFIGS[{self.report.config!r}])",
            "recent inputs, oldest first:",
            *(f"  {line}" for line in self.recent),
        ]
        return FuzzFailure("\n".join(lines), self.report)

    def note(self, kind: str, description: str) -> None:
        self.recent.append(f"#{self.report.events} {description}")
        self.report.kinds[kind] += 1
        self.report.events += 1

    # One app's life.

    def app_config(self) -> GameConfig:
        first, second = self.rng.choice(NAMES)
        seed = self.rng.randrange(2**32)
        if self.report.apps > 0 and self.rng.random() < NEW_GAME_SCREEN_CHANCE:
            return replace(self.config, player1=None, player2=None, level=None, seed=seed)
        return replace(self.config, player1=first, player2=second, seed=seed)

    async def session(self) -> None:
        config = self.app_config()
        self.report.apps += 1
        self.recent.append(
            f"(app {self.report.apps}: {config.player1!r} v {config.player2!r}, "
            f"{config_label(config) if config.player1 else 'new-game screen'}, seed {config.seed})"
        )
        self.finished_messages = []
        self.finished_seen = 0
        self.was_over = False
        self.last_match = None

        def count_finished(message: object) -> None:
            # The hook hears a message at every pump it bubbles through: count it once.
            if isinstance(message, GameScreen.MatchFinished) and not any(
                message is seen for seen in self.finished_messages
            ):
                self.finished_messages.append(message)

        app = TicTacToeApp(config)
        failure: FuzzFailure | None = None
        try:
            async with app.run_test(size=self.size, message_hook=count_finished) as pilot:
                try:
                    await _settle(app, pilot)
                    self.check(app)
                    while self.report.events < self.events and not app._exit:
                        await self.step(app, pilot)
                        self.check(app)
                        if self.on_progress is not None:
                            self.on_progress(self.report)
                except FuzzFailure as error:
                    failure = error if error.report else self.fail(str(error))
                except Exception:
                    failure = self.fail(f"the fuzzer's checks raised\n{traceback.format_exc()}")
        except Exception as error:  # run_test re-raises the app's exception on the way out
            raise failure or self.fail(f"the app raised {error!r}") from error
        if failure is not None:
            raise failure
        if app._exit:
            self.check_result(app)
        self.report.games += self.finished_seen

    def check_result(self, app: TicTacToeApp) -> None:
        """After a quit: the app hands back the match as it stood, its score adding up."""
        result = app.return_value
        if self.last_match is None:
            if result is not None:
                raise self.fail(f"no match was played, yet the app returned {result!r}")
            return
        if not isinstance(result, Series):
            raise self.fail(f"the app returned {result!r} instead of the match")
        if result != self.last_match:
            raise self.fail(f"the app returned {result!r}, not the match on screen")
        if result.wins[0] + result.wins[1] + result.draws != len(result.history):
            raise self.fail(f"the returned match's score does not add up: {result!r}")
        if len(result.history) != self.finished_seen:
            raise self.fail(
                f"the returned match counts {len(result.history)} games, "
                f"{self.finished_seen} were seen finishing"
            )

    # Inputs.

    async def step(self, app: TicTacToeApp, pilot: PilotT) -> None:
        rng = self.rng
        width, height = app.size
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        resize_chance = RESIZE_CHANCE_WHEN_SMALL if small else RESIZE_CHANCE
        if isinstance(app.screen, CommandPalette):
            # Only ever closed again: one of its commands writes screenshot files.
            self.note("key", "escape (closing the command palette)")
            await _press(app, pilot, "escape")
            if isinstance(app.screen, CommandPalette):
                raise self.fail("escape did not close the command palette")
        elif (roll := rng.random()) < resize_chance:
            size = self.pick_size(small)
            self.note("resize", f"resize {size.width}x{size.height}")
            self.size = (size.width, size.height)
            await _resize(app, pilot, size)
        elif roll < resize_chance + CLICK_CHANCE:
            where, description = self.pick_click(app)
            self.note("click", f"click {description} at ({where.x}, {where.y})")
            await _click(app, pilot, where)
        else:
            weights = KEY_WEIGHTS | KEY_WEIGHTS_ON.get(type(app.screen), {})
            (key,) = rng.choices(tuple(weights), weights=tuple(weights.values()))
            free = self.free_cells(app)
            if key.isdigit() and free and rng.random() < AIM_CHANCE:
                game = app.game_screen
                assert game is not None
                key = game.key_layout.key_for(rng.choice(free))
            self.note("key", key)
            await _press(app, pilot, key)
        await _let_computer_move(app, pilot)
        await _paint(app, pilot)

    def pick_size(self, small: bool) -> Size:
        rng = self.rng
        roll = rng.random()
        if roll < (0.6 if small else 0.3):
            return Size(rng.randint(MIN_WIDTH, 100), rng.randint(MIN_HEIGHT, 32))  # room to play
        if roll < 0.8:
            return Size(rng.randint(10, 200), rng.randint(5, 60))
        return Size(rng.choice(EDGE_WIDTHS), rng.choice(EDGE_HEIGHTS))

    def pick_click(self, app: TicTacToeApp) -> tuple[Offset, str]:
        """A button or field of the top screen, a cell (even under a modal), or any spot."""
        rng = self.rng
        screen = app.screen
        game = app.game_screen
        buttons = [
            widget
            for widget in screen.query("Button, RadioButton, Input")
            if not isinstance(widget, Cell)
        ]
        roll = rng.random()
        target: Widget | None = None
        if buttons and roll < 0.6:
            weights = [0.25 if button.id == "quit" else 1.0 for button in buttons]
            (target,) = rng.choices(buttons, weights=weights)
            description = f"#{target.id}"
        elif game is not None and roll < 0.92:
            free = self.free_cells(app)
            aim = free and rng.random() < AIM_CHANCE
            target = game.board.cell(rng.choice(free) if aim else rng.randrange(9))
            description = f"#{target.id}"
        else:
            description = "anywhere"
        region = Region(0, 0, *app.size)
        if target is not None:
            visible = target.region.intersection(region)
            if visible.area:
                region = visible
            else:
                description += " (hidden)"
        x = rng.randrange(region.x, region.right)
        y = rng.randrange(region.y, region.bottom)
        return Offset(x, y), description

    @staticmethod
    def free_cells(app: TicTacToeApp) -> tuple[int, ...]:
        """The cells a move could take now (none outside play)."""
        game = app.game_screen
        state = game.series.match if game else None
        return state.legal_moves() if state else ()

    # The invariants.

    def check(self, app: TicTacToeApp) -> None:
        if app._exception is not None:
            raise self.fail(
                "the app raised " + "".join(traceback.format_exception(app._exception)).rstrip()
            )
        if app._exit:
            return
        game = app.game_screen
        if game is None:
            return
        match = game.match
        self.last_match = match
        self.check_board(app, game, match)
        self.check_sidebar(game, match)
        self.check_flow(app, game, match)

    def check_board(self, app: TicTacToeApp, game: GameScreen, match: Series) -> None:
        board = game.board
        state = match.match
        expected: tuple[Mark | None, ...] = state.board if state else (None,) * 9
        if board.game != state:
            raise self.fail(f"the board shows {board.game!r}, the match holds {state!r}")
        on_screen = board.is_on_screen
        art_size = board.art_size  # every mark is drawn at the size of the smallest square
        cursors, wins, hints = set(), set(), set()
        for index in range(9):
            cell = board.cell(index)
            mark = expected[index]
            if cell.mark != mark:
                raise self.fail(f"cell {index} holds {cell.mark}, the core says {mark}")
            key = game.key_layout.key_for(index)
            if cell.key != key:
                raise self.fail(f"cell {index} is labelled {cell.key!r}, its key is {key!r}")
            if on_screen:
                drawing = mark_art(mark, art_size) if mark else key
                lines = painted(cell).splitlines()[1:-1]
                inside = "".join("".join(line[1:-1] for line in lines).split())
                if inside != "".join(drawing.split()):
                    raise self.fail(
                        f"cell {index} ({mark or 'empty'}) paints {inside!r} "
                        f"at {art_size}, not {drawing!r}"
                    )
            if cell.has_class("-cursor"):
                cursors.add(index)
            if cell.has_class("-win"):
                wins.add(index)
            if cell.has_class("-hint"):
                hints.add(index)
        if not 0 <= board.cursor <= 8 or cursors != {board.cursor}:
            raise self.fail(f"the cursor is at {board.cursor}, cells {cursors} show it")
        winning = set(state.winning_cells) if state else set()
        if wins != winning:
            raise self.fail(f"cells {wins} are lit as the winning line, not {winning}")
        free = {index for index in range(9) if expected[index] is None}
        if not hints <= free or (hints and match.phase is not Phase.PLAYING):
            raise self.fail(f"cells {hints} are hinted, free cells are {free}")
        if (
            app.screen is game
            and app.size.width >= MIN_WIDTH
            and app.size.height >= MIN_HEIGHT
            and app.focused is not board
        ):
            raise self.fail(f"the board lost the keyboard focus to {app.focused!r}")

    def check_sidebar(self, game: GameScreen, match: Series) -> None:
        scoreboard = game.scoreboard
        for index, player in enumerate(match.players):
            card = scoreboard.query_one(f"#player-{index + 1}", Static)
            marker = "▶ " if match.to_move == index else "★ " if match.winner == index else "  "
            mark = match.marks[index] if match.marks else "·"
            wins = match.wins[index]
            level = f" · {player.level}" if player.level else ""
            expected = (
                f"{marker}{player.name}\n {mark}  {wins} win{'' if wins == 1 else 's'}{level}"
            )
            shown = _text(card)
            if shown != expected:
                raise self.fail(f"player {index + 1}'s card shows {shown}, not {expected}")
        tally = _text(scoreboard.query_one("#tally", Static))
        if tally != f"Draws    {match.draws}\nPlayed   {match.played}":
            raise self.fail(
                f"the tally shows {tally!r} for {match.draws} draws, {match.played} played"
            )
        status = _text(game.query_one("#status", Static))
        if status != (game.notice or describe(match)):
            raise self.fail(f"the status line shows {status!r} for {describe(match)!r}")
        history = game.query_one(MoveHistory)
        lines = history_lines(match)
        shown = history.render().plain.splitlines()
        if lines:
            # The latest moves, under a line counting the hidden ones when space is short.
            hidden = len(lines) - len(shown) + 1
            expected = lines[-len(shown) :]
            if shown[0].startswith("…"):
                expected = [f"… {hidden} earlier", *lines[hidden:]]
        else:
            expected = ["No moves yet"]
        if history.match != match or shown != expected:
            raise self.fail(f"the move history shows {shown}, the moves are {lines}")

    def check_flow(self, app: TicTacToeApp, game: GameScreen, match: Series) -> None:
        over = match.phase is Phase.OVER
        if over and not self.was_over:
            self.finished_seen += 1
        self.was_over = over
        played = match.wins[0] + match.wins[1] + match.draws
        heard = len(self.finished_messages)
        counts = (played, match.played, len(match.history), heard)
        if len(set(counts)) != 1 or played != self.finished_seen:
            raise self.fail(
                f"wins + draws = {played}, played = {match.played}, history holds "
                f"{len(match.history)}, the app heard {heard} MatchFinished, "
                f"{self.finished_seen} games were seen finishing"
            )
        if over and match.history[-1] != match.match:
            raise self.fail("the finished game is not the last of the match's history")
        names = [stats_name(player) for player in match.players]
        stats = app.stats.stats
        for index, name in enumerate(names):
            record = stats.get(name)
            got = (record.wins, record.losses, record.draws) if record else (0, 0, 0)
            want = (match.wins[index], match.wins[1 - index], match.draws)
            if got != want:
                raise self.fail(f"the statistics give {name!r} {got}, the match {want}")
        choosing = [screen for screen in app.screen_stack if isinstance(screen, MarkChoiceScreen)]
        if (match.phase is Phase.CHOOSING) != bool(choosing):
            raise self.fail(
                f"the match is {match.phase} but {len(choosing)} mark modal(s) are open"
            )
        if choosing and choosing[0].chooser != match.players[match.chooser].name:
            raise self.fail(f"the mark modal asks {choosing[0].chooser!r}, not the chooser")
