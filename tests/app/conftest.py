"""Drive the real app through Textual's Pilot and read back what the screen shows.

Every test starts the app with `start(...)` and gets a `Driver`: the app, its
pilot, and readers for what is painted (cell marks, the status line, the
scoreboard) next to the `Series` that the game screen holds. Tests compare the
two, so a widget that stops rendering the state fails as surely as a broken rule.
"""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any, Final

import pytest
from textual import events
from textual.content import Content
from textual.geometry import Offset, Region
from textual.pilot import Pilot
from textual.widget import Widget

from limits import EVENT_LIMIT
from tictactoe.config import GameConfig
from tictactoe.core.engine import Mark
from tictactoe.core.series import Series
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.widgets.board import Board, Cell, mark_art
from tictactoe.tui.widgets.ultimate_board import UltimateBoard

SIZE: Final = (100, 32)
"""A comfortable terminal: the whole game fits."""

HOT_SEAT: Final[dict[str, Any]] = {"player1": "Ada", "player2": "Bob"}
"""Names that skip the new-game screen and go straight to the mark modal."""


_CHARACTERS: Final = {"space": " ", "question_mark": "?", "enter": "\r", "tab": "\t"}
"""The character a terminal sends with keys whose names are not the character itself."""


@dataclass(frozen=True)
class SquareView:
    """One square of a board, as a test sees it: what it holds, where it is, what it paints."""

    board: Board
    cell: int

    @property
    def widget(self) -> Cell:
        return self.board.cells[self.cell]

    @property
    def mark(self) -> Mark | None:
        return self.widget.mark

    @property
    def key(self) -> str:
        return self.widget.key

    @property
    def region(self) -> Region:
        """Where the square is on the screen."""
        return self.widget.region

    @property
    def middle(self) -> tuple[int, int]:
        """The screen offset of the square's middle."""
        region = self.region
        return region.x + region.width // 2, region.y + region.height // 2

    @property
    def is_on_screen(self) -> bool:
        return self.widget.is_on_screen

    def shows(self, state: str) -> bool:
        """Whether the square shows `state`: "cursor", "win" or "hint"."""
        return self.widget.has_class(f"-{state}")


def painted(widget: Widget | SquareView) -> str:
    """The characters `widget` (or one square) paints, border included, one line per row."""
    if isinstance(widget, SquareView):
        widget = widget.widget
    width, height = widget.outer_size
    strips = widget.render_lines(Region(0, 0, width, height))
    return "\n".join(strip.text for strip in strips)


def inside(widget: Widget) -> list[str]:
    """The lines `widget` paints inside its border (padding included)."""
    lines = painted(widget).splitlines()
    if widget.styles.border_top[0] not in ("", "none", "hidden"):
        lines = [line[1:-1] for line in lines[1:-1]]
    return lines


class Driver:
    """A running app, its pilot, and what the player can see."""

    def __init__(self, app: TicTacToeApp, pilot: Pilot[Series | None]) -> None:
        self.app = app
        self.pilot = pilot

    @property
    def game(self) -> GameScreen:
        screen = self.app.game_screen
        assert screen is not None, "no game screen yet"
        return screen

    @property
    def series(self) -> Series:
        return self.game.series

    async def press(self, *keys: str) -> None:
        """Press keys one by one; Pilot waits for each to be handled and any screen switch."""
        await self.pilot.press(*keys)

    async def burst(self, *keys: str) -> None:
        """Send `keys` the way a terminal delivers type-ahead: all queued at once, no pause
        between them; then let the app handle them."""
        for key in keys:
            self.app.post_message(
                events.Key(key, _CHARACTERS.get(key, key if len(key) == 1 else None))
            )
        for _ in range(3):
            await self.pilot.pause()

    async def click(self, selector: str) -> None:
        await self.pilot.click(selector)
        await self.pilot.pause()

    def cell(self, cell: int) -> SquareView:
        board = self.game.board
        assert isinstance(board, Board), "a classic board"
        return SquareView(board, cell)

    def marks(self) -> tuple[Mark | None, ...]:
        """The mark each cell widget shows, cell 0 (top-left) first."""
        return tuple(self.cell(cell).mark for cell in range(9))

    def face(self, cell: int) -> str:
        """What a cell paints inside its border, read back as "X", "O" or its digit.

        A mark counts only if the painted shape is that mark's drawing for the
        cell's current size, so a cell showing the wrong drawing fails.
        """
        square = self.cell(cell)
        lines = painted(square).splitlines()[1:-1]
        inside = "".join("".join(line[1:-1] for line in lines).split())
        for mark in Mark:
            if inside == "".join(mark_art(mark, square.widget.art_room).split()):
                return str(mark)
        return inside

    def board_text(self) -> str:
        """The painted board, row by row: "X 8 9\n4 O 6\n1 2 3"."""
        return "\n".join(
            " ".join(self.face(cell) for cell in range(row * 3, row * 3 + 3)) for row in range(3)
        )

    def cells_with(self, state: str) -> set[int]:
        """The squares that show `state`: "cursor", "win" or "hint"."""
        return {cell for cell in range(9) if self.cell(cell).shows(state)}

    async def click_cell(self, cell: int) -> None:
        """Click the middle of a square."""
        await self.pilot.click(offset=self.cell(cell).middle)
        await self.pilot.pause()

    async def click_ultimate(self, move: int) -> None:
        """Click the middle of one of the Ultimate board's 81 cells, where the screen shows it."""
        board = self.game.board
        assert isinstance(board, UltimateBoard), "the Ultimate board"
        region = board.boards[move // 9].cell_region(move % 9)
        assert region.area, "the cell is drawn"
        await self.pilot.click(offset=Offset(region.x + region.width // 2, region.y))
        await self.pilot.pause()

    def status(self) -> str:
        """The status line under the board, as painted."""
        return painted(self.game.query_one("#status")).strip()

    def card(self, player: int) -> str:
        """A player's scoreboard card as painted: "▶ name | mark | N wins | · level"."""
        card = self.game.query_one(f"#player-{player + 1}")
        name, detail = (line.strip() for line in inside(card)[:2])
        mark, _, rest = detail.partition(" ")
        wins, _, level = rest.strip().partition(" · ")
        return " | ".join((name, mark, wins, f"· {level}" if level else ""))

    def tally(self) -> str:
        return " ".join(painted(self.game.query_one("#tally")).split())

    def to_move_card(self) -> int | None:
        """Which player's card is highlighted as the one to move."""
        cards = [self.game.scoreboard.card(index) for index in (0, 1)]
        shown = [index for index, card in enumerate(cards) if card and card.to_move]
        assert len(shown) <= 1, cards
        return shown[0] if shown else None

    def toasts(self) -> list[str]:
        """What the notifications on show say, as a player reads them (title, then message).

        Only an app started with `notifications=True` shows them (Pilot hides them unless
        told), and a toast is mounted a moment after its notice: pause before reading.
        """
        said: list[str] = []
        for toast in self.app.screen.query("Toast"):
            shown = toast.render()
            assert isinstance(shown, Content), shown
            said.append(shown.plain)
        return said

    def top_text(self, selector: str) -> str:
        """Text painted by a widget of the screen on top (a modal, the new-game screen)."""
        return painted(self.app.screen.query_one(selector)).strip()

    def assert_board_matches_match(self) -> None:
        """The cell widgets hold and paint exactly the core's board, and the win line is lit."""
        game = self.series.match
        expected = game.board if game else (None,) * 9
        assert self.marks() == expected
        if self.game.board.is_on_screen:
            assert tuple(self.face(cell) for cell in range(9)) == tuple(
                str(mark) if mark else self.cell(cell).key for cell, mark in enumerate(expected)
            )
        assert self.cells_with("win") == (set(game.winning_cells) if game else set())


Start = Callable[..., AbstractAsyncContextManager[Driver]]


def make_config(**overrides: Any) -> GameConfig:
    """A test session: no delay, a fixed seed, nothing written to disk."""
    settings: dict[str, Any] = {"computer_delay": 0, "seed": 7, "save": False}
    settings.update(overrides)
    return GameConfig(**settings)


@pytest.fixture
def start() -> Start:
    """`async with start(player1=..., ...) as ui:` runs the app, at `SIZE` unless told,
    its notifications shown as toasts when told (`notifications=True`)."""

    @asynccontextmanager
    async def _start(
        size: tuple[int, int] = SIZE, notifications: bool = False, **overrides: Any
    ) -> AsyncIterator[Driver]:
        app = TicTacToeApp(make_config(**overrides))
        async with app.run_test(size=size, notifications=notifications) as pilot:
            await pilot.pause()
            yield Driver(app, pilot)

    return _start


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """After a run that fuzzed the app (test_fuzz.py), say how many random events it sent."""
    fuzzing = sys.modules.get("app.fuzzing")
    reports = getattr(fuzzing, "REPORTS", None)
    if fuzzing is not None and reports:
        terminalreporter.write_line(fuzzing.summary(reports))


async def running_until(
    ui: Driver,
    condition: Callable[[], object],
    what: str,
    seen: Callable[[], object] | None = None,
) -> None:
    """Let the app run until `condition()` holds; past `EVENT_LIMIT`, say `what` did not come
    and what `seen` shows (by default the screen on top and its statics' words)."""
    deadline = time.monotonic() + EVENT_LIMIT
    while not condition():
        if time.monotonic() > deadline:
            shown = seen() if seen is not None else on_top(ui)
            raise AssertionError(f"{what} did not come within {EVENT_LIMIT:.0f} s; seen: {shown!r}")
        await ui.pilot.pause(0.02)


def on_top(ui: Driver) -> str:
    """The screen on top and the words of its statics, for a failure to say what it showed."""
    screen = ui.app.screen
    words = " | ".join(" ".join(painted(static).split()) for static in screen.query("Static"))
    return f"{type(screen).__name__}: {words[-1500:]}"


async def wait_for_the_computer(ui: Driver) -> None:
    """Wait for a zero-delay reply to land (ten turns of the loop were not always enough on a
    busy machine: the reply comes on a timer)."""
    await running_until(
        ui, lambda: not ui.series.awaits_computer, "the computer's move", lambda: ui.series.match
    )


@pytest.fixture(autouse=True)
def crash_log_in_tmp(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that crashes the app writes its crash log under tmp_path, not the user's."""
    import tictactoe.tui.app

    monkeypatch.setattr(tictactoe.tui.app, "CRASH_LOG", tmp_path / "crash.log")
