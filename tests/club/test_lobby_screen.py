"""The lobby screen of a player's session at a club, driven with Pilot, its link to the club a fake:
what the club says is shown (names as the characters they are), what the player asks reaches the
link, the cursor stays on its table as the lobby changes, and a farewell ends the session."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

from rich.text import Text
from textual.app import App
from textual.widgets import DataTable, Static

from limits import eventually
from tictactoe.config import GameConfig
from tictactoe.core.engine import Mark
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.players import Player
from tictactoe.online.lobby import (
    CloseTable,
    Farewell,
    LadderLine,
    LobbyAsk,
    LobbyNews,
    OpenTable,
    PastMatch,
    QuickPair,
    SitAt,
    Snapshot,
    TableRow,
    WatchTable,
    You,
)
from tictactoe.tui.club_app import ClubApp, ClubSetup
from tictactoe.tui.screens.lobby import LobbyScreen

LOBBY = Snapshot(
    You("ada", False, (("classic", "1612 ± 120"), ("ultimate", "1530 ± 240"))),
    open=(
        TableRow("3", ("grace",), True, 5, rating="1480 ± 310", variant="ultimate"),
        TableRow("4", ("guest-x7k2p9",), False, None, rating="1500 ± 500"),
    ),
    playing=(TableRow("1", ("alan", "[bold]eve[/]"), True, None, score=(2, 1, 1), watchers=3),),
    ladder=(
        LadderLine(1, "ada", "1612 ± 120", 10, 7, 2, 1),
        LadderLine(2, "alan", "1580 ± 130", 10, 6, 1, 3),
        LadderLine(3, "grace", "1540 ± 200", 5, 3, 0, 2),
        LadderLine(1, "ada", "1530 ± 240", 2, 2, 0, 0, "ultimate"),
        LadderLine(2, "grace", "1480 ± 310", 2, 0, 0, 2, "ultimate"),
    ),
    recent=(
        PastMatch(
            FinishedMatch((Player("ada"), Player("alan")), (Mark.X, Mark.O), 0, (4, 1, 0, 2, 8), 0),
            True,
        ),
        PastMatch(
            FinishedMatch(
                (Player("grace"), Player("ada")),
                (Mark.O, Mark.X),
                1,
                (0, 4, 8, 2, 6, 3, 5, 1, 7),
                None,
            ),
            False,
        ),
    ),
)


class FakeLobby:
    """The club's side of a lobby link: news put in `say`, asks kept in `asked`."""

    def __init__(self, *news: LobbyNews) -> None:
        self.news: asyncio.Queue[LobbyNews | None] = asyncio.Queue()
        for each in news:
            self.news.put_nowait(each)
        self.asked: list[LobbyAsk] = []

    def say(self, news: LobbyNews | None) -> None:
        self.news.put_nowait(news)

    async def ask(self, ask: LobbyAsk) -> None:
        self.asked.append(ask)

    async def close(self) -> None:
        self.news.put_nowait(None)

    def __aiter__(self) -> AsyncIterator[LobbyNews]:
        return self._read()

    async def _read(self) -> AsyncIterator[LobbyNews]:
        while (news := await self.news.get()) is not None:
            yield news


def club_app(lobby: FakeLobby) -> ClubApp:
    async def open_lobby(url: str, token: str) -> FakeLobby:
        assert (url, token) == ("ws://127.0.0.1:9/lobby", "secret")
        return lobby

    return ClubApp(
        GameConfig(save=False, seed=7),
        ClubSetup("ws://127.0.0.1:9/lobby", "secret"),
        open_lobby=open_lobby,
    )


def cells(app: ClubApp, table: str) -> list[list[str]]:
    shown = app.lobby.query_one(f"#{table}", DataTable)
    return [
        [cell.plain if isinstance(cell, Text) else str(cell) for cell in shown.get_row_at(row)]
        for row in range(shown.row_count)
    ]


async def test_the_lobby_shows_what_the_club_says_names_as_they_are() -> None:
    app = club_app(FakeLobby(LOBBY))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
        you = str(app.lobby.query_one("#you", Static).render())
        assert you == "ada · Classic 1612 ± 120 · Ultimate 1530 ± 240"
        assert cells(app, "open") == [
            ["grace", "1480 ± 310", "Ultimate · 5"],
            ["guest-x7k2p9", "guest", "Classic · open"],
        ]
        assert cells(app, "playing") == [["alan v [bold]eve[/]", "Classic", "2–1", "1", "3"]]
        assert len(cells(app, "ladder")) == 3, "the classic ladder: Ada's last match was classic"
        assert cells(app, "ladder")[1] == ["2", "alan", "1580 ± 130", "6", "1", "3"]
        assert cells(app, "recent") == [["alan", "won", "rated"], ["grace", "draw", "unrated"]]


async def test_keys_and_choices_ask_the_club() -> None:
    lobby = FakeLobby(LOBBY)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("o", "enter", "u", "enter", "p", "c")  # o, u: the dialog, Enter opens
        await pilot.press("down", "enter")  # the second open table: sit at it
        await pilot.press("tab", "enter")  # the table in play: watch it
        await pilot.pause()
    assert lobby.asked == [
        OpenTable(rated=True),
        OpenTable(rated=False),
        QuickPair("classic"),
        CloseTable(),
        SitAt("4"),
        WatchTable("1"),
    ]


async def test_g_puts_ultimate_in_focus_its_ladder_quick_pair_and_the_open_dialog() -> None:
    lobby = FakeLobby(LOBBY)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        headings = [
            str(app.lobby.query_one(f"#{name}-heading").render()) for name in ("open", "ladder")
        ]
        assert headings == [
            "Open tables · Enter sits · p pairs in Classic",
            "Classic ladder · g switches",
        ]
        await pilot.press("g")
        await pilot.pause()
        assert cells(app, "ladder") == [
            ["1", "ada", "1530 ± 240", "2", "0", "0"],
            ["2", "grace", "1480 ± 310", "0", "0", "2"],
        ]
        assert (
            str(app.lobby.query_one("#ladder-heading").render()) == "Ultimate ladder · g switches"
        )
        await pilot.press("p", "o", "3", "enter")  # the dialog opens on the game in focus
        await pilot.press("o", "g", "enter")  # g in the dialog: the other game
        await pilot.press("g")
        await pilot.pause()
        assert cells(app, "ladder")[0][1:3] == ["ada", "1612 ± 120"]
    assert lobby.asked == [
        QuickPair("ultimate"),
        OpenTable(rated=True, matches=3, variant="ultimate"),
        OpenTable(rated=True, matches=None, variant="classic"),
    ]


async def test_the_game_in_focus_is_that_of_the_last_match_until_g() -> None:
    last = dataclasses.replace(LOBBY.recent[0].match, variant="ultimate", moves=(36, 1))
    played = dataclasses.replace(LOBBY, recent=(PastMatch(last, True), *LOBBY.recent))
    lobby = FakeLobby(played)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert len(cells(app, "ladder")) == 2, "the Ultimate ladder"
        await pilot.press("p")
        await pilot.pause()
    assert lobby.asked == [QuickPair("ultimate")]


def test_the_ultimate_ladder_in_focus_at_80x24(snap_compare: Any) -> None:
    """Ada's lobby after g: the Ultimate ladder, and quick pair in Ultimate, said."""
    assert snap_compare(club_app(FakeLobby(LOBBY)), terminal_size=(80, 24), press=["g"])


async def test_the_cursor_stays_on_its_table_as_the_lobby_changes() -> None:
    lobby = FakeLobby(LOBBY)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down")  # on table 4
        newer = TableRow("5", ("hedy",), True, None, rating="1500 ± 500")
        lobby.say(Snapshot(LOBBY.you, open=(newer, *LOBBY.open)))
        shown = app.lobby.query_one("#open", DataTable)
        await eventually(lambda: shown.row_count == 3, lambda: cells(app, "open"))
        assert shown.coordinate_to_cell_key(shown.cursor_coordinate).row_key.value == "4"


async def test_a_farewell_ends_the_session_saying_why() -> None:
    lobby = FakeLobby(LOBBY)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lobby.say(Farewell("You are banned from this club for ever."))
        await eventually(lambda: app.farewell, lambda: app.screen_stack)
    assert app.farewell == "You are banned from this club for ever."
    assert app.return_code == 1  # the club ended it, not the player


async def test_q_in_the_lobby_ends_the_session() -> None:
    app = club_app(FakeLobby(LOBBY))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


def test_the_lobby_at_80x24(snap_compare: Any) -> None:
    """Ada's lobby: two open tables, one in play, the ladder and her recent matches."""

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        assert cells(pilot.app, "open")[0][0] == "grace"

    assert snap_compare(club_app(FakeLobby(LOBBY)), terminal_size=(80, 24), run_before=run_before)


def test_the_lobby_at_60x20_stands_its_lists_one_under_the_other(snap_compare: Any) -> None:
    """Below 80 columns every list is as wide as the screen: no row scrolls sideways."""

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        lists = [pilot.app.screen.query_one(f"#{name}", DataTable) for name in ("open", "ladder")]
        assert lists[0].region.x == lists[1].region.x  # one under the other
        assert all(not table.show_horizontal_scrollbar for table in lists)

    assert snap_compare(club_app(FakeLobby(LOBBY)), terminal_size=(60, 20), run_before=run_before)


def test_the_lobby_at_50x16(snap_compare: Any) -> None:
    assert snap_compare(club_app(FakeLobby(LOBBY)), terminal_size=(50, 16))


async def test_a_lobby_described_before_it_is_shown_fits_its_ratings() -> None:
    """The club's first snapshot may come before the lobby is mounted (a warm session starts
    fast): every list still measures its rows, the ratings whole (they were cut to their
    heading, "1612 ±", until the terminal was resized)."""

    class Lobby(App[None]):
        def on_mount(self) -> None:
            screen = LobbyScreen()
            screen.snapshot = LOBBY
            self.push_screen(screen)

    app = Lobby()
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(5):
            await pilot.pause()
        ladder = app.screen.query_one("#ladder", DataTable)
        rating = ladder.ordered_columns[2]
        assert rating.get_render_width(ladder) >= len("1612 ± 120") + 2 * ladder.cell_padding


async def test_a_list_changed_in_place_shows_what_the_club_says() -> None:
    """A club's changes, as each lobby draws them: a table sat at leaves the open tables (the
    cursor staying on the table it was on) and joins the end of those in play, a score changes
    in its row, and a name longer than any before widens its column, whole."""
    lobby = FakeLobby(LOBBY)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down")  # on table 4
        grace = TableRow(
            "3", ("grace", "bob"), True, 5, score=(0, 0, 0), watchers=0, variant="ultimate"
        )
        sat = Snapshot(LOBBY.you, open=LOBBY.open[1:], playing=(*LOBBY.playing, grace))
        lobby.say(sat)
        await eventually(
            lambda: cells(app, "open") == [["guest-x7k2p9", "guest", "Classic · open"]],
            lambda: cells(app, "open"),
        )
        opened = app.lobby.query_one("#open", DataTable)
        assert opened.coordinate_to_cell_key(opened.cursor_coordinate).row_key.value == "4"
        assert cells(app, "playing") == [
            ["alan v [bold]eve[/]", "Classic", "2–1", "1", "3"],
            ["grace v bob", "Ultimate", "0–0", "0", "0"],
        ]
        scored = dataclasses.replace(grace, score=(1, 0, 0), watchers=2)
        lobby.say(dataclasses.replace(sat, playing=(*LOBBY.playing, scored)))
        await eventually(
            lambda: cells(app, "playing")[1] == ["grace v bob", "Ultimate", "1–0", "0", "2"],
            lambda: cells(app, "playing"),
        )
        long = TableRow("6", ("a-handle-of-twenty-c",), True, 3, rating="1500 ± 500")
        lobby.say(dataclasses.replace(sat, open=(*sat.open, long)))
        await eventually(
            lambda: (
                len(cells(app, "open")) == 2 and cells(app, "open")[1][0] == "a-handle-of-twenty-c"
            ),
            lambda: cells(app, "open"),
        )
        player = opened.ordered_columns[0]
        assert player.get_render_width(opened) >= len("a-handle-of-twenty-c")
        assert opened.coordinate_to_cell_key(opened.cursor_coordinate).row_key.value == "4"
