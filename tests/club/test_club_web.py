"""The club's web door: a browser tab is a guest, in the same lobby as the players with `ssh`.

The club runs as in `test_club_end_to_end` (its own terminal, real `ssh` players), with
`--web-port 0`; the tab is a real Chromium through Playwright (`web.conftest`: without Chromium
these tests skip, unless CI requires it). The tabs' gate is also checked in this process, over a
club on a record in the test's folder: guests at once from one address are bounded for tabs as
for keyless SSH logins, a refused tab is told why, with no game started, and the door answers
only requests addressed to this machine and websockets from its own page.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from pathlib import Path

import aiohttp
import pytest
from playwright.async_api import Browser

from club.test_club_end_to_end import open_club
from limits import EVENT_LIMIT
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from tictactoe.club.bounds import GUESTS_PER_NETWORK, TOO_MANY_GUESTS
from tictactoe.club.lobby import CLUB_TOKEN, Club
from tictactoe.club.web import GuestTabs, open_web_door
from tictactoe.doors.web.code_gate import Refusal
from tictactoe.doors.web.server import GameServer
from tictactoe.record.club import ClubRecord
from web.conftest import Tab
from web.conftest import browser as browser  # the fixture: the system's Chromium

pytestmark = pytest.mark.slow


@pytest.mark.usefixtures("ssh")
async def test_a_tab_is_a_guest_in_the_lobby_and_a_player_with_ssh_sees_its_table(
    browser: Browser, tmp_path: Path
) -> None:
    club = open_club(tmp_path, "--web-port", "0")
    try:
        url = club.server.expect(r"Browsers open (http://\S+/)")[1]
        tab = await Tab.open(browser, url, first_screen="Open tables")
        screen = await tab.wait_for("guest, unrated")
        guest = screen.split(" · guest, unrated")[0].split()[-1]
        assert guest.startswith("guest-"), screen

        alice = club.ssh("alice", "alice")
        alice.expect("Open tables")
        alice.from_now()
        await tab.type("o", "Enter")  # the dialog: Enter opens as shown (a guest's: unrated)
        await tab.wait_for("waiting for someone to sit")
        alice.expect(rf"{guest} guest Classic · open")  # a guest has no rating

        alice.from_now().send(b"\r")  # Alice sits at the guest's table
        await tab.wait_for(f"{guest}, choose your mark")
        alice.expect(f"{guest} is choosing a mark")
        await tab.close()
    finally:
        club.close()


@pytest.mark.usefixtures("ssh")
async def test_a_tab_opens_an_ultimate_table_and_plays_it_on_the_ultimate_board(
    browser: Browser, tmp_path: Path
) -> None:
    club = open_club(tmp_path, "--web-port", "0")
    try:
        url = club.server.expect(r"Browsers open (http://\S+/)")[1]
        tab = await Tab.open(browser, url, first_screen="Open tables")
        screen = await tab.wait_for("guest, unrated")
        guest = screen.split(" · guest, unrated")[0].split()[-1]

        alice = club.ssh("alice", "alice")
        alice.expect("Open tables")
        alice.from_now()
        await tab.type("o", "g", "Enter")  # the dialog, g: Ultimate, Enter opens it
        await tab.wait_for("waiting for someone to sit")
        alice.expect(rf"{guest} guest Ultimate · open")

        alice.from_now().send(b"\r")  # Alice sits at the guest's Ultimate table
        await tab.wait_for(f"{guest}, choose your mark")
        await tab.type("x")
        alice.expect(rf"{guest} \(X\) to move")
        alice.from_now()
        await tab.type("5", "7")  # the centre board's top-left cell, as the tab's keys say
        alice.expect(r"1\. \S+ X")  # the move crossed: in Alice's list of moves
        alice.expect(r"alice \(O\) to move")
        await tab.wait_for("centre board")  # the tab's moves are Ultimate's: board and cell
        alice.from_now().send(b"1")  # one digit: Alice is sent to the top-left board
        await tab.wait_for("top-left board")  # Alice's move, on the tab's list of moves
        await tab.close()
    finally:
        club.close()


async def test_guests_at_once_from_one_address_are_bounded_for_tabs_too(tmp_path: Path) -> None:
    record = ClubRecord(tmp_path / "club.sqlite3")
    club = Club(record)
    await club.start()
    tabs = GuestTabs(club)
    try:
        entered = [await tabs.enter("192.0.2.7") for _ in range(GUESTS_PER_NETWORK)]
        assert len({each[CLUB_TOKEN] for each in entered}) == GUESTS_PER_NETWORK
        with pytest.raises(Refusal) as refused:
            await tabs.enter("192.0.2.7")
        assert refused.value.sentence == TOO_MANY_GUESTS
        ssh_guest = await club.enter("zed", None, "192.0.2.7")  # a keyless login counts with them
        assert ssh_guest.refusal == TOO_MANY_GUESTS
        assert CLUB_TOKEN in await tabs.enter("198.51.100.1")  # another address gets in

        tabs.left(entered[0])  # a tab closed: its place is free
        again = await tabs.enter("192.0.2.7")
        assert again[CLUB_TOKEN] not in {each[CLUB_TOKEN] for each in entered}
    finally:
        await club.stop()
        record.close()


async def test_the_web_door_answers_only_its_own_names_and_pages(tmp_path: Path) -> None:
    record = ClubRecord(tmp_path / "club.sqlite3")
    club = Club(record)
    await club.start()
    door = await open_web_door(club, "127.0.0.1", 0)
    try:
        async with aiohttp.ClientSession() as client:
            async with client.get(door.address) as page:
                assert page.status == 200
                assert "/ws" in await page.text()  # the game's page, no code asked for
            elsewhere = {"Host": f"club.example.org:{door.port}"}  # a name pointed here
            async with client.get(door.address, headers=elsewhere) as page:
                assert page.status == 421
            foreign = {"Origin": "http://club.example.org", "Upgrade": "websocket"}
            async with client.get(f"{door.address}ws", headers=foreign) as page:
                assert page.status == 403  # a page elsewhere opens no game
        assert not door.games.sessions
    finally:
        await door.close()
        await club.stop()
        record.close()


async def test_the_web_door_answers_the_names_it_is_given(tmp_path: Path) -> None:
    """A club on the internet is reached by its own name (--web-name): that name is taken, any
    other pointed at the machine still is not."""
    record = ClubRecord(tmp_path / "club.sqlite3")
    club = Club(record)
    await club.start()
    door = await open_web_door(club, "127.0.0.1", 0, ["Club.Example.org"])
    try:
        async with aiohttp.ClientSession() as client:
            named = {"Host": f"club.example.org:{door.port}"}
            async with client.get(door.address, headers=named) as page:
                assert page.status == 200
            other = {"Host": f"evil.example.net:{door.port}"}
            async with client.get(door.address, headers=other) as page:
                assert page.status == 421
    finally:
        await door.close()
        await club.stop()
        record.close()


class Refusing:
    """A tab gate that lets nobody in."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def enter(self, peer: str) -> Mapping[str, str]:
        self.asked.append(peer)
        raise Refusal(TOO_MANY_GUESTS, 429)

    def left(self, environment: Mapping[str, str]) -> None:
        raise AssertionError("no tab was let in")


@pytest.fixture
async def refusing_door() -> AsyncIterator[tuple[GameServer, Refusing]]:
    gate = Refusing()
    door = GameServer(("--delay", "0"), port=0, spare=False, tab_gate=gate)
    await door.start("127.0.0.1")
    try:
        yield door, gate
    finally:
        await door.close()


async def test_a_refused_tab_is_told_why_and_no_game_starts(
    browser: Browser, refusing_door: tuple[GameServer, Refusing]
) -> None:
    door, gate = refusing_door
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(door.address)
        dialog = page.locator(".closed-dialog")
        await dialog.wait_for(state="visible", timeout=EVENT_LIMIT * 1000)
        said = await dialog.inner_text()
        assert "No game was started here." in said
        assert TOO_MANY_GUESTS in said
    finally:
        await context.close()
    assert gate.asked == ["127.0.0.1"]
    assert not door.games.sessions
