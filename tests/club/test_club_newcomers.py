"""A newcomer's first hour at the club, on the lobby's screens (Pilot, the link to the club a fake,
`test_lobby_screen.FakeLobby`): a guest is offered no rated table and shows as a guest, the
dialog's choices read without colour, the line about the player is whole at any width, `k` is in
the footer and `?` begins with the club's keys."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console
from rich.text import Text
from textual.content import Content
from textual.widgets import Markdown, RadioButton, Static

from tictactoe.online.lobby import OpenTable, Snapshot, You
from tictactoe.tui.screens.club_open import OpenTableScreen
from tictactoe.tui.screens.help import HelpScreen
from tictactoe.tui.screens.lobby import LobbyScreen

from .test_lobby_screen import LOBBY, FakeLobby, cells, club_app

GUEST = Snapshot(You("guest-x7k2p9", True, ""), open=LOBBY.open, playing=LOBBY.playing)
WAITING = Snapshot(You("alice", False, "1500 ± 500", waiting_at="3"), ladder=LOBBY.ladder)


def footer_keys(screen: Any) -> list[str]:
    """The keys the footer of `screen` shows."""
    return [key.key for key in screen.query("FooterKey")]


async def test_a_guests_dialog_offers_no_rating_and_r_rates_nothing() -> None:
    lobby = FakeLobby(GUEST)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, OpenTableScreen)
        labels = [str(button.label) for button in app.screen.query(RadioButton)]
        assert "Rated" not in labels and "Unrated" not in labels, labels
        assert not app.screen.query("#open-rated")
        assert "r" not in footer_keys(app.screen)
        await pilot.press("r", "enter")
        await pilot.pause()
    assert lobby.asked == [OpenTable(rated=False, matches=None)]


async def test_the_dialogs_choices_read_without_colour() -> None:
    app = club_app(FakeLobby(LOBBY))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("o", "3", "u")
        await pilot.pause()
        marks = {}
        for button in app.screen.query(RadioButton):
            rendered = button.render()
            assert isinstance(rendered, Content)
            marks[str(button.label)] = rendered.plain.strip("▐▌ ")[0]
    assert marks == {
        "Rated": "○",
        "Unrated": "●",
        "Open-ended": "○",
        "1": "○",
        "3": "●",
        "5": "○",
    }


async def test_a_guests_table_shows_a_guest_not_a_rating() -> None:
    app = club_app(FakeLobby(LOBBY))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert cells(app, "open") == [
            ["grace", "1540 ± 200", "rated · 5"],
            ["guest-x7k2p9", "guest", "unrated · open"],
        ]


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (50, 16)])
async def test_the_line_about_the_player_is_whole_at_any_width(size: tuple[int, int]) -> None:
    app = club_app(FakeLobby(WAITING))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        you = app.lobby.query_one("#you", Static)
        rendered = you.render()
        assert isinstance(rendered, Text | Content), rendered
        line = Text(rendered.plain)
        assert line.plain.endswith("(c takes it back)")
        width, height = you.content_region.width, you.content_region.height
        lines = line.wrap(Console(width=width), width)
        assert len(lines) <= height, f"{len(lines)} lines in {height}: {line.plain!r}"
        assert all(line.cell_len <= width for line in lines)


async def test_k_is_in_the_lobbys_footer() -> None:
    app = club_app(FakeLobby(LOBBY))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "k" in footer_keys(app.lobby)


async def test_the_help_in_the_lobby_begins_with_the_clubs_keys() -> None:
    app = club_app(FakeLobby(LOBBY))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.query_one(Markdown).source
        assert text.startswith("# At a club"), text[:80]
        assert text.count("## At a club") + text.count("# At a club") == 1
        assert "# How to play" in text  # the rest follows
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)


def test_a_guests_dialog_at_80x24(snap_compare: Any) -> None:
    """A guest opens a table: no rating to choose, and why."""

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(pilot.app.screen, OpenTableScreen)

    assert snap_compare(club_app(FakeLobby(GUEST)), terminal_size=(80, 24), run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (50, 16)])
def test_a_player_waiting_at_a_table(snap_compare: Any, size: tuple[int, int]) -> None:
    """Alice waits at her table: the line about her whole, wrapped where it must be."""
    assert snap_compare(club_app(FakeLobby(WAITING)), terminal_size=size)
