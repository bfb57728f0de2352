"""The club's PostgreSQL store as the lobby of one process of several uses it (`ClusterStore`),
on its event loop: while the database is away nothing waits for it.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import deque
from collections.abc import Container
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol

from tictactoe.core.club import START, Entry, LadderRow, PlayerRow, Rating, is_guest
from tictactoe.core.key_words import KeyRow
from tictactoe.record.club_sql import AWAY, ClubUnavailable
from tictactoe.record.match import MatchRecord

if TYPE_CHECKING:
    from tictactoe.club.registry_pg import TableRegistry
    from tictactoe.record.club_pg import PostgresClubRecord

__all__ = ["AWAY_REFUSAL", "MATCHES_CHANNEL", "ClusterStore"]

log = logging.getLogger("tictactoe.online")

AWAY_REFUSAL: Final = AWAY
"""What a player with a handle is told while the club's database is away."""
MATCHES_CHANNEL: Final = "tictactoe_matches"
"""The channel told the handles of every match written (their ratings, the ladder changed);
told nothing (an empty payload): matches of anyone were written."""


class Reach(Protocol):
    """What the store asks of the cluster (`tictactoe.club.cluster.Cluster`)."""

    record: PostgresClubRecord
    registry: TableRegistry
    up: bool
    """Whether the database answered the last time it was asked."""

    def away(self) -> None:
        """The database did not answer: nothing waits for it until it answers again."""


@dataclass(frozen=True, slots=True)
class _Waiting:
    table: str
    players: tuple[str, str]
    rated: bool
    match: MatchRecord
    winner: int | None
    now: float


class ClusterStore:
    """The club's PostgreSQL store as the lobby uses it, on its event loop: while the database is
    away (`Cluster.up` false) nothing waits for it — a keyed login is refused in one sentence,
    reads give what was last read, a finished match waits here and is written once the database
    is back (`flush`); every match written is announced to the other processes."""

    def __init__(self, cluster: Reach) -> None:
        self.cluster = cluster
        self.record = cluster.record
        self.bans = 0
        """The bans' version, as the heartbeat last read it."""
        self._waiting: deque[_Waiting] = deque()
        self._flushing = threading.Lock()
        """Held by one `flush` at a time (the heartbeat's, the stop's): each match once."""
        self._ratings: dict[str, Rating] = {}
        self._ladder: list[LadderRow] = []
        self._recent: dict[str, list[tuple[MatchRecord, bool]]] = {}

    @property
    def problem(self) -> str | None:
        """Why a finished match is not written yet, in words; None when all are."""
        if self._waiting:
            return "waits for the club's database"
        return self.record.problem

    @problem.setter
    def problem(self, value: str | None) -> None:
        self.record.problem = value

    def would_refuse(self, handle: str, key: str, address: str, now: float) -> str | None:
        if not self.cluster.up:
            return None  # `enter` says the records cannot be reached
        return self.record.would_refuse(handle, key, address, now)

    def enter(
        self, handle: str, key: str | None, address: str, now: float, *, taken: Container[str] = ()
    ) -> Entry:
        if key is not None and not is_guest(handle) and not self.cluster.up:
            return Entry(handle.lower(), False, START, AWAY_REFUSAL)
        entry = self.record.enter(handle, key, address, now, taken=taken)
        if entry.refusal is None and not entry.guest:
            self._ratings[entry.handle] = entry.rating
        return entry

    def key_word(self, handle: str, now: float) -> str:
        return self.record.key_word(handle, now)

    def keys(self, handle: str) -> list[KeyRow]:
        return self.record.keys(handle)

    def remove_key(self, handle: str, fingerprint: str) -> bool:
        return self.record.remove_key(handle, fingerprint)

    def ban(self, handle: str, until: float | None, now: float | None = None) -> None:
        self.record.ban(handle, until, now)

    def unban(self, handle: str) -> bool:
        return self.record.unban(handle)

    def banned_until(self, handle: str, now: float) -> float | None:
        if not self.cluster.up:
            return None
        try:
            return self.record.banned_until(handle, now)
        except ClubUnavailable:
            self.cluster.away()
            return None

    def bans_version(self) -> int:
        return self.bans

    def finish(
        self,
        table: str,
        players: tuple[str, str],
        rated: bool,
        match: MatchRecord,
        winner: int | None,
        now: float,
    ) -> tuple[Rating, Rating] | None:
        if not self.cluster.up or self._waiting:
            self._waiting.append(_Waiting(table, players, rated, match, winner, now))
            return None
        ratings = self.record.finish(table, players, rated, match, winner, now)
        if self.record.unsaved:
            self.cluster.away()
            return None
        self._announce(players)
        return ratings

    def flush(self) -> None:
        """Hand every match that waited to the store, oldest first (it writes each once), one
        caller at a time: two at once would each hand over the same match."""
        with self._flushing:
            earlier = self.record.unsaved  # kept by the store itself: a write that failed
            while self._waiting:
                waiting = self._waiting[0]
                self.record.finish(
                    waiting.table,
                    waiting.players,
                    waiting.rated,
                    waiting.match,
                    waiting.winner,
                    waiting.now,
                )
                self._waiting.popleft()
                if self.record.unsaved:
                    self.cluster.away()  # written at the next return of the database
                    return
                log.warning(
                    "wrote a match of %s and %s that waited for the club's database (table %s)",
                    *waiting.players,
                    waiting.table,
                )
                self._announce(waiting.players)
            if self.record.unsaved:
                self.record.save_pending()
            if earlier and not self.record.unsaved:
                self._announce(())  # whose they were is the store's: anyone's, as told

    def _announce(self, players: tuple[str, ...]) -> None:
        with contextlib.suppress(ClubUnavailable):
            self.cluster.registry.notify(MATCHES_CHANNEL, " ".join(players))

    @property
    def unsaved(self) -> int:
        return len(self._waiting) + self.record.unsaved

    def save_pending(self) -> list[tuple[Rating, Rating] | None]:
        return self.record.save_pending()

    def rating(self, handle: str) -> Rating:
        if self.cluster.up:
            try:
                self._ratings[handle] = self.record.rating(handle)
            except ClubUnavailable:
                self.cluster.away()
        return self._ratings.get(handle, START)

    def known_rating(self, handle: str) -> Rating:
        """The rating of `handle` last read, without asking the database."""
        return self._ratings.get(handle, START)

    def ladder(self, limit: int = 100) -> list[LadderRow]:
        if self.cluster.up:
            try:
                self._ladder = self.record.ladder(limit)
            except ClubUnavailable:
                self.cluster.away()
        return self._ladder[:limit]

    def recent(self, handle: str, limit: int = 10) -> list[MatchRecord]:
        return [match for match, _rated in self.recent_rated(handle, limit)]

    def recent_rated(self, handle: str, limit: int = 10) -> list[tuple[MatchRecord, bool]]:
        if self.cluster.up:
            try:
                self._recent[handle] = self.record.recent_rated(handle, limit)
            except ClubUnavailable:
                self.cluster.away()
        return self._recent.get(handle, [])[:limit]

    def players(self) -> list[PlayerRow]:
        return self.record.players()

    def take_notices(self) -> list[str]:
        return self.record.take_notices()

    def close(self) -> None:
        self.flush()
        self.record.close()
