"""The messages on the wire: every message round-trips, a series comes back exactly, and anything
else is a ProtocolError (never another exception)."""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tictactoe.core.ai import Level
from tictactoe.core.engine import Mark
from tictactoe.core.notices import JOINERS, Notice, Phrase
from tictactoe.core.series import (
    ChooseMark,
    Confirm,
    FirstMove,
    Intent,
    NextMatch,
    Play,
    Player,
    Series,
    SeriesError,
    Undo,
)
from tictactoe.online.protocol import (
    Act,
    AskHint,
    Away,
    ClientMessage,
    Denied,
    Ended,
    Hello,
    Leave,
    Refused,
    ServerMessage,
    State,
    Welcome,
)
from tictactoe.online.values import MAX_PHRASES, MAX_WORDINGS
from tictactoe.online.wire import (
    MAX_MESSAGE,
    PROTOCOL,
    ProtocolError,
    decode_series,
    encode_series,
    parse_client,
    parse_server,
    to_json,
)

intents: st.SearchStrategy[Intent] = st.one_of(
    st.builds(Play, st.integers(0, 8)),
    st.builds(ChooseMark, st.sampled_from(Mark)),
    st.builds(Confirm, st.integers(0, 8)),
    st.just(Undo()),
    st.just(NextMatch()),
)

players = st.one_of(
    st.text(max_size=30),
    st.builds(Player.computer, st.sampled_from(Level)),
)


@st.composite
def reachable_series(draw: st.DrawFn) -> Series:
    """A series reached from `Series.new` by legal steps: intents, and the computer's own."""
    try:
        first_move, opens = draw(st.sampled_from(FirstMove)), draw(st.integers(0, 1))
        series = Series.new(draw(players), draw(players), first_move, opens)
    except SeriesError:
        series = Series.new("Alice", "Bob")
    rng = random.Random(draw(st.integers(0, 2**16)))
    for intent in draw(st.lists(intents, max_size=80)):
        try:
            if series.awaits_computer:
                series = series.computer_step(rng).series
            else:
                series = series.apply(intent, rng)
        except SeriesError:
            pass
    return series


def through_json(obj: object) -> Any:
    return json.loads(json.dumps(obj))


@given(reachable_series())
@settings(max_examples=300)
def test_a_series_comes_back_exactly(series: Series) -> None:
    assert decode_series(through_json(encode_series(series))) == series


@given(reachable_series(), st.integers(0, 2**40), st.integers(0, 40), st.text(max_size=80))
def test_a_state_comes_back_exactly(series: Series, version: int, watchers: int, text: str) -> None:
    for message in (
        State(version, series, (series.players[0].name, series.players[1].name), watchers, None),
        State(version, None, ("Alice", None), watchers, Away(1, "Bob", 12.5), Notice.of(text)),
        Ended(text, series),
    ):
        assert parse_server(to_json(message)) == message


phrases = st.builds(
    Phrase,
    st.lists(st.text(max_size=40), min_size=1, max_size=MAX_WORDINGS).map(tuple),
    st.sampled_from(JOINERS),
)
notices = st.lists(phrases, max_size=MAX_PHRASES).map(lambda items: Notice(tuple(items)))

client_messages: st.SearchStrategy[ClientMessage] = st.one_of(
    st.builds(
        Hello,
        st.text(max_size=10),
        st.text(max_size=60),
        st.text(max_size=20),
        st.none() | st.text(max_size=40),
    ),
    st.builds(Act, st.integers(0, 2**50), intents),
    st.just(AskHint()),
    st.just(Leave()),
)

server_messages: st.SearchStrategy[ServerMessage] = st.one_of(
    st.just(Welcome("seat", 0)),
    st.just(Welcome("seat", 1)),
    st.just(Welcome("watcher", None)),
    st.builds(Refused, notices),
    st.builds(Denied, st.text(max_size=100), st.booleans()),
    st.builds(Ended, st.text(max_size=100)),
)


@given(client_messages)
def test_every_client_message_round_trips(message: ClientMessage) -> None:
    assert parse_client(to_json(message)) == message


@given(server_messages)
def test_every_server_message_round_trips(message: ServerMessage) -> None:
    assert parse_server(to_json(message)) == message


def test_the_hello_carries_the_version() -> None:
    assert json.loads(to_json(Hello("K7M4QX", "Bob", "10.0.0.2")))["v"] == PROTOCOL
    assert json.loads(to_json(Act(3, Play(4))))["intent"] == {"kind": "play", "cell": 4}
    assert json.loads(to_json(Act(3, ChooseMark(Mark.O))))["intent"] == {
        "kind": "mark",
        "mark": "O",
    }


HELLO = {
    "kind": "hello",
    "v": PROTOCOL,
    "code": "K7M4QX",
    "name": "Bob",
    "peer": "10.0.0.2",
    "variants": {"classic": 1, "ultimate": 1},
}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{{{not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('"hello"', "not a JSON object"),
        ('{"kind": "dance"}', "unknown message"),
        ("{}", "unknown message"),
        (json.dumps({**HELLO, "v": PROTOCOL + 1}), f"protocol {PROTOCOL + 1}"),
        (json.dumps({**HELLO, "v": True}), "not a whole number"),
        (json.dumps({**HELLO, "name": 7}), "not a string"),
        (json.dumps({**HELLO, "extra": {"a": [1]}}), "unknown field"),
        (json.dumps({k: v for k, v in HELLO.items() if k != "code"}), "code is missing"),
        (json.dumps({**HELLO, "name": "x" * 5000}), "too long"),
        ('{"kind": "act", "version": 1, "intent": {"kind": "play", "cell": 81}}', "out of range"),
        ('{"kind": "act", "version": 1, "intent": {"kind": "play", "cell": -1}}', "out of range"),
        ('{"kind": "act", "version": 1, "intent": {"kind": "play", "cell": true}}', "whole"),
        ('{"kind": "act", "version": 1, "intent": {"kind": "play", "cell": 4.0}}', "whole"),
        ('{"kind": "act", "version": NaN, "intent": {"kind": "next"}}', "NaN"),
        ('{"kind": "act", "version": 1e999, "intent": {"kind": "next"}}', "whole"),
        ('{"kind": "act", "version": -1, "intent": {"kind": "next"}}', "out of range"),
        ('{"kind": "act", "version": 1, "intent": {"kind": "mark", "mark": "Z"}}', "no such"),
        ('{"kind": "act", "version": 1, "intent": {"kind": "next", "cell": 1}}', "unknown field"),
        ('{"kind": "act", "version": 1, "intent": [["play", 4]]}', "not an object"),
        ('{"kind": "act", "version": 1, "intent": {"kind": "fly"}}', "unknown intent"),
        ('{"kind": "leave", "kind": "hint"}', "repeated"),
        ('{"kind": "hint", "x": ' + "[" * 2000 + "]" * 2000 + "}", "nested"),
        ("[" * 100_000, "too long"),
        ("x" * (MAX_MESSAGE + 1), "too long"),
    ],
)
def test_malformed_client_messages_are_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        parse_client(text)


def test_a_frame_counts_its_bytes_not_its_characters() -> None:
    name = "é" * (MAX_MESSAGE // 2)
    text = json.dumps({**HELLO, "name": name}, ensure_ascii=False)
    assert len(text) < MAX_MESSAGE < len(text.encode())
    with pytest.raises(ProtocolError, match="too long"):
        parse_client(text)


def test_not_text_is_refused() -> None:
    with pytest.raises(ProtocolError, match="text"):
        parse_client(b'{"kind": "leave"}')


STATE = {
    "kind": "state",
    "version": 3,
    "series": None,
    "names": ["Alice", None],
    "watchers": 0,
    "away": None,
    "answered": 0,
}


@pytest.mark.parametrize(
    ("notice", "reason"),
    [
        ("Bob is back.", "not a list"),
        ([["Bob is back."]], "not an object"),
        ([{"joiner": " ", "wordings": []}], "wrong length"),
        ([{"joiner": " ", "wordings": [7]}], "not a string"),
        ([{"joiner": " ", "wordings": ["x" * 5000]}], "too long"),
        ([{"joiner": "\t", "wordings": ["Bob is back."]}], "no such joiner"),
        ([{"joiner": " ", "wordings": ["a"], "bold": True}], "unknown field"),
        ([{"joiner": " ", "wordings": ["a"], "slot": "undo"}], "no such slot"),
        ([{"joiner": " ", "wordings": ["a"], "slot": 7}], "not a string"),
        ([{"joiner": " ", "wordings": ["a"]}] * (MAX_PHRASES + 1), "wrong length"),
        ([{"joiner": " ", "wordings": ["a"] * (MAX_WORDINGS + 1)}], "wrong length"),
    ],
)
def test_a_notice_not_in_phrases_is_refused(notice: object, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        parse_server(json.dumps({**STATE, "notice": notice}))
    with pytest.raises(ProtocolError, match=reason):
        parse_server(json.dumps({"kind": "refused", "notice": notice}))


def test_a_notice_travels_in_its_phrases() -> None:
    notice = Notice.of("This match is over:", ("press n or Enter for the next one.", "n: next."))
    assert json.loads(to_json(Refused(notice)))["notice"] == [
        {"joiner": " ", "wordings": ["This match is over:"]},
        {"joiner": " ", "wordings": ["press n or Enter for the next one.", "n: next."]},
    ]
    assert parse_server(to_json(Refused(notice))) == Refused(notice)


def test_a_notice_travels_with_its_slot_for_the_seats_keys() -> None:
    over = Series.new("Alice", "Bob").apply(ChooseMark(Mark.X))
    for cell in (0, 3, 1, 4, 2):
        over = over.apply(Play(cell))
    with pytest.raises(SeriesError) as refused:
        over.apply(Play(8))
    notice = refused.value.notice
    assert json.loads(to_json(Refused(notice)))["notice"][1]["slot"] == "next_match"
    assert parse_server(to_json(Refused(notice))) == Refused(notice)


def a_series_dict() -> dict[str, Any]:
    series = Series.new("Alice", "Bob").apply(ChooseMark(Mark.X))
    for cell in (0, 3, 1, 4, 2):
        series = series.apply(Play(cell))
    series = series.apply(NextMatch()).apply(ChooseMark(Mark.O)).apply(Play(4))
    encoded: dict[str, Any] = through_json(encode_series(series))
    assert decode_series(encoded) == series
    return encoded


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: d.update(wins=[0, 1]), "wins"),
        (lambda d: d.update(wins=[1, 0, 0]), "wrong length"),
        (lambda d: d.update(draws=1), "draws"),
        (lambda d: d["match"]["moves"].append(4), "taken"),
        (lambda d: d["match"]["moves"].append(9), "out of range"),
        (lambda d: d.update(chooser=0), "chooser"),
        (lambda d: d.update(chooser=False), "whole"),
        (lambda d: d.update(marks=["X", "X"]), "one mark"),
        (lambda d: d.update(marks=None), "together"),
        (lambda d: d["match"].update(first="X"), "chooser did not move first"),
        (lambda d: d["finished"][0]["moves"].pop(), "not over"),
        (lambda d: d["finished"].clear(), "wins"),
        (lambda d: d["players"][1].update(name="ALICE"), "must differ"),
        (lambda d: d["players"][1].update(name=" Bob"), "as the core keeps"),
        (lambda d: d["players"][1].update(name="\x1b[2J"), "as the core keeps"),
        (lambda d: d["players"][1].update(level="godlike"), "no such"),
        (lambda d: d.update(first_move="x"), "X did not move first"),
        (lambda d: d.update(extra=1), "unknown field"),
    ],
)
def test_a_series_the_core_could_not_reach_is_refused(change: Any, reason: str) -> None:
    encoded = a_series_dict()
    change(encoded)
    with pytest.raises(ProtocolError, match=reason):
        decode_series(encoded)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=12)
    | st.sampled_from(["hello", "act", "play", "X", "O", "state", "series"]),
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(
            st.sampled_from(
                [
                    "kind",
                    "v",
                    "variants",
                    "variant",
                    "code",
                    "name",
                    "peer",
                    "version",
                    "intent",
                    "cell",
                    "mark",
                    "series",
                    "players",
                    "wins",
                    "draws",
                    "finished",
                    "match",
                    "moves",
                    "first",
                    "marks",
                    "chooser",
                    "first_move",
                    "level",
                    "names",
                    "watchers",
                    "away",
                    "notice",
                    "text",
                ]
            )
            | st.text(max_size=5),
            children,
            max_size=6,
        )
    ),
    max_leaves=30,
)


@given(json_values)
@settings(max_examples=500)
def test_random_json_is_a_message_or_a_protocol_error(value: object) -> None:
    text = json.dumps(value)
    for parse in (parse_client, parse_server):
        with contextlib.suppress(ProtocolError):
            parse(text)


@given(json_values)
def test_random_json_is_a_series_or_a_protocol_error(value: object) -> None:
    with contextlib.suppress(ProtocolError):
        decode_series(value)


@given(st.text(max_size=200) | st.binary(max_size=50).map(lambda b: b.decode("latin-1")))
def test_random_text_is_a_message_or_a_protocol_error(text: str) -> None:
    for parse in (parse_client, parse_server):
        with contextlib.suppress(ProtocolError):
            parse(text)


@given(reachable_series(), st.data())
def test_a_series_with_one_field_changed_decodes_only_to_a_series(
    series: Series, data: st.DataObject
) -> None:
    encoded = through_json(encode_series(series))
    key = data.draw(st.sampled_from(sorted(encoded)))
    encoded[key] = data.draw(json_values)
    try:
        decoded = decode_series(encoded)
    except ProtocolError:
        return
    assert encode_series(decoded) == encoded
