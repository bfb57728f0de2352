"""A newcomer's first hour at the club, on the lobby's screens (Pilot, the link to the club a fake,
`test_lobby_screen.FakeLobby`): a guest is offered no rated table and shows as a guest, the
dialog's choices read without colour, the line about the player is whole at any width, `k` is in
the footer and `?` begins with the club's keys; and on the club's side (its own links, no
terminal): a guest without a key is told how to come with one, quick pair seats a player with a
handle at a rated table first, and a second session of a seated player is told where its seat
is, and takes it back once its first session is lost; the club says whether KSM is on."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text
from textual.content import Content
from textual.widgets import Markdown, RadioButton, Static

from limits import eventually
from tictactoe.club.link import LobbyLink
from tictactoe.club.lobby import CLUB_TOKEN, Club
from tictactoe.club.server import MERGING_OFF, MERGING_ON, merging_said
from tictactoe.online.lobby import (
    GoTo,
    OpenTable,
    QuickPair,
    Said,
    SitAt,
    Snapshot,
    You,
)
from tictactoe.online.protocol import State
from tictactoe.record.club import ClubRecord
from tictactoe.tui.screens.club_open import OpenTableScreen
from tictactoe.tui.screens.help import HelpScreen
from tictactoe.tui.screens.lobby import LobbyScreen

from .test_club_features import at_table, goto, key_line, next_news, said, until
from .test_lobby_screen import LOBBY, FakeLobby, cells, club_app

GUEST = Snapshot(You("guest-x7k2p9", True, ()), open=LOBBY.open, playing=LOBBY.playing)
WAITING = Snapshot(
    You("alice", False, (("classic", "1500 ± 500"),), waiting_at="3"), ladder=LOBBY.ladder
)


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
        shown = await eventually(
            lambda: footer_keys(app.screen), lambda: app.screen, "the dialog's footer keys"
        )
        assert "r" not in shown, shown
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
        "Classic": "●",
        "Ultimate": "○",
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
            ["grace", "1480 ± 310", "Ultimate · 5"],
            ["guest-x7k2p9", "guest", "Classic · open"],
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
        await eventually(
            lambda: "k" in footer_keys(app.lobby), lambda: footer_keys(app.lobby), "k in the footer"
        )


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


# The club's side, on loopback: its own lobby links and table links, no terminal.


@contextlib.asynccontextmanager
async def running(tmp_path: Path) -> AsyncIterator[Club]:
    record = ClubRecord(tmp_path / "club.sqlite")
    club = Club(record)
    club.ssh_port = 2299
    await club.start()
    try:
        yield club
    finally:
        await club.stop()
        record.close()


async def lobby(club: Club, user: str, key: str | None) -> LobbyLink:
    admission = await club.enter(user, key, "127.0.0.1")
    assert admission.refusal is None, admission.refusal
    return await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN])


async def test_a_guest_without_a_key_is_told_how_to_come_back_with_one(tmp_path: Path) -> None:
    async with running(tmp_path) as club:
        alice = await lobby(club, "alice", None)
        told = await next_news(alice, said("You came in without a key, as a guest"))
        assert isinstance(told, Said)
        assert "ssh-keygen -t ed25519" in told.text
        assert "ssh -p 2299 alice@HOST" in told.text
        await alice.close()


async def test_a_guests_table_is_sent_with_no_rating(tmp_path: Path) -> None:
    async with running(tmp_path) as club:
        guest = await lobby(club, "zed", None)
        await guest.ask(OpenTable(rated=False))
        await next_news(guest, goto)
        (row,) = club.snapshot("ada", guest=False).open
        assert row.players[0].startswith("guest-") and row.rating == ""
        await guest.close()


async def test_quick_pair_seats_a_player_at_a_rated_table_first_and_says_when_not(
    tmp_path: Path,
) -> None:
    async with running(tmp_path) as club:
        guest = await lobby(club, "zed", None)
        await guest.ask(OpenTable(rated=False))  # the longest waiting, as close in rating
        await next_news(guest, goto)
        bob = await lobby(club, "bob", key_line("bob"))
        await bob.ask(OpenTable(rated=True))
        bobs = await next_news(bob, goto)
        assert isinstance(bobs, GoTo)

        ada = await lobby(club, "ada", key_line("ada"))
        await ada.ask(QuickPair())
        sat = await next_news(ada, goto)
        assert isinstance(sat, GoTo) and sat.table == bobs.table  # the rated one

        cy = await lobby(club, "cy", key_line("cy"))
        await cy.ask(QuickPair())  # only the guest's unrated table waits
        await next_news(cy, goto)
        told = await next_news(cy, said("No rated table was waiting"))
        assert isinstance(told, Said) and "unrated table" in told.text
        for link in (guest, bob, ada, cy):
            await link.close()


async def test_a_second_session_is_told_where_its_seat_is_and_takes_it_back(
    tmp_path: Path,
) -> None:
    async with running(tmp_path) as club:
        key = key_line("ada")
        ada = await lobby(club, "ada", key)
        bob = await lobby(club, "bob", key_line("bob"))
        await ada.ask(OpenTable(rated=True))
        opened = await next_news(ada, goto)
        assert isinstance(opened, GoTo)
        await bob.ask(SitAt(opened.table))
        seats = [await at_table(opened), await at_table(await next_news(bob, goto))]
        for seat in seats:
            await until(seat, State)

        again = await lobby(club, "ada", key)  # Ada's second session, her seat held
        await next_news(again, said("You are playing at a table in another session"))
        await again.ask(OpenTable(rated=True))
        await next_news(again, said("You are playing at a table in another session"))

        await seats[0].close()  # her first session is lost: its seat waits for her
        await wait_for(lambda: any(t.authority.away for t in club.tables.by_id.values()))
        await again.ask(QuickPair())  # p takes the seat back
        back = await next_news(again, goto)
        assert isinstance(back, GoTo) and back.table == opened.table
        assert back.host_token is not None  # seat 0, hers
        for link in (ada, bob, again, seats[1]):
            await link.close()


async def wait_for(condition: Callable[[], bool], within: float = 10.0) -> None:
    """Until `condition` holds (checked every 20 ms), at most `within` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not condition():
        assert loop.time() < deadline, "the condition never held"
        await asyncio.sleep(0.02)


def test_the_club_says_whether_ksm_is_on_or_off(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.write_text("1\n")
    assert merging_said(run) == MERGING_ON and MERGING_ON.startswith("KSM is on")
    run.write_text("0\n")
    assert merging_said(run) == MERGING_OFF and MERGING_OFF.startswith("KSM is off")
    assert merging_said(tmp_path / "absent") is None  # a kernel without KSM: nothing to say
