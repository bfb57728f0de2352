"""Random clicks, drags and wheel turns mixed with keys, on every screen: nothing ends or locks.

Each place (the new-game screen, the mark dialog, the board in hot seat and against the
computer, the Ultimate board, the help, the record, a replay, the command palette) gets
`EVENTS` random inputs: SGR mouse reports (press, release, drag, wheel, at random cells) in
bursts and one by one, read by the game's own `KeyReader` and posted as its driver posts them,
mixed with keys. After each input or burst: the game has not ended (a quit through its own Quit
is allowed: the next app starts at the same place), a screen of the game is on show with its
footer, and now and then a key typed next acts (F1 opens or closes the help, Escape closes a
dialog), waited for with a generous limit. Each place runs `SECONDS` or `EVENTS` inputs,
whichever ends first; a soak:

    TICTACTOE_MOUSE_FUZZ_SEED=7 TICTACTOE_MOUSE_FUZZ_EVENTS=20000 \
        TICTACTOE_MOUSE_FUZZ_SECONDS=600 uv run pytest tests/app/test_mouse_fuzz.py
"""

from __future__ import annotations

import os
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Final

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer

from app.conftest import make_config
from app.fuzzing import settle
from tictactoe.adapters.terminal_input import KeyReader
from tictactoe.core.ai import Level
from tictactoe.core.series import Series
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.help import HelpScreen
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen
from tictactoe.tui.screens.new_game import NewGameScreen
from tictactoe.tui.screens.record import RecordScreen

SEED: Final = int(os.environ.get("TICTACTOE_MOUSE_FUZZ_SEED", "47"))
EVENTS: Final = int(os.environ.get("TICTACTOE_MOUSE_FUZZ_EVENTS", "3000"))
"""Inputs sent to each place (a mouse report or a key each), at most."""
SECONDS: Final = float(os.environ.get("TICTACTOE_MOUSE_FUZZ_SECONDS", "4"))
"""Seconds each place is fuzzed for, at most: the run stops at the first step past them (CI
stays bounded in time; a soak sets more)."""
SIZE: Final = (80, 24)
ACTS_WITHIN: Final = 20.0
"""Seconds a key typed after a burst may take to act before the game counts as locked: far
more than a person waits (2 s), so that a busy machine four times slower still passes."""
PROBE_EVERY: Final = 25
"""Steps between two keys that must act (each costs the time of a help screen drawn)."""

KEYS: Final = (
    *"123456789",
    *("up", "down", "left", "right", "enter", "space", "tab", "escape"),
    *("x", "o", "n", "u", "h", "s", "m", "r", "question_mark", "home", "end"),
)
"""Keys mixed with the mouse: moves, the dialogs' answers, the screens' own keys."""
_CHARACTERS: Final = {"enter": "\r", "space": " ", "tab": "\t", "escape": "\x1b"}
_KEY_BYTES: Final = {
    "up": b"\x1b[A",
    "down": b"\x1b[B",
    "right": b"\x1b[C",
    "left": b"\x1b[D",
    "home": b"\x1b[H",
    "end": b"\x1b[F",
    "question_mark": b"?",
}


def mouse_report(rng: random.Random) -> bytes:
    """One SGR mouse report at a random cell: a press or release of a button, a drag, a move
    or a wheel turn, now and then with a modifier."""
    x, y = rng.randrange(1, SIZE[0] + 1), rng.randrange(1, SIZE[1] + 1)
    kind = rng.random()
    if kind < 0.45:  # a click's press, or its release
        button, final = rng.choice((0, 0, 0, 1, 2)), rng.choice("Mm")
    elif kind < 0.65:  # a drag, a button held
        button, final = 32 + rng.choice((0, 0, 2)), "M"
    elif kind < 0.8:  # a move, no button held
        button, final = 35, "M"
    else:  # the wheel
        button, final = rng.choice((64, 65, 66, 67)), "M"
    if rng.random() < 0.05:
        button |= rng.choice((4, 8, 16))  # shift, meta, ctrl
    return f"\x1b[<{button};{x};{y}{final}".encode()


def key_bytes(key: str) -> bytes:
    return _KEY_BYTES.get(key, _CHARACTERS.get(key, key).encode())


class Place:
    """Where a run starts: the app's setup, and the keys that lead from its start to the place."""

    def __init__(
        self,
        screen: type[Screen[Any]],
        reach: Callable[[Pilot[Series | None]], Awaitable[None]],
        **config: Any,
    ) -> None:
        self.screen = screen
        """The screen on top once the place is reached."""
        self.reach = reach
        self.config = config


async def nothing(_pilot: Pilot[Series | None]) -> None:
    return


async def board(pilot: Pilot[Series | None]) -> None:
    await pilot.press("x")


async def help_screen(pilot: Pilot[Series | None]) -> None:
    await pilot.press("x", "question_mark")


async def record(pilot: Pilot[Series | None]) -> None:
    await pilot.press("x", *"74859", "s")


async def replay(pilot: Pilot[Series | None]) -> None:
    await pilot.press("x", *"74859", "s", "m", "enter")


async def palette(pilot: Pilot[Series | None]) -> None:
    await pilot.press("x", "ctrl+p", *"zzzz")


HOT_SEAT: Final = {"player1": "Ada", "player2": "Bob"}
PLACES: Final = {
    "new-game screen": Place(NewGameScreen, nothing),
    "mark dialog": Place(MarkChoiceScreen, nothing, **HOT_SEAT),
    "board, hot seat": Place(GameScreen, board, **HOT_SEAT),
    "Ultimate board, hot seat": Place(GameScreen, board, variant="ultimate", **HOT_SEAT),
    "board, against the computer": Place(
        GameScreen, board, player1="Ada", level=Level.HARD, computer_delay=0.05
    ),
    "help": Place(HelpScreen, help_screen, **HOT_SEAT),
    "record": Place(RecordScreen, record, save=True, **HOT_SEAT),
    "replay": Place(RecordScreen, replay, save=True, **HOT_SEAT),
    "palette": Place(CommandPalette, palette, **HOT_SEAT),
}


class Run:
    """The inputs of one place, and what the game showed after each."""

    def __init__(self, place: str) -> None:
        self.rng = random.Random(f"{SEED} {place}")
        self.place = place
        self.sent = 0
        self.recent: deque[str] = deque(maxlen=12)
        self.apps = 0
        self.until = time.monotonic() + SECONDS

    @property
    def over(self) -> bool:
        return self.sent >= EVENTS or time.monotonic() > self.until

    def fail(self, app: TicTacToeApp, what: str) -> None:
        stack = ", ".join(type(screen).__name__ for screen in app.screen_stack)
        pytest.fail(
            f"{self.place}, seed {SEED}, after {self.sent} inputs: {what}\n"
            f"screens: {stack}\nlast inputs, oldest first:\n  " + "\n  ".join(self.recent),
            pytrace=False,
        )

    def inputs(self) -> bytes:
        """One input, or a burst of them, as one read from the terminal."""
        rng = self.rng
        count = 1 if rng.random() < 0.3 else rng.randrange(2, 60)
        count = min(count, EVENTS - self.sent)
        data = b""
        for _ in range(count):
            data += key_bytes(rng.choice(KEYS)) if rng.random() < 0.15 else mouse_report(rng)
        self.sent += count
        self.recent.append(repr(data)[:160])
        return data

    async def app(self) -> None:
        """One app, from its start at the place until the inputs are all sent or it quits."""
        self.apps += 1
        app = TicTacToeApp(make_config(**PLACES[self.place].config))
        reader = KeyReader()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await PLACES[self.place].reach(pilot)
            await settle(app, pilot)
            if not isinstance(app.screen, PLACES[self.place].screen):
                self.fail(app, f"the place was not reached: {app.screen!r} is on top")
            steps = 0
            while not self.over and app.return_code is None:
                for event in [*reader.feed(self.inputs()), *reader.tick()]:
                    event.set_sender(app)
                    app.post_message(event)
                await settle(app, pilot)
                if app.return_code is not None:
                    break
                self.check_shown(app)
                steps += 1
                if steps % PROBE_EVERY == 0:
                    await self.check_a_key_acts(app, pilot)
        if app.return_code not in (None, 0):
            self.fail(app, f"the game ended with {app.return_code}")

    def check_shown(self, app: TicTacToeApp) -> None:
        """A screen of the game is on show (not Textual's blank one), its footer with it."""
        stack = app.screen_stack
        top = app.screen
        if len(stack) < 2 or type(top) is Screen:
            self.fail(app, "no screen of the game is on show")
        base = next((s for s in reversed(stack) if not isinstance(s, ModalScreen)), top)
        if not isinstance(base, GameScreen | NewGameScreen):
            self.fail(app, f"{type(base).__name__} is under the dialogs")
        shown = top if not isinstance(top, CommandPalette) else base
        footers = shown.query(Footer)
        if not footers or not footers.first().is_on_screen:
            self.fail(app, f"{type(shown).__name__} shows no footer")

    async def check_a_key_acts(self, app: TicTacToeApp, pilot: Pilot[Series | None]) -> None:
        """A key typed now acts, waited for: F1 opens the help (or closes it); `s` closes the
        record, Escape any other dialog."""
        top = app.screen
        key = "s" if isinstance(top, RecordScreen) else "escape"
        if isinstance(top, GameScreen | MarkChoiceScreen | NewGameScreen | HelpScreen):
            key = "f1"
        deadline = time.monotonic() + ACTS_WITHIN
        await pilot.press(key)
        while app.screen is top:
            if time.monotonic() > deadline:
                self.fail(app, f"{key} did not act within {ACTS_WITHIN:g} s")
            await pilot.pause(0.05)
        if isinstance(app.screen, HelpScreen):
            await pilot.press("f1")


@pytest.mark.parametrize("place", list(PLACES), ids=lambda name: name.replace(" ", "_"))
async def test_random_clicks_and_keys_never_end_or_lock_the_game(place: str) -> None:
    run = Run(place)
    while not run.over:
        await run.app()
    print(f"{place}: {run.sent} inputs, {run.apps} apps")
    assert run.apps < 50, f"{run.apps} apps: the place was left too often to be fuzzed"
