"""The club's PostgreSQL store as the lobby of one process of several uses it (`ClusterStore`),
on its event loop: while the database is away nothing waits for it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Container
from typing import TYPE_CHECKING, Final, Protocol

from tictactoe.core.club import START, Entry, LadderRow, PlayerRow, Rating, is_guest
from tictactoe.core.finished import CLASSIC_NAME, FinishedMatch
from tictactoe.core.key_words import KeyRow
from tictactoe.record.club_matches import Finished
from tictactoe.record.club_sql import AWAY, ClubUnavailable

if TYPE_CHECKING:
    from tictactoe.club.registry_pg import TableRegistry
    from tictactoe.record.club_pg import PostgresClubRecord

__all__ = ["AWAY_REFUSAL", "MATCHES_CHANNEL", "SENDER", "ClusterStore"]

log = logging.getLogger("tictactoe.online")

AWAY_REFUSAL: Final = AWAY
"""What a player with a handle is told while the club's database is away."""
MATCHES_CHANNEL: Final = "tictactoe_matches"
"""The channel told the handles of every match written (their ratings, the ladder changed),
and `SENDER` with the process that has told its own lobbies already; told no handle: matches of
anyone were written."""
SENDER: Final = "@"
"""Before a process's name in a notice of a match written: no handle begins with it."""


class Reach(Protocol):
    """What the store asks of the cluster (`tictactoe.club.cluster.Cluster`)."""

    record: PostgresClubRecord
    registry: TableRegistry
    process: str
    """This process's name among the club's processes."""
    up: bool
    """Whether the database answered the last time it was asked."""

    def away(self) -> None:
        """The database did not answer: nothing waits for it until it answers again."""


class ClusterStore:
    """The club's PostgreSQL store as the lobby uses it, on its event loop: while the database is
    away (`Cluster.up` false) nothing waits for it — a keyed login is refused in one sentence,
    reads give what was last read, a finished match waits in the store's one queue and is written
    once the database is back (`flush`); every match written is announced to the other processes."""

    def __init__(self, cluster: Reach) -> None:
        self.cluster = cluster
        self.record = cluster.record
        self.bans = 0
        """The bans' version, as the heartbeat last read it."""
        self._ratings: dict[tuple[str, str], Rating] = {}
        """Each rating last read, by handle and game."""
        self._ladders: dict[str, list[LadderRow]] = {}
        """Each game's ladder last read."""
        self._recent: dict[str, list[tuple[FinishedMatch, bool]]] = {}

    @property
    def problem(self) -> str | None:
        """Why a finished match is not written yet, in words; None when all are."""
        if self.record.unsaved and self.record.problem is None:
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
            self._ratings[entry.handle, CLASSIC_NAME] = entry.rating
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
        self, table: str, players: tuple[str, str], rated: bool, match: FinishedMatch, now: float
    ) -> tuple[Rating, Rating] | None:
        self.record.hold(table, players, rated, match, now)  # after those that wait, if any
        if not self.cluster.up:
            return None
        written = self._write(handed=True)
        return written[-1][1] if written and not self.record.unsaved else None

    def flush(self) -> None:
        """Write every match that waited, oldest first (the store writes each once, under its
        lock: two callers at once write nothing twice); each is logged and announced."""
        self._write(handed=False)

    def _write(self, *, handed: bool) -> list[tuple[Finished, tuple[Rating, Rating] | None]]:
        """Write the store's queue, announcing each match written and logging each that waited
        (all but the last, when it was `handed` over just now and is written)."""
        written = self.record.save_pending()
        waited = written[:-1] if handed and not self.record.unsaved else written
        for finished, _ratings in waited:
            log.warning(
                "wrote a match of %s and %s that waited for the club's database (table %s)",
                *finished.players,
                finished.table,
            )
        for index, (each, _ratings) in enumerate(written):
            ours = handed and index == len(written) - 1 and not self.record.unsaved
            self._announce(each.players, by=self.cluster.process if ours else None)
        if self.record.unsaved:
            self.cluster.away()  # written at the next return of the database
        return written

    def _announce(self, players: tuple[str, ...], by: str | None) -> None:
        """Tell every process that a match of `players` was written; `by` names this process
        when its own lobbies were told already (the new ratings handed back), so that it does
        not read again what it has just been given."""
        sender = () if by is None else (f"{SENDER}{by}",)
        with contextlib.suppress(ClubUnavailable):
            self.cluster.registry.notify(MATCHES_CHANNEL, " ".join((*players, *sender)))

    @property
    def unsaved(self) -> int:
        return self.record.unsaved

    def rating(self, handle: str, variant: str = CLASSIC_NAME) -> Rating:
        if self.cluster.up:
            try:
                self._ratings[handle, variant] = self.record.rating(handle, variant)
            except ClubUnavailable:
                self.cluster.away()
        return self._ratings.get((handle, variant), START)

    def known_rating(self, handle: str, variant: str = CLASSIC_NAME) -> Rating:
        """The rating of `handle` in the game `variant` last read, without asking the
        database."""
        return self._ratings.get((handle, variant), START)

    def ladder(self, limit: int = 100, variant: str = CLASSIC_NAME) -> list[LadderRow]:
        if self.cluster.up:
            try:
                self._ladders[variant] = self.record.ladder(limit, variant)
            except ClubUnavailable:
                self.cluster.away()
        return self._ladders.get(variant, [])[:limit]

    def recent(self, handle: str, limit: int = 10) -> list[FinishedMatch]:
        return [match for match, _rated in self.recent_rated(handle, limit)]

    def recent_rated(self, handle: str, limit: int = 10) -> list[tuple[FinishedMatch, bool]]:
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
