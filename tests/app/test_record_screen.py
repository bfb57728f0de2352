"""The record screen (`s`): its four tabs, sorting, paging and replays, driven with Pilot."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Footer, OptionList, TabbedContent

from app.conftest import HOT_SEAT, Driver, Start, painted
from tictactoe.core.ai import Level
from tictactoe.core.engine import CELL_NAMES, GameState, Mark
from tictactoe.core.series import Player
from tictactoe.record import GameRecord, MatchRecord, PlayerSort
from tictactoe.tui.screens.details import DetailsScreen
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.help import HelpScreen
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen
from tictactoe.tui.screens.record import RecordScreen
from tictactoe.tui.screens.record_rows import player_label
from tictactoe.tui.screens.replay import ReplayPane, local_time
from tictactoe.tui.widgets.board import mark_art
from tictactoe.tui.widgets.paged_table import PAGE

ADA, BOB, HARD = Player("Ada"), Player("Bob"), Player.computer(Level.HARD)
START = datetime(2026, 11, 20, 18, 0, tzinfo=UTC)


@pytest.fixture
def start(start: Start) -> Start:
    """The app, with Textual's animations off (a person's `TEXTUAL_ANIMATIONS=none`): the tabs'
    underline moves at once instead of sliding, so that `Pilot.press`, which waits for every
    animation to end, does not wait 0.3 s at each change of tab. Nothing here reads the
    underline; the record's contents, keys and screens are the same either way."""

    @asynccontextmanager
    async def _start(**settings: Any) -> AsyncIterator[Driver]:
        async with start(**settings) as ui:
            ui.app.animation_level = "none"
            yield ui

    return _start


def match(
    first: Player,
    second: Player,
    moves: tuple[int, ...],
    minute: int,
    marks: tuple[Mark, Mark] = (Mark.X, Mark.O),
) -> MatchRecord:
    state = GameState.new(first=marks[0])
    for cell in moves:
        state = state.play(cell)
    winner = None if state.winner is None else marks.index(state.winner)
    return MatchRecord((first, second), marks, 0, moves, winner, START + timedelta(minutes=minute))


def keep(tmp_path: Path, *matches: MatchRecord) -> dict[str, Any]:
    """A record holding `matches`; the config overrides that play on it."""
    path = tmp_path / "record.sqlite3"
    record = GameRecord(path)
    assert record.player_count() == 0  # the first use makes the file
    for recorded in matches:
        record.add(recorded)
    record.close()
    return {"save": True, "record_file": path, "settings_file": tmp_path / "settings.json"}


def screen(ui: Driver) -> RecordScreen:
    assert isinstance(ui.app.screen, RecordScreen), ui.app.screen
    return ui.app.screen


def rows(ui: Driver, table_id: str) -> list[list[str]]:
    table = screen(ui).query_one(table_id, DataTable)
    return [[str(cell) for cell in table.get_row_at(row)] for row in range(table.row_count)]


def column(ui: Driver, table_id: str, index: int = 0) -> list[str]:
    return [row[index] for row in rows(ui, table_id)]


def replay(ui: Driver) -> ReplayPane:
    return screen(ui).query_one(ReplayPane)


def marked_line(ui: Driver) -> str:
    """The move-list line that carries the ▶."""
    moves = replay(ui).query_one("#replay-moves", OptionList)
    lines = [str(moves.get_option_at_index(index).prompt) for index in range(moves.option_count)]
    (current,) = [line for line in lines if line.startswith("▶")]
    assert moves.highlighted == lines.index(current)
    return current


ADA_WINS = (0, 3, 1, 4, 2)
DRAW = (4, 0, 2, 6, 3, 5, 1, 7, 8)


async def test_players_are_sorted_by_any_column_with_a_key_or_a_click(
    start: Start, tmp_path: Path
) -> None:
    config = keep(
        tmp_path,
        match(Player("Cy"), BOB, ADA_WINS, 1),
        match(Player("Cy"), BOB, ADA_WINS, 2),
        match(ADA, BOB, DRAW, 3),
        match(ADA, HARD, DRAW, 4),
        match(BOB, ADA, ADA_WINS, 5),
    )
    async with start(**HOT_SEAT, **config) as ui:
        await ui.press("x", "s")
        assert screen(ui).tabs.active == "players"
        assert rows(ui, "#players-table")[:2] == [
            ["Cy", "2", "2", "0", "0", "100%"],
            ["Bob", "4", "1", "2", "1", "25%"],
        ]
        assert "Wins ▼" in painted(screen(ui).query_one("#players-table"))

        await ui.press("1")  # the Player column, A to Z
        assert column(ui, "#players-table") == ["Ada", "Bob", "Computer (hard)", "Cy"]
        await ui.press("1")  # again: Z to A
        assert column(ui, "#players-table") == ["Cy", "Computer (hard)", "Bob", "Ada"]
        await ui.press("5")  # most draws first
        assert column(ui, "#players-table", 4) == ["2", "1", "1", "0"]

        await ui.pilot.click("#players-table", offset=(3, 0))  # the "Player" heading
        await ui.pilot.pause()
        assert column(ui, "#players-table") == ["Ada", "Bob", "Computer (hard)", "Cy"]
        await ui.pilot.click("#players-table", offset=(3, 0))
        await ui.pilot.pause()
        assert column(ui, "#players-table") == ["Cy", "Computer (hard)", "Bob", "Ada"]


async def test_a_long_record_is_fetched_a_page_at_a_time(start: Start, tmp_path: Path) -> None:
    config = keep(tmp_path)
    db = sqlite3.connect(config["record_file"])
    with db:
        db.execute("INSERT INTO players (id, kind, name) VALUES (1, 'person', 'Rival')")
        db.executemany(
            "INSERT INTO players (id, kind, name) VALUES (?, 'person', ?)",
            [(number, f"Player {number:03}") for number in range(2, 252)],
        )
        db.executemany(
            "INSERT INTO matches (finished_at, player1, player2, mark1, first_mover, moves,"
            " winner) VALUES ('2026-11-20 18:00:00', ?, 1, 'X', 1, '01234', 1)",
            [(number,) for number in range(2, 252)],
        )
    db.close()
    async with start(**HOT_SEAT, **config) as ui:
        await ui.press("x", "s")
        table = screen(ui).query_one("#players-table", DataTable)
        assert table.row_count == PAGE
        await ui.press("down", "down")
        assert table.row_count == PAGE, "a page is fetched only near the end"
        loaded = [table.row_count]
        while len(loaded) < 10 and loaded[-1] < 251:
            await ui.press("ctrl+end")
            loaded.append(table.row_count)
        assert loaded == [*range(PAGE, 251, PAGE), 251]
        await ui.press("ctrl+end")
        assert table.row_count == 251
        await ui.press("m")
        recent = screen(ui).query_one("#recent-table", DataTable)
        assert recent.row_count == PAGE
        for _ in range(5):
            await ui.press("ctrl+end")
        assert recent.row_count == 250
        assert len({str(recent.get_row_at(row)[1]) for row in range(250)}) == 250


async def test_head_to_head_shows_this_sessions_two_players_all_time(
    start: Start, tmp_path: Path
) -> None:
    config = keep(
        tmp_path,
        match(ADA, BOB, ADA_WINS, 1),
        match(BOB, ADA, ADA_WINS, 2),
        match(ADA, BOB, ADA_WINS, 3),
        match(ADA, HARD, DRAW, 4),
        match(ADA, BOB, DRAW, 5),
    )
    async with start(**HOT_SEAT, **config) as ui:
        await ui.press("x", "s", "h")
        assert screen(ui).tabs.active == "head-to-head"
        assert rows(ui, "#h2h-summary") == [["Ada", "2", "1", "1"], ["Bob", "1", "2", "1"]]
        assert "4 matches, " in painted(screen(ui).query_one("#h2h-hint"))
        assert column(ui, "#h2h-table", 4) == ["Draw", "Ada won", "Bob won", "Ada won"]


async def test_recent_matches_newest_first_and_a_replay_step_by_step(
    start: Start, tmp_path: Path
) -> None:
    config = keep(
        tmp_path,
        match(ADA, BOB, DRAW, 1),
        match(ADA, HARD, (4, 0, 8, 2, 1, 7, 6, 3, 5), 2, marks=(Mark.O, Mark.X)),
        match(BOB, ADA, ADA_WINS, 3),
    )
    async with start(**HOT_SEAT, **config) as ui:
        await ui.press("x", "s", "m")
        assert screen(ui).tabs.active == "recent"
        assert [row[1:] for row in rows(ui, "#recent-table")] == [
            ["Bob", "Ada", "X", "Bob won", "5"],
            ["Computer (hard)", "Ada", "O", "Draw", "9"],
            ["Ada", "Bob", "X", "Draw", "9"],
        ]

        await ui.press("enter")  # the newest: Bob's win, from its start
        pane = replay(ui)
        assert screen(ui).tabs.active == "replay"
        assert ui.app.focused is pane
        assert pane.step == 0 and pane.board.match == GameState.new()
        assert marked_line(ui).startswith("▶ Start")
        await ui.press("end")
        assert pane.step == 5
        assert marked_line(ui) == "▶ 5. Bob X top-right"
        assert "Bob (X) vs Ada (O)" in painted(pane.query_one("#replay-title"))
        board = pane.board
        assert board.match is not None and board.match.winning_line == (0, 1, 2)

        await ui.press("left", "left")
        assert pane.step == 3
        assert board.match == GameState.new().play(0).play(3).play(1)
        assert marked_line(ui) == "▶ 3. Bob X top"
        assert painted(pane.query_one("#replay-where")).strip() == "Move 3 of 5"
        await ui.press("home")
        assert pane.step == 0 and board.match == GameState.new()
        assert marked_line(ui).startswith("▶ Start")
        await ui.press("left")
        assert pane.step == 0, "no step before the start"
        await ui.press("right", "end", "right")
        assert pane.step == 5

        await ui.press("escape")  # back to the list, not out of the record
        assert screen(ui).tabs.active == "recent"
        await ui.press("down", "enter", "end")
        assert marked_line(ui) == "▶ 9. Ada O right"
        await ui.press("escape", "escape")
        assert isinstance(ui.app.screen, GameScreen)


async def test_a_replay_chosen_under_head_to_head_goes_back_there(
    start: Start, tmp_path: Path
) -> None:
    async with start(**HOT_SEAT, **keep(tmp_path, match(ADA, BOB, DRAW, 1))) as ui:
        await ui.press("x", "s", "h", "enter")
        assert screen(ui).tabs.active == "replay"
        await ui.press("escape")
        assert screen(ui).tabs.active == "head-to-head"


@pytest.mark.parametrize("key", ["escape", "q", "s"])
async def test_the_record_closes_as_the_stats_did(start: Start, key: str) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "s")
        assert isinstance(ui.app.screen, RecordScreen)
        await ui.press("m", key)
        assert isinstance(ui.app.screen, GameScreen)
        await ui.press("5")
        assert ui.cell(4).mark is Mark.X


async def test_the_tabs_answer_their_keys_and_clicks(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "s")
        tabs = screen(ui).query_one(TabbedContent)
        for key, tab in (("h", "head-to-head"), ("m", "recent"), ("r", "replay")):
            await ui.press(key)
            assert tabs.active == tab
        assert "No match chosen yet" in painted(replay(ui).query_one("#replay-empty"))
        await ui.press("escape")  # no replay to leave: back to the list
        assert tabs.active == "recent"
        await ui.press("p")
        assert tabs.active == "players"
        await ui.click("#--content-tab-recent")
        assert tabs.active == "recent"


async def test_matches_of_this_session_show_at_once(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:  # save=False: the record lives in memory
        await ui.press("x", "7", "4", "8", "5", "9", "s")
        assert rows(ui, "#players-table") == [
            ["Ada", "1", "1", "0", "0", "100%"],
            ["Bob", "1", "0", "1", "0", "0%"],
        ]
        assert not screen(ui).query("#recent-table"), "a tab's table is made when first shown"
        await ui.press("h")
        assert rows(ui, "#h2h-summary") == [["Ada", "1", "0", "0"], ["Bob", "0", "1", "0"]]
        await ui.press("m")
        assert len(rows(ui, "#recent-table")) == 1


async def test_names_from_the_file_reach_the_screen_as_plain_text(
    start: Start, tmp_path: Path
) -> None:
    hostile = "Eve\x1b[41mRED\x1b[0m\x1b]2;PWNED\x07x"
    config = keep(tmp_path, match(Player("placeholder"), Player("[bold]Mal[/]"), ADA_WINS, 1))
    db = sqlite3.connect(config["record_file"])
    with db:
        db.execute("UPDATE players SET name = ? WHERE name = 'placeholder'", (hostile,))
    db.close()
    async with start(**HOT_SEAT, **config) as ui:
        await ui.press("x", "s")
        shown = painted(screen(ui).query_one("#players-table"))
        assert "Eve[41mRED[0m]2;PWN…" in shown  # shortened, as every name in a table
        assert "[bold]Mal[/]" in shown
        await ui.press("m", "enter")
        shown = painted(replay(ui).query_one("#replay-title")) + painted(replay(ui).moves)
        assert "Eve[41mRED[0m]2;PWN… (X) vs [bold]Mal[/] (O)" in shown
        assert "2. [bold]Mal[/] O left" in shown
        assert "\x1b" not in shown and "\x07" not in shown


async def test_start_up_does_not_open_the_record(
    start: Start, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = keep(tmp_path, match(ADA, BOB, DRAW, 1))
    opened: list[object] = []
    real_connect = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        opened.append(args[0])
        connection: sqlite3.Connection = real_connect(*args, **kwargs)
        return connection

    monkeypatch.setattr(sqlite3, "connect", connect)
    async with start(**HOT_SEAT, **config) as ui:
        await ui.press("x", "5")
        assert opened == []
        await ui.press("s")
        assert opened and opened[0] == config["record_file"]


def test_a_person_named_like_the_computer_is_marked_dimly_and_the_computer_in_italics() -> None:
    person = player_label(Player("Computer (hard)"))
    assert person.plain == "Computer (hard) (person)"
    assert [(span.start, span.end, str(span.style)) for span in person.spans] == [
        (len("Computer (hard)"), len(person.plain), "dim")
    ]
    computer = player_label(HARD)
    assert computer.plain == "Computer (hard)"
    assert [str(span.style) for span in computer.spans] == ["italic"]
    assert player_label(ADA).spans == []


@pytest.mark.parametrize(
    ("key", "opened"), [("s", RecordScreen), ("question_mark", HelpScreen), ("f1", HelpScreen)]
)
async def test_the_record_and_the_help_open_over_the_first_mark_dialog(
    start: Start, key: str, opened: type[object]
) -> None:
    async with start(**HOT_SEAT) as ui:  # both names given: the mark dialog comes first
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        await ui.press(key)
        assert isinstance(ui.app.screen, opened)
        await ui.press("escape")
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        reminders = [painted(notice).strip() for notice in ui.app.screen.query("#notice")]
        assert not any(reminders), "no reminder: the key was the dialog's"
        await ui.press("x")
        assert ui.series.match is not None


# Keys typed together (type-ahead) are read in arrival order, here as in the game.


async def test_escape_escape_from_a_replay_goes_back_and_then_closes(
    start: Start, tmp_path: Path
) -> None:
    async with start(**HOT_SEAT, **keep(tmp_path, match(ADA, BOB, DRAW, 1))) as ui:
        await ui.burst("x", "s", "m", "enter")
        assert screen(ui).tabs.active == "replay"
        await ui.burst("escape", "escape", "5")
        assert isinstance(ui.app.screen, GameScreen)
        assert ui.cell(4).mark is Mark.X, "the key after the closing one is the game's"


async def test_a_replay_opened_and_stepped_in_one_burst(start: Start, tmp_path: Path) -> None:
    async with start(**HOT_SEAT, **keep(tmp_path, match(ADA, BOB, DRAW, 1))) as ui:
        await ui.burst("x", "s", "m", "enter", "home", "right", "right")
        assert screen(ui).tabs.active == "replay"
        assert replay(ui).step == 2
        assert marked_line(ui) == "▶ 2. Bob O top-left"


async def test_a_row_moved_to_and_opened_in_one_burst_is_the_row_moved_to(
    start: Start, tmp_path: Path
) -> None:
    """The table's cursor keys and Enter are read in the order typed: ↓ lands before Enter."""
    async with start(
        **HOT_SEAT, **keep(tmp_path, match(ADA, BOB, DRAW, 1), match(BOB, ADA, ADA_WINS, 2))
    ) as ui:
        await ui.burst("x", "s", "m", "down", "enter")
        assert screen(ui).tabs.active == "replay"
        shown = replay(ui).match
        assert shown is not None and shown.moves == DRAW, "the older match, one row down"
        await ui.burst("escape", "up", "enter")
        shown = replay(ui).match
        assert shown is not None and shown.moves == ADA_WINS, "the newer, back at the top"


@pytest.mark.parametrize("kept", ["in memory", "in a file"])
async def test_the_record_opened_right_after_a_match_shows_it_on_every_tab(
    start: Start, tmp_path: Path, kept: str
) -> None:
    config = keep(tmp_path, match(ADA, BOB, DRAW, 1)) if kept == "in a file" else {}
    async with start(**HOT_SEAT, **config) as ui:
        await ui.burst("x", "7", "4", "8", "5", "9", "s")
        await ui.burst("p")
        totals = (  # matches, wins, losses, draws: the draw on file, then this win
            [["Ada", "2", "1", "0", "1"], ["Bob", "2", "0", "1", "1"]]
            if config
            else [["Ada", "1", "1", "0", "0"], ["Bob", "1", "0", "1", "0"]]
        )
        assert [row[:5] for row in rows(ui, "#players-table")] == totals
        await ui.burst("h", "m", "p")
        assert [row[:5] for row in rows(ui, "#players-table")] == totals
        assert column(ui, "#recent-table", 4)[0] == "Ada won"


async def test_keys_typed_right_after_s_are_the_records(start: Start, tmp_path: Path) -> None:
    async with start(**HOT_SEAT, **keep(tmp_path, match(ADA, BOB, DRAW, 1))) as ui:
        await ui.burst("x", "s", "5", "1")
        assert ui.marks() == (None,) * 9, "no move was made under the record"
        assert screen(ui).sort is PlayerSort.NAME  # 5 sorted by draws, then 1 by name
        await ui.burst("q", "5")
        assert isinstance(ui.app.screen, GameScreen)
        assert ui.cell(4).mark is Mark.X


async def test_keys_typed_right_after_the_help_key_are_the_helps(start: Start) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.burst("x", "question_mark", "escape", "5")
        assert isinstance(ui.app.screen, GameScreen)
        assert ui.cell(4).mark is Mark.X
        assert ui.series.match is not None and ui.series.match.moves == (4,)


# Long names: shortened in the tables, whole one key away.

LONG = Player("W" * 60)
"""A name as long as a name may be."""

_HEADINGS = {
    "#players-table": ("Player", "Matches", "Wins", "Losses", "Draws", "Win rate"),
    "#h2h-summary": ("Player", "Wins", "Losses", "Draws"),
    "#h2h-table": ("When", "X", "O", "First", "Result", "Moves"),
    "#recent-table": ("When", "X", "O", "First", "Result", "Moves"),
}
"""Each table's column headings, in order."""


def headings_shown(ui: Driver, table_id: str) -> list[str]:
    """The headings painted whole on the table's first line, left to right."""
    table = screen(ui).query_one(table_id, DataTable)
    assert table.region.right <= ui.app.size.width, "the table ends on the screen"
    header = painted(table).splitlines()[0]
    return [heading for heading in _HEADINGS[table_id] if f" {heading} " in f" {header} "]


def details(ui: Driver) -> str:
    """The details dialog's words, as painted, on one line."""
    assert isinstance(ui.app.screen, DetailsScreen), ui.app.screen
    return " ".join(
        " ".join(painted(text).split()) for text in ui.app.screen.query("#details Static")
    )


async def test_a_long_name_leaves_every_column_on_screen(start: Start, tmp_path: Path) -> None:
    config = keep(tmp_path, match(LONG, BOB, ADA_WINS, 1), match(BOB, LONG, DRAW, 2))
    async with start(player1=LONG.name, player2="Bob", **config) as ui:
        await ui.press("x", "s")
        for tab, tables in (
            ("p", ["#players-table"]),
            ("h", ["#h2h-summary", "#h2h-table"]),
            ("m", ["#recent-table"]),
        ):
            await ui.press(tab)
            for table in tables:
                assert headings_shown(ui, table) == list(_HEADINGS[table]), table
                shown = painted(screen(ui).query_one(table))
                assert "W" * 19 + "…" in shown and "W" * 21 not in shown, table
        assert column(ui, "#recent-table", 4) == ["Draw", "WWWWWWWWWWW… won"]


async def test_at_the_smallest_size_the_columns_scroll_into_view(
    start: Start, tmp_path: Path
) -> None:
    config = keep(tmp_path, match(LONG, BOB, ADA_WINS, 1))
    async with start(size=(50, 16), player1=LONG.name, player2="Bob", **config) as ui:
        await ui.press("x", "s")
        for tab, table in (("m", "#recent-table"),):  # (Players fits: see below)
            await ui.press(tab)
            shown = headings_shown(ui, table)
            assert shown[0] == _HEADINGS[table][0]
            for _ in range(60):
                await ui.press("right")
                if headings_shown(ui, table)[-1:] == [_HEADINGS[table][-1]]:
                    break
            else:
                raise AssertionError(f"{table}: → never brought the last column into view")


@pytest.mark.parametrize("size", [(50, 16), (60, 18), (80, 24)])
async def test_the_replay_board_shows_all_nine_marks_down_to_the_smallest_size(
    start: Start, tmp_path: Path, size: tuple[int, int]
) -> None:
    config = keep(tmp_path, match(ADA, BOB, DRAW, 1))
    async with start(size=size, **HOT_SEAT, **config) as ui:
        await ui.press("x", "s", "m", "enter", "end")
        board = replay(ui).board
        assert board.is_on_screen
        for cell in board.cells:
            assert cell.mark is not None
            drawing = mark_art(cell.mark, cell.art_room).splitlines()
            lines = painted(cell).splitlines()
            assert any(
                all(line in lines[row + index] for index, line in enumerate(drawing))
                for row in range(len(lines) - len(drawing) + 1)
            ), f"cell {cell.cell} shows {lines}, not its {cell.mark}"


async def test_the_full_names_are_one_key_away(start: Start, tmp_path: Path) -> None:
    config = keep(tmp_path, match(LONG, BOB, ADA_WINS, 1))
    async with start(player1=LONG.name, player2="Bob", **config) as ui:
        await ui.press("x", "s", "i")  # the Players table, LONG's row first (most wins)
        assert isinstance(ui.app.screen, DetailsScreen)
        assert f"Player {LONG.name}" in details(ui)
        await ui.press("escape")
        assert isinstance(ui.app.screen, RecordScreen)
        await ui.press("enter")  # Enter on a player does the same
        assert isinstance(ui.app.screen, DetailsScreen)
        await ui.press("escape", "m", "i")
        shown = details(ui)
        assert f"X {LONG.name}" in shown and "O Bob" in shown
        assert f"Result {LONG.name} won" in shown
        await ui.press("escape", "enter", "i")  # and of the match on show in a replay
        assert f"X {LONG.name}" in details(ui)
        await ui.press("escape")
        assert screen(ui).tabs.active == "replay"


async def test_keys_typed_right_after_closing_the_details_are_the_records(
    start: Start, tmp_path: Path
) -> None:
    async with start(**HOT_SEAT, **keep(tmp_path, match(ADA, BOB, ADA_WINS, 1))) as ui:
        await ui.burst("x", "s", "i", "escape", "m", "enter")
        assert isinstance(ui.app.screen, RecordScreen)
        assert screen(ui).tabs.active == "replay", "m showed the matches, Enter opened one"


_MOVE_LINE = re.compile(rf"(▶ | {{2}})(Start: [XO] to move|\d\. .+ [XO] ({'|'.join(CELL_NAMES)}))")
"""A whole line of the replay's move list: the marker, then the start or a move."""


@pytest.mark.parametrize("size", [(100, 32), (80, 24), (50, 16)])
async def test_the_replay_shortens_the_name_and_keeps_each_move_on_its_line(
    start: Start, tmp_path: Path, size: tuple[int, int]
) -> None:
    o_wins = (4, 2, 0, 8, 6, 5)  # the computer's first move is top-right
    config = keep(tmp_path, match(ADA, HARD, o_wins, 1), match(LONG, HARD, o_wins, 2))
    async with start(size=size, **HOT_SEAT, **config) as ui:
        await ui.press("x", "s", "m", "enter")  # the newest: the long name
        for expected in ("1. " + "W" * 19 + "… X centre", "2. Computer (hard) O top-right"):
            await ui.pilot.pause()
            moves = replay(ui).moves
            lines = [line.strip("▊▎").rstrip() for line in painted(moves).splitlines()[1:-1]]
            lines = [line.removeprefix(" ") for line in lines if line.strip()]
            assert lines, "the move list shows"
            for line in lines:
                assert _MOVE_LINE.fullmatch(line), line
            if size == (100, 32):
                assert len(lines) == moves.option_count, lines
                assert any(line.endswith(expected) for line in lines), lines
            await ui.press("escape", "down", "enter")


async def test_head_to_head_gives_one_match_its_date_alone(start: Start, tmp_path: Path) -> None:
    async with start(**HOT_SEAT, **keep(tmp_path, match(ADA, BOB, DRAW, 1))) as ui:
        await ui.press("x", "s", "h")
        when = local_time(START + timedelta(minutes=1))
        assert painted(screen(ui).query_one("#h2h-hint")).strip() == (
            f"1 match, {when}. Enter replays it."
        )


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (50, 16)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_key_in_the_records_footer_is_shown_whole(
    start: Start, tmp_path: Path, size: tuple[int, int]
) -> None:
    config = keep(tmp_path, match(ADA, BOB, ADA_WINS, 1))
    async with start(size=size, **HOT_SEAT, **config) as ui:
        await ui.press("x", "s")
        for keys, tab in (
            ((), "players"),
            (("h",), "head-to-head"),
            (("m",), "recent"),
            (
                ("enter",),
                "replay",
            ),
        ):
            await ui.press(*keys)
            await ui.pilot.pause()
            assert screen(ui).tabs.active == tab
            footer = screen(ui).query_one(Footer)
            keys_shown = [key for key in footer.query("*") if key.display and key.region]
            assert keys_shown
            for key in keys_shown:
                assert key.region.right <= ui.app.size.width, (tab, painted(key))
            shown = " ".join(" ".join(painted(key).split()) for key in keys_shown)
            assert "i Details" in shown, (tab, shown)
            assert "q Close" in shown, (tab, shown)  # the game's q quits: this one says it closes
        await ui.press("p")  # the tabs' keys still answer where the footer leaves them out
        assert screen(ui).tabs.active == "players"


async def test_where_the_record_is_kept_is_said_whole_at_80x24(
    start: Start, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = keep(tmp_path, match(ADA, BOB, ADA_WINS, 1))
    said = (
        f"1 match of this session not saved yet to {config['record_file']}: could not be"
        " written (database is locked)"
    )
    monkeypatch.setattr(GameRecord, "where", lambda record: said)
    async with start(size=(80, 24), **HOT_SEAT, **config) as ui:
        await ui.press("x", "s")
        await ui.pilot.pause()
        where = screen(ui).query_one("#record-where")
        assert "".join(painted(where).split()) == "".join(said.split())  # (broken at a -)
        assert where.region.bottom <= screen(ui).query_one(Footer).region.y


_SHORT = ("Player", "M", "W", "L", "D", "Win%")


@pytest.mark.parametrize(
    ("size", "first", "headings"),
    [
        ((60, 20), ADA, _HEADINGS["#players-table"]),
        ((60, 20), LONG, _SHORT),
        ((50, 16), ADA, _SHORT),
        ((50, 16), LONG, _SHORT),
    ],
    ids=["60x20", "60x20-long", "50x16", "50x16-long"],
)
async def test_the_players_table_fits_without_a_cut_value(
    start: Start, tmp_path: Path, size: tuple[int, int], first: Player, headings: tuple[str, ...]
) -> None:
    """Long names are shortened, then headings, so that every column shows whole: none half
    cut at the edge ("Win ra", and "10" for 100%)."""
    against_the_computer = (match(HARD, BOB, DRAW, 2),) if first is LONG else ()
    config = keep(tmp_path, match(first, BOB, ADA_WINS, 1), *against_the_computer)
    async with start(size=size, player1=first.name, player2="Bob", **config) as ui:
        await ui.press("x", "s")
        await ui.pilot.pause()
        table = screen(ui).query_one("#players-table", DataTable)
        assert table.virtual_size.width <= table.scrollable_content_region.width
        header = painted(table).splitlines()[0]
        shown = [heading for heading in headings if f" {heading} " in f" {header} "]
        assert shown == list(headings), header
        body = "\n".join(painted(table).splitlines()[1:])
        assert "100%" in body and "0%" in body, body
