"""One SVG snapshot per screen of online play: joining, the host's invitation, a seat's
board, a watcher's, and a seat whose friend has not come back.

The screens are shown with fixed values (a fixed code, address and fingerprint; a series
reached by fixed moves), so each picture is the same on every run; the flows behind them
are tested against a real authority in `tests/online/`.
Regenerate after an intended change with `uv run pytest tests/snapshots --snapshot-update`
and look at the pictures before committing them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input

import tictactoe.tui.app
from online.test_online_app import Nowhere  # a link to no authority
from tictactoe.config import GameConfig
from tictactoe.core.engine import Mark
from tictactoe.core.notices import Notice
from tictactoe.core.series import ChooseMark, Play, Series
from tictactoe.host.invitation import Invitation
from tictactoe.online.protocol import Away, State
from tictactoe.play.joining import JoinSetup
from tictactoe.play.seat_table import SeatTable
from tictactoe.tui.online_app import OnlineApp
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.online import InvitationScreen, JoinScreen

SIZE: Final = (100, 32)

INVITATION: Final = Invitation(
    code="K7M4QX",
    addresses=("192.168.1.20",),
    ssh_port=2222,
    web_port=8000,
    fingerprint="SHA256:4mBf3rZ1l0wq9oTQm3xWvD0yYkq8s2h5Jd7uJ6tE1aQ",
)


def mid_match() -> Series:
    """Alice (X) against Bob (O), three moves in, Bob to move."""
    series = Series.new("Alice", "Bob")
    for intent in (ChooseMark(Mark.X), Play(4), Play(0), Play(8)):
        series = series.apply(intent)
    return series


class Showing(OnlineApp):
    """The online app with one screen on show, made by `screen`."""

    CSS_PATH = str(Path(tictactoe.tui.app.__file__).with_name("app.tcss"))
    """(A relative path would be read beside this test module.)"""

    def __init__(self, screen: Callable[[], Screen[Any]]) -> None:
        super().__init__(GameConfig(save=False), JoinSetup())
        self._screen = screen

    def begin(self) -> None:
        self.push_screen(self._screen())


async def _nowhere(code: str, name: str) -> str | None:
    return "The host's game cannot be reached: it may have ended."


def seat(index: int | None) -> Callable[[], Screen[Any]]:
    return lambda: GameScreen(SeatTable(mid_match(), Nowhere(index)))


def state(**changes: Any) -> State:
    values: dict[str, Any] = {
        "version": 7,
        "series": mid_match(),
        "names": ("Alice", "Bob"),
        "watchers": 1,
        "away": None,
        "notice": Notice(),
    }
    return State(**(values | changes))


def test_join_asks_the_code_and_a_name(snap_compare: Any) -> None:
    async def type_them(pilot: Pilot[Any]) -> None:
        await pilot.press(*"k7m4q", "enter", *"Bob")
        name = pilot.app.screen.query_one("#name", Input)
        assert pilot.app.focused is name and name.value == "Bob"

    app = Showing(lambda: JoinScreen(_nowhere, code=None, name=None))
    assert snap_compare(app, terminal_size=SIZE, run_before=type_them)


def test_the_host_waits_with_its_invitation(snap_compare: Any) -> None:
    assert snap_compare(Showing(lambda: InvitationScreen(INVITATION)), terminal_size=SIZE)


def test_the_invitation_leads_with_the_relay_and_says_where_each_line_works(
    snap_compare: Any,
) -> None:
    relayed = replace(
        INVITATION,
        addresses=("192.168.1.20", "2a01:4f8:c0c:1234::20"),
        relay=("relay.example.net", 41234),
    )
    assert snap_compare(Showing(lambda: InvitationScreen(relayed)), terminal_size=SIZE)


def test_the_invitation_says_why_the_relay_is_not_open(snap_compare: Any) -> None:
    refused = replace(
        INVITATION,
        relay_notice="The relay me@relay.example.net refused to forward a port to this game"
        " (its sshd needs AllowTcpForwarding yes and GatewayPorts clientspecified).",
    )
    assert snap_compare(Showing(lambda: InvitationScreen(refused)), terminal_size=(80, 24))


def test_a_seat_is_told_it_is_not_its_turn(snap_compare: Any) -> None:
    async def press_out_of_turn(pilot: Pilot[Any]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, GameScreen) and isinstance(screen.table, SeatTable)
        screen.table.receive(state())
        await pilot.press("7")  # Alice's board, Bob to move
        assert screen.series == mid_match() and "Bob's turn" in str(screen.notice)

    assert snap_compare(Showing(seat(0)), terminal_size=SIZE, run_before=press_out_of_turn)


def test_a_watcher_sees_the_board_read_only(snap_compare: Any) -> None:
    async def press(pilot: Pilot[Any]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, GameScreen) and isinstance(screen.table, SeatTable)
        screen.table.receive(state(watchers=1))
        await pilot.press("7")
        assert screen.series == mid_match() and "watching" in str(screen.notice)

    assert snap_compare(Showing(seat(None)), terminal_size=SIZE, run_before=press)


def test_the_host_may_end_a_series_whose_friend_has_not_come_back(snap_compare: Any) -> None:
    async def dropped(pilot: Pilot[Any]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, GameScreen) and isinstance(screen.table, SeatTable)
        screen.table.receive(state(away=Away(seat=1, name="Bob", seconds_left=0.0), watchers=0))
        await pilot.pause()
        assert "Bob has not come back" in str(screen.notice)

    assert snap_compare(Showing(seat(0)), terminal_size=SIZE, run_before=dropped)
