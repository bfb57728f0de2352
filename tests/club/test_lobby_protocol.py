"""The lobby's messages on the wire: each comes back as it went, and anything else is refused with
`ProtocolError` alone (a lobby link is where a player's process meets the club)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from tictactoe.core.engine import Mark
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.players import Player
from tictactoe.online.lobby import (
    AddKey,
    CloseTable,
    Farewell,
    GoTo,
    KeyWord,
    LadderLine,
    LobbyAsk,
    LobbyHello,
    LobbyNews,
    OpenTable,
    PastMatch,
    ProtocolError,
    QuickPair,
    Rematch,
    Said,
    SitAt,
    Snapshot,
    TableRow,
    WatchTable,
    You,
    lobby_json,
)
from tictactoe.online.lobby_reading import parse_ask, parse_news

ASKS: list[LobbyAsk] = [
    LobbyHello("secret"),
    OpenTable(rated=True),
    OpenTable(rated=False, matches=5),
    OpenTable(rated=True, matches=3, variant="ultimate"),
    SitAt("3"),
    QuickPair(),
    QuickPair("ultimate"),
    WatchTable("12"),
    CloseTable(),
    Rematch(),
    AddKey(),
]

NEWS: list[LobbyNews] = [
    Snapshot(You("ada", False, (("classic", "1500 ± 500"),))),
    Snapshot(
        You("guest-ab12cd", True, (), waiting_at="4"),
        open=(TableRow("4", ("guest-ab12cd",), False, None, rating="1500 ± 500"),),
        playing=(TableRow("1", ("alan", "eve"), True, 3, score=(1, 0, 1), watchers=2),),
        ladder=(LadderLine(1, "alan", "1560 ± 300", 2, 1, 1, 0),),
        recent=(
            PastMatch(
                FinishedMatch(
                    (Player("ada"), Player("alan")), (Mark.O, Mark.X), 1, (4, 0, 8), None
                ),
                True,
            ),
        ),
    ),
    Snapshot(
        You("ada", False, (("classic", "1500 ± 500"),), waiting_at="7", waiting_for="alan"),
        open=(TableRow("6", ("grace",), False, 3, rating="1500 ± 500", rematch=True),),
        recent=(
            PastMatch(
                FinishedMatch(
                    (Player("ada"), Player("alan")),
                    (Mark.X, Mark.O),
                    0,
                    (4,),
                    1,
                    datetime.fromtimestamp(1_795_000_000.5, UTC),
                ),
                False,
            ),
        ),
    ),
    Snapshot(You("alan", False, (("classic", "1500 ± 500"),), offered_by="ada")),
    Snapshot(
        You("ada", False, (("classic", "1612 ± 120"), ("ultimate", "1530 ± 240"))),
        open=(TableRow("3", ("grace",), True, 5, rating="1480 ± 310", variant="ultimate"),),
        playing=(TableRow("1", ("alan", "eve"), True, None, variant="ultimate"),),
        ladder=(
            LadderLine(1, "alan", "1580 ± 130", 10, 6, 1, 3),
            LadderLine(1, "ada", "1530 ± 240", 2, 2, 0, 0, "ultimate"),
        ),
        recent=(
            PastMatch(
                FinishedMatch(
                    (Player("ada"), Player("alan")),
                    (Mark.X, Mark.O),
                    0,
                    (36, 1),
                    0,
                    variant="ultimate",
                ),
                True,
            ),
        ),
    ),
    GoTo("1", "ws://127.0.0.1:5/link", "ABC234", "ada", "seat", host_token="t"),
    GoTo("1", "ws://127.0.0.1:5/link", "ABC234", "a watcher", "watcher", door_key="k"),
    Said("That table is not open any more."),
    Farewell("You are banned from this club for ever."),
    KeyWord("alice+k7qm2x9p", 2222, 10),
    KeyWord("alice+k7qm2x9p", None, 10),
]


@pytest.mark.parametrize("ask", ASKS, ids=repr)
def test_every_ask_comes_back_as_it_went(ask: LobbyAsk) -> None:
    assert parse_ask(lobby_json(ask)) == ask


@pytest.mark.parametrize("news", NEWS, ids=lambda news: type(news).__name__)
def test_every_piece_of_news_comes_back_as_it_went(news: LobbyNews) -> None:
    assert parse_news(lobby_json(news)) == news


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[]",
        '{"kind": "dance"}',
        '{"kind": "open", "rated": 1, "matches": null}',  # a number for a yes or no
        '{"kind": "open", "rated": true, "matches": 0}',
        '{"kind": "open", "rated": true, "matches": 100}',
        '{"kind": "open", "rated": true, "matches": 2.0}',
        '{"kind": "open", "rated": true}',
        '{"kind": "open", "rated": true, "matches": null}',  # no game named
        '{"kind": "open", "rated": true, "matches": null, "variant": "chess"}',
        '{"kind": "pair", "variant": "Ultimate"}',  # the game's name, not its title
        '{"kind": "pair", "table": "1"}',  # a field it does not have
        '{"kind": "sit", "table": "' + "1" * 41 + '"}',
        '{"kind": "hello", "token": "a", "token": "b"}',
        '{"kind": "hello", "token": "' + "x" * 2000 + '"}',  # past the size of an ask
        b'{"kind": "pair"}',
        '{"kind": "rematch", "with": "alan"}',
        '{"kind": "key", "line": "ssh-ed25519 AAAA"}',  # a pasted line is no longer asked with
        '{"kind": "key", "line": 5}',
    ],
)
def test_a_malformed_ask_is_refused(text: object) -> None:
    with pytest.raises(ProtocolError):
        parse_ask(text)


def test_malformed_news_is_refused() -> None:
    snapshot = json.loads(lobby_json(NEWS[1]))
    for broken in (
        {**snapshot, "you": {**snapshot["you"], "guest": "no"}},
        {**snapshot, "open": [{**snapshot["open"][0], "players": []}]},
        {**snapshot, "recent": [{**snapshot["recent"][0], "marks": "XX"}]},
        {**snapshot, "recent": [{**snapshot["recent"][0], "moves": [9]}]},
        {**snapshot, "ladder": [[1, "alan", "1560", 2, 1, 1]]},
        {**snapshot, "ladder": [[1, "alan", "1560", 2, 1, 1, 0, "chess"]]},
        {**snapshot, "open": [{**snapshot["open"][0], "variant": "chess"}]},
        {**snapshot, "you": {**snapshot["you"], "ratings": [["chess", "1500 ± 500"]]}},
        {**snapshot, "you": {**snapshot["you"], "offered_by": 3}},
        {**snapshot, "you": {**snapshot["you"], "waiting_for": "x" * 41}},
        {**snapshot, "open": [{**snapshot["open"][0], "rematch": None}]},
        {**snapshot, "recent": [{**snapshot["recent"][0], "at": "yesterday"}]},
        {**snapshot, "recent": [{**snapshot["recent"][0], "at": True}]},
        {**snapshot, "recent": [{**snapshot["recent"][0], "at": -1}]},
        {**snapshot, "open": [snapshot["open"][0]] * 201},
        {
            "kind": "goto",
            **dict.fromkeys(("table", "url", "code", "name"), "x"),
            "role": "host",
            "door_key": None,
            "host_token": None,
        },
        {"kind": "keyword", "login": "ada+x", "port": 0, "minutes": 10},
        {"kind": "keyword", "login": "ada+x", "port": 22, "minutes": "10"},
        {"kind": "keyword", "login": "a" * 41, "port": 22, "minutes": 10},
    ):
        with pytest.raises(ProtocolError):
            parse_news(json.dumps(broken))
