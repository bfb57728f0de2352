"""The club's lobby: the messages between a player's game process and the club, as values, and
how they travel (one JSON object per text frame, read strictly, every list and text bounded).

A lobby link says `LobbyHello` first (the secret its door gave it), then asks: open a table, sit
at one, be paired with the closest waiting player, watch a table, take back its own open table,
offer (or take) a rematch with the last opponent, ask for a one-time word that lets another key
join the player's handle. The club answers with a `Snapshot` on every change (coalesced), `Said`
when it will not do what was asked, `GoTo` when the player is to sit at (or watch) a table,
`KeyWord` with the word asked for, and `Farewell` when the player's session must end (a ban).
They are read back from the wire by `tictactoe.online.lobby_reading`.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass
from typing import Final, Literal

from tictactoe.core.finished import CLASSIC_NAME, FinishedMatch
from tictactoe.online import schema
from tictactoe.online.matches import encode_match
from tictactoe.online.schema import ProtocolError

__all__ = [
    "MAX_LOBBY_ASK",
    "MAX_LOBBY_MESSAGE",
    "MAX_MATCHES",
    "WATCHER_NAME",
    "AddKey",
    "CloseTable",
    "Farewell",
    "GoTo",
    "KeyWord",
    "LadderLine",
    "LobbyAsk",
    "LobbyHello",
    "LobbyNews",
    "OpenTable",
    "PastMatch",
    "ProtocolError",
    "QuickPair",
    "Rematch",
    "Said",
    "SitAt",
    "Snapshot",
    "TableRow",
    "WatchTable",
    "You",
    "lobby_json",
    "shared_json",
    "snapshot_json",
]

WATCHER_NAME: Final = "a watcher"
"""The name a watcher says hello with at a table: no handle can be it (it has a space)."""

MAX_LOBBY_ASK: Final = 4096
"""The largest message a lobby link may send, in bytes."""
MAX_LOBBY_MESSAGE: Final = 256 * 1024
"""The largest message the club sends (a snapshot)."""
MAX_MATCHES: Final = 99
"""The longest series a table may be opened for."""


# Link → club.


@dataclass(frozen=True, slots=True)
class LobbyHello:
    """The first message: the secret the door gave this player's game."""

    token: str


@dataclass(frozen=True, slots=True)
class OpenTable:
    """Open a table and wait at it: rated or not, for `matches` matches (None: open-ended), of
    the game `variant`."""

    rated: bool
    matches: int | None = None
    variant: str = CLASSIC_NAME


@dataclass(frozen=True, slots=True)
class SitAt:
    """Sit at the open table `table`."""

    table: str


@dataclass(frozen=True, slots=True)
class QuickPair:
    """Sit at the open table of the game `variant` whose waiting player is closest in rating
    (or open one)."""

    variant: str = CLASSIC_NAME


@dataclass(frozen=True, slots=True)
class WatchTable:
    """Watch the table `table`, in play."""

    table: str


@dataclass(frozen=True, slots=True)
class CloseTable:
    """Take back this player's open table, nobody having sat at it yet."""


@dataclass(frozen=True, slots=True)
class Rematch:
    """Offer the last opponent a rematch (a table kept for the two of them, as the series they
    played was), or take the rematch that opponent offered."""


@dataclass(frozen=True, slots=True)
class AddKey:
    """Ask for a one-time word: the next login as `HANDLE+WORD` adds the key it signs in with
    to this player's handle (`tictactoe.core.key_words`)."""


LobbyAsk = LobbyHello | OpenTable | SitAt | QuickPair | WatchTable | CloseTable | Rematch | AddKey


# Club → link.


@dataclass(frozen=True, slots=True)
class You:
    """The player at this lobby."""

    handle: str
    guest: bool
    ratings: tuple[tuple[str, str], ...]
    """The rating shown in each game, with its uncertainty: (the variant's name, "1512 ± 96");
    none for a guest."""
    waiting_at: str | None = None
    """The table this player opened and waits at."""
    waiting_for: str | None = None
    """Whom that table is kept for (a rematch offered), or None: anyone may sit."""
    offered_by: str | None = None
    """Who offers this player a rematch now (`Rematch` takes it)."""

    def rating_in(self, variant: str) -> str:
        """The rating shown in the game `variant`; empty for a guest."""
        return dict(self.ratings).get(variant, "")


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table, open or in play."""

    id: str
    players: tuple[str, ...]
    """The opener, then the one who sat (in play)."""
    rated: bool
    matches: int | None
    """The series' length; None: open-ended."""
    rating: str = ""
    """The opener's rating shown (an open table), for choosing whom to sit with."""
    score: tuple[int, int, int] = (0, 0, 0)
    """Wins of each player, and draws (in play)."""
    watchers: int = 0
    rematch: bool = False
    """An open table kept for this player: a rematch offered."""
    variant: str = CLASSIC_NAME
    """The game played there."""


@dataclass(frozen=True, slots=True)
class LadderLine:
    """One line of a game's ladder (`variant`), its rating as shown."""

    rank: int
    handle: str
    rating: str
    matches: int
    wins: int
    draws: int
    losses: int
    variant: str = CLASSIC_NAME


@dataclass(frozen=True, slots=True)
class PastMatch:
    """One of the player's recent matches, to replay: the match, and whether it was rated."""

    match: FinishedMatch
    rated: bool


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The lobby as this player sees it now."""

    you: You
    open: tuple[TableRow, ...] = ()
    playing: tuple[TableRow, ...] = ()
    ladder: tuple[LadderLine, ...] = ()
    """Every game's ladder, each line naming its game."""
    recent: tuple[PastMatch, ...] = ()


@dataclass(frozen=True, slots=True)
class GoTo:
    """Sit at (or watch) a table: its authority's loopback link, and what to say hello with."""

    table: str
    url: str
    code: str
    name: str
    role: Literal["seat", "watcher"]
    door_key: str | None = None
    host_token: str | None = None


@dataclass(frozen=True, slots=True)
class Said:
    """What was asked is not done, and why (or a word from the club)."""

    text: str


@dataclass(frozen=True, slots=True)
class KeyWord:
    """The one-time word asked for (`AddKey`), as the user name to log in with once."""

    login: str
    """`HANDLE+WORD`."""
    port: int | None
    """The club's SSH port, for the line to type (None: unknown)."""
    minutes: int
    """How long the word is good for."""


@dataclass(frozen=True, slots=True)
class Farewell:
    """The player's session ends, and why."""

    text: str


LobbyNews = Snapshot | GoTo | Said | KeyWord | Farewell


# On the wire.


def lobby_json(message: LobbyAsk | LobbyNews) -> str:
    """`message` as one JSON text frame (`parse_ask` / `parse_news` read it back)."""
    return schema.dump(_encoded(message))


def shared_json(
    open: tuple[TableRow, ...], playing: tuple[TableRow, ...], ladder: tuple[LadderLine, ...]
) -> str:
    """The part of a `Snapshot`'s text that every lobby may share (its tables and ladder): made
    once for many lobbies, each finished with `snapshot_json`."""
    parts = _encoded(Snapshot(You("", False, ()), open, playing, ladder))
    return ",".join(f"{schema.dump({name: parts[name]})[1:-1]}" for name in _SHARED)


def snapshot_json(you: You, recent: tuple[PastMatch, ...], shared: str) -> str:
    """`lobby_json` of the `Snapshot` of `you` and `recent`, whose other parts `shared` holds
    (`shared_json`), the same text."""
    own = _encoded(Snapshot(you, recent=recent))
    head = schema.dump({"kind": own["kind"], "you": own["you"]})[:-1]
    return f"{head},{shared},{schema.dump({'recent': own['recent']})[1:]}"


_SHARED: Final = ("open", "playing", "ladder")
"""A snapshot's fields, after `you` and before `recent`, that every lobby may share."""


def _encoded(message: LobbyAsk | LobbyNews) -> dict[str, object]:
    match message:
        case LobbyHello(token):
            return {"kind": "hello", "token": token}
        case OpenTable(rated, matches, variant):
            return {"kind": "open", "rated": rated, "matches": matches, "variant": variant}
        case SitAt(table):
            return {"kind": "sit", "table": table}
        case QuickPair(variant):
            return {"kind": "pair", "variant": variant}
        case WatchTable(table):
            return {"kind": "watch", "table": table}
        case CloseTable():
            return {"kind": "close"}
        case Rematch():
            return {"kind": "rematch"}
        case AddKey():
            return {"kind": "key"}
        case Snapshot():
            return {
                "kind": "snapshot",
                "you": {
                    "handle": message.you.handle,
                    "guest": message.you.guest,
                    "ratings": [list(each) for each in message.you.ratings],
                    "waiting_at": message.you.waiting_at,
                    "waiting_for": message.you.waiting_for,
                    "offered_by": message.you.offered_by,
                },
                "open": [_row(row) for row in message.open],
                "playing": [_row(row) for row in message.playing],
                "ladder": [list(astuple(line)) for line in message.ladder],
                "recent": [
                    {"match": encode_match(past.match), "rated": past.rated}
                    for past in message.recent
                ],
            }
        case GoTo():
            return {
                "kind": "goto",
                "table": message.table,
                "url": message.url,
                "code": message.code,
                "name": message.name,
                "role": message.role,
                "door_key": message.door_key,
                "host_token": message.host_token,
            }
        case Said(text):
            return {"kind": "said", "text": text}
        case KeyWord(login, port, minutes):
            return {"kind": "keyword", "login": login, "port": port, "minutes": minutes}
        case Farewell(text):
            return {"kind": "farewell", "text": text}


def _row(row: TableRow) -> dict[str, object]:
    return {
        "id": row.id,
        "players": list(row.players),
        "rated": row.rated,
        "matches": row.matches,
        "rating": row.rating,
        "score": list(row.score),
        "watchers": row.watchers,
        "rematch": row.rematch,
        "variant": row.variant,
    }
