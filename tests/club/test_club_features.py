"""What the lobby offers a player beyond sitting down: opening a table as one likes (rated or
not, a series of 1, 3 or 5 matches or an open-ended one), a rematch, a replay of a recent match,
a second key; driven with Pilot, the link to the club a fake (`test_lobby_screen.FakeLobby`);
and a series of three matches that ends by itself, then a rematch, with the real `ssh`."""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.content import Content
from textual.widgets import Static

import limits
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from tictactoe.club.link import LobbyLink
from tictactoe.club.lobby import CLUB_TOKEN, Club
from tictactoe.core.engine import Mark
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.players import Player
from tictactoe.link.client import AuthorityLink
from tictactoe.online.lobby import (
    AddKey,
    CloseTable,
    GoTo,
    KeyWord,
    LobbyNews,
    OpenTable,
    PastMatch,
    Rematch,
    Said,
    SitAt,
    Snapshot,
    TableRow,
    You,
)
from tictactoe.online.protocol import Ended, Hello, State
from tictactoe.record.club import ClubRecord
from tictactoe.tui.club_app import ClubApp
from tictactoe.tui.screens.add_key import AddKeyScreen
from tictactoe.tui.screens.club_open import OpenTableScreen
from tictactoe.tui.screens.club_replay import PastMatchScreen
from tictactoe.tui.screens.lobby import LobbyScreen
from tictactoe.tui.screens.replay import ReplayPane
from tictactoe.tui.widgets.ultimate_board import UltimateBoard

from .test_club_end_to_end import Club as RunningClub
from .test_club_end_to_end import club as club  # the fixture: a club running in its terminal
from .test_club_end_to_end import move
from .test_lobby_screen import LOBBY, FakeLobby, cells, club_app

GUEST = Snapshot(You("guest-x7k2p9", True, ()), open=LOBBY.open)
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
        await pilot.press("tab", "tab", "tab")  # the game, the rating, then the length
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
        assert not app.screen.query("#rated")  # no rating offered (test_club_newcomers)
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
        offering = Snapshot(
            You("ada", False, (("classic", "1612 ± 120"),), waiting_at="9", waiting_for="alan")
        )
        lobby.say(offering)
        offered = "ada · Classic 1612 ± 120 · offering alan a rematch (c takes it back)"
        await limits.eventually(lambda: shown(app, "#you") == offered, lambda: shown(app, "#you"))

        kept = TableRow("9", ("alan",), True, 3, rating="1580 ± 130", rematch=True)
        lobby.say(
            Snapshot(
                You("ada", False, (("classic", "1612 ± 120"),), offered_by="alan"), open=(kept,)
            )
        )
        offered = "ada · Classic 1612 ± 120 · alan offers you a rematch: r takes it"
        await limits.eventually(lambda: shown(app, "#you") == offered, lambda: shown(app, "#you"))
        assert cells(app, "open") == [["alan", "1580 ± 130", "rematch · Classic · 3"]]
        await pilot.press("r")  # takes it
        await pilot.press("enter")  # or Enter on its row
        await pilot.pause()
    assert lobby.asked == [Rematch(), Rematch(), SitAt("9")]


# Replays.


async def test_enter_on_a_recent_match_replays_it() -> None:
    when = datetime.fromtimestamp(1_795_000_000, UTC)
    players = (Player("ada"), Player("alan"))
    past = PastMatch(
        FinishedMatch(players, (Mark.O, Mark.X), 1, (4, 0, 8, 2, 6, 1), 1, when), False
    )
    lobby = FakeLobby(Snapshot(LOBBY.you, recent=(past, *LOBBY.recent)))
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert cells(app, "recent")[0] == ["alan", "lost", "unrated"]
        await pilot.press("tab", "tab", "tab", "enter")  # open, playing, ladder, recent
        await pilot.pause()
        assert isinstance(app.screen, PastMatchScreen)
        assert shown(app, "#past-kind") == "An unrated match at the club · Classic"
        replay = app.screen.query_one(ReplayPane)
        assert replay.match is not None
        assert replay.match.moves == past.match.moves
        assert "alan won" in shown(app, "#replay-title")
        assert replay.step == 0  # at the start, to be played through (as the record's replay)
        await pilot.press("right", "right", "home", "right")
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


async def test_a_recent_ultimate_match_replays_on_the_ultimate_board() -> None:
    ultimate = dataclasses.replace(LOBBY.recent[0].match, variant="ultimate", moves=(36, 1, 9))
    lobby = FakeLobby(Snapshot(LOBBY.you, recent=(PastMatch(ultimate, True),)))
    app = club_app(lobby)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("tab", "tab", "tab", "enter")
        await pilot.pause()
        assert isinstance(app.screen, PastMatchScreen)
        assert shown(app, "#past-kind") == "A rated match at the club · Ultimate"
        await pilot.press("end")
        assert app.screen.query_one(ReplayPane).step == 3
        assert app.screen.query(UltimateBoard), "the Ultimate board, not the classic one"


# A second key.


async def test_k_asks_for_a_one_time_word_and_shows_the_line_to_type() -> None:
    lobby = FakeLobby(LOBBY)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("k")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen), "nothing to paste: the club is asked"
        assert lobby.asked == [AddKey()]
        lobby.say(KeyWord("ada+k7qm2x9p", 2222, 10))
        await limits.eventually(lambda: isinstance(app.screen, AddKeyScreen), lambda: app.screen)
        assert shown(app, "#key-line") == "ssh -p 2222 ada+k7qm2x9p@HOST"
        assert "within 10 minutes" in shown(app, "#key-explain")
        lobby.say(KeyWord("ada+bbbbbbbb", 22, 10))  # k again: the new word replaces the old
        await limits.eventually(
            lambda: shown(app, "#key-line") == "ssh ada+bbbbbbbb@HOST",
            lambda: shown(app, "#key-line"),
        )
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)


async def test_a_guest_cannot_add_a_key() -> None:
    lobby = FakeLobby(GUEST)
    app = club_app(lobby)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("k")
        await limits.eventually(
            lambda: any("A guest has no handle" in toast for toast in toasts(app)),
            lambda: toasts(app),
        )
        assert isinstance(app.screen, LobbyScreen)
    assert lobby.asked == []


# The help.


async def test_the_help_lists_the_lobbys_keys() -> None:
    app = club_app(FakeLobby(LOBBY))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        text = app.screen.query_one("Markdown").source  # type: ignore[attr-defined]
        for words in ("# At a club", "quick pair", "rematch", "add a key", "replay it"):
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


def test_the_open_table_dialog_of_ultimate_at_50x16(snap_compare: Any) -> None:
    """At the smallest terminal the dialog fits whole: the game (Ultimate chosen), the rating,
    the series and its buttons."""

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("o", "g", "5")
        await pilot.pause()
        chosen = OpenTable(rated=True, matches=5, variant="ultimate")
        assert pilot.app.screen.choice() == chosen
        buttons = [pilot.app.screen.query_one(f"#{name}") for name in ("open", "cancel")]
        assert all(button.region.bottom <= 15 for button in buttons), "above the footer"

    assert snap_compare(club_app(FakeLobby(LOBBY)), terminal_size=(50, 16), run_before=run_before)


def test_the_add_key_dialog_at_80x24(snap_compare: Any) -> None:
    lobby = FakeLobby(LOBBY)

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("k")
        lobby.say(KeyWord("ada+k7qm2x9p", 2222, 10))
        await limits.eventually(
            lambda: isinstance(pilot.app.screen, AddKeyScreen), lambda: pilot.app.screen
        )
        await pilot.pause()

    assert snap_compare(club_app(lobby), terminal_size=(80, 24), run_before=run_before)


def test_a_recent_match_replayed_at_80x24(snap_compare: Any) -> None:
    """Ada's win over Alan, at its last move (a replay opens at its start: End goes there)."""

    async def run_before(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("tab", "tab", "tab", "enter")
        await pilot.pause()
        assert isinstance(pilot.app.screen, PastMatchScreen)
        await pilot.press("end")
        await pilot.pause()

    assert snap_compare(club_app(FakeLobby(LOBBY)), terminal_size=(80, 24), run_before=run_before)


# With the real ssh.


@pytest.mark.slow
@pytest.mark.usefixtures("ssh")
def test_a_series_of_three_ends_by_itself_and_a_rematch_follows(club: RunningClub) -> None:
    alice = club.ssh("alice", "alice")
    bob = club.ssh("bob", "bob")
    alice.expect("Open tables")
    bob.expect("Open tables")
    alice.from_now().send(b"o3\r")  # a rated table, a series of three matches
    bob.expect(r"alice 1500 ± \d+ Classic · 3")
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
        # Numbered: "bob O top" alone is also in "1. bob O top-left", drawn again at each move.
        move(players[chooser], b"7", players[other], rf"1\. {chooser} {mark} top-left")
        move(players[other], b"4", players[chooser], rf"2\. {other} {'XO'[mark == 'X']} left")
        move(players[chooser], b"8", players[other], rf"3\. {chooser} {mark} top\b(?!-)")
        move(players[other], b"5", players[chooser], rf"4\. {other} {'XO'[mark == 'X']} centre")
        if number < 3:
            move(players[chooser], b"9", players[other], f"{chooser} wins!")
        else:  # the series ends with this move: both go back to the lobby at once
            players[chooser].send(b"9")

    for player in (alice, bob):  # the third match ends the series: both back in the lobby
        player.expect("The series of 3 matches is over.")
        player.expect(r"Score:[\s▌]+alice[\s▌]+2,[\s▌]+bob[\s▌]+1,[\s▌]+draws[\s▌]+0")  # wrapped
        player.expect("Open tables")
    alice.expect(r"1 alice (1[5-9]\d\d) ± \d+ 2 0 1")  # the ladder: two wins, one loss
    alice.expect(r"2 bob \d+ ± \d+ 1 0 2")
    alice.expect(r"bob won rated bob lost rated bob won rated")  # her recent matches, newest first

    alice.from_now().send(b"r")  # a rematch offered to Bob
    alice.expect("offering bob a rematch")
    bob.expect("alice offers you a rematch: r takes it")
    bob.expect(r"alice \d+ ± \d+ rematch · Classic · 3")
    alice.from_now()
    bob.from_now().send(b"r")  # taken with one key; alice chose first last time: now bob
    bob.expect("bob, choose your mark")
    alice.expect("bob is choosing a mark")
    assert club.server.poll() is None


# The club's side, on loopback: its own lobby links and table links, no terminal.


def key_line(comment: str) -> str:
    """A made-up ed25519 public key line (the club reads keys; it never checks a signature
    with one here)."""
    blob = b"\0\0\0\x0bssh-ed25519\0\0\0\x20" + os.urandom(32)
    return f"ssh-ed25519 {base64.b64encode(blob).decode()} {comment}"


async def next_news(link: LobbyLink, wanted: Callable[[LobbyNews], bool]) -> LobbyNews:
    """The first news from the club that is `wanted` (within a generous bound)."""
    skipped: list[LobbyNews] = []

    async def read() -> LobbyNews:
        async for news in link:
            if wanted(news):
                return news
            skipped.append(news)
        raise AssertionError(f"the lobby link closed; it was sent: {skipped!r}")

    return await limits.within(read(), lambda: skipped[-3:], "the news wanted")


def said(text: str) -> Callable[[LobbyNews], bool]:
    return lambda news: isinstance(news, Said) and text in news.text


def goto(news: LobbyNews) -> bool:
    return isinstance(news, GoTo)


async def at_table(news: LobbyNews) -> AuthorityLink:
    """The link of a seat at the table `news` (a GoTo) sends the player to."""
    assert isinstance(news, GoTo), news
    hello = Hello(news.code, news.name, "127.0.0.1", news.host_token, news.door_key)
    return await AuthorityLink.open(news.url, hello)


async def until(link: AuthorityLink, kind: type[Any]) -> Any:
    skipped: list[object] = []

    async def read() -> Any:
        async for message in link:
            if isinstance(message, kind):
                return message
            skipped.append(message)
        raise AssertionError(f"the table's link closed; it was sent: {skipped!r}")

    return await limits.within(read(), lambda: skipped[-3:], f"a {kind.__name__}")


async def test_a_rematch_is_kept_for_the_other_and_lapses(tmp_path: Path) -> None:
    record = ClubRecord(tmp_path / "club.sqlite")
    club = Club(record)
    await club.start()
    links: dict[str, LobbyLink] = {}
    try:
        for handle in ("ada", "alan", "grace"):
            admission = await club.enter(handle, key_line(handle), "127.0.0.1")
            links[handle] = await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN])
        ada, alan, grace = links["ada"], links["alan"], links["grace"]

        await grace.ask(Rematch())  # no series played yet
        await next_news(grace, said("nobody to offer a rematch to"))

        await ada.ask(OpenTable(rated=True, matches=3))  # a series: Alan sits, Ada leaves it
        opened = await next_news(ada, goto)
        assert isinstance(opened, GoTo)
        await alan.ask(SitAt(opened.table))
        sat = await next_news(alan, goto)
        seats = [await at_table(opened), await at_table(sat)]
        for seat in seats:
            await until(seat, State)
        await seats[0].leave()
        for seat in seats:
            await until(seat, Ended)
            await seat.close()

        await ada.ask(Rematch())  # kept for Alan: he sees it offered, Grace does not see it
        offer = await next_news(ada, goto)
        assert isinstance(offer, GoTo)
        offered = await next_news(
            alan, lambda news: isinstance(news, Snapshot) and news.you.offered_by == "ada"
        )
        assert isinstance(offered, Snapshot)
        assert [(row.players, row.matches, row.rematch) for row in offered.open] == [
            (("ada",), 3, True)
        ]
        assert offer.table not in [row.id for row in club.snapshot("grace", False).open]
        await grace.ask(SitAt(offer.table))
        await next_news(grace, said("That table is kept for alan"))

        waiting = await at_table(offer)  # Ada at her table, waiting
        await alan.ask(OpenTable(rated=False))  # Alan goes elsewhere: the offer lapses
        lapsed = await until(waiting, Ended)
        assert lapsed.text == "alan opened a table: the rematch offer lapsed."
        await waiting.close()

        await ada.ask(Rematch())  # Alan waits at his own table now
        await next_news(ada, said("alan is at a table now."))
        await alan.ask(CloseTable())
        await limits.eventually(
            lambda: club.snapshot("alan", False).you.waiting_at is None,
            lambda: club.snapshot("alan", False).you,
            "alan's table closed",
        )
        await ada.ask(Rematch())
        waiting = await at_table(await next_news(ada, goto))
        await alan.close()  # Alan leaves the club: the offer lapses
        lapsed = await until(waiting, Ended)
        assert lapsed.text == "alan left the club: the rematch offer lapsed."
        await waiting.close()
    finally:
        for link in links.values():
            with contextlib.suppress(Exception):
                await link.close()
        await club.stop()
        record.close()


async def test_a_player_adds_a_key_and_a_guest_cannot(tmp_path: Path) -> None:
    record = ClubRecord(tmp_path / "club.sqlite")
    club = Club(record)
    await club.start()
    links: list[LobbyLink] = []
    try:
        ada_in = await club.enter("ada", key_line("laptop"), "127.0.0.1")
        guest_in = await club.enter("zed", None, "127.0.0.1")
        ada = await LobbyLink.open(club.url, ada_in.environment[CLUB_TOKEN])
        guest = await LobbyLink.open(club.url, guest_in.environment[CLUB_TOKEN])
        links += [ada, guest]

        await ada.ask(AddKey())
        word = await next_news(ada, lambda news: isinstance(news, KeyWord))
        assert isinstance(word, KeyWord) and word.login.startswith("ada+")
        phone = await club.enter(word.login, key_line("phone"), "127.0.0.1")
        assert phone.refusal is None and phone.name == "ada"
        again = await LobbyLink.open(club.url, phone.environment[CLUB_TOKEN])
        links.append(again)
        await next_news(again, said("now signs in as ada"))
        await guest.ask(AddKey())
        await next_news(guest, said("A guest has no handle to add a key to"))
        (ada_row,) = record.players()
        assert ada_row.handle == "ada"
        assert len(ada_row.fingerprints) == 2
    finally:
        for link in links:
            with contextlib.suppress(Exception):
                await link.close()
        await club.stop()
        record.close()


async def test_in_a_rematch_the_other_player_chooses_first(tmp_path: Path) -> None:
    """Ada chose first in their series: in the rematch she offers, Alan chooses first; and in
    the one after, Ada again."""
    record = ClubRecord(tmp_path / "club.sqlite")
    club = Club(record)
    await club.start()
    links: dict[str, LobbyLink] = {}
    try:
        for handle in ("ada", "alan"):
            admission = await club.enter(handle, key_line(handle), "127.0.0.1")
            links[handle] = await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN])
        ada, alan = links["ada"], links["alan"]
        await ada.ask(OpenTable(rated=False, matches=None))
        opened = await next_news(ada, goto)
        assert isinstance(opened, GoTo)
        await alan.ask(SitAt(opened.table))
        seats = [await at_table(opened), await at_table(await next_news(alan, goto))]
        choosers = []
        for rematch in range(3):
            first: State = await until(seats[0], State)
            while first.series is None:  # the other seat not there yet
                first = await until(seats[0], State)
            choosers.append(first.series.players[first.series.chooser].name)
            await seats[rematch % 2].leave()  # one leaves before a move: nothing recorded
            for seat in seats:
                await until(seat, Ended)
                await seat.close()
            if rematch == 2:
                break
            await ada.ask(Rematch())  # Ada offers each time, Alan takes it
            offer = await next_news(ada, goto)
            await alan.ask(Rematch())
            taken = await next_news(alan, goto)
            seats = [await at_table(offer), await at_table(taken)]
        assert choosers == ["ada", "alan", "ada"]
    finally:
        for link in links.values():
            with contextlib.suppress(Exception):
                await link.close()
        await club.stop()
        record.close()
