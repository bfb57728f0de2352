"""An online seat's app, driven with Pilot, against a real authority on 127.0.0.1.

The other seat is a bare `AuthorityLink`, as a friend's game process would hold: what
it sends is what a key on the friend's screen sends.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Static

import limits
import tictactoe.play.joining
import tictactoe.tui.app
import tictactoe.tui.online_app
from limits import EVENT_LIMIT
from tictactoe.config import GameConfig
from tictactoe.core.engine import Mark
from tictactoe.core.series import ChooseMark, Intent, Play, Series
from tictactoe.host.hosting import HostConfig, Hosting
from tictactoe.link.client import AuthorityLink
from tictactoe.online.authority import MAX_WATCHERS
from tictactoe.online.protocol import Away, Ended, Hello, Refused, State, Welcome
from tictactoe.play.joining import JoinSetup
from tictactoe.play.seat_table import REFUSAL_SHOWN, SeatTable
from tictactoe.tui.online_app import OnlineApp
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen
from tictactoe.tui.screens.online import InvitationScreen, JoinScreen

SIZE = (100, 32)


class Friend:
    """The other seat, as a bare link: it follows the states it is sent."""

    def __init__(self, link: AuthorityLink) -> None:
        self.link = link
        self.state: State | None = None
        self.ended: Ended | None = None
        self.changed = asyncio.Event()
        self.task = asyncio.create_task(self._follow())

    async def _follow(self) -> None:
        async for message in self.link:
            if isinstance(message, State):
                self.state = message
            elif isinstance(message, Ended):
                self.ended = message
            self.changed.set()

    async def until(self, check: object, timeout: float = EVENT_LIMIT) -> None:
        async def wait() -> None:
            while not check():  # type: ignore[operator]
                self.changed.clear()
                await self.changed.wait()

        await limits.within(wait(), lambda: (self.state, self.ended), "the state wanted", timeout)

    @property
    def series(self) -> Series:
        assert self.state is not None and self.state.series is not None
        return self.state.series

    async def act(self, intent: object) -> None:
        assert self.state is not None
        await self.link.act(self.state.version, intent)  # type: ignore[arg-type]


async def settle(
    pilot: Pilot[Series | None], check: Callable[[], object], timeout: float = EVENT_LIMIT
) -> None:
    """Pause until `check()` holds (the app waits on the network, not only on its queue)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, (
            f"the app did not get there within {timeout:.0f} s: it shows"
            f" {type(pilot.app.screen).__name__} {shown(pilot.app.screen)!r}"
        )
        await pilot.pause(0.02)


def shown(screen: Screen[object]) -> str:
    """The words of the statics on `screen`, for a failure to say what it showed."""
    return " | ".join(str(static.render()) for static in screen.query(Static))[-1500:]


@pytest.fixture
def host_config() -> HostConfig:
    return HostConfig(listen="127.0.0.1", ssh_port=0, web_port=None, grace=2.0)


def host_app(host_config: HostConfig, name: str = "Alice") -> OnlineApp:
    hosting: list[Hosting] = []

    async def open_doors(host_name: str) -> Hosting:
        hosting.append(await Hosting(host_name, host_config).start())
        return hosting[0]

    return OnlineApp(
        GameConfig(player1=name, save=False, computer_delay=0), JoinSetup(host=open_doors)
    )


@pytest.fixture
async def hosted(host_config: HostConfig) -> AsyncIterator[OnlineApp]:
    app = host_app(host_config)
    try:
        yield app
    finally:
        await app.close_link()


async def test_the_host_waits_with_an_invitation_then_plays_a_friend(
    hosted: OnlineApp,
) -> None:
    async with hosted.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(hosted.screen, InvitationScreen))
        hosting = hosted.hosting
        assert hosting is not None
        invitation = hosting.invitation
        assert any(f"{hosting.code}@127.0.0.1" in line for line in invitation.ssh_lines)
        assert invitation.fingerprint.startswith("SHA256:")

        bob = Friend(
            await AuthorityLink.open(
                hosting.link_url,
                Hello(code=hosting.code, name="Bob", peer="127.0.0.1", door_key=hosting.door_key),
            )
        )
        await settle(pilot, lambda: isinstance(hosted.screen, MarkChoiceScreen))
        await pilot.press("x")
        await bob.until(lambda: bob.state and bob.state.series and bob.state.series.match)
        await pilot.press("5")  # Alice holds X and moves first
        await bob.until(lambda: bob.series.match and bob.series.match.moves == (4,))
        game = hosted.screen
        assert isinstance(game, GameScreen) and isinstance(game.table, SeatTable)
        await pilot.press("7")  # not Alice's turn: refused in words, nothing sent
        await pilot.pause()
        assert "Bob's turn" in str(game.notice)
        await bob.act(Play(0))
        await settle(pilot, lambda: game.series.match and len(game.series.match.moves) == 2)

        await pilot.press("u")
        assert str(game.notice) == "Moves are final online."
        await bob.link.leave()
        await settle(pilot, lambda: hosted.return_code is not None)
    assert hosted.farewell == "Bob left the series."


async def test_keys_typed_ahead_online_act_in_order_each_on_the_answer_before(
    hosted: OnlineApp,
) -> None:
    """x, 5 and 5 in one burst on the host's screen: the mark is chosen, 5 is played on the
    series the authority answered with (not refused as if the mark were still being chosen),
    and the second 5, checked once the first is answered, is refused: it is Bob's turn."""
    async with hosted.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(hosted.screen, InvitationScreen))
        hosting = hosted.hosting
        assert hosting is not None
        bob = Friend(
            await AuthorityLink.open(
                hosting.link_url,
                Hello(code=hosting.code, name="Bob", peer="127.0.0.1", door_key=hosting.door_key),
            )
        )
        await settle(pilot, lambda: isinstance(hosted.screen, MarkChoiceScreen))
        for key in ("x", "5", "5"):
            hosted.post_message(events.Key(key, key))
        await bob.until(lambda: bob.state and bob.state.series and bob.state.series.match)
        await bob.until(lambda: bob.series.match and bob.series.match.moves == (4,))
        game = hosted.screen
        assert isinstance(game, GameScreen)
        await settle(pilot, lambda: "Bob's turn" in str(game.notice))
        assert bob.series.match is not None and bob.series.match.moves == (4,)


async def test_a_friend_joins_gives_a_name_and_is_refused_out_of_turn(
    host_config: HostConfig,
) -> None:
    hosting = await Hosting("Alice", host_config).start()
    try:
        alice = Friend(
            await AuthorityLink.open(
                hosting.link_url,
                Hello(
                    code=hosting.code, name="Alice", peer="127.0.0.1", host_token=hosting.host_token
                ),
            )
        )
        app = OnlineApp(
            GameConfig(save=False),
            JoinSetup(
                link_url=hosting.link_url,
                code=hosting.code,
                door_key=hosting.door_key,
                peer="10.0.0.2",
            ),
        )
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, lambda: isinstance(app.screen, JoinScreen))
            await pilot.press(*"Alice", "enter")  # the host's name is taken
            await settle(
                pilot, lambda: "Alice" in str(app.screen.query_one("#join-notice").render())
            )
            await pilot.press(*["backspace"] * 5, *"Bob", "enter")
            await settle(pilot, lambda: isinstance(app.screen, GameScreen))
            game = app.screen
            assert isinstance(game, GameScreen) and isinstance(game.table, SeatTable)
            assert game.table.seat == 1
            await pilot.press("x")  # Alice chooses this match
            await pilot.pause()
            assert "Alice" in str(game.notice)
            await alice.until(lambda: alice.state and alice.state.series)
            await alice.act(ChooseMark(Mark.O))
            await settle(pilot, lambda: game.series.match is not None)
            await alice.until(lambda: alice.series.match is not None)
            await alice.act(Play(4))
            await settle(pilot, lambda: game.series.match and game.series.match.moves == (4,))
            await pilot.press("7")
            await alice.until(lambda: len(alice.series.match.moves) == 2)  # type: ignore[union-attr]
            assert alice.series.match is not None and alice.series.match.moves == (4, 0)
            await pilot.press("q")
            await alice.until(lambda: alice.ended is not None)
        assert alice.ended is not None and "Bob" in alice.ended.text
    finally:
        await hosting.stop("The test is over.")


async def test_q_on_the_invitation_ends_the_hosting(hosted: OnlineApp) -> None:
    async with hosted.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(hosted.screen, InvitationScreen))
        await pilot.press("q")
        await settle(pilot, lambda: hosted.return_code is not None)
    assert hosted.return_code == 0
    await hosted.close_link()


async def test_q_on_the_host_ends_the_series_for_everyone_in_a_sentence(
    hosted: OnlineApp,
) -> None:
    async with hosted.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(hosted.screen, InvitationScreen))
        hosting = hosted.hosting
        assert hosting is not None
        bob = Friend(
            await AuthorityLink.open(
                hosting.link_url,
                Hello(code=hosting.code, name="Bob", peer="127.0.0.1", door_key=hosting.door_key),
            )
        )
        await settle(pilot, lambda: isinstance(hosted.screen, MarkChoiceScreen))
        await pilot.press("x")
        await settle(pilot, lambda: isinstance(hosted.screen, GameScreen))
        await pilot.press("q")
        await settle(pilot, lambda: hosted.return_code is not None)
    assert hosted.farewell == "You ended the series."
    await hosted.close_link()
    await bob.until(lambda: bob.ended is not None)
    assert bob.ended is not None and bob.ended.text == "Alice ended the series."


async def test_a_watcher_who_leaves_ends_nothing(host_config: HostConfig) -> None:
    hosting = await Hosting("Alice", host_config).start()
    try:
        hello = Hello(
            code=hosting.code, name="Alice", peer="127.0.0.1", host_token=hosting.host_token
        )
        alice = Friend(await AuthorityLink.open(hosting.link_url, hello))
        bob = Friend(
            await AuthorityLink.open(
                hosting.link_url,
                Hello(code=hosting.code, name="Bob", peer="127.0.0.1", door_key=hosting.door_key),
            )
        )
        app = OnlineApp(
            GameConfig(save=False),
            JoinSetup(
                link_url=hosting.link_url,
                code=hosting.code,
                door_key=hosting.door_key,
                peer="127.0.0.1",
            ),
        )
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"Carol", "enter")
            await settle(pilot, lambda: isinstance(app.screen, GameScreen))
            await alice.until(lambda: alice.state is not None and alice.state.watchers == 1)
            await pilot.press("5", "q")
            await alice.until(lambda: alice.state is not None and alice.state.watchers == 0)
        assert app.farewell == "You stopped watching."
        assert alice.ended is None and bob.ended is None
        await alice.act(ChooseMark(Mark.X))
        await bob.until(lambda: bob.series.match is not None)
    finally:
        await hosting.stop("The test is over.")


async def test_a_long_name_joins_cut_to_60_characters(host_config: HostConfig) -> None:
    long_host = "A" * 2_000
    app = host_app(host_config, name=long_host)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, lambda: isinstance(app.screen, InvitationScreen))
            hosting = app.hosting
            assert hosting is not None
            friend = OnlineApp(
                GameConfig(save=False),
                JoinSetup(
                    link_url=hosting.link_url,
                    code=hosting.code,
                    door_key=hosting.door_key,
                    peer="10.0.0.2",
                ),
            )
            async with friend.run_test(size=SIZE) as friend_pilot:
                name = "🎲" * 400 + "Bob"
                friend.screen.query_one("#name", Input).value = name
                await friend_pilot.press("enter")
                await settle(friend_pilot, lambda: friend.link is not None)
                await settle(pilot, lambda: isinstance(app.screen, MarkChoiceScreen))
                assert friend.link is not None
                assert hosting.authority.state_for(None).names == ("A" * 60, "🎲" * 60)
    finally:
        await app.close_link()


async def test_a_friend_who_never_gives_a_name_is_let_go(
    host_config: HostConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tictactoe.tui.online_app, "JOIN_WITHIN", 0.3)
    hosting = await Hosting("Alice", host_config).start()
    try:
        app = OnlineApp(
            GameConfig(save=False),
            JoinSetup(
                link_url=hosting.link_url,
                code=hosting.code,
                door_key=hosting.door_key,
                peer="10.0.0.2",
            ),
        )
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, lambda: isinstance(app.screen, JoinScreen))
            await settle(pilot, lambda: app.return_code is not None)
        assert app.farewell == tictactoe.play.joining.NOBODY_JOINED
    finally:
        await hosting.stop("The test is over.")


async def test_a_friend_refused_for_good_is_told_why_and_the_game_ends(
    host_config: HostConfig,
) -> None:
    """A name already taken may be changed on the join screen; a series with all the watchers
    it can take will not change with another name: the game ends, saying so (its door then
    hangs up), and holds no process on the host's machine."""
    hosting = await Hosting("Alice", host_config).start()
    try:
        links = [
            await AuthorityLink.open(
                hosting.link_url,
                Hello(hosting.code, f"P{n}", "127.0.0.1", door_key=hosting.door_key),
            )
            for n in range(1 + MAX_WATCHERS)
        ]
        app = OnlineApp(
            GameConfig(save=False),
            JoinSetup(
                link_url=hosting.link_url,
                code=hosting.code,
                door_key=hosting.door_key,
                peer="10.0.0.2",
            ),
        )
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*"Alice", "enter")
            await settle(pilot, lambda: "choose another name" in str(notice(app)))
            assert isinstance(app.screen, JoinScreen) and app.return_code is None
            app.screen.query_one("#name", Input).value = "Zed"
            await pilot.press("enter")
            await settle(pilot, lambda: app.return_code is not None)
        assert app.farewell == "This series has all the watchers it can take."
        for link in links:
            await link.close()
    finally:
        await hosting.stop("The test is over.")


def notice(app: OnlineApp) -> object:
    """What the join screen says under its button."""
    return app.screen.query_one("#join-notice", Static).render()


class BrokenSeat(OnlineApp):
    """A friend's game that fails as soon as it is on screen."""

    CSS_PATH = str(Path(tictactoe.tui.app.__file__).with_name("app.tcss"))

    def on_ready(self) -> None:
        raise RuntimeError("a bug the friend should not have to read about")


def test_a_friends_game_that_fails_names_no_path_on_the_hosts_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "logs" / "crash.log"
    monkeypatch.setattr(tictactoe.tui.app, "CRASH_LOG", log)
    app = BrokenSeat(GameConfig(save=False), JoinSetup(link_url="ws://127.0.0.1:9/link"))
    app.run(headless=True)
    printed = capsys.readouterr()
    assert app.return_code == 1
    assert "host's machine" in printed.err
    assert str(tmp_path) not in printed.err + printed.out and "Traceback" not in printed.err
    assert "RuntimeError" in log.read_text(encoding="utf-8")


class Nowhere:
    """A seat's link to no authority: it takes what the seat sends, and brings nothing."""

    def __init__(self, seat: int | None) -> None:
        self.welcome = Welcome("watcher") if seat is None else Welcome("seat", seat)

    async def act(self, version: int, intent: Intent) -> None:
        pass

    async def ask_hint(self) -> None:
        pass

    async def leave(self) -> None:
        pass

    async def close(self) -> None:
        pass

    def __aiter__(self) -> Nowhere:
        return self

    async def __anext__(self) -> State | Refused | Ended:
        raise StopAsyncIteration


class ShowingASeat(OnlineApp):
    """The online app with one seat's board on show and no link: the test hands it states."""

    CSS_PATH = str(Path(tictactoe.tui.app.__file__).with_name("app.tcss"))

    def __init__(self, game: GameScreen) -> None:
        super().__init__(GameConfig(save=False), JoinSetup())
        self.game = game

    def begin(self) -> None:
        self.push_screen(self.game)


async def test_a_seat_shows_the_grace_the_authority_counts_and_counts_none_itself() -> None:
    series = Series.new("Alice", "Bob").apply(ChooseMark(Mark.X)).apply(Play(4))
    table = SeatTable(series, Nowhere(0))
    game = GameScreen(table)
    app = ShowingASeat(game)

    def told(seconds_left: float) -> State:
        return State(7, series, ("Alice", "Bob"), 0, Away(1, "Bob", seconds_left))

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: app.screen is game)
        table.receive(told(90.0))
        await pilot.pause()
        assert str(game.notice) == "Bob's connection dropped.\nWaiting for Bob to come back (1:30)."
        await pilot.pause(2.1)  # the authority has said nothing since: nothing changes
        assert str(game.notice).endswith("(1:30).")
        table.receive(told(89.0))
        assert str(game.notice).endswith("(1:29).")
        table.receive(told(0.0))
        assert str(game.notice) == (
            "Bob has not come back.\nKeep waiting, or press q to end the series."
        )


async def test_a_refusal_stays_on_show_before_the_grace_counted_takes_its_place() -> None:
    series = Series.new("Alice", "Bob").apply(ChooseMark(Mark.X)).apply(Play(4))
    table = SeatTable(series, Nowhere(0))
    game = GameScreen(table)
    app = ShowingASeat(game)

    def told(seconds_left: float) -> State:
        return State(7, series, ("Alice", "Bob"), 0, Away(1, "Bob", seconds_left))

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: app.screen is game)
        table.receive(told(90.0))
        await pilot.press("1")
        refusal = str(game.notice)
        assert "paused" in refusal
        table.receive(told(89.0))  # the refusal is read first
        assert str(game.notice) == refusal
        await pilot.pause(REFUSAL_SHOWN + 0.5)
        table.receive(told(86.0))
        assert str(game.notice).endswith("(1:26).")
