"""The game on an event loop without `add_reader` and `add_signal_handler`, as on Windows.

Windows' own loop has neither. This machine is not Windows: `WindowsLikeLoop` is this system's
loop refusing both, which is what the game's code meets there (the rest of Windows, its console
and its driver, is not simulated). A match is played to the end under the signal handling of
the real command (`signals_stop`), and a signal still ends the real game cleanly.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from pathlib import Path

from app.conftest import SIZE, Driver, make_config
from app.test_process import Terminal, assert_restored, play_a_win_for_ada
from app.windows_like import WindowsLikeLoop
from tictactoe.core.series import Series
from tictactoe.process import signals_stop
from tictactoe.tui.app import TicTacToeApp

TESTS = Path(__file__).parents[1]


def test_a_match_is_played_to_the_end_on_a_loop_without_readers_or_signal_handlers() -> None:
    app = TicTacToeApp(make_config(player1="Ada", player2="Bob"))
    threads = threading.active_count()

    async def play() -> Series:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            ui = Driver(app, pilot)
            await ui.press("x", "7", "4", "8", "5", "9")
            assert ui.status().startswith("Ada wins!"), ui.status()
            assert ui.series.wins == (1, 0)
            await ui.press("q")
        assert app.return_code == 0
        assert app.series is not None
        return app.series

    with signals_stop(app.stop), asyncio.Runner(loop_factory=WindowsLikeLoop) as runner:
        series = runner.run(play())
        loop = runner.get_loop()
    assert isinstance(loop, WindowsLikeLoop) and "add_reader" in loop.refused
    assert series.played == 1 and series.wins == (1, 0)
    assert threading.active_count() == threads  # nothing the signal handling started is left


SIGNAL_TO_ANOTHER_THREAD_ON_A_WINDOWS_LIKE_LOOP = """
import asyncio, os, signal, sys, threading, time
sys.path.insert(0, sys.argv.pop())
from app.windows_like import WindowsLikePolicy
asyncio.set_event_loop_policy(WindowsLikePolicy())
number, go = getattr(signal, sys.argv.pop()), sys.argv.pop()

def take_the_signal():
    while not os.path.exists(go):
        time.sleep(0.02)
    signal.pthread_kill(threading.get_ident(), number)  # to this thread, not the main one

threading.Thread(target=take_the_signal, daemon=True).start()
from tictactoe.__main__ import main
raise SystemExit(main())
"""
"""The game on `WindowsLikeLoop`s, with a thread of its own that takes SIGTERM once a file
exists: the loop cannot watch the socket a signal writes to, and must be woken all the same."""


def test_a_signal_ends_the_real_game_cleanly_on_a_loop_without_readers(tmp_path: Path) -> None:
    go = tmp_path / "go"
    game = Terminal(
        *("--player1", "Ada", "--player2", "Bob", "--no-save", str(go), "SIGTERM", str(TESTS)),
        code=SIGNAL_TO_ANOTHER_THREAD_ON_A_WINDOWS_LIKE_LOOP,
    )
    play_a_win_for_ada(game)
    go.touch()

    assert game.finish() == 128 + signal.SIGTERM
    assert_restored(game)
    assert b"Final score" in game.after_the_game and b"Ada    1" in game.after_the_game
