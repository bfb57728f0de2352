"""What the lobby offers a player beyond sitting down: opening a table as one likes (rated or
not, a series of 1, 3 or 5 matches or an open-ended one), a rematch, a replay of a recent match,
a second key; driven with Pilot, the link to the club a fake (`test_lobby_screen.FakeLobby`);
and a series of three matches that ends by itself, then a rematch, with the real `ssh`."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual import events
from textual.content import Content
from textual.widgets import Input, RadioButton, Static

from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from tictactoe.online.lobby import (
    AddKey,
    OpenTable,
    PastMatch,
    Rematch,
    Said,
    SitAt,
    Snapshot,
    TableRow,
    You,
)
from tictactoe.tui.club_app import ClubApp
from tictactoe.tui.screens.add_key import AddKeyScreen
from tictactoe.tui.screens.club_open import OpenTableScreen
from tictactoe.tui.screens.club_replay import PastMatchScreen
from tictactoe.tui.screens.lobby import LobbyScreen
from tictactoe.tui.screens.replay import ReplayPane

from .test_club_end_to_end import Club, move
from .test_club_end_to_end import club as club  # the fixture: a club running in its terminal
from .test_lobby_screen import LOBBY, FakeLobby, cells, club_app

GUEST = Snapshot(You("guest-x7k2p9", True, ""), open=LOBBY.open)
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOr0NHFp5r2S4x2vAcqxH3DKVDzq1yZqVkU8fSuf0Wcj ada@phone"


def shown(app: ClubApp, selector: str) -> str:
    """The text a Static of the screen on top shows."""
    rendered = app.screen.query_one(selector, Static).render()
    assert isinstance(rendered, Text | Content), rendered
    return rendered.plain


def toasts(app: ClubApp) -> list[str]:
    said = []
    for toast in app.screen.query("Toast"):
        rendered = toast.render()
        assert isinstance(rendered, Content), rendered
        said.append(rendered.plain)
    return said


# Opening a table.


async def test_o_then_enter_opens_a_rated_open_ended_table() -> None:
    lobby = FakeLobby(LOBBY)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("o", "enter")  # typed together: the dialog takes the Enter
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
    assert lobby.asked == [OpenTable(rated=True, matches=None)]


async def test_the_dialog_chooses_rated_or_not_and_the_series_length() -> None:
    lobby = FakeLobby(LOBBY)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("o", "u", "3")
        assert isinstance(app.screen, OpenTableScreen)
        assert app.screen.choice() == OpenTable(rated=False, matches=3)
        await pilot.press("enter")
        await pilot.press("o", "5", "1", "enter")
        await pilot.press("u", "r", "e", "enter")  # u opens it unrated; r makes it rated
        await pilot.press("o", "3", "escape")  # cancelled: nothing asked
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
    assert lobby.asked == [
        OpenTable(rated=False, matches=3),
        OpenTable(rated=True, matches=1),
        OpenTable(rated=True, matches=None),
    ]


async def test_the_dialog_works_by_its_own_widgets_too() -> None:
    """Tab to the radio buttons, arrows and Space to choose, Tab to Open and Enter."""
    lobby = FakeLobby(LOBBY)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("o", "tab")  # from Open to Cancel
        await pilot.press("tab", "tab")  # the rating, then the length
        await pilot.press("right", "right", "space")  # 3 matches
        await pilot.press("shift+tab", "right", "space")  # unrated
        await pilot.pause()
        assert isinstance(app.screen, OpenTableScreen)
        assert app.screen.choice() == OpenTable(rated=False, matches=3)
        await pilot.click("#cancel")
        await pilot.pause()
    assert lobby.asked == []


async def test_a_guests_table_is_unrated_and_the_dialog_says_so() -> None:
    lobby = FakeLobby(GUEST)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        assert app.screen.query_one("#rated", RadioButton).value is False
        assert "unrated" in shown(app, "#open-note")
        await pilot.press("r", "enter")  # r cannot make it rated
        await pilot.pause()
    assert lobby.asked == [OpenTable(rated=False, matches=None)]


# Rematches.


async def test_r_offers_a_rematch_and_the_other_sees_it_offered() -> None:
    lobby = FakeLobby(LOBBY)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("r")
        offering = Snapshot(You("ada", False, "1612 ± 120", waiting_at="9", waiting_for="alan"))
        lobby.say(offering)
        await pilot.pause(0.1)
        assert shown(app, "#you") == "ada · 1612 ± 120 · offering alan a rematch (c takes it back)"

        kept = TableRow("9", ("alan",), True, 3, rating="1580 ± 130", rematch=True)
        lobby.say(Snapshot(You("ada", False, "1612 ± 120", offered_by="alan"), open=(kept,)))
        await pilot.pause(0.1)
        assert shown(app, "#you") == "ada · 1612 ± 120 · alan offers you a rematch: r takes it"
        assert cells(app, "open") == [["alan", "1580 ± 130", "rematch · rated · 3"]]
        await pilot.press("r")  # takes it
        await pilot.press("enter")  # or Enter on its row
        await pilot.pause()
    assert lobby.asked == [Rematch(), Rematch(), SitAt("9")]


# Replays.


async def test_enter_on_a_recent_match_replays_it() -> None:
    when = 1_795_000_000.0
    past = PastMatch(("ada", "alan"), "OX", 1, (4, 0, 8, 2, 6, 1), 1, False, when)
    lobby = FakeLobby(Snapshot(LOBBY.you, recent=(past, *LOBBY.recent)))
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert cells(app, "recent")[0] == ["alan", "lost", "unrated"]
        await pilot.press("tab", "tab", "tab", "enter")  # open, playing, ladder, recent
        await pilot.pause()
        assert isinstance(app.screen, PastMatchScreen)
        assert shown(app, "#past-kind") == "An unrated match at the club"
        replay = app.screen.query_one(ReplayPane)
        assert replay.match is not None
        assert replay.match.moves == past.moves
        assert "alan won" in shown(app, "#replay-title")
        assert replay.step == 6
        await pilot.press("left", "left", "home", "right")
        assert replay.step == 1
        board = replay.board.match
        assert board is not None
        assert board.moves == (4,)
        await pilot.press("end")
        assert replay.step == 6
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
    assert lobby.asked == []


# A second key.


async def test_k_adds_a_pasted_key_and_the_clubs_answer_is_shown() -> None:
    lobby = FakeLobby(LOBBY)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("k")
        await pilot.pause()
        assert isinstance(app.screen, AddKeyScreen)
        await pilot.press("enter")  # nothing pasted yet: said, not asked
        assert shown(app, "#key-notice") == "Paste a public key line first."
        app.screen.query_one(Input).post_message(events.Paste(KEY + "\n"))
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
        lobby.say(Said("The key was added: it signs in as ada too."))
        await pilot.pause(0.2)
        assert any("The key was added" in toast for toast in toasts(app))
        await pilot.press("k", "escape")  # cancelled: nothing asked
        await pilot.pause()
    assert lobby.asked == [AddKey(KEY)]


async def test_a_guest_cannot_add_a_key() -> None:
    lobby = FakeLobby(GUEST)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("k")
        await pilot.pause(0.2)
        assert isinstance(app.screen, LobbyScreen)
        assert any("A guest has no handle" in toast for toast in toasts(app))
    assert lobby.asked == []


# The help.


async def test_the_help_lists_the_lobbys_keys() -> None:
    app = club_app(FakeLobby(LOBBY))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        text = app.screen.query_one("Markdown").source  # type: ignore[attr-defined]
        for words in ("## At a club", "quick pair", "rematch", "add a key", "replay it"):
            assert words in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)


# Snapshots.


def test_the_open_table_dialog_at_80x24(snap_compare: Any) -> None:
    """Ada opens a table: rated, and 3 matches chosen."""

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("o", "3")
        await pilot.pause()
        assert pilot.app.screen.choice() == OpenTable(rated=True, matches=3)

    assert snap_compare(club_app(FakeLobby(LOBBY)), terminal_size=(80, 24), run_before=run_before)


def test_the_add_key_dialog_at_80x24(snap_compare: Any) -> None:
    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("k")
        await pilot.pause()
        assert isinstance(pilot.app.screen, AddKeyScreen)

    assert snap_compare(club_app(FakeLobby(LOBBY)), terminal_size=(80, 24), run_before=run_before)


def test_a_recent_match_replayed_at_80x24(snap_compare: Any) -> None:
    """Ada's win over Alan, at its last move."""

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("tab", "tab", "tab", "enter")
        await pilot.pause()
        assert isinstance(pilot.app.screen, PastMatchScreen)

    assert snap_compare(club_app(FakeLobby(LOBBY)), terminal_size=(80, 24), run_before=run_before)


# With the real ssh.


@pytest.mark.slow
@pytest.mark.usefixtures("ssh")
def test_a_series_of_three_ends_by_itself_and_a_rematch_follows(club: Club) -> None:
    alice = club.ssh("alice", "alice")
    bob = club.ssh("bob", "bob")
    alice.expect("Open tables")
    bob.expect("Open tables")
    alice.from_now().send(b"o3\r")  # a rated table, a series of three matches
    bob.expect(r"alice 1500 ± \d+ rated · 3")
    bob.from_now().send(b"\r")
    alice.expect("alice, choose your mark")

    players = {"alice": alice, "bob": bob}
    for number, (chooser, other, mark) in enumerate(
        (("alice", "bob", "X"), ("bob", "alice", "O"), ("alice", "bob", "X")), start=1
    ):
        if number > 1:  # the next match: the other player chooses
            alice.from_now().send(b"n")
            players[chooser].expect(f"{chooser}, choose your mark")
        players[other].from_now()
        players[chooser].from_now().send(mark.lower().encode())
        players[other].expect(rf"{chooser} \({mark}\) to move")  # the chooser moves first
        move(players[chooser], b"7", players[other], f"{chooser} {mark} top-left")
        move(players[other], b"4", players[chooser], f"{other} {'XO'[mark == 'X']} left")
        move(players[chooser], b"8", players[other], f"{chooser} {mark} top")
        move(players[other], b"5", players[chooser], f"{other} {'XO'[mark == 'X']} centre")
        move(players[chooser], b"9", players[other], f"{chooser} wins!")

    for player in (alice, bob):  # the third match ends the series: both back in the lobby
        player.expect("The series of 3 matches is over.")
        player.expect("Open tables")
    alice.expect(r"1 alice (1[5-9]\d\d) ± \d+ 2 0 1")  # the ladder: two wins, one loss
    alice.expect(r"2 bob \d+ ± \d+ 1 0 2")

    alice.from_now().send(b"r")  # a rematch offered to Bob
    alice.expect("offering bob a rematch")
    bob.expect("alice offers you a rematch: r takes it")
    bob.expect(r"alice \d+ ± \d+ rematch · rated · 3")
    bob.from_now().send(b"r")  # taken with one key
    alice.expect("alice, choose your mark")
    bob.expect("alice is choosing a mark")
    assert club.server.poll() is None
