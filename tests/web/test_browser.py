"""The served game played from a real Chromium: keys, mouse, quitting, tabs, and the network."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Browser

from web.conftest import Served, Tab, recorded_results, start_hot_seat, wait_until

pytestmark = pytest.mark.slow


async def test_a_win_played_by_keys_is_announced_and_recorded(
    browser: Browser, served: Served
) -> None:
    tab = await Tab.open(browser, served.url)
    await start_hot_seat(tab, "Ada", "Bob")

    await tab.type("7", "4", "8", "5", "9")  # keypad layout: 7 8 9 is the top row

    screen = await tab.wait_for("Ada wins!")
    assert "1. Ada X top-left" in screen
    wait_until(lambda: recorded_results(served.record) != {}, "the win recorded")
    assert recorded_results(served.record) == {"Ada": (1, 0, 0), "Bob": (0, 1, 0)}


async def test_a_megabyte_pasted_in_the_tab_and_the_next_moves_count(
    browser: Browser, served: Served
) -> None:
    """PRODUCT.md: after any paste the next key acts within 2 s. The terminal sends a paste as
    one message; the page sends a long one in parts the door takes (a message past 64 KB
    closes the tab's connection)."""
    tab = await Tab.open(browser, served.url)
    await start_hot_seat(tab, "Ada", "Bob")
    await tab.page.evaluate(
        """() => {
            const pasted = new DataTransfer();
            pasted.setData("text/plain", "pasted text ".repeat(90000));
            document.activeElement.dispatchEvent(
                new ClipboardEvent("paste", { clipboardData: pasted, bubbles: true })
            );
        }"""
    )
    await tab.type("7", "4", "8", "5", "9")
    screen = await tab.wait_for("Ada wins!")
    assert "1. Ada X top-left" in screen


async def test_keys_reach_the_game_with_no_focusing_by_hand(
    browser: Browser, served: Served
) -> None:
    """As a person would: the page opens, the game is drawn, and they type; later they come back
    to the window from elsewhere and type on."""
    tab = await Tab.open(browser, served.url)
    keyboard = tab.page.keyboard
    has_keys = "document.activeElement.classList.contains('xterm-helper-textarea')"
    assert await tab.page.evaluate(has_keys), "the terminal should have the keyboard once drawn"

    await keyboard.type("Zed")
    await tab.wait_for("▊  Zed ")

    await tab.page.evaluate("document.activeElement.blur()")  # the keyboard went elsewhere
    await tab.page.evaluate("window.dispatchEvent(new FocusEvent('focus'))")  # and came back
    assert await tab.page.evaluate(has_keys), "the terminal should have the keyboard again"

    await keyboard.press("Tab")
    await keyboard.type("Amy")
    await tab.wait_for("▊  Amy ")
    await keyboard.press("Control+s")
    await tab.wait_for("choose your mark")
    await keyboard.press("x")
    await tab.wait_for("Zed (X) to move")


async def test_a_click_takes_the_cell_under_the_mouse(browser: Browser, served: Served) -> None:
    tab = await Tab.open(browser, served.url)
    await start_hot_seat(tab, "Ada", "Bob")

    await tab.click_cell("5")
    screen = await tab.wait_for("Bob (O) to move")
    assert "1. Ada X centre" in screen

    await tab.click_cell("3")
    screen = await tab.wait_for("Ada (X) to move")
    assert "2. Bob O bottom-right" in screen


async def test_q_ends_the_session_and_the_page_says_so(browser: Browser, served: Served) -> None:
    # The tab's game is the spare started with the server; the next spare starts a little after
    # the tab takes it, so the count of games says nothing: follow the tab's own process.
    wait_until(lambda: len(served.games()) == 1, "the spare game to start")
    (game,) = served.games()
    tab = await Tab.open(browser, served.url)
    await start_hot_seat(tab, "Ada", "Bob")
    assert game in served.games(), "the tab should be played by the spare game"

    await tab.type("q")

    await tab.ending()
    assert await tab.ended()
    wait_until(lambda: game not in served.games(), "the game's process to end")


async def test_two_tabs_play_two_series_and_both_are_recorded(
    browser: Browser, served: Served
) -> None:
    first = await Tab.open(browser, served.url)
    second = await Tab.open(browser, served.url)
    await start_hot_seat(first, "Ada", "Bob")
    await start_hot_seat(second, "Cy", "Di")

    # Moves taken in turn in each tab: X wins the top row in the first, O in the second.
    for key_first, key_second in zip("74859", "17286", strict=True):
        await first.type(key_first)
        await second.type(key_second)
    await second.type("9")

    first_screen = await first.wait_for("Ada wins!")
    second_screen = await second.wait_for("Di wins!")
    assert "Cy" not in first_screen and "Di" not in first_screen
    assert "Ada" not in second_screen and "Bob" not in second_screen
    wait_until(lambda: len(recorded_results(served.record)) == 4, "both wins recorded")
    assert recorded_results(served.record) == {
        "Ada": (1, 0, 0),
        "Bob": (0, 1, 0),
        "Cy": (0, 1, 0),
        "Di": (1, 0, 0),
    }


async def test_closing_a_tab_ends_its_game_process(browser: Browser, served: Served) -> None:
    wait_until(lambda: len(served.games()) == 1, "the spare game to start")
    (spare,) = served.games()
    tab = await Tab.open(browser, served.url)
    await start_hot_seat(tab, "Ada", "Bob")
    wait_until(lambda: len(served.games()) == 2, "the next spare game to start")
    assert spare in served.games(), "the tab should be played by the spare game"

    await tab.close()

    wait_until(lambda: spare not in served.games(), "the closed tab's game to end")
    assert len(served.games()) == 1


async def test_the_page_asks_nothing_of_any_other_host(browser: Browser, served: Served) -> None:
    tab = await Tab.open(browser, served.url)
    await start_hot_seat(tab, "Ada", "Bob")
    await tab.type("5")
    await tab.wait_for("1. Ada X centre")
    await asyncio.sleep(0.5)  # anything the page would fetch late

    server = urlsplit(served.url).netloc
    assert tab.requests, "no request was seen at all"
    assert {urlsplit(url).netloc for url in tab.requests} == {server}, tab.requests
    assert any(url.startswith(f"ws://{server}/") for url in tab.requests)


async def win_for_ada(tab: Tab) -> None:
    await start_hot_seat(tab, "Ada", "Bob")
    await tab.type("7", "4", "8", "5", "9")
    await tab.wait_for("Ada wins!")


def assert_final_score(ending: str) -> None:
    assert "Ada won the series" in ending, ending
    assert "Final score" in ending, ending
    assert re.search(r"Ada +1\n", ending) and re.search(r"Bob +0\n", ending), ending
    assert "(1 match played)" in ending, ending


async def test_after_q_the_page_tells_the_final_score(browser: Browser, served: Served) -> None:
    tab = await Tab.open(browser, served.url)
    await win_for_ada(tab)

    await tab.type("q")

    ending = await tab.ending()
    assert ending.startswith("The game has ended."), ending
    assert "server" not in ending, ending
    assert_final_score(ending)


async def test_a_stopped_server_is_told_apart_with_the_final_score(
    browser: Browser, served: Served
) -> None:
    tab = await Tab.open(browser, served.url)
    await win_for_ada(tab)

    served.stop()

    ending = await tab.ending()
    assert ending.startswith("The server has stopped, so the game has ended."), ending
    assert_final_score(ending)


async def test_a_server_gone_without_a_word_is_a_lost_connection(
    browser: Browser, served: Served
) -> None:
    tab = await Tab.open(browser, served.url)
    await win_for_ada(tab)

    os.kill(served.pid, signal.SIGKILL)

    ending = await tab.ending()
    assert ending.startswith("The connection to the server was lost."), ending
    assert "Final score" not in ending, ending
