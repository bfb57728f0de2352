"""The tables of a club of several processes, as the cluster sees them: one of this process's
(`LocalTable`, what it reads of the lobby's) and one of another process's (`RemoteTable`, as its
registry row says).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Protocol

from tictactoe.club.registry_pg import ClubTable
from tictactoe.core.finished import CLASSIC_NAME
from tictactoe.core.rules import Variant
from tictactoe.link.served import AuthorityLinks
from tictactoe.online.authority import Authority
from tictactoe.online.lobby import TableRow

__all__ = ["LocalTable", "RemoteTable", "remote_table"]


class LocalTable(Protocol):
    """What the cluster reads of a table of this process (the lobby's)."""

    id: str
    opener: str
    rated: bool
    matches: int | None
    door_key: str
    sitter: str | None
    ending: bool

    @property
    def authority(self) -> Authority: ...

    @property
    def variant(self) -> Variant: ...

    @property
    def server(self) -> AuthorityLinks: ...


@dataclass(frozen=True, slots=True)
class RemoteTable:
    """A table of another process, as its registry row says."""

    id: str
    process: str
    players: tuple[str, ...]
    rated: bool
    matches: int | None
    url: str
    code: str
    key: str
    rating: str
    playing: bool
    score: tuple[int, int, int]
    watchers: int
    away: str | None
    variant: str = CLASSIC_NAME
    """The game played there."""

    def row(self) -> TableRow:
        if self.playing:
            return TableRow(
                self.id,
                self.players,
                self.rated,
                self.matches,
                score=self.score,
                watchers=self.watchers,
                variant=self.variant,
            )
        return TableRow(
            self.id,
            self.players[:1],
            self.rated,
            self.matches,
            rating=self.rating,
            variant=self.variant,
        )


def remote_table(row: ClubTable) -> RemoteTable | None:
    """A registry row read back; None when its state is not a club's."""
    try:
        state = json.loads(row.state)
        score = tuple(int(n) for n in state["score"])
        return RemoteTable(
            row.id,
            row.process,
            row.players,
            row.rated,
            row.matches,
            str(state["url"]),
            str(state["code"]),
            str(state["key"]),
            str(state["rating"]),
            bool(state["playing"]),
            (score[0], score[1], score[2]),
            int(state["watchers"]),
            None if state["away"] is None else str(state["away"]),
            row.variant,
        )
    except (ValueError, KeyError, TypeError, IndexError):
        return None
