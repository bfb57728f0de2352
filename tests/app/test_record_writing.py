"""Writing the record while people play: the game never waits for the file, nothing is lost.

The real app, driven with Pilot, records into a file under tmp_path while another
connection (as another program would) holds the file's lock, deletes it, or replaces it.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual.widgets import DataTable

from app.conftest import HOT_SEAT, Driver, Start, painted
from limits import EVENT_LIMIT, within
from tictactoe.record import GameRecord
from tictactoe.tui.screens.record import RecordScreen

ADA_WINS = ("x", "7", "4", "8", "5", "9")
"""Ada takes X and the top row (keypad digits) while Bob takes two of the middle row."""
BOB_WINS = ("n", "o", "5", "7", "4", "8", "6")
"""The next match: Bob chooses O, moves first and takes the middle row."""
ADA_AGAIN = ("n", "x", "7", "4", "8", "5", "9")
"""The match after: Ada chooses X again and takes the top row."""


def saving(tmp_path: Path) -> dict[str, Any]:
    """Config overrides that keep the record and the settings in `tmp_path`."""
    return {
        "save": True,
        "record_file": tmp_path / "record.sqlite3",
        "settings_file": tmp_path / "settings.json",
    }


def winners(path: Path) -> list[str]:
    """The winner of each recorded match, oldest first, read by a record of its own."""
    record = GameRecord(path)
    try:
        return [
            match.players[match.winner].name if match.winner is not None else "draw"
            for match in reversed(record.recent())
        ]
    finally:
        record.close()


async def eventually(ui: Driver, condition: Callable[[], bool]) -> None:
    """Let the app run until `condition` holds; past the limit, say what the game showed."""
    deadline = time.monotonic() + EVENT_LIMIT
    while not condition():
        assert time.monotonic() < deadline, (
            f"not within {EVENT_LIMIT:.0f} s; the game showed {type(ui.app.screen).__name__},"
            f" {ui.status()!r}, toasts {ui.toasts()!r}, {ui.app.unsaved_matches} unsaved"
        )
        await ui.pilot.pause(0.05)


@asynccontextmanager
async def longest_pause() -> AsyncIterator[list[float]]:
    """The longest time the event loop (the app's and the test's) went without a turn."""
    gaps = [0.0]

    async def tick() -> None:
        last = time.monotonic()
        while True:
            await asyncio.sleep(0.005)
            now = time.monotonic()
            gaps[0] = max(gaps[0], now - last)
            last = now

    ticker = asyncio.create_task(tick())
    try:
        yield gaps
    finally:
        ticker.cancel()


def lock(path: Path) -> sqlite3.Connection:
    """Another program holding the record's write lock, as `sqlite3` with BEGIN EXCLUSIVE."""
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN EXCLUSIVE")
    other.execute("INSERT INTO imports (digest, source, imported_at) VALUES ('d', 's', 't')")
    return other


def unlock(other: sqlite3.Connection) -> None:
    other.execute("ROLLBACK")
    other.close()


async def test_a_record_locked_by_another_program_never_holds_the_game(
    start: Start, tmp_path: Path
) -> None:
    path = tmp_path / "record.sqlite3"
    async with start(**HOT_SEAT, **saving(tmp_path), notifications=True) as ui:
        await ui.press(*ADA_WINS)
        await eventually(ui, lambda: winners(path) == ["Ada"])
        other = lock(path)
        try:
            async with longest_pause() as gaps:
                await ui.press(*BOB_WINS)
                assert ui.status().startswith("Bob wins!")
                await ui.press(*ADA_AGAIN)
                assert ui.status().startswith("Ada wins!")
            print(f"the game's longest stand-still: {gaps[0]:.2f} s (the lock's wait is 2 s)")
            assert winners(path) == ["Ada"]
            await eventually(ui, lambda: any("locked" in text for text in ui.toasts()))
            assert ui.app.unsaved_matches == 2
        finally:
            unlock(other)
        # Saved when the lock goes, without waiting for another match or the quit, in order.
        await eventually(ui, lambda: winners(path) == ["Ada", "Bob", "Ada"])
        saved = f"Saved data\nThe game record {path} is saved again."
        await eventually(ui, lambda: saved in ui.toasts())
        assert ui.app.unsaved_matches == 0


async def test_the_last_save_at_quit_waits_for_a_lock_that_goes_soon(
    start: Start, tmp_path: Path
) -> None:
    path = tmp_path / "record.sqlite3"
    async with start(**HOT_SEAT, **saving(tmp_path)) as ui:
        await ui.press(*ADA_WINS)
        await eventually(ui, lambda: winners(path) == ["Ada"])
        other = lock(path)
        await ui.press(*BOB_WINS)
        release = threading.Timer(0.5, unlock, (other,))  # the quit may hold this loop
        release.start()
        await ui.press("q")
        release.join()
    assert ui.app.unsaved_matches == 0
    assert winners(path) == ["Ada", "Bob"]


async def test_the_last_save_at_quit_gives_up_on_a_lock_held_on(
    start: Start, tmp_path: Path
) -> None:
    path = tmp_path / "record.sqlite3"
    async with start(**HOT_SEAT, **saving(tmp_path)) as ui:
        await ui.press(*ADA_WINS)
        await eventually(ui, lambda: winners(path) == ["Ada"])
        other = lock(path)
        try:
            await within(ui.press(*BOB_WINS, "q"), ui.status, "the quit")  # a bounded wait
        finally:
            unlock(other)
    assert ui.app.unsaved_matches == 1, "the last words say what could not be saved"
    assert winners(path) == ["Ada"]


def players_shown(ui: Driver) -> list[list[str]]:
    """The Players table of the record screen on show: name, matches, wins."""
    table = ui.app.screen.query_one("#players-table", DataTable)
    rows = (table.get_row_at(row) for row in range(table.row_count))
    return [[str(cell) for cell in row[:3]] for row in rows]


async def test_the_record_screen_reads_again_once_a_locked_record_is_saved(
    start: Start, tmp_path: Path
) -> None:
    path = tmp_path / "record.sqlite3"
    async with start(**HOT_SEAT, **saving(tmp_path)) as ui:
        await ui.press(*ADA_WINS)
        await eventually(ui, lambda: winners(path) == ["Ada"])
        other = lock(path)
        try:
            await ui.press(*BOB_WINS, "s")
            assert isinstance(ui.app.screen, RecordScreen)
            assert players_shown(ui) == [["Ada", "1", "1"], ["Bob", "1", "0"]]
            where = painted(ui.app.screen.query_one("#record-where"))
            assert "1 match of this session not saved yet" in where
        finally:
            unlock(other)
        both = [["Ada", "2", "1"], ["Bob", "2", "1"]]
        await eventually(ui, lambda: sorted(players_shown(ui)) == both)
        kept = f"Kept in {path}"  # said once the save is done: it may come a frame after the list
        await eventually(
            ui, lambda: painted(ui.app.screen.query_one("#record-where")).strip() == kept
        )


def delete(path: Path) -> None:
    """`rm record.sqlite3*` from another terminal."""
    for file in path.parent.glob(f"{path.name}*"):
        file.unlink()


async def test_a_record_deleted_during_play_is_written_again_with_the_sessions_matches(
    start: Start, tmp_path: Path
) -> None:
    path = tmp_path / "record.sqlite3"
    async with start(**HOT_SEAT, **saving(tmp_path), notifications=True) as ui:
        await ui.press(*ADA_WINS)
        await eventually(ui, lambda: winners(path) == ["Ada"])
        delete(path)
        await ui.press(*BOB_WINS)
        await eventually(ui, lambda: path.exists() and winners(path) == ["Ada", "Bob"])
        said = f"Saved data\nThe game record {path} was deleted during play; this session's 1 match"
        await eventually(ui, lambda: any(text.startswith(said) for text in ui.toasts()))
        delete(path)
        await ui.press("q")
    assert ui.app.unsaved_matches == 0
    assert winners(path) == ["Ada", "Bob"], "deleted after the last match: written at quit"


async def test_a_record_replaced_during_play_gets_the_sessions_matches_once(
    start: Start, tmp_path: Path
) -> None:
    path = tmp_path / "record.sqlite3"
    async with start(**HOT_SEAT, **saving(tmp_path)) as ui:
        await ui.press(*ADA_WINS)
        await eventually(ui, lambda: winners(path) == ["Ada"])
        backup = tmp_path / "backup.sqlite3"
        copy = sqlite3.connect(path)
        copy.execute(f"VACUUM INTO '{backup}'")  # a copy holding this session's first match
        copy.close()
        delete(path)
        backup.rename(path)
        await ui.press(*BOB_WINS)
        await eventually(ui, lambda: winners(path) == ["Ada", "Bob"])
        await ui.press("q")
    assert winners(path) == ["Ada", "Bob"]
