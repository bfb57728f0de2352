"""One SVG snapshot per screen and state of the game, driven headlessly with Pilot.

Every app runs with `save=False`, so no record or settings file is read or
written (the player's own record never leaks into a snapshot), except the record
screen's, which read a fixed record made in tmp_path; all run with a fixed seed
and no computer delay, so each picture is the same on every run.
Regenerate after an intended change with `uv run pytest tests/snapshots --snapshot-update`
and look at the pictures before committing them.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input

from tictactoe.config import GameConfig
from tictactoe.core.ai import Level
from tictactoe.core.engine import GameState, Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.series import Player
from tictactoe.record import GameRecord, MatchRecord, PlayerSort
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.screens.details import DetailsScreen
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.help import HelpScreen
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen
from tictactoe.tui.screens.new_game import NewGameScreen
from tictactoe.tui.screens.record import RecordScreen
from tictactoe.tui.screens.replay import ReplayPane
from tictactoe.tui.widgets.too_small import too_small

SIZE: Final = (100, 32)
"""A roomy terminal: the board at full size beside the sidebar."""

RunBefore = Callable[[Pilot[Any]], Awaitable[None]]

Shows = Callable[[App[Any]], bool]
"""What a picture is of, read from the app's public state: its run_before checks it."""


def hot_seat(**changes: Any) -> TicTacToeApp:
    """Ada against Grace on one keyboard: the mark-choice modal opens at once."""
    settings: dict[str, Any] = {
        "player1": "Ada",
        "player2": "Grace",
        "computer_delay": 0,
        "seed": 7,
        "save": False,
    }
    return TicTacToeApp(GameConfig(**(settings | changes)))


def vs_computer(level: Level = Level.HARD, delay: float = 0) -> TicTacToeApp:
    """Ada against the computer; Ada chooses the mark of the first game."""
    return TicTacToeApp(
        GameConfig(player1="Ada", level=level, computer_delay=delay, seed=7, save=False)
    )


def new_game() -> TicTacToeApp:
    """No names on the command line, so the session starts on the new-game screen."""
    return TicTacToeApp(GameConfig(computer_delay=0, seed=7, save=False))


def pressing(*keys: str, shows: Shows) -> RunBefore:
    """Press `keys` one at a time, letting each screen switch finish before the next; then
    the app `shows` what the picture is of, or the test fails here, saying so."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        assert shows(pilot.app), f"after pressing {keys}, not {shows.__doc__}"

    return run_before


def on(kind: type[Screen[Any]], focus: str | None = None) -> Shows:
    def shows(app: App[Any]) -> bool:
        focused = app.focused.id if app.focused is not None else None
        return isinstance(app.screen, kind) and (focus is None or focused == focus)

    shows.__doc__ = f"{kind.__name__} on top" + (f", #{focus} focused" if focus else "")
    return shows


def game(where: Callable[[GameScreen], bool], what: str) -> Shows:
    def shows(app: App[Any]) -> bool:
        return isinstance(app.screen, GameScreen) and where(app.screen)

    shows.__doc__ = f"the game screen on top, {what}"
    return shows


def moves(*cells: int) -> Shows:
    def played(screen: GameScreen) -> bool:
        return screen.series.match is not None and screen.series.match.moves == cells

    return game(played, f"the moves {cells} played")


def record_tab(tab: str, sort: PlayerSort = PlayerSort.WINS) -> Shows:
    def shows(app: App[Any]) -> bool:
        screen = app.screen
        return (
            isinstance(screen, RecordScreen) and screen.tabs.active == tab and screen.sort is sort
        )

    shows.__doc__ = f"the record on its {tab} tab, by {sort}"
    return shows


def replaying(step: int) -> Shows:
    def shows(app: App[Any]) -> bool:
        screen = app.screen
        if not isinstance(screen, RecordScreen):
            return False
        pane = screen.query_one(ReplayPane)
        return screen.tabs.active == pane.id and pane.match is not None and pane.step == step

    shows.__doc__ = f"the replay at move {step}"
    return shows


def steady_inputs(then: RunBefore) -> RunBefore:
    """Stop the text cursors blinking, so the picture does not depend on timing."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        await then(pilot)

    return run_before


# The new-game screen.


def test_new_game(snap_compare: Any) -> None:
    """Both name fields empty, the hot seat chosen, focus in Player 1's name."""
    assert snap_compare(
        new_game(),
        terminal_size=SIZE,
        run_before=steady_inputs(pressing(shows=on(NewGameScreen, "name-1"))),
    )


def test_new_game_at_80x24(snap_compare: Any) -> None:
    """The most common terminal: the whole dialog, Start included, above the footer."""
    assert snap_compare(
        new_game(),
        terminal_size=(80, 24),
        run_before=steady_inputs(pressing(shows=on(NewGameScreen, "name-1"))),
    )


@pytest.mark.parametrize("size", [(60, 20), (50, 16)], ids=["60x20", "50x16"])
def test_new_game_small(snap_compare: Any, size: tuple[int, int]) -> None:
    """Below 24 rows the fields, the opponents and Start are compact: all in view, Start
    included; the footer keeps the palette's key beside Start."""
    assert snap_compare(
        new_game(),
        terminal_size=size,
        run_before=steady_inputs(pressing(shows=on(NewGameScreen, "name-1"))),
    )


def test_new_game_refuses_equal_names(snap_compare: Any) -> None:
    """Two players called Ada: an inline error under the opponents, focus on Player 2."""
    assert snap_compare(
        new_game(),
        terminal_size=SIZE,
        run_before=steady_inputs(
            pressing(
                "A", "d", "a", "tab", "A", "d", "a", "enter", shows=on(NewGameScreen, "name-2")
            )
        ),
    )


# The mark-choice modal.


def test_mark_choice(snap_compare: Any) -> None:
    """Ada, the chooser of the first game, is asked for X or O over the empty board."""
    assert snap_compare(
        hot_seat(), terminal_size=SIZE, run_before=pressing(shows=on(MarkChoiceScreen))
    )


def test_the_cursor_looks_inactive_under_a_dialog(snap_compare: Any) -> None:
    """Ada's last move was the top-left square, where the cursor stays; under the dialog
    for the next match it is drawn like any other square, since keys don't reach the board."""
    run_before = pressing("x", "8", "4", "9", "5", "7", "n", shows=on(MarkChoiceScreen))
    assert snap_compare(hot_seat(), terminal_size=SIZE, run_before=run_before)


def test_mark_choice_reminds_after_a_stray_digit(snap_compare: Any) -> None:
    """A digit meant for the board earns the reminder to press X or O."""
    assert snap_compare(
        hot_seat(), terminal_size=SIZE, run_before=pressing("5", shows=on(MarkChoiceScreen))
    )


# The game screen.


def cursor_on(cell: int) -> Shows:
    def there(screen: GameScreen) -> bool:
        return moves(4, 0)(screen.app) and screen.board.cursor == cell

    return game(there, f"the moves (4, 0) played, the cursor on cell {cell}")


def won_by_x(screen: GameScreen) -> bool:
    return screen.series.match is not None and screen.series.match.winner is Mark.X


def drawn(screen: GameScreen) -> bool:
    return screen.series.match is not None and screen.series.match.is_draw


def thinking(screen: GameScreen) -> bool:
    return screen.series.awaits_computer


def hinted(screen: GameScreen) -> bool:
    return bool(screen.board.hints)


def replied(app: App[Any]) -> bool:
    """the computer's reply to the centre played"""
    screen = app.screen
    match = screen.series.match if isinstance(screen, GameScreen) else None
    return match is not None and len(match.moves) == 2 and match.moves[0] == 4


def cramped(app: App[Any]) -> bool:
    """the screen too small"""
    return too_small(app.screen)


def test_mid_match_cursor_moved_by_arrows(snap_compare: Any) -> None:
    """X in the centre, O top-left, then the cursor moved up and right to top-middle."""
    assert snap_compare(
        hot_seat(),
        terminal_size=SIZE,
        run_before=pressing("x", "5", "7", "up", "right", shows=cursor_on(1)),
    )


def test_win_highlights_the_line(snap_compare: Any) -> None:
    """Ada's X takes the top row (7 8 9): the three cells carry the winning border."""
    assert snap_compare(
        hot_seat(),
        terminal_size=SIZE,
        run_before=pressing("x", "7", "4", "8", "5", "9", shows=game(won_by_x, "X has won")),
    )


def test_draw(snap_compare: Any) -> None:
    """A full board with no line: the status says it's a draw."""
    assert snap_compare(
        hot_seat(),
        terminal_size=SIZE,
        run_before=pressing(
            "x", "5", "7", "9", "1", "4", "6", "3", "8", "2", shows=game(drawn, "a draw")
        ),
    )


def test_computer_thinking(snap_compare: Any) -> None:
    """After Ada's move the hard computer has a minute to reply, so it is still thinking."""
    assert snap_compare(
        vs_computer(Level.HARD, delay=60),
        terminal_size=SIZE,
        run_before=pressing("x", "5", shows=game(thinking, "the computer to move")),
    )


def test_hint(snap_compare: Any) -> None:
    """Pressing h marks the best cells for the player to move and says where play leads."""
    assert snap_compare(
        hot_seat(),
        terminal_size=SIZE,
        run_before=pressing("x", "5", "8", "h", shows=game(hinted, "hints on the board")),
    )


def test_move_history(snap_compare: Any) -> None:
    """Five moves listed in order in the sidebar's Moves panel."""
    assert snap_compare(
        hot_seat(),
        terminal_size=SIZE,
        run_before=pressing("x", "5", "7", "3", "9", "8", shows=moves(4, 0, 8, 2, 1)),
    )


def test_phone_key_layout(snap_compare: Any) -> None:
    """With the phone layout the empty cells show 1 2 3 on the top row."""
    assert snap_compare(
        hot_seat(keys=KeyLayout.PHONE),
        terminal_size=SIZE,
        run_before=pressing("x", "5", shows=moves(4)),
    )


def test_light_theme(snap_compare: Any) -> None:
    """A mid-match position in textual-light."""
    play = pressing("x", "5", "7", "3", shows=moves(4, 0, 8))

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        pilot.app.theme = "textual-light"
        await play(pilot)
        assert not pilot.app.current_theme.dark

    assert snap_compare(hot_seat(), terminal_size=SIZE, run_before=run_before)


def test_vs_computer_small_terminal(snap_compare: Any) -> None:
    """At 60x20 the board shrinks beside the sidebar; the computer has already replied."""
    assert snap_compare(
        vs_computer(), terminal_size=(60, 20), run_before=pressing("x", "5", shows=replied)
    )


def test_hot_seat_at_the_smallest_size(snap_compare: Any) -> None:
    """At 50x16: the footer keeps ^p beside the game's keys, and the moves list keeps a short
    name whole beside the longest cell names ("2. Bob O bottom-left")."""
    assert snap_compare(
        hot_seat(player2="Bob"),
        terminal_size=(50, 16),
        run_before=pressing("x", "5", "1", "3", shows=moves(4, 6, 8)),
    )


def test_too_small(snap_compare: Any) -> None:
    """Below 50x16 the whole screen is one line asking for a bigger terminal."""
    assert snap_compare(
        hot_seat(), terminal_size=(40, 12), run_before=pressing("x", "5", shows=cramped)
    )


# Modal screens over the game.


def test_help(snap_compare: Any) -> None:
    """The help screen, opened with ? during a game."""
    assert snap_compare(
        hot_seat(),
        terminal_size=SIZE,
        run_before=pressing("x", "question_mark", shows=on(HelpScreen)),
    )


# The game record (s), over a record of fixed matches.


def recorded(path: Path) -> Path:
    """A record of eight matches at fixed times, so its pictures never change."""
    ada, grace, hard = Player("Ada"), Player("Grace"), Player.computer(Level.HARD)
    impostor = Player("Computer (hard)")
    played = [
        (ada, grace, (Mark.X, Mark.O), 0, (4, 0, 8, 2, 1, 7, 6, 3, 5)),
        (grace, ada, (Mark.X, Mark.O), 0, (0, 3, 1, 4, 2)),
        (ada, hard, (Mark.X, Mark.O), 0, (4, 0, 2, 6, 3, 5, 1, 7, 8)),
        (impostor, hard, (Mark.O, Mark.X), 1, (4, 0, 8, 2, 1, 7, 6, 3, 5)),
        (ada, grace, (Mark.O, Mark.X), 0, (0, 4, 8, 2, 6, 3, 7)),
        (grace, ada, (Mark.X, Mark.O), 0, (4, 0, 8, 2, 1, 7, 6, 3, 5)),
        (ada, impostor, (Mark.X, Mark.O), 0, (6, 4, 7, 0, 8)),
        (ada, grace, (Mark.X, Mark.O), 0, (4, 1, 0, 8, 6, 2, 3)),
    ]
    record = GameRecord(path)
    start = datetime(2026, 11, 20, 18, 0, tzinfo=UTC)
    for number, (first, second, marks, first_mover, moves) in enumerate(played):
        match = GameState.new(first=marks[first_mover])
        for cell in moves:
            match = match.play(cell)
        assert match.is_over
        winner = None if match.winner is None else marks.index(match.winner)
        when = start + timedelta(minutes=9 * number)
        record.add(MatchRecord((first, second), marks, first_mover, moves, winner, when))
    record.close()
    return path


@pytest.fixture
def record_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The fixed record, its times shown in UTC whatever the machine's time zone.

    Its path is relative (the test runs in tmp_path), so the screen shows the same path
    on every run.
    """
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    monkeypatch.chdir(tmp_path)
    yield recorded(Path("record.sqlite3"))
    monkeypatch.undo()
    time.tzset()


def with_record(record_file: Path) -> TicTacToeApp:
    """Ada against Grace, with the fixed record; the settings stay beside it in tmp_path."""
    return hot_seat(
        save=True, record_file=record_file, settings_file=record_file.with_name("settings.json")
    )


def test_record_players(snap_compare: Any, record_file: Path) -> None:
    """The Players tab: totals per player, most wins first; the person called
    "Computer (hard)" is marked as a person, the computer is in italics."""
    assert snap_compare(
        with_record(record_file),
        terminal_size=SIZE,
        run_before=pressing("x", "s", shows=record_tab("players")),
    )


@pytest.mark.parametrize("size", [(60, 20), (50, 16)], ids=["60x20", "50x16"])
def test_record_players_small(snap_compare: Any, record_file: Path, size: tuple[int, int]) -> None:
    """Narrower than its names and headings: the headings shorten (M, W, L, D, Win%) so that
    every column shows whole, and a long name is shortened before "(person)"."""
    assert snap_compare(
        with_record(record_file),
        terminal_size=size,
        run_before=pressing("x", "s", shows=record_tab("players")),
    )


def test_record_players_sorted_by_name(snap_compare: Any, record_file: Path) -> None:
    """Key 1 sorts by the Player column, A to Z; the heading carries the arrow."""
    assert snap_compare(
        with_record(record_file),
        terminal_size=SIZE,
        run_before=pressing("x", "s", "1", shows=record_tab("players", PlayerSort.NAME)),
    )


def test_record_head_to_head(snap_compare: Any, record_file: Path) -> None:
    """Ada against Grace, all-time, and their matches newest first."""
    assert snap_compare(
        with_record(record_file),
        terminal_size=SIZE,
        run_before=pressing("x", "s", "h", shows=record_tab("head-to-head")),
    )


def test_record_recent_matches(snap_compare: Any, record_file: Path) -> None:
    """Every match newest first: when, who held X and O, who moved first, result, moves."""
    assert snap_compare(
        with_record(record_file),
        terminal_size=SIZE,
        run_before=pressing("x", "s", "m", shows=record_tab("recent")),
    )


def test_record_replay(snap_compare: Any, record_file: Path) -> None:
    """The newest match opened with Enter and stepped back twice: move 5 of 7 is marked."""
    assert snap_compare(
        with_record(record_file),
        terminal_size=SIZE,
        run_before=pressing("x", "s", "m", "enter", "end", "left", "left", shows=replaying(5)),
    )


def test_record_replay_at_80x24(snap_compare: Any, record_file: Path) -> None:
    """The replay's footer whole at 80x24: its own keys, Close and Details (the other tabs'
    keys are left out of it, and still answer)."""
    assert snap_compare(
        with_record(record_file),
        terminal_size=(80, 24),
        run_before=pressing("x", "s", "m", "enter", "end", shows=replaying(7)),
    )


def test_record_replay_at_the_smallest_size(snap_compare: Any, record_file: Path) -> None:
    """The newest match at its last move at 50x16: the board too low for two borders a
    cell keeps one, and every mark shows."""
    assert snap_compare(
        with_record(record_file),
        terminal_size=(50, 16),
        run_before=pressing("x", "s", "m", "enter", "end", shows=replaying(7)),
    )


def test_record_details(snap_compare: Any, record_file: Path) -> None:
    """i on a match of Recent matches: the row in full, over the record (the tables
    shorten names; here the person called "Computer (hard)" against Ada)."""
    assert snap_compare(
        with_record(record_file),
        terminal_size=SIZE,
        run_before=pressing("x", "s", "m", "down", "i", shows=on(DetailsScreen)),
    )
