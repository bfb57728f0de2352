"""What start-up draws first."""

from __future__ import annotations

import gc
import signal
import sys

import pytest

import tictactoe.cli
from app.conftest import HOT_SEAT, SIZE, make_config, painted
from tictactoe.__main__ import SWITCH_INTERVAL, main
from tictactoe.app import TicTacToeApp
from tictactoe.process import SIGNALS
from tictactoe.widgets.scoreboard import PlayerCard


async def test_keys_typed_at_launch_leave_the_scoreboard_drawn() -> None:
    """The mark and two moves typed at once, as the game starts: the scoreboard shows both
    players."""
    app = TicTacToeApp(make_config(**HOT_SEAT))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x", "5", "1")
        await pilot.pause()
        text = "\n".join(painted(card) for card in app.screen.query(PlayerCard))
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
