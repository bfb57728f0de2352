"""Beyond the seeds: undo, hints, the move history, the game record and remembered preferences.

Every test either keeps nothing (save=False) or keeps its files under pytest's
tmp_path, never in the user's data directory.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable

from app.conftest import HOT_SEAT, Driver, Start, inside, painted, wait_for_the_computer
from limits import EVENT_LIMIT
from tictactoe.core.ai import Level, analyse
from tictactoe.core.engine import GameState, Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.series import FirstMove, Player
from tictactoe.record import GameRecord
from tictactoe.tui.screens.game import CHORES_AFTER, GameScreen
from tictactoe.tui.screens.record import RecordScreen
from tictactoe.tui.widgets.history import MoveHistory, history_lines

ADA_WINS = (0, 3, 1, 4, 2)
"""Ada (X, moving first) takes the top row while Bob takes two of the middle row."""


def saving(tmp_path: Path) -> dict[str, Any]:
    """Config overrides that keep the record and the settings in `tmp_path`."""
    return {
        "save": True,
        "record_file": tmp_path / "record.sqlite3",
        "settings_file": tmp_path / "settings.json",
    }


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


async def play(ui: Driver, *cells: int) -> None:
    """Take `cells` in order with their digits in the layout in force."""
    await ui.press(*(ui.game.key_layout.key_for(cell) for cell in cells))


def moves(ui: Driver) -> tuple[int, ...]:
    """The cells played so far in the game on show."""
    game = ui.series.match
    assert game is not None, "no game in progress"
    return game.moves


async def play_to_the_end(ui: Driver, preferences: tuple[int, ...]) -> None:
    """Against the computer: take the first free cell of `preferences` until the game ends."""
    while True:
        await wait_for_the_computer(ui)
        game = ui.series.match
        assert game is not None
        if game.is_over:
            return
        await play(ui, next(cell for cell in preferences if game.board[cell] is None))


def history_on_screen(ui: Driver) -> list[str]:
    """The lines the move-history panel paints inside its border."""
    rows = painted(ui.game.query_one("#history", MoveHistory)).splitlines()[1:-1]
    return [line for row in rows if (line := row.strip(" │╭╮╰╯─"))]


def status(ui: Driver) -> str:
    """The status line as painted, its wrapping undone."""
    return " ".join(ui.status().split())


def files_in(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


# Undo.


@pytest.mark.parametrize("undo", ["u", "ctrl+z"])
async def test_undo_takes_back_the_last_move_in_hot_seat(start: Start, undo: str) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x")
        await play(ui, 4, 0, 8)
        assert len(history_on_screen(ui)) == 3

        await ui.press(undo)
        game = ui.series.match
        assert game is not None and game.moves == (4, 0)
        assert ui.marks()[8] is None
        ui.assert_board_matches_match()  # cell 8 paints its digit again
        assert ui.face(8) == "3"
        assert status(ui) == "Ada (X) to move"
        assert history_on_screen(ui) == ["1. Ada X centre", "2. Bob O top-left"]

        await ui.press(undo)
        assert moves(ui) == (4,)
        assert status(ui) == "Bob (O) to move"
        assert ui.to_move_card() == 1
        assert history_on_screen(ui) == ["1. Ada X centre"]

        await play(ui, 8)  # the cell taken back is free again, for the right player
        assert ui.marks()[8] is Mark.O
        ui.assert_board_matches_match()


async def test_undo_against_the_computer_takes_back_its_reply_and_your_move(
    start: Start,
) -> None:
    async with start(player1="Ada", level=Level.HARD) as ui:
        await ui.press("x")
        await play(ui, 4)
        await wait_for_the_computer(ui)
        await play(ui, next(cell for cell in (0, 2, 6, 8) if ui.marks()[cell] is None))
        await wait_for_the_computer(ui)
        game = ui.series.match
        assert game is not None and len(game.moves) == 4

        await ui.press("u")
        game = ui.series.match
        assert isinstance(game, GameState) and len(game.moves) == 2
        assert game.moves[0] == 4
        ui.assert_board_matches_match()
        assert status(ui) == "Ada (X) to move"
        assert len(history_on_screen(ui)) == 2

        await ui.press("ctrl+z")
        await ui.pilot.pause()
        assert moves(ui) == ()
        assert ui.marks() == (None,) * 9
        assert status(ui) == "Ada (X) to move"
        assert history_on_screen(ui) == ["No moves yet"]
        await ui.pilot.pause(0.05)
        assert moves(ui) == ()  # the computer waits


async def test_undo_never_takes_back_the_computers_opening_move(start: Start) -> None:
    async with start(player1="Ada", level=Level.MEDIUM, first_move=FirstMove.X) as ui:
        await ui.press("o")
        await wait_for_the_computer(ui)
        opening = ui.series.match
        assert opening is not None and len(opening.moves) == 1
        await play(ui, next(cell for cell in range(9) if opening.board[cell] is None))
        await wait_for_the_computer(ui)

        await ui.press("u")
        assert ui.series.match == opening
        ui.assert_board_matches_match()

        await ui.press("u")
        assert ui.series.match == opening
        assert status(ui) == "There is no move to take back."
        assert ui.game.query_one("#status").has_class("-notice")


async def test_undo_and_hint_are_refused_with_a_message_when_they_cannot_help(
    start: Start,
) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x", "u")
        assert status(ui) == "There is no move to take back."
        assert ui.marks() == (None,) * 9
        assert moves(ui) == ()

        await play(ui, *ADA_WINS)
        finished = ui.series
        assert finished.winner == 0
        await ui.press("ctrl+z")
        assert status(ui) == "This match is over: its moves can no longer be taken back."
        assert ui.series == finished
        ui.assert_board_matches_match()
        assert ui.cells_with("win") == {0, 1, 2}
        assert len(history_on_screen(ui)) == 5
        assert "1 win" in ui.card(0)
        assert ui.tally() == "Draws 0 Played 1"

        await ui.press("h")
        assert status(ui) == "A hint needs a match in progress."
        assert ui.cells_with("hint") == set()
        assert ui.series == finished


async def test_undo_while_the_computer_thinks_cancels_its_move(start: Start) -> None:
    """The reply that was due is dropped: the next one waits its own full delay."""
    delay = 0.8
    async with start(player1="Ada", level=Level.HARD, computer_delay=delay) as ui:
        await ui.press("x")
        await play(ui, 4)
        assert status(ui) == "Computer is thinking…"
        await ui.press("h")
        assert status(ui) == "Wait: Computer is thinking…"
        assert ui.cells_with("hint") == set()

        await ui.press("u")
        assert moves(ui) == ()
        assert ui.marks() == (None,) * 9
        assert status(ui) == "Ada (X) to move"
        assert ui.to_move_card() == 0
        assert history_on_screen(ui) == ["No moves yet"]

        await ui.pilot.pause(0.3)  # so the cancelled reply and the new one fall apart in time
        replayed = time.monotonic()
        await play(ui, 0)
        while len(moves(ui)) < 2:  # the reply: never before its own full delay
            assert time.monotonic() - replayed < EVENT_LIMIT, (moves(ui), status(ui))
            await ui.pilot.pause(0.02)
        replied = time.monotonic()
        assert replied - replayed >= delay, (
            f"a reply came {replied - replayed:.2f} s after (the cancelled one?)"
        )
        game = ui.series.match
        assert isinstance(game, GameState) and len(game.moves) == 2 and game.moves[0] == 0
        assert status(ui) == "Ada (X) to move"


# Hints.


def hint_keys(ui: Driver, cells: tuple[int, ...]) -> str:
    keys = [ui.game.key_layout.key_for(cell) for cell in cells]
    return keys[0] if len(keys) == 1 else f"{', '.join(keys[:-1])} or {keys[-1]}"


@pytest.mark.parametrize(
    ("moves", "summary"),
    [
        pytest.param((0,), "Draw with best play", id="only-the-centre-holds"),
        pytest.param((0, 1), "X wins with best play", id="several-winning-moves"),
        pytest.param((4, 1, 0, 8), "X wins with best play", id="two-forks"),
        pytest.param((1, 0, 2, 4), "Draw with best play", id="the-one-block"),
        pytest.param((1, 0, 7, 4), "O wins with best play", id="a-lost-position"),
    ],
)
async def test_a_hint_marks_exactly_the_best_moves_in_hot_seat(
    start: Start, moves: tuple[int, ...], summary: str
) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x")
        await play(ui, *moves)
        game = ui.series.match
        assert isinstance(game, GameState)
        best = analyse(game).best_moves
        assert 0 < len(best) < len(game.legal_moves())

        await ui.press("h")
        assert ui.cells_with("hint") == set(best)
        assert status(ui) == f"Hint: {hint_keys(ui, best)}. {summary}."
        assert ui.series.match == game  # a hint plays nothing

        await play(ui, best[0])
        assert ui.cells_with("hint") == set()
        assert not status(ui).startswith("Hint")


async def test_a_hint_against_the_computer(start: Start) -> None:
    async with start(player1="Ada", level=Level.HARD) as ui:
        await ui.press("x", "h")
        assert ui.cells_with("hint") == set(range(9))
        assert status(ui) == "Hint: any free cell. Draw with best play."

        await play(ui, 1)  # a side: hard answers, and only some replies hold the draw
        await wait_for_the_computer(ui)
        game = ui.series.match
        assert isinstance(game, GameState) and len(game.moves) == 2

        await ui.press("h")
        best = analyse(game).best_moves
        assert ui.cells_with("hint") == set(best)
        assert status(ui).startswith(f"Hint: {hint_keys(ui, best)}.")
        assert status(ui).endswith("with best play.")

        await play(ui, best[0])
        assert ui.cells_with("hint") == set()
        await wait_for_the_computer(ui)
        assert ui.cells_with("hint") == set()


# The move history.


async def test_the_history_lists_the_moves_live_and_starts_afresh_next_match(
    start: Start,
) -> None:
    async with start(**HOT_SEAT) as ui:
        await ui.press("x")
        assert history_on_screen(ui) == ["No moves yet"]
        assert ui.game.query_one("#history").has_class("-empty")

        await play(ui, 4)
        assert history_on_screen(ui) == ["1. Ada X centre"]
        assert not ui.game.query_one("#history").has_class("-empty")
        await play(ui, 1)
        assert history_on_screen(ui) == ["1. Ada X centre", "2. Bob O top"]
        await play(ui, 0, 8, 6, 3, 2)
        assert ui.series.winner == 0
        assert history_on_screen(ui) == [
            "1. Ada X centre",
            "2. Bob O top",
            "3. Ada X top-left",
            "4. Bob O bottom-right",
            "5. Ada X bottom-left",
            "6. Bob O left",
            "7. Ada X top-right",
        ]

        await ui.press("n")  # Bob chooses next: the history is empty until he has
        assert history_on_screen(ui) == ["No moves yet"]
        await ui.press("o")
        assert history_on_screen(ui) == ["No moves yet"]
        await play(ui, 0)
        assert history_on_screen(ui) == ["1. Bob O top-left"]


async def test_the_latest_move_stays_in_view_on_a_short_terminal(start: Start) -> None:
    async with start(size=(100, 16), **HOT_SEAT) as ui:
        await ui.press("x")
        await play(ui, 4, 1, 0, 8, 2, 6, 5, 3, 7)  # a draw: nine lines
        assert status(ui).startswith("It's a draw.")
        lines = history_on_screen(ui)
        assert lines, "the history panel is not on screen"
        assert lines[-1] == "9. Ada X bottom"


async def test_a_long_name_is_shortened_in_the_history_and_the_move_kept(start: Start) -> None:
    name = "Bartholomew Featherstonehaugh-Cholmondeley"
    async with start(player1=name, player2="Bob") as ui:
        await ui.press("x")
        await play(ui, 4, 0)
        history = ui.game.query_one("#history", MoveHistory)
        full = f"1. {name} X centre"
        assert len(full) > history.content_size.width

        lines = history_on_screen(ui)
        assert len(lines) == 2  # one line a move: nothing wrapped
        assert lines[0].startswith("1. Bartholomew")
        assert "…" in lines[0] and lines[0].endswith(" X centre")
        assert len(lines[0]) <= history.content_size.width
        assert lines[1] == "2. Bob O top-left"


# The game record.


async def test_a_finished_match_is_recorded_and_shown_sorted_by_wins_next_run(
    start: Start, tmp_path: Path
) -> None:
    async with start(player1="Zoe", player2="Bob", **saving(tmp_path)) as ui:
        await ui.press("x")
        await play(ui, *ADA_WINS)  # Zoe wins
        await ui.press("n", "o")
        await play(ui, *ADA_WINS)  # Bob (X, chooser, first) wins
        await ui.press("n", "x")
        await play(ui, *ADA_WINS)  # Zoe wins
        await ui.pilot.pause(CHORES_AFTER)  # handed to the record a moment after its frame
    async with start(**HOT_SEAT, **saving(tmp_path)) as ui:
        await ui.press("x")
        await play(ui, *ADA_WINS)
        assert ui.series.winner == 0
        await ui.pilot.pause(CHORES_AFTER)

    async with start(player1="Cy", player2="Dee", **saving(tmp_path)) as ui:
        await ui.press("x", "s")
        assert isinstance(ui.app.screen, RecordScreen)
        table = ui.app.screen.query_one("#players-table", DataTable)
        rows = [[str(cell) for cell in table.get_row_at(row)] for row in range(table.row_count)]
        assert rows == [
            ["Zoe", "3", "2", "1", "0", "67%"],
            ["Ada", "1", "1", "0", "0", "100%"],
            ["Bob", "4", "1", "3", "0", "25%"],
        ]
        table_text = painted(table)
        assert table_text.index("Zoe") < table_text.index("Ada") < table_text.index("Bob")
        assert ui.top_text("#record-where") == f"Kept in {tmp_path / 'record.sqlite3'}"

        await ui.press("escape")
        assert isinstance(ui.app.screen, GameScreen)
        assert status(ui) == "Cy (X) to move"


async def test_against_the_computer_the_opponent_is_recorded_by_level(
    start: Start, tmp_path: Path
) -> None:
    async with start(player1="Ada", level=Level.HARD, **saving(tmp_path)) as ui:
        await ui.press("x")
        await play_to_the_end(ui, (4, 0, 2, 6, 8, 1, 3, 5, 7))
        match = ui.series
        await ui.press("s")
        assert isinstance(ui.app.screen, RecordScreen)
        table = ui.app.screen.query_one("#players-table", DataTable)
        names = {str(table.get_row_at(row)[0]) for row in range(table.row_count)}
        assert names == {"Ada", "Computer (hard)"}

    record = GameRecord(tmp_path / "record.sqlite3")
    players = {row.player: (row.wins, row.losses, row.draws) for row in record.players()}
    assert set(players) == {Player("Ada"), Player.computer(Level.HARD)}
    ada, computer = players[Player("Ada")], players[Player.computer(Level.HARD)]
    assert ada[0] == 0  # hard never loses
    assert ada[1:] == (match.wins[1], match.draws)
    assert computer == (ada[1], 0, ada[2])
    assert sum(ada) == 1


async def test_no_save_writes_no_file_at_all(
    start: Start, tmp_path: Path, user_folders_in_tmp: Path
) -> None:
    async with start(**HOT_SEAT, save=False, record_file=tmp_path / "record.sqlite3") as ui:
        await ui.press("x")
        await play(ui, *ADA_WINS)
        ui.app.theme = "textual-light"
        ui.app.action_toggle_keys()
        await ui.press("s")
        assert "Not saved this session" in ui.top_text("#record-where")
        table = ui.app.screen.query_one("#players-table", DataTable)
        assert [str(cell) for cell in table.get_row_at(0)] == ["Ada", "1", "1", "0", "0", "100%"]
        await ui.pilot.pause()
    assert files_in(tmp_path) == []
    assert not list(user_folders_in_tmp.rglob("*.json"))
    assert not list(user_folders_in_tmp.rglob("*.sqlite3"))


async def test_a_damaged_record_is_moved_aside_and_play_goes_on(
    start: Start, tmp_path: Path
) -> None:
    record_file = tmp_path / "record.sqlite3"
    damaged = b"SQLite format 3\x00 but then garbage " * 20
    record_file.write_bytes(damaged)
    async with start(**HOT_SEAT, **saving(tmp_path), notifications=True) as ui:
        assert record_file.read_bytes() == damaged, "nothing is opened at start-up"
        await ui.press("x")
        await play(ui, *ADA_WINS)
        assert status(ui).startswith("Ada wins!")
        deadline = time.monotonic() + EVENT_LIMIT  # the record's own thread writes the match,
        while not any("game record" in text for text in ui.toasts()):  # and finds the damage
            assert time.monotonic() < deadline, f"no warning; toasts: {ui.toasts()!r}"
            await ui.pilot.pause(0.05)
        warnings = [text for text in ui.toasts() if "game record" in text]
        assert len(warnings) == 1
        assert "record.sqlite3.corrupt-" in warnings[0]
        (kept,) = tmp_path.glob("record.sqlite3.corrupt-*")
        assert kept.read_bytes() == damaged

    record = GameRecord(record_file)
    assert [(row.player.name, row.wins) for row in record.players()] == [("Ada", 1), ("Bob", 0)]


# Themes and preferences.


async def test_the_theme_is_remembered_for_the_next_run(start: Start, tmp_path: Path) -> None:
    settings_file = tmp_path / "settings.json"
    async with start(**HOT_SEAT, **saving(tmp_path)) as ui:
        assert ui.app.theme != "textual-light"
        assert not settings_file.exists()
        ui.app.theme = "textual-light"
        await ui.pilot.pause()
        assert read_json(settings_file) == {
            "version": 1,
            "theme": "textual-light",
            "keys": None,
            "relay": None,
            "plain": False,
            "cursor": False,
        }

    async with start(**HOT_SEAT, **saving(tmp_path)) as ui:
        assert ui.app.theme == "textual-light"
        assert not ui.app.current_theme.dark


async def test_the_digit_layout_is_switched_and_remembered(start: Start, tmp_path: Path) -> None:
    settings_file = tmp_path / "settings.json"
    async with start(**HOT_SEAT, **saving(tmp_path), notifications=True) as ui:
        await ui.press("x")
        titles = [command.title for command in ui.app.get_system_commands(ui.app.screen)]
        assert "Digit keys: phone layout" in titles

        ui.app.action_toggle_keys()
        await ui.pilot.pause()
        assert ui.game.key_layout is KeyLayout.PHONE
        assert "Digit keys now use the phone layout." in ui.toasts()
        assert ui.board_text() == "1 2 3\n4 5 6\n7 8 9"
        await ui.press("1")
        assert ui.marks()[0] is Mark.X
        assert read_json(settings_file)["keys"] == "phone"
        titles = [command.title for command in ui.app.get_system_commands(ui.app.screen)]
        assert "Digit keys: numpad layout" in titles

    async with start(**HOT_SEAT, **saving(tmp_path)) as ui:
        await ui.press("x")
        assert ui.game.key_layout is KeyLayout.PHONE
        assert ui.board_text() == "1 2 3\n4 5 6\n7 8 9"
        await ui.press("9")
        assert ui.marks()[8] is Mark.X

    async with start(**HOT_SEAT, keys=KeyLayout.NUMPAD, **saving(tmp_path)) as ui:
        await ui.press("x")
        assert ui.game.key_layout is KeyLayout.NUMPAD
        assert ui.board_text() == "7 8 9\n4 5 6\n1 2 3"
        await ui.press("1")
        assert ui.marks()[6] is Mark.X
    assert read_json(settings_file)["keys"] == "phone"  # an explicit choice is not remembered


async def test_a_damaged_settings_file_does_not_stop_the_app(start: Start, tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text("not json at all", encoding="utf-8")
    async with start(**HOT_SEAT, **saving(tmp_path), notifications=True) as ui:
        assert any("settings file" in text.lower() for text in ui.toasts())
        assert len(list(tmp_path.glob("settings.json.corrupt-*"))) == 1
        await ui.press("x")
        assert ui.game.key_layout is KeyLayout.NUMPAD
        ui.app.theme = "textual-light"
        await ui.pilot.pause()
    assert read_json(tmp_path / "settings.json")["theme"] == "textual-light"


async def test_the_move_list_is_right_after_resizes_in_a_burst(start: Start) -> None:
    """Resizes arriving with moves, or after them: the list is drawn for the size it is
    shown at."""

    def check(ui: Driver, size: tuple[int, int]) -> None:
        shown = [line.strip() for line in inside(ui.game.query_one(MoveHistory))]
        shown = [line for line in shown if line]
        expected = history_lines(ui.series, ui.game.query_one(MoveHistory).content_size.width)
        if shown[0].startswith("… "):
            expected = expected[int(shown[0].split()[1]) :]
            shown = shown[1:]
        assert len(shown) == len(expected), (size, shown)
        assert shown == expected, size  # a narrow panel shortens the names, not the moves

    async with start(size=(100, 16), **HOT_SEAT) as ui:
        await ui.press("x")
        await ui.burst("7", "8", "9", "5", "4", "6", "2", "1")  # eight moves, no line
        for size in ((100, 40), (60, 16), (200, 27), (100, 16)):
            await ui.pilot.resize_terminal(*size)
            await ui.pilot.pause()
            check(ui, size)
            await ui.burst("u", "1")
            check(ui, size)


async def test_the_line_mode_is_offered_as_a_setting_for_the_next_start(
    start: Start, tmp_path: Path
) -> None:
    settings_file = tmp_path / "settings.json"
    async with start(**HOT_SEAT, **saving(tmp_path), notifications=True) as ui:
        titles = [command.title for command in ui.app.get_system_commands(ui.app.screen)]
        assert "Line by line from the next start" in titles
        ui.app.action_plain_next_time()
        await ui.pilot.pause()
        assert read_json(settings_file)["plain"] is True
        assert any("starts line by line" in toast for toast in ui.toasts())
