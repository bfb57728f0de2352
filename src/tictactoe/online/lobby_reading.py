"""The club's lobby messages (`tictactoe.online.lobby`) read back from the wire: `parse_ask` what
a lobby link asks, `parse_news` what the club sends; strictly, every list and text bounded, a game
only one of `VARIANTS`; `ProtocolError` for anything else."""

from __future__ import annotations

from typing import Final

from tictactoe.core.rules import VARIANTS
from tictactoe.online import schema
from tictactoe.online.lobby import (
    MAX_LOBBY_ASK,
    MAX_LOBBY_MESSAGE,
    MAX_MATCHES,
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
    QuickPair,
    Rematch,
    Said,
    SitAt,
    Snapshot,
    TableRow,
    WatchTable,
    You,
)
from tictactoe.online.matches import decode_match
from tictactoe.online.schema import ProtocolError

__all__ = ["MAX_LADDER", "MAX_PAST", "MAX_ROWS", "parse_ask", "parse_news"]

MAX_ROWS: Final = 200
"""Tables of each kind a snapshot lists, at most."""
MAX_LADDER: Final = 50
"""Lines of each game's ladder a snapshot lists, at most."""
MAX_PAST: Final = 20
_TEXT: Final = 200
_NAME: Final = 40
_ID: Final = 40
_SECRET: Final = 100


def parse_ask(text: object) -> LobbyAsk:
    """What a lobby link asked, read strictly; `ProtocolError` for anything else."""
    obj = schema.load(text, MAX_LOBBY_ASK)
    kind = obj.get("kind")
    match kind:
        case "hello":
            schema.only(obj, "hello", {"kind", "token"})
            return LobbyHello(schema.text(obj["token"], "token", _SECRET))
        case "open":
            schema.only(obj, "open", {"kind", "rated", "matches", "variant"})
            return OpenTable(
                _bool(obj["rated"], "rated"), _matches(obj["matches"]), _variant(obj["variant"])
            )
        case "sit" | "watch":
            schema.only(obj, kind, {"kind", "table"})
            table = schema.text(obj["table"], "table", _ID)
            return SitAt(table) if kind == "sit" else WatchTable(table)
        case "pair":
            schema.only(obj, "pair", {"kind", "variant"})
            return QuickPair(_variant(obj["variant"]))
        case "close" | "rematch":
            schema.only(obj, kind, {"kind"})
            return CloseTable() if kind == "close" else Rematch()
        case "key":
            schema.only(obj, "key", {"kind"})
            return AddKey()
    raise ProtocolError(f"unknown kind {schema.shown(kind)}")


def parse_news(text: object) -> LobbyNews:
    """What the club sent, read strictly; `ProtocolError` for anything else."""
    obj = schema.load(text, MAX_LOBBY_MESSAGE)
    kind = obj.get("kind")
    match kind:
        case "snapshot":
            schema.only(obj, "snapshot", {"kind", "you", "open", "playing", "ladder", "recent"})
            you = schema.fields(
                obj["you"],
                "you",
                {"handle", "guest", "ratings", "waiting_at", "waiting_for", "offered_by"},
            )
            return Snapshot(
                You(
                    schema.text(you["handle"], "handle", _NAME),
                    _bool(you["guest"], "guest"),
                    tuple(
                        _read_rating(each)
                        for each in schema.items(you["ratings"], "ratings", 0, len(VARIANTS))
                    ),
                    _maybe(you["waiting_at"], "waiting_at", _ID),
                    _maybe(you["waiting_for"], "waiting_for", _NAME),
                    _maybe(you["offered_by"], "offered_by", _NAME),
                ),
                open=tuple(
                    _read_row(row) for row in schema.items(obj["open"], "open", 0, MAX_ROWS)
                ),
                playing=tuple(
                    _read_row(row) for row in schema.items(obj["playing"], "playing", 0, MAX_ROWS)
                ),
                ladder=tuple(
                    _read_line(line)
                    for line in schema.items(obj["ladder"], "ladder", 0, MAX_LADDER * len(VARIANTS))
                ),
                recent=tuple(
                    _read_past(past) for past in schema.items(obj["recent"], "recent", 0, MAX_PAST)
                ),
            )
        case "goto":
            keys = {"kind", "table", "url", "code", "name", "role", "door_key", "host_token"}
            schema.only(obj, "goto", keys)
            role = obj["role"]
            if role not in ("seat", "watcher"):
                raise ProtocolError("goto: role: no such role")
            return GoTo(
                schema.text(obj["table"], "table", _ID),
                schema.text(obj["url"], "url", _TEXT),
                schema.text(obj["code"], "code", _NAME),
                schema.text(obj["name"], "name", _NAME),
                "seat" if role == "seat" else "watcher",
                _secret(obj["door_key"], "door_key"),
                _secret(obj["host_token"], "host_token"),
            )
        case "keyword":
            schema.only(obj, "keyword", {"kind", "login", "port", "minutes"})
            port = obj["port"]
            return KeyWord(
                schema.text(obj["login"], "login", _NAME),
                None if port is None else schema.whole(port, "port", 1, 65535),
                schema.whole(obj["minutes"], "minutes", 1, 1440),
            )
        case "said" | "farewell":
            schema.only(obj, kind, {"kind", "text"})
            said = schema.text(obj["text"], "text", _TEXT)
            return Said(said) if kind == "said" else Farewell(said)
    raise ProtocolError(f"unknown kind {schema.shown(kind)}")


def _bool(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise ProtocolError(f"{what}: not true or false")
    return value


def _matches(value: object) -> int | None:
    return None if value is None else schema.whole(value, "matches", 1, MAX_MATCHES)


def _variant(value: object) -> str:
    """A game's name, one of `VARIANTS`."""
    name = schema.text(value, "variant", _NAME)
    if name not in VARIANTS:
        raise ProtocolError(f"variant: no game {schema.shown(name)}")
    return name


def _read_rating(value: object) -> tuple[str, str]:
    game, shown = schema.items(value, "rating", 2, 2)
    return _variant(game), schema.text(shown, "rating", _NAME)


def _secret(value: object, what: str) -> str | None:
    return _maybe(value, what, _SECRET)


def _maybe(value: object, what: str, limit: int) -> str | None:
    return None if value is None else schema.text(value, what, limit)


def _count(value: object, what: str) -> int:
    return schema.whole(value, what, 0, 2**31)


def _read_row(value: object) -> TableRow:
    keys = {
        "id",
        "players",
        "rated",
        "matches",
        "rating",
        "score",
        "watchers",
        "rematch",
        "variant",
    }
    row = schema.fields(value, "table", keys)
    players = schema.items(row["players"], "players", 1, 2)
    score = schema.items(row["score"], "score", 3, 3)
    wins0, wins1, draws = (_count(each, "score") for each in score)
    return TableRow(
        schema.text(row["id"], "id", _ID),
        tuple(schema.text(each, "player", _NAME) for each in players),
        _bool(row["rated"], "rated"),
        _matches(row["matches"]),
        schema.text(row["rating"], "rating", _NAME),
        (wins0, wins1, draws),
        _count(row["watchers"], "watchers"),
        _bool(row["rematch"], "rematch"),
        _variant(row["variant"]),
    )


def _read_line(value: object) -> LadderLine:
    rank, handle, rating, matches, wins, draws, losses, game = schema.items(
        value, "ladder line", 8, 8
    )
    return LadderLine(
        _count(rank, "rank"),
        schema.text(handle, "handle", _NAME),
        schema.text(rating, "rating", _NAME),
        _count(matches, "matches"),
        _count(wins, "wins"),
        _count(draws, "draws"),
        _count(losses, "losses"),
        _variant(game),
    )


def _read_past(value: object) -> PastMatch:
    past = schema.fields(value, "recent match", {"match", "rated"})
    return PastMatch(decode_match(past["match"]), _bool(past["rated"], "rated"))
