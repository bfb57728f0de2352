"""The club's store, every rule once (`SqlClubStore`): who may come in, keys and one-time words,
bans, finished matches and ratings, and the queue of matches not written yet. Each database's
store (`tictactoe.record.club.ClubRecord` on SQLite, `tictactoe.record.club_pg.
PostgresClubRecord` on PostgreSQL) gives it only transactions on its connections, and says
what its failures mean.

It keeps the game record's promises: one transaction a match (the match, both ratings in its
game and their history together), and nothing finished ever lost: a match that cannot be written now
waits in memory and is tried again at the next one and at close. What the club decides is
`tictactoe.core.club`'s; the store only keeps it.
"""

from __future__ import annotations

import contextlib
import functools
import math
import random
import threading
import uuid
from collections import deque
from collections.abc import Callable, Container
from datetime import UTC, datetime
from typing import ClassVar, TypeVar

import tictactoe.record.club_door as club_door
import tictactoe.record.club_keys as club_keys
import tictactoe.record.club_matches as club_matches
from tictactoe.core.club import (
    START,
    BadHandle,
    BadKey,
    Entry,
    LadderRow,
    PlayerRow,
    PublicKey,
    Rating,
    guest_handle,
    handle_of,
    is_guest,
    public_key,
)
from tictactoe.core.finished import CLASSIC_NAME, FinishedMatch
from tictactoe.core.key_words import KeyRow, WordLogin, new_word, word_login
from tictactoe.record.club_dialects import Database

__all__ = ["AWAY", "ClubUnavailable", "SqlClubStore", "UnknownHandle"]

T = TypeVar("T")

AWAY = "The club cannot reach its records just now; please try again in a minute."
"""What a keyed login is told while a shared database is out of reach."""


class ClubUnavailable(Exception):
    """The club's store cannot be used at all; the message is one sentence for the owner."""


class UnknownHandle(LookupError):
    """No player holds the handle; the message is one sentence."""


class SqlClubStore:
    """The club's store over a database a subclass opens: players, keys, bans, ratings and
    finished matches. Every method is safe from several threads and beside other processes
    using the same database.

    A subclass gives `_run` (work in a transaction on its connection), `_reason`,
    `_unreachable` and `_close_connections`, and says with `shared` whether the database may be
    away while the club runs.
    """

    errors: ClassVar[tuple[type[Exception], ...]] = ()
    """What the database raises when it fails."""
    shared: ClassVar[bool] = False
    """A database other processes share, which may be out of reach for a while: then a keyed
    login is refused in one sentence (`AWAY`), `would_refuse` says nothing, and `bans_version`
    is the last one read."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self._rng = rng or random.SystemRandom()
        self._lock = threading.RLock()
        """Held while the waiting matches are written, so that they are written in order."""
        self._pending: deque[club_matches.Finished] = deque()
        """Finished matches not written yet, oldest first."""
        self.problem: str | None = None
        """Why the last write failed, in words; None when everything is written."""
        self._notices: deque[str] = deque()
        self._bans_version = 0

    # What each database gives.

    def _run(self, work: Callable[[Database], T], *, write: bool, retry_unique: bool = False) -> T:
        """`work` on the database, in one transaction when it may `write` (tried again when two
        logins claimed one handle at once, given `retry_unique`); the database's own error when
        it fails."""
        raise NotImplementedError

    def _reason(self, error: Exception) -> str:
        """A failure of the database in a few words."""
        raise NotImplementedError

    def _unreachable(self, error: Exception) -> str:
        """What the owner is told when a shared database cannot be used now: one sentence."""
        raise NotImplementedError

    def _back(self, written: int) -> None:
        """`written` matches that waited are written now (the owner may want to know)."""

    def _close_connections(self) -> None:
        raise NotImplementedError

    def take_notices(self) -> list[str]:
        """What the owner should be told since the last call."""
        with self._lock:
            notices = list(self._notices)
            self._notices.clear()
            return notices

    def close(self) -> None:
        """Write what waits (once more), then close the connections."""
        with self._lock:
            with contextlib.suppress(*self.errors):
                self.save_pending()
            self._close_connections()

    def _use(self, work: Callable[[Database], T], *, write: bool = False) -> T:
        """`work`, for the owner's commands and the lobbies' reads: ClubUnavailable (one
        sentence) when a shared database cannot be used now."""
        try:
            return self._run(work, write=write)
        except self.errors as error:
            if not self.shared:
                raise
            raise ClubUnavailable(self._unreachable(error)) from None

    # The door.

    def enter(
        self, handle: str, key: str | None, address: str, now: float, *, taken: Container[str] = ()
    ) -> Entry:
        """Who comes in as `handle` with the public key line `key` from `address`.

        No key (or a guest's handle asked for): a guest with a fresh handle (none of `taken`),
        unrated and not kept. A free handle is claimed by the key (at most `CLAIMS_PER_HOUR`
        new handles an address; a key belongs to one handle); a claimed one lets in only its
        keys; `HANDLE+WORD` adds the key to the handle with the one-time word `key_word` gave;
        a banned handle, or a key of a banned handle, is refused, saying until when.
        """
        if key is None or is_guest(handle):
            return Entry(guest_handle(self._rng, taken), True, START)
        try:
            login, own, line = _login(handle, key)
        except (BadHandle, BadKey) as refusal:
            return Entry(handle.lower(), False, START, str(refusal))

        def come_in(db: Database) -> Entry:
            if login is None:
                return club_door.come_in(db, own, line, address, now)
            club_keys.player_of(db, own, lock=True)  # one word's login at a time
            return club_keys.by_word(db, login=login, key=line, now=now)

        try:
            return self._run(come_in, write=True, retry_unique=True)
        except self.errors:
            if not self.shared:
                raise
            return Entry(own, False, START, AWAY)

    def would_refuse(self, handle: str, key: str, address: str, now: float) -> str | None:
        """Why `enter` would refuse the key `key` as `handle` from `address` now, changing
        nothing: the handle is another key's, the key is banned, or this free handle may not be
        claimed from `address` (too many this hour). None when `enter` would let it in or let it
        claim the handle. The door asks this of each key a client offers, so that one of them
        that fits lets it in."""
        if is_guest(handle):
            return None
        try:
            login, own, line = _login(handle, key)
        except (BadHandle, BadKey) as refusal:
            return str(refusal)

        def check(db: Database) -> str | None:
            if login is None:
                return club_door.refusal(db, own, line, address, now)
            return club_keys.by_word(db, login=login, key=line, now=now, write=False).refusal

        try:
            return self._run(check, write=False)
        except self.errors:
            if not self.shared:
                raise
            return None  # `enter` says the records cannot be reached

    def key_word(self, handle: str, now: float) -> str:
        """A one-time word for `handle` (replacing any it had): the next login as
        `HANDLE+WORD` within `WORD_LIFETIME` adds the key it signs in with to the handle.
        UnknownHandle if nobody holds it."""
        word = new_word()
        keep = self._of(handle, lambda db, player: club_keys.keep_word(db, player, word, now))
        self._use(keep, write=True)
        return word

    def keys(self, handle: str) -> list[KeyRow]:
        """The keys that sign in as `handle`, oldest first; UnknownHandle if nobody holds it."""
        return self._use(self._of(handle, club_keys.keys_of, lock=False))

    def remove_key(self, handle: str, fingerprint: str) -> bool:
        """The key of `handle` with `fingerprint` no longer signs in: whether it held one;
        UnknownHandle if nobody holds the handle."""
        remove = self._of(handle, lambda db, player: club_keys.remove_key(db, player, fingerprint))
        return self._use(remove, write=True)

    @staticmethod
    def _of(
        handle: str, work: Callable[[Database, int], T], *, lock: bool = True
    ) -> Callable[[Database], T]:
        """`work` on the player holding `handle` (their row locked when `lock`); UnknownHandle
        if nobody holds it."""
        own = handle.lower()

        def on_player(db: Database) -> T:
            player = club_keys.player_of(db, own, lock=lock)
            if player is None:
                raise UnknownHandle(f"No player is called {own}.")
            return work(db, player)

        return on_player

    # Bans.

    def ban(self, handle: str, until: float | None, now: float | None = None) -> None:
        """Ban `handle` (and its keys) until `until` (seconds since the epoch), or for ever
        with None; UnknownHandle if nobody holds it."""
        when = datetime.now(UTC).timestamp() if now is None else now

        def ban(db: Database, player: int) -> None:
            db.execute(
                "INSERT INTO bans (player, until, banned_at) VALUES (?, ?, ?)"
                " ON CONFLICT (player) DO UPDATE SET until = excluded.until,"
                " banned_at = excluded.banned_at",
                (player, until, when),
            )
            db.execute("UPDATE counters SET value = value + 1 WHERE name = 'bans'")

        self._use(self._of(handle, ban), write=True)

    def unban(self, handle: str) -> bool:
        """Lift the ban on `handle`: whether there was one; UnknownHandle if nobody holds it."""

        def unban(db: Database, player: int) -> bool:
            lifted = db.execute("DELETE FROM bans WHERE player = ?", (player,)).rowcount
            if lifted:
                db.execute("UPDATE counters SET value = value + 1 WHERE name = 'bans'")
            return bool(lifted)

        return self._use(self._of(handle, unban), write=True)

    def banned_until(self, handle: str, now: float) -> float | None:
        """When the ban on `handle` ends (math.inf: never); None when it is not banned now."""

        def until(db: Database) -> float | None:
            row = db.execute(
                "SELECT bans.until FROM bans JOIN players ON players.id = bans.player"
                " WHERE players.handle = ? AND (bans.until IS NULL OR bans.until > ?)",
                (handle.lower(), now),
            ).fetchone()
            if row is None:
                return None
            return math.inf if row[0] is None else float(row[0])

        return self._use(until)

    def bans_version(self) -> int:
        """A number that changes whenever a ban is made or lifted, by any process: cheap to
        poll, so a running club sees the owner's ban at once."""
        try:
            self._bans_version = self._run(
                lambda db: int(
                    db.execute("SELECT value FROM counters WHERE name = 'bans'").fetchone()[0]
                ),
                write=False,
            )
        except self.errors:
            if not self.shared:
                raise
        return self._bans_version

    # Matches and ratings.

    def finish(
        self, table: str, players: tuple[str, str], rated: bool, match: FinishedMatch, now: float
    ) -> tuple[Rating, Rating] | None:
        """Keep a finished match of `table` between `players` (handles, in the match's order)
        and, when it is rated between two members, both new ratings and their history: all in
        one transaction. The match's `winner` may differ from the board's when a seat left past
        the grace; a match without its time ended at `now`. The new ratings, or None when
        unrated (or when the database cannot be written now: the match waits in memory,
        `problem` says why, and it is written before the next one and at close, once)."""
        with self._lock:
            self.hold(table, players, rated, match, now)
            results = self.save_pending()
            return results[-1][1] if results and not self._pending else None

    def hold(
        self, table: str, players: tuple[str, str], rated: bool, match: FinishedMatch, now: float
    ) -> None:
        """Keep a finished match, as `finish` does, without writing it yet: it waits, after
        those that wait already, for the next `finish` or `save_pending` (a shared database
        known to be away is not asked)."""
        when = (match.finished_at or datetime.fromtimestamp(now, UTC)).replace(microsecond=0)
        finished = club_matches.Finished(uuid.uuid4(), table, players, rated, match.at(when))
        with self._lock:
            self._pending.append(finished)

    @property
    def unsaved(self) -> int:
        """Finished matches waiting to be written."""
        return len(self._pending)

    def save_pending(self) -> list[tuple[club_matches.Finished, tuple[Rating, Rating] | None]]:
        """Write every finished match still waiting, in order, one transaction each: each
        match written, with its new ratings (None for an unrated one). A failure leaves the
        rest waiting and says why in `problem`."""
        results: list[tuple[club_matches.Finished, tuple[Rating, Rating] | None]] = []
        with self._lock:
            waited = self.problem is not None
            while self._pending:
                finished = self._pending[0]
                try:
                    ratings = self._run(
                        functools.partial(club_matches.write, finished=finished), write=True
                    )
                except self.errors as error:
                    self.problem = f"could not be written ({self._reason(error)})"
                    return results
                results.append((self._pending.popleft(), ratings))
            self.problem = None
            if waited and results:
                self._back(len(results))
        return results

    def rating(self, handle: str, variant: str = CLASSIC_NAME) -> Rating:
        """The rating of `handle` in the game `variant` now (START for a player without a rated
        match of it, or nobody)."""

        def read(db: Database) -> Rating:
            player = club_keys.player_of(db, handle.lower())
            return START if player is None else club_keys.rating_of(db, player, variant)

        return self._use(read)

    def ladder(self, limit: int = 100, variant: str = CLASSIC_NAME) -> list[LadderRow]:
        """The ladder of the game `variant`: its best `limit` players with a rated match of it,
        best first (by `Rating.points`)."""
        return self._use(lambda db: club_matches.ladder(db, limit, variant))

    def recent(self, handle: str, limit: int = 10) -> list[FinishedMatch]:
        """The last `limit` matches `handle` played, newest first, each replayable."""
        return [match for match, _rated in self.recent_rated(handle, limit)]

    def recent_rated(self, handle: str, limit: int = 10) -> list[tuple[FinishedMatch, bool]]:
        """`recent`, each match with whether it was rated."""
        return self._use(lambda db: club_matches.recent_rated(db, handle.lower(), limit))

    def players(self) -> list[PlayerRow]:
        """Every player who holds a handle, by handle, with their keys' fingerprints."""
        return self._use(club_matches.players)


def _login(handle: str, key: str) -> tuple[WordLogin | None, str, PublicKey]:
    """The login asked for (`HANDLE+WORD`, or None), the handle and the key: BadHandle or BadKey
    when either cannot be."""
    login = word_login(handle)
    own = login.handle if login is not None else handle_of(handle)
    return login, own, public_key(key)
