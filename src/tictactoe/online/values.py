"""Intents, notices and series as JSON values, written in one place and read strictly: the parts
the messages of `tictactoe.online.wire` carry.

A series travels whole (`encode_series`), naming its game unless it is classic, and a decoded one
is taken only once the core says that play could have reached it (`check_reachable`), so a client
can never be handed, nor hand the authority, a series the core could not have reached. Reading
raises `ProtocolError`, and nothing else.
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
from tictactoe.online.protocol import VARIANT_VERSIONS
from tictactoe.online.schema import ProtocolError

__all__ = [
    "MAX_PHRASES",
    "MAX_TEXT",
    "MAX_VARIANT_NAME",
    "MAX_WORDINGS",
    "decode_intent",
    "decode_notice",
    "decode_series",
    "decode_variant",
    "encode_intent",
    "encode_notice",
    "encode_series",
]

MAX_TEXT: Final = MAX_NAME
"""The longest string field a client may send, in code points: the longest name the core keeps
(`MAX_NAME_LENGTH` characters, each with at most `MAX_MARKS` marks)."""

MAX_PHRASES: Final = 16
"""The most phrases a notice on the wire may have: more than any the game words."""

MAX_WORDINGS: Final = 8
"""The most wordings a phrase on the wire may have: more than any the game words."""

MAX_VARIANT_NAME: Final = 20
"""The longest name of a game on the wire."""

_MAX_CELL: Final = max(VARIANTS[name].cells for name in VARIANT_VERSIONS) - 1
"""The highest cell an intent may name, in any game; the series refuses one its game lacks."""


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
    variant = decode_variant(fields.get("variant", CLASSIC_NAME))
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


def decode_variant(obj: object) -> Variant:
    """The game named `obj`, one these messages carry, or ProtocolError."""
    name = schema.text(obj, "variant", MAX_VARIANT_NAME)
    if name not in VARIANT_VERSIONS:
        raise ProtocolError(f"variant: no such game {schema.shown(name)}")
    return VARIANTS[name]


def _marks(obj: object) -> tuple[Mark, Mark]:
    return schema.pair(obj, "marks", lambda item: schema.choice(Mark, item, "mark"))
