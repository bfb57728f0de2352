"""How the messages travel: versioned JSON text frames, read strictly.

Every message is one JSON object with a `kind` (`to_json`; `parse_client` and `parse_server`
read them back); the values they carry (intents, notices, a whole series) are written and read
in `tictactoe.online.values`. A hello names the games its program plays, a welcome the game of
the series.

Parsing is strict (`tictactoe.online.schema`): anything but the documented shape raises
`ProtocolError`, and nothing else.
"""

from __future__ import annotations

from typing import Final

from tictactoe.core.finished import CLASSIC_NAME
from tictactoe.online import schema
from tictactoe.online.protocol import (
    OLDER_PROTOCOL,
    PROTOCOL,
    VARIANT_VERSIONS,
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
from tictactoe.online.schema import ProtocolError
from tictactoe.online.values import (
    MAX_TEXT,
    MAX_VARIANT_NAME,
    decode_intent,
    decode_notice,
    decode_series,
    decode_variant,
    encode_intent,
    encode_notice,
    encode_series,
)

__all__ = [
    "MAX_MESSAGE",
    "MAX_SERVER_MESSAGE",
    "PROTOCOL",
    "ProtocolError",
    "decode_intent",
    "decode_notice",
    "decode_series",
    "encode_intent",
    "encode_notice",
    "encode_series",
    "parse_client",
    "parse_server",
    "to_json",
]

MAX_MESSAGE: Final = 16 * 1024
"""The largest message a client may send, in bytes of UTF-8 (a hello with the longest name fits)."""

MAX_SERVER_MESSAGE: Final = 1 << 20
"""The largest message the authority sends: a `State` carries every finished match."""

_MAX_VERSION: Final = 2**53
"""Versions are counts; this keeps them exact in every JSON reader."""

_MAX_VARIANTS: Final = 16
"""The most games a hello may name: more than this game plays."""


# Messages as JSON text.


def to_json(message: ClientMessage | ServerMessage) -> str:
    """`message` as one JSON text frame; `parse_client` or `parse_server` gives it back."""
    return schema.dump(_encoded(message))


def _encoded(message: ClientMessage | ServerMessage) -> dict[str, object]:
    match message:
        case Hello():
            hello: dict[str, object] = {
                "kind": "hello",
                "v": message.protocol,
                "code": message.code,
                "name": message.name,
                "peer": message.peer,
                "host_token": message.host_token,
                "door_key": message.door_key,
            }
            if message.protocol != OLDER_PROTOCOL:
                hello["variants"] = dict(message.variants)
            return hello
        case Act(version, intent):
            return {"kind": "act", "version": version, "intent": encode_intent(intent)}
        case AskHint():
            return {"kind": "hint"}
        case Leave():
            return {"kind": "leave"}
        case Welcome(role, seat, variant, protocol):
            welcome: dict[str, object] = {"kind": "welcome", "v": protocol, "role": role}
            welcome["seat"] = seat
            if protocol != OLDER_PROTOCOL:
                welcome["variant"] = {"name": variant, "v": VARIANT_VERSIONS[variant]}
            return welcome
        case State():
            away = message.away
            return {
                "kind": "state",
                "version": message.version,
                "series": None if message.series is None else encode_series(message.series),
                "names": list(message.names),
                "watchers": message.watchers,
                "away": None
                if away is None
                else {"seat": away.seat, "name": away.name, "seconds_left": away.seconds_left},
                "notice": encode_notice(message.notice),
                "answered": message.answered,
            }
        case Refused(notice):
            return {"kind": "refused", "notice": encode_notice(notice)}
        case Denied(text, final):
            return {"kind": "denied", "text": text, "final": final}
        case Ended(text, series):
            encoded = None if series is None else encode_series(series)
            return {"kind": "ended", "text": text, "series": encoded}
    raise TypeError(f"not a message: {message!r}")


def _variants(obj: object) -> tuple[tuple[str, int], ...]:
    """The games a hello names, each with its version: any names (the authority says which it
    plays), at most `_MAX_VARIANTS` of them."""
    if not isinstance(obj, dict):
        raise ProtocolError("variants: not an object")
    if len(obj) > _MAX_VARIANTS:
        raise ProtocolError("variants: too many")
    return tuple(
        (
            schema.text(name, "variant", MAX_VARIANT_NAME),
            schema.whole(version, "variant's version", 1, _MAX_VERSION),
        )
        for name, version in obj.items()
    )


# Parsing.


def parse_client(text: object) -> ClientMessage:
    """The client message in `text` (one frame), or ProtocolError."""
    fields = schema.load(text, MAX_MESSAGE)
    kind = fields.get("kind")
    if kind == "hello":
        required = {"kind", "v", "code", "name", "peer"}
        version = schema.whole(fields.get("v"), "v", 0, _MAX_VERSION)
        if version == OLDER_PROTOCOL:  # an older game: it plays classic alone
            schema.only(fields, "hello", required, {"host_token", "door_key"})
            variants: tuple[tuple[str, int], ...] = ((CLASSIC_NAME, 1),)
        else:
            _version(version)
            schema.only(fields, "hello", required | {"variants"}, {"host_token", "door_key"})
            variants = _variants(fields["variants"])
        token, door_key = fields.get("host_token"), fields.get("door_key")
        return Hello(
            code=schema.text(fields["code"], "code", 64),
            name=schema.text(fields["name"], "name", MAX_TEXT),
            peer=schema.text(fields["peer"], "peer", 256),
            host_token=None if token is None else schema.text(token, "host_token", 256),
            door_key=None if door_key is None else schema.text(door_key, "door_key", 256),
            variants=variants,
            protocol=version,
        )
    if kind == "act":
        schema.only(fields, "act", {"kind", "version", "intent"})
        return Act(
            schema.whole(fields["version"], "version", 0, _MAX_VERSION),
            decode_intent(fields["intent"]),
        )
    if kind == "hint":
        schema.only(fields, "hint", {"kind"})
        return AskHint()
    if kind == "leave":
        schema.only(fields, "leave", {"kind"})
        return Leave()
    raise ProtocolError(f"unknown message {schema.shown(kind)}")


def parse_server(text: object) -> ServerMessage:
    """The authority's message in `text` (one frame), or ProtocolError."""
    fields = schema.load(text, MAX_SERVER_MESSAGE)
    kind = fields.get("kind")
    if kind == "welcome":
        schema.only(fields, "welcome", {"kind", "v", "role", "seat", "variant"})
        _version(fields["v"])
        variant = schema.fields(fields["variant"], "variant", {"name", "v"})
        name = decode_variant(variant["name"]).name
        if (
            schema.whole(variant["v"], "variant's version", 1, _MAX_VERSION)
            != VARIANT_VERSIONS[name]
        ):
            raise ProtocolError(f"variant: {name} is played here at another version")
        role = fields["role"]
        if role == "seat":
            return Welcome("seat", schema.whole(fields["seat"], "seat", 0, 1), name)
        if role == "watcher" and fields["seat"] is None:
            return Welcome("watcher", None, name)
        raise ProtocolError("welcome: no such role")
    if kind == "state":
        schema.only(
            fields,
            "state",
            {"kind", "version", "series", "names", "watchers", "away", "notice", "answered"},
        )
        host, guest = schema.pair(fields["names"], "names", lambda item: item)
        away = fields["away"]
        return State(
            version=schema.whole(fields["version"], "version", 0, _MAX_VERSION),
            series=None if fields["series"] is None else decode_series(fields["series"]),
            names=(
                schema.text(host, "name", MAX_TEXT),
                None if guest is None else schema.text(guest, "name", MAX_TEXT),
            ),
            watchers=schema.whole(fields["watchers"], "watchers", 0, _MAX_VERSION),
            away=None if away is None else _away(away),
            notice=decode_notice(fields["notice"]),
            answered=schema.whole(fields["answered"], "answered", 0, _MAX_VERSION),
        )
    if kind == "refused":
        schema.only(fields, "refused", {"kind", "notice"})
        return Refused(decode_notice(fields["notice"]))
    if kind == "denied":
        schema.only(fields, "denied", {"kind", "text"}, {"final"})
        final = fields.get("final", False)
        if not isinstance(final, bool):
            raise ProtocolError("denied: final is not true or false")
        return Denied(schema.text(fields["text"], "text", MAX_TEXT), final)
    if kind == "ended":
        schema.only(fields, "ended", {"kind", "text", "series"})
        series = None if fields["series"] is None else decode_series(fields["series"])
        return Ended(schema.text(fields["text"], "text", MAX_TEXT), series)
    raise ProtocolError(f"unknown message {schema.shown(kind)}")


def _away(obj: object) -> Away:
    fields = schema.fields(obj, "away", {"seat", "name", "seconds_left"})
    seconds = fields["seconds_left"]
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not 0 <= seconds <= _MAX_VERSION
    ):
        raise ProtocolError("seconds_left: not a count of seconds")
    return Away(
        seat=schema.whole(fields["seat"], "seat", 0, 1),
        name=schema.text(fields["name"], "name", MAX_TEXT),
        seconds_left=float(seconds),
    )


def _version(value: object) -> None:
    if schema.whole(value, "v", 0, _MAX_VERSION) != PROTOCOL:
        raise ProtocolError(f"protocol {value} is not spoken here (this is {PROTOCOL})")
