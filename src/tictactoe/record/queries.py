"""The questions the record screen asks: players' totals, head to head, recent matches.

Totals are kept for each game apart (a player's classic and Ultimate matches are counted
separately), so the Players table asks for one game, classic unless told otherwise; the lists
of matches and head to head cover every game unless given one. Every query reads one page,
in an order an index already holds, so a record of a million matches answers as fast as an
empty one. What comes back from the file is untrusted: names pass through `clean_name`, and a
value out of shape reads as nothing rather than raising.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from tictactoe.core.finished import CLASSIC_NAME
from tictactoe.core.series import Player
from tictactoe.record.match import MATCH_SELECT, MatchRecord, match_of, player_of, time_of

__all__ = ["HeadToHead", "PlayerSort", "PlayerTotals", "Queries"]


@dataclass(frozen=True, slots=True)
class PlayerTotals:
    """A player's lifetime totals, as the Players table shows them."""

    player: Player
    wins: int
    losses: int
    draws: int

    @property
    def matches(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def win_rate(self) -> float | None:
        """Wins as a share of matches, or None before the first match."""
        return self.wins / self.matches if self.matches else None


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """Two players against each other, all-time."""

    players: tuple[Player, Player]
    wins: tuple[int, int] = (0, 0)
    draws: int = 0
    first: datetime | None = None
    last: datetime | None = None

    @property
    def matches(self) -> int:
        return self.wins[0] + self.wins[1] + self.draws


class PlayerSort(StrEnum):
    """What the Players table can be sorted by."""

    NAME = "name"
    MATCHES = "matches"
    WINS = "wins"
    LOSSES = "losses"
    DRAWS = "draws"
    WIN_RATE = "win_rate"


class Queries(ABC):
    """The record's reading side, over the rows `_rows` fetches (the store opens the file
    and deals with a failure to read)."""

    @abstractmethod
    def _rows(self, sql: str, parameters: Sequence[object] = ()) -> list[tuple[object, ...]]:
        """Rows of a query, or none when the file cannot be read."""

    def player_count(self, variant: str = CLASSIC_NAME) -> int:
        """How many players have totals at the game called `variant`."""
        rows = self._rows("SELECT count(*) FROM totals WHERE variant = ?", (variant,))
        return int(rows[0][0]) if rows else 0  # type: ignore[call-overload]

    def has_played(self, variant: str) -> bool:
        """Whether the record counts any match (or imported totals) of the game `variant`."""
        return bool(
            self._rows("SELECT 1 FROM totals WHERE variant = ? AND matches > 0 LIMIT 1", (variant,))
        )

    def players(
        self,
        sort: PlayerSort = PlayerSort.WINS,
        *,
        descending: bool = True,
        offset: int = 0,
        limit: int = 100,
        variant: str = CLASSIC_NAME,
    ) -> list[PlayerTotals]:
        """One page of every player's totals at the game called `variant`, in the order asked
        for (ties: newest first)."""
        way = "DESC" if descending else "ASC"
        if sort is PlayerSort.NAME:  # the players in their index's order, each one's totals
            tables = "totals AS t JOIN players AS p INDEXED BY players_by_name ON p.id = t.player"
            order = f"p.name COLLATE NOCASE {way}, p.id {way}"
        else:
            tables = "totals AS t JOIN players AS p ON p.id = t.player"
            order = f"t.{PlayerSort(sort).value} {way}, t.player {way}"
        rows = self._rows(
            f"SELECT p.kind, p.name, p.level, t.wins, t.losses, t.draws FROM {tables}"
            f" WHERE t.variant = ? ORDER BY {order} LIMIT ? OFFSET ?",
            (variant, limit, offset),
        )
        return [
            PlayerTotals(player_of(kind, name, level), _count(wins), _count(losses), _count(draws))
            for kind, name, level, wins, losses, draws in rows
        ]

    def match_count(
        self, between: tuple[Player, Player] | None = None, *, variant: str | None = None
    ) -> int:
        """How many matches the record holds: of every game, or of the one called `variant`;
        with `between`, only those of these two players against each other."""
        where, parameters = _of_game(variant)
        if between is not None:
            ids = self._ids(between)
            if ids is None:
                return 0
            where.append("((player1 = ? AND player2 = ?) OR (player1 = ? AND player2 = ?))")
            parameters += [*ids, *reversed(ids)]
        rows = self._rows(f"SELECT count(*) FROM matches AS m{_where(where)}", parameters)
        return int(rows[0][0]) if rows else 0  # type: ignore[call-overload]

    def recent(
        self,
        *,
        before: int | None = None,
        limit: int = 100,
        between: tuple[Player, Player] | None = None,
        variant: str | None = None,
    ) -> list[MatchRecord]:
        """Matches newest first: a page of those recorded before match `before`.

        With `between`, only the matches of those two players against each other; with
        `variant`, only those of the game of that name.
        """
        where, parameters = _of_game(variant)
        if before is not None:
            where.append("m.id < ?")
            parameters.append(before)
        if between is not None:
            ids = self._ids(between)
            if ids is None:
                return []
            where.append("((m.player1 = ? AND m.player2 = ?) OR (m.player1 = ? AND m.player2 = ?))")
            parameters += [*ids, *reversed(ids)]
        rows = self._rows(
            MATCH_SELECT + _where(where) + " ORDER BY m.id DESC LIMIT ?",
            (*parameters, limit),
        )
        return [match_of(row) for row in rows]

    def match(self, match_id: int) -> MatchRecord | None:
        """One recorded match, by id."""
        rows = self._rows(MATCH_SELECT + " WHERE m.id = ?", (match_id,))
        return match_of(rows[0]) if rows else None

    def head_to_head(
        self, players: tuple[Player, Player], *, variant: str | None = None
    ) -> HeadToHead:
        """How `players` have done against each other, all-time: at every game, or at the one
        called `variant`."""
        ids = self._ids(players)
        if ids is None:
            return HeadToHead(players)
        game = "" if variant is None else " AND variant = :variant"
        rows = self._rows(
            "SELECT"
            " coalesce(sum(CASE winner WHEN 1 THEN player1 = :a WHEN 2 THEN player2 = :a END), 0),"
            " coalesce(sum(CASE winner WHEN 1 THEN player1 = :b WHEN 2 THEN player2 = :b END), 0),"
            " coalesce(sum(winner IS NULL), 0), min(finished_at), max(finished_at)"
            " FROM matches"
            " WHERE ((player1 = :a AND player2 = :b) OR (player1 = :b AND player2 = :a))" + game,
            {"a": ids[0], "b": ids[1], "variant": variant},  # type: ignore[arg-type]
        )
        if not rows:
            return HeadToHead(players)
        first_wins, second_wins, draws, first, last = rows[0]
        return HeadToHead(
            players,
            (_count(first_wins), _count(second_wins)),
            _count(draws),
            time_of(first),
            time_of(last),
        )

    def _ids(self, players: tuple[Player, Player]) -> tuple[int, int] | None:
        """The ids of two players, or None when either has no match on record."""
        ids = []
        for player in players:
            if player.level is None:
                rows = self._rows(
                    "SELECT id FROM players WHERE kind = 'person' AND name = ?", (player.name,)
                )
            else:
                rows = self._rows(
                    "SELECT id FROM players WHERE kind = 'computer' AND level = ?",
                    (player.level.value,),
                )
            if not rows:
                return None
            ids.append(int(rows[0][0]))  # type: ignore[call-overload]
        return ids[0], ids[1]


def _of_game(variant: str | None) -> tuple[list[str], list[object]]:
    """The condition (and its parameter) that keeps the matches of the game called `variant`;
    none for every game."""
    return (["m.variant = ?"], [variant]) if variant is not None else ([], [])


def _where(conditions: list[str]) -> str:
    return f" WHERE {' AND '.join(conditions)}" if conditions else ""


# Rows from the file, read as untrusted.


def _count(value: object) -> int:
    return value if isinstance(value, int) and value >= 0 else 0
