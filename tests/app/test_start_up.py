"""What start-up draws first, and the work it leaves out on the way there."""

from __future__ import annotations

import gc
import signal
import sys
from collections import Counter
from typing import Any

import pytest
from textual.css.stylesheet import Stylesheet
from textual.geometry import Region
from textual.screen import Screen

import tictactoe.cli
from app.conftest import HOT_SEAT, SIZE, make_config
from tictactoe.__main__ import SWITCH_INTERVAL, main
from tictactoe.app import TicTacToeApp
from tictactoe.process import SIGNALS
from tictactoe.screens.mark_choice import MarkChoiceScreen
from tictactoe.widgets.board import Board, Square
from tictactoe.widgets.scoreboard import Scoreboard


async def test_the_first_frame_already_shows_the_mark_dialog() -> None:
    """The dialog opens as the game screen is made: no frame of the board alone comes first."""
    app = TicTacToeApp(make_config(**HOT_SEAT))
    display = app._display
    on_top: list[type[Screen[Any]]] = []

    def watched(screen: Screen[Any], renderable: Any) -> None:
        if renderable is not None:
            on_top.append(type(app.screen))
        display(screen, renderable)

    app._display = watched  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert on_top
        assert on_top[0] is MarkChoiceScreen


async def test_the_board_is_styled_once_on_the_way_to_the_first_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each square is styled as it mounts, and not again: not as the game screen first
    comes on top (Textual would restyle the whole screen then), nor when the board takes
    the focus, nor when the dialog covers it."""
    app = TicTacToeApp(make_config(**HOT_SEAT))
    styled: Counter[type[object]] = Counter()
    apply = Stylesheet.apply

    def counted(stylesheet: Stylesheet, node: Any, *args: Any, **kwargs: Any) -> None:
        if stylesheet is app.stylesheet:
            styled[type(node)] += 1
        apply(stylesheet, node, *args, **kwargs)

    monkeypatch.setattr(Stylesheet, "apply", counted)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MarkChoiceScreen)
        assert styled[Square] == 9
        assert styled[Board] == 1


async def test_keys_typed_at_launch_leave_the_scoreboard_drawn() -> None:
    """The mark and two moves typed at once, as the game starts: the scoreboard's lines,
    as it keeps them to send to the terminal (a screenshot draws every widget afresh),
    show both players."""
    app = TicTacToeApp(make_config(**HOT_SEAT))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x", "5", "1")
        await pilot.pause()
        scoreboard = app.screen.query_one(Scoreboard)
        lines = scoreboard.render_lines(Region(0, 0, *scoreboard.size))
        text = "\n".join(line.text for line in lines)
        assert "Ada" in text and "Bob" in text, text


def test_the_command_has_threads_hand_over_the_interpreter_within_a_fraction_of_a_millisecond(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Textual writes frames from a thread of its own: with Python's 5 ms between
    hand-overs, a frame waited 7 to 25 ms for the interpreter before reaching the terminal
    (benchmarks/README.md). The command shortens that for the whole session."""
    seen: list[float] = []

    def run() -> int:
        seen.append(sys.getswitchinterval())
        return 0

    monkeypatch.setattr(tictactoe.cli, "main", run)
    interval, collecting = sys.getswitchinterval(), gc.isenabled()
    handlers = {number: signal.getsignal(number) for number in SIGNALS}
    try:
        assert main() == 0
    finally:
        sys.setswitchinterval(interval)
        if collecting:
            gc.enable()
        for number, handler in handlers.items():
            signal.signal(number, handler)
    assert seen == [pytest.approx(SWITCH_INTERVAL)]  # Python keeps it in microseconds
    assert SWITCH_INTERVAL <= 0.0005 < interval
