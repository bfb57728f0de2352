"""The game screen plays at a table, whichever it is: a fake one here, that records what it is
given and shows what the test tells it to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App

import tictactoe.tui.app
from app.conftest import painted
from tictactoe.core.engine import Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.notices import Notice
from tictactoe.core.seats import Paused
from tictactoe.core.series import (
    ChooseMark,
    Confirm,
    Intent,
    NextMatch,
    Play,
    Series,
    SeriesError,
    Undo,
)
from tictactoe.play.table import Leaving, Table
from tictactoe.tui.app import with_lines
from tictactoe.tui.screens.game import GameScreen

SIZE = (100, 32)


class FakeTable(Table):
    """Takes every intent without a word (or refuses it with `refusal`), and counts the rest."""

    def __init__(self, series: Series, *, watching: bool = False) -> None:
        super().__init__(series)
        self.watching = watching
        self.given: list[Intent] = []
        self.refusal: SeriesError | None = None
        self.hints = self.leaves = self.marks_wanted = 0

    def act(self, intent: Intent) -> SeriesError | None:
        self.given.append(intent)
        return self.refusal

    def hinted(self) -> None:
        self.hints += 1

    def next_step(self) -> None:
        if self.series.person_choosing is not None:
            self.marks_wanted += 1

    async def leave(self) -> Leaving:
        self.leaves += 1
        return Leaving(self.series)

    def invite(self) -> None:
        raise AssertionError("a table that cannot invite is never asked to")


class AtTheTable(App[None]):
    CSS_PATH = str(Path(tictactoe.tui.app.__file__).with_name("app.tcss"))

    def __init__(self, table: FakeTable) -> None:
        super().__init__()
        self.table = table

    def get_css_variables(self) -> dict[str, str]:
        return with_lines(super().get_css_variables(), dark=self.current_theme.dark)

    def on_mount(self) -> None:
        self.push_screen(GameScreen(self.table, layout=KeyLayout.NUMPAD))

    async def action_quit(self) -> None:
        """Leave through the table, as the game's app does."""
        await self.table.leave()
        self.exit()

    @property
    def game(self) -> GameScreen:
        screen = self.screen
        assert isinstance(screen, GameScreen)
        return screen


def mid_match() -> Series:
    return Series.new("Ada", "Bob").apply(ChooseMark(Mark.X)).apply(Play(4))


async def test_keys_become_intents_given_to_the_table_in_order() -> None:
    table = FakeTable(mid_match())
    app = AtTheTable(table)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("7", "u", "3", "enter", "n")
        await pilot.pause()
    # The screen decides nothing: the table was given each, even those the core would refuse.
    # (The cursor goes to a move's cell as the table answers: this one never does, so Enter
    # confirms the cell the cursor was on.)
    assert table.given == [Play(0), Undo(), Play(8), Confirm(4), NextMatch()]


async def test_the_screen_draws_what_the_table_shows_and_says_its_refusals() -> None:
    table = FakeTable(mid_match())
    app = AtTheTable(table)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        game = app.game
        table.refusal = Paused("Bob")
        await pilot.press("1")
        await pilot.pause()
        assert "The series is paused: waiting for Bob." in painted(game.query_one("#status"))
        later = mid_match().apply(Play(0))
        table.show(later, Notice.of("Bob is back."))
        await pilot.pause()
        assert game.series == later == table.series  # one series: the one on show
        assert "Bob is back." in painted(game.query_one("#status"))
        assert table.marks_wanted == 0


async def test_a_hint_shown_is_told_to_the_table_and_the_dialog_quit_leaves_it() -> None:
    table = FakeTable(mid_match())
    app = AtTheTable(table)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        game = app.game
        await pilot.press("h")
        await pilot.pause()
        assert table.hints == 1 and game.board.hints
        await game.choose_mark(None)
        assert table.leaves == 1


async def test_a_watchers_table_takes_none_of_the_players_keys() -> None:
    table = FakeTable(mid_match(), watching=True)
    app = AtTheTable(table)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("u", "h", "n", "i")
        await pilot.pause()
        footer: Any = app.screen.active_bindings
        offered = {binding.action for _, binding, enabled, _ in footer.values() if enabled}
    assert table.given == [] and table.hints == 0
    assert not offered & {"undo", "hint", "next_match", "invite"}
