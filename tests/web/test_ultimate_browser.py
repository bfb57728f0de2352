"""Ultimate in a real Chromium: `serve --variant ultimate` plays it in a tab, and a friend joins a
hosted Ultimate series through the browser door and plays in it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser

from limits import EVENT_LIMIT
from web.conftest import SCREEN_READER, VIEWPORT, Served, Tab, serving, start_hot_seat
from web.test_online_browser import HostTerminal

pytestmark = pytest.mark.slow


@pytest.fixture
def served_ultimate(tmp_path: Path) -> Iterator[Served]:
    with serving(tmp_path, "--variant", "ultimate") as server:
        yield server


async def test_a_served_tab_plays_ultimate_moves(browser: Browser, served_ultimate: Served) -> None:
    tab = await Tab.open(browser, served_ultimate.url)
    await start_hot_seat(tab, "Ada", "Bob")
    await tab.type("5", "7")  # keypad layout: the centre board's top-left
    await tab.wait_for("Bob (O) to move")
    await tab.type("9")  # sent to the top-left board: one digit plays there
    screen = " ".join((await tab.wait_for("Ada (X) to move")).split())
    assert re.search(r"1\. (?:\S+ )?X\b", screen), screen
    assert re.search(r"2\. (?:\S+ )?O\b", screen), screen
    assert "centre board" in screen and "top-left board" in screen, screen
    await tab.close()


@pytest.fixture
def alice(tmp_path: Path) -> Iterator[HostTerminal]:
    host = HostTerminal(tmp_path, "--variant", "ultimate")
    try:
        yield host
    finally:
        host.stop()


async def test_a_friend_joins_a_hosted_ultimate_series_from_a_browser(
    alice: HostTerminal, browser: Browser
) -> None:
    alice.find(r"Ultimate tic-tac-toe\. To join")
    address = alice.find(r"http://127\.0\.0\.1:\d+/").group(0)
    code = alice.find(r"code: ([A-Z0-9]{6})").group(1)
    context = await browser.new_context(viewport=VIEWPORT)
    page = await context.new_page()
    tab = Tab(context, page)
    await page.add_init_script(SCREEN_READER)
    await page.goto(address)
    await page.wait_for_function("document.activeElement?.id === 'code'")
    await page.keyboard.type(code)
    await page.keyboard.press("Enter")
    await tab.wait_for("Join a friend's series")
    await page.keyboard.type("Bob")
    await page.keyboard.press("Enter")
    await tab.wait_for("Alice is choosing a mark")

    alice.type("x")
    await tab.wait_for("Alice (X) to move")
    alice.type("77")  # the top-left board's top-left
    await tab.wait_for("Bob (O) to move")
    await page.keyboard.press("5")  # sent to the top-left board: its centre
    alice.find(r"2\. (?:\S+ )?O\b")
    await tab.wait_for("Alice (X) to move")
    alice.type("1")  # sent to the centre board: its bottom-left
    screen = " ".join((await tab.wait_for("Bob (O) to move")).split())
    assert re.search(r"3\. (?:\S+ )?X\b", screen), screen

    await page.keyboard.press("q")
    ending = await tab.ending()
    assert "You ended the series." in ending
    assert alice.process.wait(EVENT_LIMIT) == 0
    await tab.close()
