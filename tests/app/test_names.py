"""Any name a person can type is shown literally, within its space (hypothesis)."""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.pilot import Pilot

from app.conftest import inside, painted
from tictactoe.config import GameConfig
from tictactoe.core.engine import Mark
from tictactoe.core.names import (
    MAX_MARKS,
    MAX_NAME_LENGTH,
    NAME_WIDTH,
    clean_name,
    graphemes,
    name_key,
    short,
)
from tictactoe.core.series import Series
from tictactoe.tui.app import TicTacToeApp

TRICKY = [
    "[bold]Eve[/]",
    "[red]Mallory[/red] [link=https://example.org]click[/link]",
    "[/]",
    "\\[escaped]",
    ":smile: $accent",
    "漢字の名前",
    "e\u0301le\u0300ve",
    "שלום עולם",
    "مرحبا",
    "👩\u200d💻 Ada",
    "Zoë\x1b[31m\x07\x00",
    "tab\tand\nnewline",
    "\u202eevil override",
    "x" * 1000,
    "字" * 600,
]

names = st.one_of(
    st.sampled_from(TRICKY),
    st.text(max_size=1000),
    st.lists(
        st.one_of(
            st.sampled_from(["[b]", "[/]", "[red]", "[/red]", "[@click=app.quit]", "\\"]),
            st.sampled_from(["漢", "e\u0301", "ש", "\u200d", "\x1b", "\x00", "\t", "👩"]),
            st.text(max_size=5),
        ),
        max_size=60,
    ).map("".join),
)


def is_control(char: str) -> bool:
    category = unicodedata.category(char)
    return category in {"Cc", "Cs", "Cn"} or (category == "Cf" and char not in "\u200c\u200d")


def nothing_to_see(chars: list[str]) -> bool:
    """Only characters that take no cell, show as nothing or are blank (see test_series)."""
    return all(cell_len(char) == 0 or not name_key(char) or char == "\u2800" for char in chars)


@given(names)
@settings(max_examples=300, deadline=None)
def test_a_cleaned_name_keeps_every_visible_character_and_no_control(raw: str) -> None:
    name = clean_name(raw, "Player 1")
    assert name and name == name.strip()
    assert not any(is_control(char) for char in name)
    assert clean_name(name, "Player 1") == name
    text = unicodedata.normalize("NFC", raw)
    text = "".join(cluster[: 1 + MAX_MARKS] for cluster in graphemes(text))  # marks piled high
    visible = [char for char in text if not is_control(char) and not char.isspace()]
    kept = [char for char in name if not char.isspace()]
    assert len(graphemes(name)) <= MAX_NAME_LENGTH
    assert kept == visible[: len(kept)] or (nothing_to_see(visible) and name == "Player 1")
    if len(graphemes(name)) < MAX_NAME_LENGTH - 1:  # not cut short: every character is there
        assert kept == visible or (nothing_to_see(visible) and name == "Player 1")


@given(names.map(lambda raw: clean_name(raw, "Player 1")))
@settings(max_examples=300, deadline=None)
def test_a_name_in_a_sentence_fits_its_width_and_is_a_literal_prefix(name: str) -> None:
    shown = short(name)
    assert cell_len(shown) <= NAME_WIDTH
    if shown != name:
        assert shown.endswith("…") and name.startswith(shown[:-1].rstrip())


class AppInOneTask:
    """A running app that many hypothesis examples can use in turn.

    Starting an app per example would take minutes. Textual keeps context variables
    that must be entered and left in one task, so that task runs every job.
    """

    def __init__(self, app: TicTacToeApp) -> None:
        self.app = app
        self.loop = asyncio.new_event_loop()
        self.jobs: asyncio.Queue[tuple[Job, asyncio.Future[object]] | None] = asyncio.Queue()
        self.started: asyncio.Future[None] = self.loop.create_future()
        self.task = self.loop.create_task(self._run())
        self.loop.run_until_complete(self.started)

    async def _run(self) -> None:
        async with self.app.run_test(size=(100, 32)) as pilot:
            await pilot.press("x")
            self.started.set_result(None)
            while (job := await self.jobs.get()) is not None:
                work, result = job
                try:
                    result.set_result(await work(pilot))
                except Exception as error:
                    result.set_exception(error)

    def __call__(self, work: Job) -> object:
        result: asyncio.Future[object] = self.loop.create_future()
        self.jobs.put_nowait((work, result))
        return self.loop.run_until_complete(result)

    def close(self) -> None:
        self.jobs.put_nowait(None)
        self.loop.run_until_complete(self.task)
        self.loop.close()


Job = Callable[[Pilot[Any]], Awaitable[object]]


@pytest.fixture(scope="module")
def running_app() -> Iterator[AppInOneTask]:
    runner = AppInOneTask(
        TicTacToeApp(GameConfig(player1="Ada", player2="Bob", save=False, computer_delay=0))
    )
    try:
        yield runner
    finally:
        runner.close()


async def show(app: TicTacToeApp, pilot: Pilot[Any], raw: str) -> tuple[str, str, str, int]:
    """Put a player called `raw` on the game screen: its name, card line, status, card width."""
    other = "Bob" if clean_name(raw, "Player 1").casefold() != "bob" else "Eve"
    series = Series.new(raw, other).choose_mark(Mark.X)
    game = app.game_screen
    assert game is not None
    game.series = series
    await pilot.pause()
    card = game.query_one("#player-1")
    name_line = inside(card)[0]
    status = game.query_one("#status")
    room = card.content_size.width
    return series.players[0].name, name_line.strip(), painted(status), room


@given(raw=names)
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_any_name_is_shown_literally_within_its_space(running_app: AppInOneTask, raw: str) -> None:
    shown = running_app(lambda pilot: show(running_app.app, pilot, raw))
    assert isinstance(shown, tuple)
    name: str
    card: str
    status: str
    card_width: int
    name, card, status, card_width = shown

    assert cell_len(card) <= card_width, "a name takes one line of the card"
    line = card.rstrip()
    assert line.startswith("▶ ")
    if line.endswith("…"):
        assert name.startswith(line[2:-1].rstrip()[: len(name)])
    else:
        assert line[2:] == name.rstrip()
    assert short(name) in " ".join(status.split()) or short(name).split()[0] in status
