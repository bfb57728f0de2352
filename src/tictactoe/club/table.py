"""One table of the club (`Table`): its authority and links, who opened it and who sat, and
what each comer says hello with there (`Table.goto`).

Each table is an `Authority` whose links (`tictactoe.link.served`) the club's one table server
serves at the table's own path (`tictactoe.link.server.LinkServer`): the opener holds seat 0
with the table's host token, the one who sits seat 1 with the table's door key, watchers come
later with the same key. Only the lobby hands them out.
"""

from __future__ import annotations

from dataclasses import dataclass

from tictactoe.core.rules import Variant
from tictactoe.link.served import AuthorityLinks
from tictactoe.online.authority import Authority
from tictactoe.online.lobby import WATCHER_NAME, GoTo

__all__ = ["Table"]


@dataclass(eq=False)
class Table:
    """One table: its authority and its links, and who opened it and who sat."""

    id: str
    opener: str
    rated: bool
    matches: int | None
    server: AuthorityLinks
    """Its authority's links, served at the table's path."""
    host_token: str
    door_key: str
    sitter: str | None = None
    kept_for: str | None = None
    """The only player who may sit: a rematch offered to them."""
    recorded: int = 0
    """Finished matches of its series handed to the record."""
    ending: bool = False
    told: tuple[object, ...] = ()
    """What the lobbies were last told of it (`shown`)."""

    @property
    def authority(self) -> Authority:
        return self.server.authority

    @property
    def variant(self) -> Variant:
        """The game played there (its authority's): its series, and the ladder it moves."""
        return self.authority.variant

    @property
    def players(self) -> tuple[str, str | None]:
        """The opener's handle and the sitter's (None until someone sits)."""
        return self.opener, self.sitter

    def shown(self) -> tuple[object, ...]:
        """What the lobbies (and the other processes of a club) show of it: whether it is in
        play, the score, the watchers, a seat away; none of a series' moves."""
        authority = self.authority
        series, away = authority.series, authority.away
        score = None if series is None else (series.wins, series.draws)
        return (self.ending, score, authority.watchers, None if away is None else away.name)

    @property
    def playing(self) -> bool:
        """Whether both seats are taken (the series exists)."""
        return self.authority.series is not None

    @property
    def waiting(self) -> bool:
        """Whether its opener waits there for someone to sit."""
        return self.sitter is None and not self.ending

    def goto(self, handle: str | None, url: str) -> GoTo:
        """What `handle` (None: a watcher) says hello with at this table, reached at `url`."""
        code = self.authority.code
        if handle is None:
            return GoTo(self.id, url, code, WATCHER_NAME, "watcher", door_key=self.door_key)
        if handle == self.opener:
            return GoTo(self.id, url, code, handle, "seat", host_token=self.host_token)
        return GoTo(self.id, url, code, handle, "seat", door_key=self.door_key)
