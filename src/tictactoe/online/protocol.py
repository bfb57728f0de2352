"""The messages between a seat's game process and the authority: versioned JSON text frames.

Every message is one JSON object with a `kind`. A client (a seat or a watcher) sends
`Hello` first, then `Act`, `AskHint` or `Leave`; the authority answers with `Welcome` or
`Denied`, then `State` after every change, `Refused` for an intent it will not apply,
and `Ended` when the series is over. A series travels whole (`encode_series`), and a
decoded one is rebuilt through the core, so a client can never be handed, nor hand the
authority, a series the core could not have reached.

Parsing is strict: anything but the documented shape (unknown kinds or fields, wrong
types, booleans for numbers, NaN, repeated keys, deep nesting, an oversized frame)
raises `ProtocolError`, and nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal, TypeVar

from tictactoe.ai import Level
from tictactoe.engine import GameState, IllegalMove, Mark
from tictactoe.names import MAX_MARKS, MAX_NAME_LENGTH
from tictactoe.reachable import check_reachable
from tictactoe.series import (
    ChooseMark,
    Confirm,
    FinishedMatch,
    FirstMove,
    Intent,
    NextMatch,
    Play,
    Player,
    Series,
    SeriesError,
    Undo,
)

__all__ = [
    "MAX_MESSAGE",
    "MAX_SERVER_MESSAGE",
    "PROTOCOL",
    "Act",
    "AskHint",
    "Away",
    "ClientMessage",
    "Denied",
    "Ended",
    "Hello",
    "Leave",
    "ProtocolError",
    "Refused",
    "ServerMessage",
    "State",
    "Welcome",
    "decode_intent",
    "decode_series",
    "encode_intent",
    "encode_series",
    "parse_client",
    "parse_server",
]

PROTOCOL: Final = 1
"""The version of these messages; a `Hello` carries it as `"v"`."""

MAX_MESSAGE: Final = 16 * 1024
"""The largest message a client may send, in bytes of UTF-8 (a hello with the longest name fits)."""

MAX_SERVER_MESSAGE: Final = 1 << 20
"""The largest message the authority sends: a `State` carries every finished match."""

MAX_TEXT: Final = MAX_NAME_LENGTH * (1 + MAX_MARKS)
"""The longest string field a client may send, in code points: the longest name the core keeps
(`MAX_NAME_LENGTH` characters, each with at most `MAX_MARKS` marks)."""

_MAX_VERSION: Final = 2**53
"""Versions are counts; this keeps them exact in every JSON reader."""


class ProtocolError(ValueError):
    """A message that is not one of ours; the text says what is wrong, briefly."""


# Client → authority.


@dataclass(frozen=True, slots=True)
class Hello:
    """The first message of a link: the series' code, the name, and who is asking."""

    code: str
    """The code as typed; the authority normalises it."""
    name: str
    """The name as typed; the authority cleans it."""
    peer: str
    """The remote address the door saw: what wrong codes are counted by, and logged."""
    host_token: str | None = None
    """The secret only the host's own app knows: it claims seat 0."""
    door_key: str | None = None
    """The secret of this hosting that only the doors know (they start every friend's game with
    it): the authority takes a hello, and the address in it, only from the host or a door."""

    def to_json(self) -> str:
        return _dump(
            {
                "kind": "hello",
                "v": PROTOCOL,
                "code": self.code,
                "name": self.name,
                "peer": self.peer,
                "host_token": self.host_token,
                "door_key": self.door_key,
            }
        )


@dataclass(frozen=True, slots=True)
class Act:
    """An intent for the series at `version` (the version of the state it was made on)."""

    version: int
    intent: Intent

    def to_json(self) -> str:
        return _dump({"kind": "act", "version": self.version, "intent": encode_intent(self.intent)})


@dataclass(frozen=True, slots=True)
class AskHint:
    """The seat to move asks for a hint: the others are told."""

    def to_json(self) -> str:
        return _dump({"kind": "hint"})


@dataclass(frozen=True, slots=True)
class Leave:
    """The seat leaves: the series ends for everyone. A watcher just goes."""

    def to_json(self) -> str:
        return _dump({"kind": "leave"})


ClientMessage = Hello | Act | AskHint | Leave
"""What a seat's or a watcher's process sends."""


# Authority → client.


@dataclass(frozen=True, slots=True)
class Welcome:
    """A hello accepted: the link holds a seat (0 = the host, 1 = the guest) or watches."""

    role: Literal["seat", "watcher"]
    seat: int | None = None

    def to_json(self) -> str:
        return _dump({"kind": "welcome", "v": PROTOCOL, "role": self.role, "seat": self.seat})


@dataclass(frozen=True, slots=True)
class Away:
    """A seat whose link dropped, and how long its grace lasts (0 once it is over)."""

    seat: int
    name: str
    seconds_left: float


@dataclass(frozen=True, slots=True)
class State:
    """The series as it stands, for one link: sent after every change."""

    version: int
    """Grows on every change; an `Act` names the version it was made on."""
    series: Series | None
    """None until the guest has joined."""
    names: tuple[str, str | None]
    """The host's name and the guest's (None until the guest has joined)."""
    watchers: int
    away: Away | None
    """A seat whose link dropped: the series is paused while there is one."""
    notice: str = ""
    """A sentence for this link about the last change (a hint asked for, a return)."""

    def to_json(self) -> str:
        away = self.away
        return _dump(
            {
                "kind": "state",
                "version": self.version,
                "series": None if self.series is None else encode_series(self.series),
                "names": list(self.names),
                "watchers": self.watchers,
                "away": None
                if away is None
                else {"seat": away.seat, "name": away.name, "seconds_left": away.seconds_left},
                "notice": self.notice,
            }
        )


@dataclass(frozen=True, slots=True)
class Refused:
    """An intent not applied, and why, in a sentence."""

    text: str

    def to_json(self) -> str:
        return _dump({"kind": "refused", "text": self.text})


@dataclass(frozen=True, slots=True)
class Ended:
    """The series is over (a seat left, the host stopped): why, and the series as it ended."""

    text: str
    series: Series | None = None

    def to_json(self) -> str:
        series = None if self.series is None else encode_series(self.series)
        return _dump({"kind": "ended", "text": self.text, "series": series})


@dataclass(frozen=True, slots=True)
class Denied:
    """A hello refused, and why; the link closes after it."""

    text: str

    def to_json(self) -> str:
        return _dump({"kind": "denied", "text": self.text})


ServerMessage = Welcome | State | Refused | Ended | Denied
"""What the authority sends."""


# Intents and series as JSON values.

_INTENT_KINDS: Final = {Play: "play", ChooseMark: "mark", Confirm: "confirm", NextMatch: "next"}


def encode_intent(intent: Intent) -> dict[str, object]:
    """`intent` as a JSON object: `{"kind": "play", "cell": 4}`, `{"kind": "mark", "mark": "X"}`…"""
    match intent:
        case Play(cell) | Confirm(cell):
            return {"kind": _INTENT_KINDS[type(intent)], "cell": cell}
        case ChooseMark(mark):
            return {"kind": "mark", "mark": Mark(mark).value}
        case NextMatch():
            return {"kind": "next"}
        case Undo():
            return {"kind": "undo"}
    raise TypeError(f"not an intent: {intent!r}")


def decode_intent(obj: object) -> Intent:
    """The intent `obj` describes, or ProtocolError."""
    fields = _object(obj, "intent", {"kind"}, {"cell", "mark"})
    kind = fields["kind"]
    if kind in ("play", "confirm"):
        _only(fields, "intent", {"kind", "cell"})
        cell = _int(fields["cell"], "cell", 0, 8)
        return Play(cell) if kind == "play" else Confirm(cell)
    if kind == "mark":
        _only(fields, "intent", {"kind", "mark"})
        return ChooseMark(_enum(Mark, fields["mark"], "mark"))
    if kind in ("next", "undo"):
        _only(fields, "intent", {"kind"})
        return NextMatch() if kind == "next" else Undo()
    raise ProtocolError(f"unknown intent {_shown(kind)}")


def encode_series(series: Series) -> dict[str, object]:
    """`series` as a JSON object; `decode_series` gives back an equal series."""
    return {
        "players": [
            {"name": player.name, "level": None if player.level is None else player.level.value}
            for player in series.players
        ],
        "first_move": series.first_move.value,
        "chooser": series.chooser,
        "marks": None if series.marks is None else [mark.value for mark in series.marks],
        "match": None if series.match is None else _encode_match(series.match),
        "wins": list(series.wins),
        "draws": series.draws,
        "finished": [
            {**_encode_match(done.match), "marks": [mark.value for mark in done.marks]}
            for done in series.finished
        ],
    }


def decode_series(obj: object) -> Series:
    """The series `obj` describes; ProtocolError unless it has the shape of one and the core
    says that play could have reached it (`check_reachable`)."""
    fields = _object(
        obj,
        "series",
        {"players", "first_move", "chooser", "marks", "match", "wins", "draws", "finished"},
    )
    players = _pair(fields["players"], "players", _player)
    series = Series(
        players=players,
        first_move=_enum(FirstMove, fields["first_move"], "first_move"),
        chooser=_int(fields["chooser"], "chooser", 0, 1),
        marks=None if fields["marks"] is None else _marks(fields["marks"]),
        match=None if fields["match"] is None else _match(fields["match"]),
        wins=_pair(fields["wins"], "wins", lambda item: _int(item, "wins", 0, None)),
        draws=_int(fields["draws"], "draws", 0, None),
        finished=tuple(_finished(item) for item in _list(fields["finished"], "finished", 0, None)),
    )
    try:
        return check_reachable(series)
    except SeriesError as error:
        raise ProtocolError(str(error)) from None


def _encode_match(match: GameState) -> dict[str, object]:
    return {"first": match.first.value, "moves": list(match.moves)}


def _match(obj: object, *, extra: frozenset[str] = frozenset()) -> GameState:
    fields = _object(obj, "match", {"first", "moves"} | extra)
    state = GameState.new(_enum(Mark, fields["first"], "first"))
    for item in _list(fields["moves"], "moves", 0, 9):
        try:
            state = state.play(_int(item, "move", 0, 8))
        except IllegalMove as illegal:
            raise ProtocolError(f"move: {illegal}") from None
    return state


def _finished(obj: object) -> FinishedMatch:
    match = _match(obj, extra=frozenset({"marks"}))
    assert isinstance(obj, dict)
    return FinishedMatch(match, _marks(obj["marks"]))


def _marks(obj: object) -> tuple[Mark, Mark]:
    return _pair(obj, "marks", lambda item: _enum(Mark, item, "mark"))


def _player(obj: object) -> Player:
    fields = _object(obj, "player", {"name", "level"})
    level = None if fields["level"] is None else _enum(Level, fields["level"], "level")
    return Player(_str(fields["name"], "name", MAX_TEXT), level)


# Parsing.


def parse_client(text: object) -> ClientMessage:
    """The client message in `text` (one frame), or ProtocolError."""
    fields = _load(text, MAX_MESSAGE)
    kind = fields.get("kind")
    if kind == "hello":
        _only(fields, "hello", {"kind", "v", "code", "name", "peer"}, {"host_token", "door_key"})
        _version(fields["v"])
        token, door_key = fields.get("host_token"), fields.get("door_key")
        return Hello(
            code=_str(fields["code"], "code", 64),
            name=_str(fields["name"], "name", MAX_TEXT),
            peer=_str(fields["peer"], "peer", 256),
            host_token=None if token is None else _str(token, "host_token", 256),
            door_key=None if door_key is None else _str(door_key, "door_key", 256),
        )
    if kind == "act":
        _only(fields, "act", {"kind", "version", "intent"})
        return Act(
            _int(fields["version"], "version", 0, _MAX_VERSION), decode_intent(fields["intent"])
        )
    if kind == "hint":
        _only(fields, "hint", {"kind"})
        return AskHint()
    if kind == "leave":
        _only(fields, "leave", {"kind"})
        return Leave()
    raise ProtocolError(f"unknown message {_shown(kind)}")


def parse_server(text: object) -> ServerMessage:
    """The authority's message in `text` (one frame), or ProtocolError."""
    fields = _load(text, MAX_SERVER_MESSAGE)
    kind = fields.get("kind")
    if kind == "welcome":
        _only(fields, "welcome", {"kind", "v", "role", "seat"})
        _version(fields["v"])
        role = fields["role"]
        if role == "seat":
            return Welcome("seat", _int(fields["seat"], "seat", 0, 1))
        if role == "watcher" and fields["seat"] is None:
            return Welcome("watcher", None)
        raise ProtocolError("welcome: no such role")
    if kind == "state":
        _only(fields, "state", {"kind", "version", "series", "names", "watchers", "away", "notice"})
        host, guest = _pair(fields["names"], "names", lambda item: item)
        away = fields["away"]
        return State(
            version=_int(fields["version"], "version", 0, _MAX_VERSION),
            series=None if fields["series"] is None else decode_series(fields["series"]),
            names=(
                _str(host, "name", MAX_TEXT),
                None if guest is None else _str(guest, "name", MAX_TEXT),
            ),
            watchers=_int(fields["watchers"], "watchers", 0, _MAX_VERSION),
            away=None if away is None else _away(away),
            notice=_str(fields["notice"], "notice", MAX_TEXT),
        )
    if kind in ("refused", "denied"):
        _only(fields, kind, {"kind", "text"})
        text_field = _str(fields["text"], "text", MAX_TEXT)
        return Refused(text_field) if kind == "refused" else Denied(text_field)
    if kind == "ended":
        _only(fields, "ended", {"kind", "text", "series"})
        series = None if fields["series"] is None else decode_series(fields["series"])
        return Ended(_str(fields["text"], "text", MAX_TEXT), series)
    raise ProtocolError(f"unknown message {_shown(kind)}")


def _away(obj: object) -> Away:
    fields = _object(obj, "away", {"seat", "name", "seconds_left"})
    seconds = fields["seconds_left"]
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not 0 <= seconds <= _MAX_VERSION
    ):
        raise ProtocolError("seconds_left: not a count of seconds")
    return Away(
        seat=_int(fields["seat"], "seat", 0, 1),
        name=_str(fields["name"], "name", MAX_TEXT),
        seconds_left=float(seconds),
    )


def _dump(fields: dict[str, object]) -> str:
    return json.dumps(fields, separators=(",", ":"), allow_nan=False, ensure_ascii=False)


def _load(text: object, limit: int) -> dict[str, object]:
    if not isinstance(text, str):
        raise ProtocolError("not a text frame")
    if len(text) > limit or len(text.encode("utf-8", "surrogatepass")) > limit:
        raise ProtocolError("message too long")
    try:
        value = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_repeats)
    except RecursionError:
        raise ProtocolError("nested too deeply") from None
    except ValueError as error:  # JSONDecodeError, and the hooks' ProtocolError
        if isinstance(error, ProtocolError):
            raise
        raise ProtocolError("not JSON") from None
    if not isinstance(value, dict):
        raise ProtocolError("not a JSON object")
    return value


def _no_constant(name: str) -> object:
    raise ProtocolError(f"{name} is not a number")


def _no_repeats(pairs: list[tuple[str, object]]) -> dict[str, object]:
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise ProtocolError("a key is repeated")
    return fields


def _version(value: object) -> None:
    if _int(value, "v", 0, _MAX_VERSION) != PROTOCOL:
        raise ProtocolError(f"protocol {value} is not spoken here (this is {PROTOCOL})")


def _object(
    obj: object, what: str, required: set[str], optional: set[str] | frozenset[str] = frozenset()
) -> dict[str, object]:
    if not isinstance(obj, dict):
        raise ProtocolError(f"{what}: not an object")
    _only(obj, what, required, optional)
    return obj


def _only(
    fields: dict[str, object],
    what: str,
    required: set[str],
    optional: set[str] | frozenset[str] = frozenset(),
) -> None:
    keys = set(fields)
    if missing := required - keys:
        raise ProtocolError(f"{what}: {sorted(missing)[0]} is missing")
    if unknown := keys - required - optional:
        raise ProtocolError(f"{what}: unknown field {_shown(sorted(unknown)[0])}")


def _int(value: object, what: str, low: int, high: int | None) -> int:
    if type(value) is not int:
        raise ProtocolError(f"{what}: not a whole number")
    if value < low or (high is not None and value > high):
        raise ProtocolError(f"{what}: out of range")
    return value


def _str(value: object, what: str, limit: int) -> str:
    if not isinstance(value, str):
        raise ProtocolError(f"{what}: not a string")
    if len(value) > limit:
        raise ProtocolError(f"{what}: too long")
    return value


def _list(value: object, what: str, low: int, high: int | None) -> list[object]:
    if not isinstance(value, list):
        raise ProtocolError(f"{what}: not a list")
    if len(value) < low or (high is not None and len(value) > high):
        raise ProtocolError(f"{what}: wrong length")
    return value


_T = TypeVar("_T")
_E = TypeVar("_E", Mark, Level, FirstMove)


def _pair(value: object, what: str, item: Callable[[object], _T]) -> tuple[_T, _T]:
    first, second = _list(value, what, 2, 2)
    return item(first), item(second)


def _enum(kind: type[_E], value: object, what: str) -> _E:
    if not isinstance(value, str):
        raise ProtocolError(f"{what}: not a string")
    try:
        return kind(value)
    except ValueError:
        raise ProtocolError(f"{what}: no such value {_shown(value)}") from None


def _shown(value: object) -> str:
    """`value` for an error message: short, and nothing a terminal would act on."""
    return ascii(value)[:40]
