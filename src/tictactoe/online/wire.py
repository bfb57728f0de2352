"""How the messages travel: versioned JSON text frames, read strictly.

Every message is one JSON object with a `kind` (`to_json`; `parse_client` and `parse_server`
read them back). A series travels whole (`encode_series`), and a decoded one is taken only
once the core says that play could have reached it, so a client can never be handed, nor
hand the authority, a series the core could not have reached.

Parsing is strict (`tictactoe.online.schema`): anything but the documented shape raises
`ProtocolError`, and nothing else.
"""

from __future__ import annotations

from typing import Final

from tictactoe.core.engine import IllegalMove, Mark
from tictactoe.core.finished import CLASSIC_NAME
from tictactoe.core.notices import JOINERS, SLOTS, Notice, Phrase
from tictactoe.core.reachable import check_reachable
from tictactoe.core.rules import VARIANTS, Position, Variant
from tictactoe.core.series import (
    ChooseMark,
    Confirm,
    FirstMove,
    Intent,
    NextMatch,
    Play,
    Series,
    SeriesError,
    Undo,
)
from tictactoe.online import schema
from tictactoe.online.matches import (
    MAX_NAME,
    decode_match,
    decode_player,
    encode_match,
    encode_player,
)
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

MAX_TEXT: Final = MAX_NAME
"""The longest string field a client may send, in code points: the longest name the core keeps
(`MAX_NAME_LENGTH` characters, each with at most `MAX_MARKS` marks)."""

MAX_PHRASES: Final = 16
"""The most phrases a notice on the wire may have: more than any the game words."""

MAX_WORDINGS: Final = 8
"""The most wordings a phrase on the wire may have: more than any the game words."""

_MAX_VERSION: Final = 2**53
"""Versions are counts; this keeps them exact in every JSON reader."""

_MAX_VARIANTS: Final = 16
"""The most games a hello may name: more than this game plays."""

_MAX_VARIANT_NAME: Final = 20
"""The longest name of a game on the wire."""

_MAX_CELL: Final = max(VARIANTS[name].cells for name in VARIANT_VERSIONS) - 1
"""The highest cell an intent may name, in any game; the series refuses one its game lacks."""


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
    fields = schema.fields(obj, "intent", {"kind"}, {"cell", "mark"})
    kind = fields["kind"]
    if kind in ("play", "confirm"):
        schema.only(fields, "intent", {"kind", "cell"})
        cell = schema.whole(fields["cell"], "cell", 0, _MAX_CELL)
        return Play(cell) if kind == "play" else Confirm(cell)
    if kind == "mark":
        schema.only(fields, "intent", {"kind", "mark"})
        return ChooseMark(schema.choice(Mark, fields["mark"], "mark"))
    if kind in ("next", "undo"):
        schema.only(fields, "intent", {"kind"})
        return NextMatch() if kind == "next" else Undo()
    raise ProtocolError(f"unknown intent {schema.shown(kind)}")


def encode_notice(notice: Notice) -> list[object]:
    """`notice` as a JSON list of its phrases: `[{"joiner": " ", "wordings": [...]}, ...]`,
    with `"slot"` in a phrase that leaves one for a key (the seat's screen fills it)."""
    return [_encode_phrase(phrase) for phrase in notice.phrases]


def _encode_phrase(phrase: Phrase) -> dict[str, object]:
    encoded: dict[str, object] = {"joiner": phrase.joiner, "wordings": list(phrase.wordings)}
    if phrase.slot:
        encoded["slot"] = phrase.slot
    return encoded


def decode_notice(obj: object) -> Notice:
    """The notice `obj` describes, or ProtocolError."""
    phrases = []
    for item in schema.items(obj, "notice", 0, MAX_PHRASES):
        fields = schema.fields(item, "phrase", {"joiner", "wordings"}, {"slot"})
        joiner = schema.text(fields["joiner"], "joiner", 3)
        if joiner not in JOINERS:
            raise ProtocolError(f"joiner: no such joiner {schema.shown(joiner)}")
        wordings = schema.items(fields["wordings"], "wordings", 1, MAX_WORDINGS)
        texts = tuple(schema.text(wording, "wording", MAX_TEXT) for wording in wordings)
        slot = schema.text(fields.get("slot", ""), "slot", max(map(len, SLOTS)))
        if slot and slot not in SLOTS:
            raise ProtocolError(f"slot: no such slot {schema.shown(slot)}")
        phrases.append(Phrase(texts, joiner, slot))
    return Notice(tuple(phrases))


def encode_series(series: Series) -> dict[str, object]:
    """`series` as a JSON object; `decode_series` gives back an equal series. A game other than
    classic is named (`"variant"`): a classic series reads as it did before there were others."""
    encoded: dict[str, object] = {
        "players": [encode_player(player) for player in series.players],
        "first_move": series.first_move.value,
        "chooser": series.chooser,
        "opens": series.opens,
        "marks": None if series.marks is None else [mark.value for mark in series.marks],
        "match": None if series.match is None else _encode_match(series.match),
        "wins": list(series.wins),
        "draws": series.draws,
        "finished": [encode_match(done) for done in series.finished],
    }
    if series.variant.name != CLASSIC_NAME:
        encoded["variant"] = series.variant.name
    return encoded


def decode_series(obj: object) -> Series:
    """The series `obj` describes; ProtocolError unless it has the shape of one and the core
    says that play could have reached it (`check_reachable`)."""
    fields = schema.fields(
        obj,
        "series",
        {"players", "first_move", "chooser", "marks", "match", "wins", "draws", "finished"},
        {"opens", "variant"},  # a peer from before them: player 1 chooses first, classic
    )
    players = schema.pair(fields["players"], "players", decode_player)
    variant = _variant(fields.get("variant", CLASSIC_NAME))
    series = Series(
        players=players,
        first_move=schema.choice(FirstMove, fields["first_move"], "first_move"),
        chooser=schema.whole(fields["chooser"], "chooser", 0, 1),
        opens=schema.whole(fields.get("opens", 0), "opens", 0, 1),
        marks=None if fields["marks"] is None else _marks(fields["marks"]),
        match=None if fields["match"] is None else _match(fields["match"], variant),
        wins=schema.pair(fields["wins"], "wins", lambda item: schema.whole(item, "wins", 0, None)),
        draws=schema.whole(fields["draws"], "draws", 0, None),
        finished=tuple(
            decode_match(item) for item in schema.items(fields["finished"], "finished", 0, None)
        ),
        variant=variant,
    )
    try:
        return check_reachable(series)
    except SeriesError as error:
        raise ProtocolError(str(error)) from None


def _encode_match(match: Position) -> dict[str, object]:
    return {"first": match.first.value, "moves": list(match.moves)}


def _match(obj: object, variant: Variant) -> Position:
    fields = schema.fields(obj, "match", {"first", "moves"})
    state = variant.new(schema.choice(Mark, fields["first"], "first"))
    for item in schema.items(fields["moves"], "moves", 0, variant.cells):
        try:
            state = state.play(schema.whole(item, "move", 0, variant.cells - 1))
        except IllegalMove as illegal:
            raise ProtocolError(f"move: {illegal}") from None
    return state


def _variant(obj: object) -> Variant:
    """The game named `obj`, one these messages carry."""
    name = schema.text(obj, "variant", _MAX_VARIANT_NAME)
    if name not in VARIANT_VERSIONS:
        raise ProtocolError(f"variant: no such game {schema.shown(name)}")
    return VARIANTS[name]


def _variants(obj: object) -> tuple[tuple[str, int], ...]:
    """The games a hello names, each with its version: any names (the authority says which it
    plays), at most `_MAX_VARIANTS` of them."""
    if not isinstance(obj, dict):
        raise ProtocolError("variants: not an object")
    if len(obj) > _MAX_VARIANTS:
        raise ProtocolError("variants: too many")
    return tuple(
        (
            schema.text(name, "variant", _MAX_VARIANT_NAME),
            schema.whole(version, "variant's version", 1, _MAX_VERSION),
        )
        for name, version in obj.items()
    )


def _marks(obj: object) -> tuple[Mark, Mark]:
    return schema.pair(obj, "marks", lambda item: schema.choice(Mark, item, "mark"))


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
        name = _variant(variant["name"]).name
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
