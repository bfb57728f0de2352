"""Ultimate over the wire: a series of the authority's game, its moves 0 to 80, checked by the
variant's rules; a game that does not play it (an older one, a hand-made hello naming another)
refused in one sentence. Real loopback websockets, real clients."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Callable

import aiohttp
import pytest
from aiohttp import web

from online.test_link import CODE, DOOR_KEY, TOKEN, Clock, door_hello, state, until
from tictactoe.core.engine import Mark
from tictactoe.core.rules import CLASSIC, ULTIMATE, Variant
from tictactoe.core.series import ChooseMark, Play, Series
from tictactoe.doors.throttle import Throttle
from tictactoe.link.client import AuthorityLink, LinkDenied, LinkError
from tictactoe.link.server import AuthorityServer
from tictactoe.online.authority import Authority
from tictactoe.online.protocol import OLDER_PROTOCOL, PROTOCOL, Hello, Refused, State, Welcome
from tictactoe.online.wire import decode_series, encode_series, parse_server, to_json

X_WINS = (0, 1, 9, 2, 19, 10, 12, 27, 3, 28, 15, 54, 6, 55, 18, 29, 20)
"""An Ultimate match X wins in 17 moves: the top row of each of the top three boards."""

NOT_PLAYED = (
    "This series is Ultimate tic-tac-toe, which this game cannot play: join with the same"
    " version of tictactoe as the host."
)


async def served(variant: Variant) -> AuthorityServer:
    authority = Authority(
        CODE,
        "Alice",
        host_token=TOKEN,
        grace=60,
        clock=Clock(),
        rng=random.Random(3),
        variant=variant,
    )
    server = AuthorityServer(authority, Throttle(limit=5, window=60), door_key=DOOR_KEY)
    await server.start()
    return server


@pytest.fixture
async def ultimate() -> AsyncIterator[AuthorityServer]:
    server = await served(ULTIMATE)
    yield server
    await server.stop("The test is over.")


@pytest.fixture
async def classic() -> AsyncIterator[AuthorityServer]:
    server = await served(CLASSIC)
    yield server
    await server.stop("The test is over.")


async def open_link(server: AuthorityServer, hello: Hello) -> AuthorityLink:
    return await AuthorityLink.open(server.url, hello)


async def test_an_ultimate_series_is_played_to_a_win_and_watched(
    ultimate: AuthorityServer,
) -> None:
    host = await open_link(ultimate, door_hello(CODE, "", "10.0.0.1", TOKEN))
    guest = await open_link(ultimate, door_hello(CODE, "Bob", "10.0.0.2"))
    watcher = await open_link(ultimate, door_hello(CODE, "Carol", "10.0.0.3"))
    assert guest.welcome == Welcome("seat", 1, "ultimate")
    assert watcher.welcome == Welcome("watcher", None, "ultimate")
    seen = await state(watcher, lambda s: s.series is not None)
    assert seen.series is not None and seen.series.variant is ULTIMATE

    last = await state(host, lambda s: s.watchers == 1)
    await host.act(last.version, ChooseMark(Mark.X))
    seats = (host, guest)
    for turn, move in enumerate(X_WINS):
        mover = seats[turn % 2]
        last = await state(mover, _after(turn))
        await mover.act(last.version, Play(move))
    for each in (host, guest, watcher):
        end = await state(each, lambda s: _moves(s) == len(X_WINS))
        assert end.series is not None and end.series.wins == (1, 0)
        assert end.series.finished[-1].variant == "ultimate"
        assert end.series.finished[-1].moves == X_WINS
    for each in (host, guest, watcher):
        await each.close()


def _after(moves: int) -> Callable[[State], bool]:
    """Whether a state shows the match after `moves` moves."""
    return lambda seen: _moves(seen) == moves


def _moves(seen: State) -> int:
    match = None if seen.series is None else seen.series.match
    return -1 if match is None else len(match.moves)


async def test_the_authority_checks_every_move_with_the_variants_rules(
    ultimate: AuthorityServer,
) -> None:
    host = await open_link(ultimate, door_hello(CODE, "", "10.0.0.1", TOKEN))
    guest = await open_link(ultimate, door_hello(CODE, "Bob", "10.0.0.2"))
    last = await state(host, lambda s: s.series is not None)
    await host.act(last.version, ChooseMark(Mark.X))
    last = await state(host, lambda s: _moves(s) == 0)
    await host.act(last.version, Play(80))  # the bottom-right of the bottom-right board
    last = await state(guest, lambda s: _moves(s) == 1)
    await guest.act(last.version, Play(0))  # sent to the bottom-right board, not the top-left
    refused = await until(guest, lambda m: isinstance(m, Refused))
    assert isinstance(refused, Refused)
    assert "bottom-right board" in str(refused.notice), refused
    await host.close()
    await guest.close()


@pytest.mark.parametrize(
    "hello",
    [
        pytest.param(Hello(CODE, "Bob", "10.0.0.2", None, DOOR_KEY, protocol=2), id="older game"),
        pytest.param(
            Hello(CODE, "Bob", "10.0.0.2", None, DOOR_KEY, variants=(("chess", 1),)), id="chess"
        ),
        pytest.param(
            Hello(CODE, "Bob", "10.0.0.2", None, DOOR_KEY, variants=(("ultimate", 2),)),
            id="another version of Ultimate",
        ),
    ],
)
async def test_a_game_that_does_not_play_the_variant_is_refused_in_a_sentence(
    ultimate: AuthorityServer, hello: Hello
) -> None:
    with pytest.raises(LinkDenied, match=f"^{NOT_PLAYED}$") as denied:
        await open_link(ultimate, hello)
    assert denied.value.final
    friend = await open_link(ultimate, door_hello(CODE, "Bob", "10.0.0.2"))  # nothing broke
    assert friend.welcome == Welcome("seat", 1, "ultimate")
    await friend.close()


async def test_a_hand_made_hello_naming_chess_is_refused_in_a_sentence(
    ultimate: AuthorityServer,
) -> None:
    hello = {
        "kind": "hello",
        "v": PROTOCOL,
        "code": CODE,
        "name": "Mallory",
        "peer": "10.0.0.66",
        "door_key": DOOR_KEY,
        "variants": {"chess": 1},
    }
    async with aiohttp.ClientSession() as session, session.ws_connect(ultimate.url) as ws:
        await ws.send_str(json.dumps(hello))
        answer = json.loads((await ws.receive()).data)
    assert answer == {"kind": "denied", "text": NOT_PLAYED, "final": True}


async def test_an_older_game_plays_a_classic_series_in_its_own_words(
    classic: AuthorityServer,
) -> None:
    older = Hello(CODE, "Bob", "10.0.0.2", None, DOOR_KEY, protocol=OLDER_PROTOCOL)
    async with aiohttp.ClientSession() as session, session.ws_connect(classic.url) as ws:
        await ws.send_str(to_json(older))
        welcome = json.loads((await ws.receive()).data)
        assert welcome == {"kind": "welcome", "v": OLDER_PROTOCOL, "role": "seat", "seat": 1}
        seen = json.loads((await ws.receive()).data)
    assert seen["kind"] == "state" and "variant" not in seen["series"]


def test_an_ultimate_series_travels_whole_and_a_classic_one_as_before() -> None:
    series = Series.new("Ada", "Bob", variant=ULTIMATE).choose_mark(Mark.X)
    for move in X_WINS:
        series = series.play(move)
    encoded = encode_series(series)
    assert encoded["variant"] == "ultimate"
    assert decode_series(json.loads(json.dumps(encoded))) == series
    assert "variant" not in encode_series(Series.new("Ada", "Bob"))
    welcome = parse_server(to_json(Welcome("seat", 1, "ultimate")))
    assert welcome == Welcome("seat", 1, "ultimate")


@pytest.mark.parametrize(
    "variant", [{"name": "chess", "v": 1}, {"name": "ultimate", "v": 2}], ids=["chess", "newer"]
)
async def test_a_host_whose_game_this_one_does_not_play_is_told_in_a_sentence(
    variant: dict[str, object],
) -> None:
    """A newer host (a game unknown here, or another version of Ultimate): the welcome is not
    taken, and the game that asked ends on one sentence, never a traceback."""

    async def welcome(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.receive()
        await ws.send_str(
            json.dumps(
                {"kind": "welcome", "v": PROTOCOL, "role": "seat", "seat": 1, "variant": variant}
            )
        )
        await ws.close()
        return ws

    app = web.Application()
    app.router.add_get("/link", welcome)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        with pytest.raises(LinkError) as error:
            await open_link_to(f"ws://127.0.0.1:{port}/link")
    finally:
        await runner.cleanup()
    text = str(error.value)
    assert text.startswith("The host sent something this game does not understand: variant")
    assert "\n" not in text


async def open_link_to(url: str) -> AuthorityLink:
    return await AuthorityLink.open(url, door_hello(CODE, "Bob", "10.0.0.2"))
