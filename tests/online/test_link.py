"""The authority over loopback websockets: real sockets, real clients, hostile ones too."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncIterator, Callable

import aiohttp
import pytest

import limits
from limits import EVENT_LIMIT
from tictactoe.core.codes import new_code
from tictactoe.core.engine import Mark
from tictactoe.core.series import ChooseMark, Play, SeriesError, Undo
from tictactoe.doors.throttle import Throttle
from tictactoe.link.client import AuthorityLink, LinkDenied, LinkError
from tictactoe.link.host_link import HostLink
from tictactoe.link.served import MAX_PENDING, NOT_FROM_A_DOOR, REFUSE_AFTER
from tictactoe.link.server import AuthorityServer
from tictactoe.online.authority import Authority
from tictactoe.online.protocol import Away, Ended, Hello, Refused, State, Welcome
from tictactoe.online.wire import MAX_MESSAGE, parse_server, to_json
from tictactoe.play.seat_table import SeatTable

CODE = "K7M4QX"
TOKEN = "host-secret"
WAIT = EVENT_LIMIT


class Clock:
    """The authority's clock, moved by hand (the server's tick still runs in real time)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def server(clock: Clock) -> AsyncIterator[AuthorityServer]:
    authority = Authority(
        CODE, "Alice", host_token=TOKEN, grace=60, clock=clock, rng=random.Random(3)
    )
    server = AuthorityServer(authority, Throttle(limit=5, window=60), door_key=DOOR_KEY)
    await server.start()
    yield server
    await server.stop("The test is over.")


DOOR_KEY = "the doors' own key"


def door_hello(code: str, name: str, peer: str, token: str | None = None) -> Hello:
    """A hello as a game started by a door says it."""
    return Hello(code, name, peer, token, DOOR_KEY)


async def link(server: AuthorityServer, name: str, token: str | None = None) -> AuthorityLink:
    return await AuthorityLink.open(server.url, door_hello(CODE, name, "10.0.0.2", token))


async def until(
    link: AuthorityLink | HostLink, wanted: Callable[[State | Refused | Ended], bool]
) -> State | Refused | Ended:
    """The first message `wanted` accepts (earlier ones are skipped)."""
    skipped: list[State | Refused | Ended] = []

    async def read() -> State | Refused | Ended:
        async for message in link:
            if wanted(message):
                return message
            skipped.append(message)
        raise AssertionError(f"the link closed; it was sent: {skipped!r}")

    return await limits.within(read(), lambda: skipped[-3:], "the message wanted")


async def state(link: AuthorityLink, check: Callable[[State], bool] = lambda s: True) -> State:
    message = await until(link, lambda m: isinstance(m, State) and check(m))
    assert isinstance(message, State)
    return message


async def refusal(link: AuthorityLink) -> str:
    message = await until(link, lambda m: isinstance(m, Refused))
    assert isinstance(message, Refused)
    return str(message.notice)


async def three(server: AuthorityServer) -> tuple[AuthorityLink, AuthorityLink, AuthorityLink]:
    """Alice (the host), Bob and a watcher, each having seen the watcher join."""
    host = await link(server, "", TOKEN)
    guest = await link(server, "Bob")
    watcher = await link(server, "Carol")
    assert (host.welcome, guest.welcome, watcher.welcome) == (
        Welcome("seat", 0),
        Welcome("seat", 1),
        Welcome("watcher", None),
    )
    for each in (host, guest, watcher):
        await state(each, lambda s: s.watchers == 1)
    return host, guest, watcher


async def test_two_seats_and_a_watcher_play_a_whole_match(server: AuthorityServer) -> None:
    host, guest, watcher = await three(server)
    version = server.authority.version
    await host.act(version, ChooseMark(Mark.X))
    version += 1
    for seat, cell in [(host, 0), (guest, 3), (host, 1), (guest, 4), (host, 2)]:
        seen = await state(seat, lambda s, v=version: s.version == v)  # type: ignore[misc]
        assert seen.series is not None
        await seat.act(seen.version, Play(cell))
        version += 1
    final = await state(watcher, lambda s: s.version == version)
    assert final.series is not None
    assert final.series.wins == (1, 0)
    assert final.names == ("Alice", "Bob")
    assert (await state(guest, lambda s: s.version == version)).series == final.series
    for each in (host, guest, watcher):
        await each.close()


async def test_out_of_turn_stale_and_undo_are_refused(server: AuthorityServer) -> None:
    host, guest, watcher = await three(server)
    version = server.authority.version
    await guest.act(version, ChooseMark(Mark.O))
    assert await refusal(guest) == "Alice chooses the mark this match."
    await host.act(version, ChooseMark(Mark.X))
    await state(guest, lambda s: s.version == version + 1)
    await guest.act(version + 1, Play(4))
    assert await refusal(guest) == "It is Alice's turn."
    await host.act(version, Play(4))  # made on an older version: answered with the current one
    current = await state(host)
    assert current.version == version + 1
    assert current.series is not None and current.series.match is not None
    assert current.series.match.moves == ()
    await host.act(version + 1, Undo())
    assert await refusal(host) == "Moves are final online."
    await watcher.act(version + 1, Play(4))
    assert await refusal(watcher) == "You are watching: only the players move."
    assert server.authority.version == version + 1


async def test_a_dropped_seat_pauses_and_the_same_name_takes_it_back(
    server: AuthorityServer, clock: Clock
) -> None:
    host, guest, watcher = await three(server)
    version = server.authority.version
    await host.act(version, ChooseMark(Mark.X))
    await host.act(version + 1, Play(4))
    await state(host, lambda s: s.version == version + 2)
    await guest.close()
    paused = await state(host, lambda s: s.away is not None)
    assert paused.away == Away(1, "Bob", 60.0)
    clock.now += 5
    ticked = await state(watcher, lambda s: s.away is not None and s.away.seconds_left == 55.0)
    assert ticked.version == paused.version
    await host.act(paused.version, Play(0))
    assert await refusal(host) == "The series is paused: waiting for Bob."

    back = await link(server, " BOB ")
    assert back.welcome == Welcome("seat", 1)
    resumed = await state(back)
    assert resumed.away is None
    assert resumed.series is not None and resumed.series.match is not None
    assert resumed.series.match.moves == (4,)
    assert str((await state(host, lambda s: s.away is None)).notice) == "Bob is back."
    await back.act(resumed.version, Play(0))
    assert (await state(host, lambda s: s.version == resumed.version + 1)).series is not None


async def test_after_the_grace_everyone_is_told_and_the_seat_may_still_come_back(
    server: AuthorityServer, clock: Clock
) -> None:
    host, guest, _watcher = await three(server)
    await guest.close()
    await state(host, lambda s: s.away is not None)
    clock.now += 61
    over = await state(host, lambda s: s.away is not None and s.away.seconds_left == 0)
    assert over.away == Away(1, "Bob", 0.0)
    back = await link(server, "Bob")
    assert back.welcome == Welcome("seat", 1)
    assert (await state(host, lambda s: s.away is None)).names == ("Alice", "Bob")


async def test_once_the_grace_is_over_nothing_is_sent_until_something_changes(
    server: AuthorityServer, clock: Clock
) -> None:
    host, guest, _watcher = await three(server)
    await guest.close()
    await state(host, lambda s: s.away is not None)
    clock.now += 61
    await state(host, lambda s: s.away is not None and s.away.seconds_left == 0)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(host.receive(), 1.5)  # the server's clock ticks on meanwhile
    back = await link(server, "Bob")
    assert (await state(host)).away is None
    await back.close()


async def test_a_wrong_code_is_denied(server: AuthorityServer) -> None:
    with pytest.raises(LinkDenied, match=r"^That is not the code of this series\.$"):
        await AuthorityLink.open(server.url, door_hello("ABCDEF", "Eve", "203.0.113.9"))
    other = await link(server, "Bob")
    assert other.welcome == Welcome("seat", 1)


WRONG_HELLOS = {
    "no key, a wrong code": Hello("ABCDEF", "Eve", "10.0.0.9"),
    "no key, the right code": Hello(CODE, "Eve", "10.0.0.9"),
    "a wrong key, the right code": Hello(CODE, "Eve", "10.0.0.9", door_key="not-the-key"),
    "a wrong key, a wrong code": Hello("ABCDEF", "Eve", "10.0.0.9", door_key="not-the-key"),
    "any host token, the right code": Hello(CODE, "Eve", "10.0.0.9", host_token="a guess"),
    "any host token, a wrong code": Hello("ABCDEF", "Eve", "10.0.0.9", host_token="a guess"),
    "any host token, the host's name": Hello(CODE, "Alice", "127.0.0.1", host_token="a guess"),
    "both wrong": Hello(CODE, "Eve", "10.0.0.9", host_token="a guess", door_key="a guess"),
}


async def test_every_wrong_hello_gets_one_reply_late(
    server: AuthorityServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Without the doors' key or the host's token, a hello learns nothing: whatever its code,
    name or token, the same sentence comes, and only after `REFUSE_AFTER` seconds."""
    caplog.set_level(logging.WARNING, "tictactoe.online")

    async def answer(hello: Hello) -> tuple[str, float]:
        started = time.monotonic()
        with pytest.raises(LinkDenied) as denied:
            await AuthorityLink.open(server.url, hello)
        return str(denied.value), time.monotonic() - started

    answers = await asyncio.gather(*map(answer, WRONG_HELLOS.values()))
    assert {text for text, _ in answers} == {NOT_FROM_A_DOOR}
    assert min(took for _, took in answers) >= REFUSE_AFTER
    assert not any("wrong code" in record.getMessage() for record in caplog.records)
    assert server.throttle.penalty("10.0.0.9") == 0  # nobody's address was counted
    friend = await link(server, "Bob")  # the friend, from the address that was claimed
    assert friend.welcome == Welcome("seat", 1)


async def test_guesses_without_the_key_are_answered_slowly_however_many_try(
    server: AuthorityServer,
) -> None:
    """Local programs trying codes (or tokens) as fast as they can, many at once: the hellos
    answered in a few seconds are bounded by the links that may say hello at once, each
    answered late; the others are closed unanswered."""
    answered = tried = 0
    seconds = 3.0
    deadline = time.monotonic() + seconds

    async def guess(session: aiohttp.ClientSession) -> None:
        nonlocal answered, tried
        while time.monotonic() < deadline:
            tried += 1
            try:
                ws = await session.ws_connect(server.url)
            except aiohttp.ClientError:
                continue
            await ws.send_str(to_json(Hello(new_code(), "Eve", "10.0.0.9", host_token="guess")))
            frame = await ws.receive(timeout=WAIT)
            if frame.type is aiohttp.WSMsgType.TEXT:
                answered += 1
            await ws.close()

    async with aiohttp.ClientSession() as session:
        await asyncio.wait_for(
            asyncio.gather(*(guess(session) for _ in range(2 * MAX_PENDING))), seconds + WAIT
        )
    assert 0 < answered <= MAX_PENDING * (seconds / REFUSE_AFTER + 1), (answered, tried)


async def test_a_friend_joins_while_a_flood_of_silent_links_is_held(
    server: AuthorityServer,
) -> None:
    """Local programs open links as fast as they can and say nothing: the oldest silent ones
    are closed to make room, so a door's game still joins, every time."""
    held: list[aiohttp.ClientWebSocketResponse] = []
    opened = 0
    enough = asyncio.Event()

    async def flood(session: aiohttp.ClientSession) -> None:
        nonlocal opened
        for _ in range(300):
            try:
                held.append(await session.ws_connect(server.url))
            except aiohttp.ClientError:
                await asyncio.sleep(0.01)
            opened += 1
            if opened >= 150:
                enough.set()

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        floods = [asyncio.create_task(flood(session)) for _ in range(8)]
        try:
            await asyncio.wait_for(enough.wait(), WAIT * 4)
            for name in ("Bob", "Carol", "Dan"):
                friend = await link(server, name)
                assert friend.welcome.role in ("seat", "watcher")
        finally:
            for task in floods:
                task.cancel()
            await asyncio.gather(*floods, return_exceptions=True)
            await asyncio.gather(*(ws.close() for ws in held))


async def test_a_guest_with_the_hosts_name_is_denied(server: AuthorityServer) -> None:
    with pytest.raises(LinkDenied, match=r"^Alice is playing already: choose another name\.$"):
        await link(server, "alice")


async def test_no_authority_is_a_link_error() -> None:
    with pytest.raises(LinkError):
        await AuthorityLink.open("ws://127.0.0.1:9/link", door_hello(CODE, "Bob", "x"))


async def raw(server: AuthorityServer, hello: bool) -> tuple[aiohttp.ClientSession, object]:
    session = aiohttp.ClientSession()
    ws = await session.ws_connect(server.url)
    if hello:
        await ws.send_str(to_json(door_hello(CODE, "Mallory", "10.0.0.66")))
        assert parse_server((await ws.receive()).data) == Welcome("watcher", None)
    return session, ws


async def closed_after(ws: aiohttp.ClientWebSocketResponse) -> None:
    """Reads until the server closes `ws`."""

    async def drain() -> None:
        while (await ws.receive()).type not in (
            aiohttp.WSMsgType.CLOSE,
            aiohttp.WSMsgType.CLOSED,
            aiohttp.WSMsgType.CLOSING,
            aiohttp.WSMsgType.ERROR,
        ):
            pass

    await asyncio.wait_for(drain(), WAIT)


GARBAGE: dict[str, tuple[str | bytes, str]] = {
    "not json": ("{{{not json", "not JSON"),
    "huge": ('{"kind": "leave", "x": "' + "y" * (MAX_MESSAGE * 2) + '"}', "bad frame"),
    "binary": (b"\x00\x01garbage", "binary frame"),
    "wrong shape": ('{"kind": "act", "version": true, "intent": {"kind": "next"}}', "whole"),
    "a cell out of range": (
        '{"kind": "act", "version": 1, "intent": {"kind": "play", "cell": 99}}',
        "out of range",
    ),
}


@pytest.mark.parametrize("after_hello", [False, True], ids=["before hello", "after hello"])
@pytest.mark.parametrize("kind", sorted(GARBAGE))
async def test_garbage_closes_only_that_link_with_one_log_line(
    server: AuthorityServer, caplog: pytest.LogCaptureFixture, kind: str, after_hello: bool
) -> None:
    host, guest, _watcher = await three(server)
    session, ws = await raw(server, after_hello)
    assert isinstance(ws, aiohttp.ClientWebSocketResponse)
    frame, reason = GARBAGE[kind]
    caplog.clear()
    if isinstance(frame, bytes):
        await ws.send_bytes(frame)
    else:
        await ws.send_str(frame)
    await closed_after(ws)
    await session.close()
    await limits.eventually(
        lambda: [r for r in caplog.records if r.name == "tictactoe.online"],
        lambda: caplog.text,
        "the log line",
    )
    lines = [r for r in caplog.records if r.name == "tictactoe.online"]
    assert len(lines) == 1, caplog.text
    assert reason in lines[0].getMessage()
    assert "Traceback" not in caplog.text
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    # The series goes on for the others.
    version = server.authority.version
    await host.act(version, ChooseMark(Mark.X))
    assert (await state(guest, lambda s: s.version == version + 1)).series is not None


async def test_a_flood_closes_only_that_link(
    server: AuthorityServer, caplog: pytest.LogCaptureFixture
) -> None:
    host, guest, _watcher = await three(server)
    session, ws = await raw(server, hello=True)
    assert isinstance(ws, aiohttp.ClientWebSocketResponse)
    caplog.clear()
    for _ in range(200):
        await ws.send_str('{"kind":"hint"}')
    await closed_after(ws)
    await session.close()
    lines = [r for r in caplog.records if r.name == "tictactoe.online"]
    assert [r.getMessage().rsplit(": ", 1)[1] for r in lines] == ["too many messages"]
    version = server.authority.version
    await host.act(version, ChooseMark(Mark.X))
    assert (await state(guest, lambda s: s.version == version + 1)).series is not None


async def test_a_link_that_says_nothing_is_closed(clock: Clock) -> None:
    authority = Authority(CODE, "Alice", host_token=TOKEN, clock=clock)
    server = AuthorityServer(authority, Throttle(), door_key=DOOR_KEY, hello_timeout=0.2)
    await server.start()
    async with aiohttp.ClientSession() as session:
        ws = await session.ws_connect(server.url)
        await closed_after(ws)
    await server.stop()


async def test_links_saying_hello_are_bounded_apart_from_the_joined(clock: Clock) -> None:
    """Past `max_pending` links not welcomed, the oldest silent one is closed unanswered, with
    the code that tells a door's game to link again; joined links are not counted."""
    authority = Authority(CODE, "Alice", host_token=TOKEN, clock=clock)
    server = AuthorityServer(authority, Throttle(), door_key=DOOR_KEY, max_pending=2)
    await server.start()
    joined = [await AuthorityLink.open(server.url, door_hello(CODE, n, "x")) for n in "BCDE"]
    async with aiohttp.ClientSession() as session:
        silent = [await session.ws_connect(server.url) for _ in range(3)]
        first = await silent[0].receive(timeout=WAIT)
        assert (first.type, first.data) == (
            aiohttp.WSMsgType.CLOSE,
            aiohttp.WSCloseCode.TRY_AGAIN_LATER,
        )
        assert not silent[1].closed and not silent[2].closed
        late = await AuthorityLink.open(server.url, door_hello(CODE, "Fay", "x"))
        assert late.welcome == Welcome("watcher", None)
        for ws in silent:
            await ws.close()
    for each in (*joined, late):
        await each.close()
    await server.stop()


async def test_a_seat_leaving_ends_the_series_for_everyone(server: AuthorityServer) -> None:
    host, guest, watcher = await three(server)
    await guest.leave()
    for each in (host, watcher):
        ended = await until(each, lambda m: isinstance(m, Ended))
        assert ended == Ended("Bob left the series.", server.authority.series)
        assert await each.receive() is None


async def test_stop_ends_every_link() -> None:
    authority = Authority(CODE, "Alice", host_token=TOKEN)
    server = AuthorityServer(authority, Throttle(), door_key=DOOR_KEY)
    await server.start()
    links = [await AuthorityLink.open(server.url, door_hello(CODE, f"P{n}", "x")) for n in range(5)]
    quiet = aiohttp.ClientSession()
    silent = await quiet.ws_connect(server.url)  # never says hello, never reads
    await limits.within(server.stop("Alice quit."), lambda: "the server still stopping", "the stop")
    for each in links:
        messages = [message async for message in each]
        assert isinstance(messages[-1], Ended)
        assert messages[-1].text == "Alice quit."
        assert each.closed
    await closed_after(silent)
    await quiet.close()
    with pytest.raises(LinkError):
        await AuthorityLink.open(server.url, door_hello(CODE, "Late", "x"))


async def test_the_hosts_own_link_in_this_process_plays_as_a_websocket_does(
    server: AuthorityServer,
) -> None:
    """The host's seat links without a socket: the same welcome, states and refusals, in
    order; a wrong token is refused; closing it leaves the seat away, as a dropped socket."""
    with pytest.raises(LinkDenied):
        server.open_local(Hello(CODE, "Alice", "127.0.0.1", host_token="not the token"))
    alice = server.open_local(Hello(CODE, "Alice", "127.0.0.1", host_token=TOKEN))
    assert alice.welcome.seat == 0
    bob = await link(server, "Bob")
    first = await until(alice, lambda m: isinstance(m, State) and m.series is not None)
    assert isinstance(first, State)
    await alice.act(first.version, ChooseMark(Mark.X))
    chosen = await until(alice, lambda m: isinstance(m, State) and m.version > first.version)
    assert isinstance(chosen, State)
    await alice.act(chosen.version, Undo())
    assert isinstance(await until(alice, lambda m: isinstance(m, Refused)), Refused)
    await alice.close()
    away = await until(bob, lambda m: isinstance(m, State) and m.away is not None)
    assert isinstance(away, State) and away.away is not None and away.away.name == "Alice"
    await bob.close()


class Told:
    """A view of a seat's table that keeps what it is told (`tictactoe.play.table.View`)."""

    def __init__(self) -> None:
        self.said: list[str] = []

    def show(self, series: object, notice: object) -> None:
        self.say(notice)

    def say(self, notice: object) -> None:
        if notice:
            self.said.append(str(notice))

    def want_mark(self) -> None:
        pass

    def explain(self, refusal: SeriesError) -> object:
        return refusal.notice

    def after(self, delay: float, then: Callable[[], None]) -> Callable[[], None]:
        return asyncio.get_running_loop().call_later(delay, then).cancel

    def set_subtitle(self, text: str) -> None:
        pass


async def test_a_seat_s_intents_given_together_act_in_order_on_the_answers(
    server: AuthorityServer,
) -> None:
    """A mark and a move given at once (type-ahead): the move waits for the authority's answer
    to the mark, then is checked on the series it answered with (before, it was refused on the
    series still waiting for the mark), and a move refused then is said."""
    bob = await link(server, "Bob")
    seated = await SeatTable.seated(await link(server, "", TOKEN))
    assert isinstance(seated, SeatTable)
    table, told = seated, Told()
    table.attach(told)  # type: ignore[arg-type]
    playing = asyncio.create_task(table.play())
    try:
        while not table.version:  # the table shows the state that seated it
            await asyncio.sleep(0)
        assert table.act(ChooseMark(Mark.X)) is None
        assert table.act(Play(4)) is None  # kept until the mark is answered
        assert table.act(Play(4)) is None  # kept too: then refused, and said
        await state(
            bob,
            lambda s: (
                s.series is not None and s.series.match is not None and s.series.match.moves == (4,)
            ),
        )
        deadline = time.monotonic() + WAIT
        while not any("turn" in said or "taken" in said for said in told.said):
            assert time.monotonic() < deadline, told.said
            await asyncio.sleep(0.01)
    finally:
        playing.cancel()
        await bob.close()
