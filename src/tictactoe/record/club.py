"""The club's own record (`ClubRecord`): players, their keys, ratings and their history, bans,
the claims of each address, and every finished match, in one SQLite file.

It keeps the game record's promises: one transaction a match (the match, both ratings and
their history together), nothing finished ever lost (a match that cannot be written now waits
in memory and is tried again at the next one and at close), a damaged file kept aside
(`.corrupt-<time>`) and a fresh one started, a file of another program left alone. The file
is in write-ahead logging with a busy timeout, so the running club and the owner's commands
(`tictactoe club ban …`) use it at once. What the club decides is `tictactoe.core.club`'s;
this module only keeps it.
"""

from __future__ import annotations

import contextlib
import functools
import math
import random
import sqlite3
import threading
from collections import deque
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, TypeVar

import tictactoe.record.club_keys as club_keys
from tictactoe.core.ai import Level
from tictactoe.core.club import (
    CLAIMS_PER_HOUR,
    START,
    BadHandle,
    BadKey,
    Entry,
    LadderRow,
    PlayerRow,
    Rating,
    guest_handle,
    handle_of,
    is_guest,
    public_key,
    rated,
    until_text,
)
from tictactoe.core.engine import Mark
from tictactoe.core.key_words import KeyRow, key_elsewhere, new_word, word_login
from tictactoe.core.names import clean_name
from tictactoe.core.series import Player
from tictactoe.record.database import is_damage, transaction
from tictactoe.record.match import MatchRecord
from tictactoe.record.opening import COMPANIONS, Damaged, keep_private, open_for_writing
from tictactoe.record.paths import CLUB_NAME, default_club_folder
from tictactoe.record.schema import TIME_FORMAT, NotOurs
from tictactoe.safe_files import move_aside, reason

__all__ = [
    "CLUB_MIGRATIONS",
    "ClubRecord",
    "ClubUnavailable",
    "UnknownHandle",
    "club_path",
]

T = TypeVar("T")

CLAIM_WINDOW: Final = 3600.0
"""Seconds over which `CLAIMS_PER_HOUR` counts an address's new handles."""

TOO_MANY_CLAIMS: Final = (
    "Too many new handles were claimed from this address this hour; please try again later."
)

_SCHEMA_V1: Final = (
    """CREATE TABLE players (
        id         INTEGER PRIMARY KEY,
        handle     TEXT NOT NULL UNIQUE
                   CHECK (length(handle) BETWEEN 1 AND 20 AND handle NOT GLOB '*[^a-z0-9_-]*'),
        claimed_at REAL NOT NULL,
        last_seen  REAL NOT NULL
    )""",
    """CREATE TABLE keys (
        id          INTEGER PRIMARY KEY,
        player      INTEGER NOT NULL REFERENCES players (id),
        type        TEXT NOT NULL,
        data        TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        added_at    REAL NOT NULL,
        UNIQUE (player, data)
    )""",
    "CREATE INDEX keys_by_data ON keys (data)",
    """CREATE TABLE ratings (
        player  INTEGER PRIMARY KEY REFERENCES players (id),
        mu      REAL NOT NULL,
        sigma   REAL NOT NULL CHECK (sigma > 0),
        matches INTEGER NOT NULL CHECK (matches = wins + draws + losses),
        wins    INTEGER NOT NULL CHECK (wins >= 0),
        draws   INTEGER NOT NULL CHECK (draws >= 0),
        losses  INTEGER NOT NULL CHECK (losses >= 0)
    )""",
    "CREATE INDEX ratings_by_points ON ratings ((mu - 3 * sigma))",
    """CREATE TABLE matches (
        id          INTEGER PRIMARY KEY,
        finished_at TEXT NOT NULL,
        club_table  TEXT NOT NULL,
        handle1     TEXT NOT NULL,
        handle2     TEXT NOT NULL,
        level1      TEXT CHECK (level1 IN ('easy', 'medium', 'hard')),
        level2      TEXT CHECK (level2 IN ('easy', 'medium', 'hard')),
        rated       INTEGER NOT NULL CHECK (rated IN (0, 1)),
        mark1       TEXT NOT NULL CHECK (mark1 IN ('X', 'O')),
        first_mover INTEGER NOT NULL CHECK (first_mover IN (1, 2)),
        moves       TEXT NOT NULL CHECK (length(moves) <= 9 AND moves NOT GLOB '*[^0-8]*'),
        winner      INTEGER CHECK (winner IN (1, 2))
    )""",
    "CREATE INDEX matches_by_handle1 ON matches (handle1, id)",
    "CREATE INDEX matches_by_handle2 ON matches (handle2, id)",
    """CREATE TRIGGER a_match_is_never_changed BEFORE UPDATE ON matches BEGIN
        SELECT RAISE(ABORT, 'a recorded match is never changed');
    END""",
    """CREATE TABLE rating_history (
        id     INTEGER PRIMARY KEY,
        player INTEGER NOT NULL REFERENCES players (id),
        match  INTEGER NOT NULL REFERENCES matches (id),
        mu     REAL NOT NULL,
        sigma  REAL NOT NULL,
        UNIQUE (player, match)
    )""",
    """CREATE TABLE bans (
        player    INTEGER PRIMARY KEY REFERENCES players (id),
        until     REAL,
        banned_at REAL NOT NULL
    )""",
    """CREATE TABLE claims (
        id      INTEGER PRIMARY KEY,
        address TEXT NOT NULL,
        at      REAL NOT NULL,
        handle  TEXT NOT NULL
    )""",
    "CREATE INDEX claims_by_address ON claims (address, at)",
    """CREATE TABLE counters (
        name  TEXT PRIMARY KEY,
        value INTEGER NOT NULL
    )""",
    "INSERT INTO counters (name, value) VALUES ('bans', 0)",
)

_SCHEMA_V2: Final = (
    # A key joins a handle only through a login made with it (`tictactoe.core.key_words`): the
    # keys that claimed their handles were so proven, those pasted in were not, and go; a key
    # proven for several handles stays with the first.
    """CREATE TABLE key_words (
        player  INTEGER PRIMARY KEY REFERENCES players (id),
        digest  TEXT NOT NULL UNIQUE,
        expires REAL NOT NULL
    )""",
    """DELETE FROM keys WHERE id IN (SELECT keys.id FROM keys JOIN players
        ON players.id = keys.player WHERE keys.added_at <> players.claimed_at)""",
    "DELETE FROM keys WHERE id NOT IN (SELECT min(id) FROM keys GROUP BY data)",
    "DROP INDEX keys_by_data",
    "CREATE UNIQUE INDEX keys_by_data ON keys (data)",
)

CLUB_MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (_SCHEMA_V1, _SCHEMA_V2)
"""`CLUB_MIGRATIONS[n]` takes a club file from `PRAGMA user_version` n to n + 1 (as the game
record's `MIGRATIONS`: released steps are never edited, later ones appended)."""


def club_path(data: Path | None) -> Path:
    """The club's file in the folder `--data` names, or in the default club folder (the
    running club and the owner's commands both find it here)."""
    return (default_club_folder() if data is None else data) / CLUB_NAME


class ClubUnavailable(Exception):
    """The club's file cannot be used at all; the message is one sentence for the owner."""


class UnknownHandle(LookupError):
    """No player holds the handle; the message is one sentence."""


@dataclass(frozen=True, slots=True)
class _Finished:
    """A finished match waiting to be written (`ClubRecord.finish`'s arguments)."""

    table: str
    players: tuple[str, str]
    rated: bool
    match: MatchRecord
    winner: int | None


class ClubRecord:
    """The club's file at `path` (made with its folder if it does not exist).

    Every method is safe from several threads (one at a time) and beside other processes
    using the same file. ClubUnavailable when the file cannot be opened or is another
    program's.
    """

    def __init__(
        self, path: Path, *, busy_timeout: float = 5.0, rng: random.Random | None = None
    ) -> None:
        self.path: Final = path
        self.busy_timeout: Final = busy_timeout
        """Seconds to wait for another process's write before giving up for now."""
        self._rng: Final = rng or random.SystemRandom()
        self._lock = threading.RLock()
        self._pending: deque[_Finished] = deque()
        """Finished matches not written yet, oldest first."""
        self.problem: str | None = None
        """Why the last write failed, in words; None when everything is written."""
        self._notices: deque[str] = deque()
        self._db = self._open()

    # Opening, and a damaged file.

    def _open(self) -> sqlite3.Connection:
        for _attempt in range(2):
            try:
                keep_private(self.path)  # players' keys and addresses: the owner's alone
                db = open_for_writing(self.path, self.busy_timeout, CLUB_MIGRATIONS)
            except Damaged as damage:
                self._keep_aside(str(damage))
                continue
            except NotOurs as refusal:
                raise ClubUnavailable(f"The club's file {self.path} {refusal}.") from None
            except OSError as error:
                raise ClubUnavailable(
                    f"The club's file {self.path} could not be opened ({reason(error)})."
                ) from None
            except sqlite3.Error as error:
                raise ClubUnavailable(
                    f"The club's file {self.path} could not be opened ({error})."
                ) from None
            db.execute("PRAGMA wal_autocheckpoint = 1000")  # SQLite's own: the club writes little
            return db
        raise ClubUnavailable(f"The club's file {self.path} is damaged and could not be replaced.")

    def _keep_aside(self, what: str) -> None:
        try:
            kept = move_aside(self.path, COMPANIONS)
        except OSError as error:
            raise ClubUnavailable(
                f"The club's file {self.path} is damaged ({what}) and could not be moved aside"
                f" ({reason(error)})."
            ) from None
        self._notices.append(
            f"The club's file {self.path} was damaged ({what}). It was kept as {kept.name}"
            " and a fresh one was started."
        )

    def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work` on the file, with the lock held; once more on a fresh file if it was damaged."""
        with self._lock:
            try:
                return work(self._db)
            except sqlite3.Error as error:
                if not is_damage(error):
                    raise
                with contextlib.suppress(sqlite3.Error):
                    self._db.close()
                self._keep_aside(str(error))
                self._db = self._open()
                return work(self._db)

    def take_notices(self) -> list[str]:
        """What the owner should be told since the last call (a damaged file kept aside)."""
        with self._lock:
            notices = list(self._notices)
            self._notices.clear()
            return notices

    def close(self) -> None:
        """Write what waits (once more), then close the file."""
        with self._lock:
            with contextlib.suppress(sqlite3.Error):
                self.save_pending()
            with contextlib.suppress(sqlite3.Error):
                self._db.close()

    # The door.

    def enter(
        self,
        handle: str,
        key: str | None,
        address: str,
        now: float,
        *,
        taken: Container[str] = (),
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
            login = word_login(handle)
            own = login.handle if login is not None else handle_of(handle)
            line = public_key(key)
        except (BadHandle, BadKey) as refusal:
            return Entry(handle.lower(), False, START, str(refusal))
        if login is not None:
            return self._run(
                lambda db: _in_transaction(
                    db, functools.partial(club_keys.by_word, login=login, key=line, now=now)
                )
            )

        def come_in(db: sqlite3.Connection) -> Entry:
            with transaction(db):
                found = db.execute("SELECT id FROM players WHERE handle = ?", (own,)).fetchone()
                if found is None:
                    return self._claim(
                        db, own, line.type, line.data, line.fingerprint, address, now
                    )
                player = int(found[0])
                if not db.execute(
                    "SELECT 1 FROM keys WHERE player = ? AND data = ?", (player, line.data)
                ).fetchone():
                    return Entry(own, False, START, another_key(own))
                banned = self._key_banned(db, line.data, now)
                if banned is not None:
                    return Entry(own, False, START, banned)
                db.execute("UPDATE players SET last_seen = ? WHERE id = ?", (now, player))
                return Entry(own, False, _rating(db, player))

        return self._run(come_in)

    def would_refuse(self, handle: str, key: str, address: str, now: float) -> str | None:
        """Why `enter` would refuse the key `key` as `handle` from `address` now, changing
        nothing: the handle is another key's, the key is banned, or this free handle may not be
        claimed from `address` (too many this hour). None when `enter` would let it in or let it
        claim the handle. The door asks this of each key a client offers, so that one of them
        that fits lets it in."""
        if is_guest(handle):
            return None
        try:
            login = word_login(handle)
            own = login.handle if login is not None else handle_of(handle)
            line = public_key(key)
        except (BadHandle, BadKey) as refusal:
            return str(refusal)
        if login is not None:
            check_word = functools.partial(
                club_keys.by_word, login=login, key=line, now=now, write=False
            )
            return self._run(lambda db: check_word(db).refusal)

        def check(db: sqlite3.Connection) -> str | None:
            player = _player(db, own)
            if player is not None:
                held = db.execute(
                    "SELECT 1 FROM keys WHERE player = ? AND data = ?", (player, line.data)
                ).fetchone()
                return self._key_banned(db, line.data, now) if held else another_key(own)
            banned = self._key_banned(db, line.data, now)
            if banned is not None:
                return banned
            holder = club_keys.holder(db, line.data)
            if holder is not None:
                return key_elsewhere(holder)
            (claims,) = db.execute(
                "SELECT count(*) FROM claims WHERE address = ? AND at > ?",
                (address, now - CLAIM_WINDOW),
            ).fetchone()
            return TOO_MANY_CLAIMS if claims >= CLAIMS_PER_HOUR else None

        return self._run(check)

    def _claim(
        self,
        db: sqlite3.Connection,
        handle: str,
        kind: str,
        data: str,
        fingerprint: str,
        address: str,
        now: float,
    ) -> Entry:
        """A free handle claimed by a key, within the caller's transaction."""
        banned = self._key_banned(db, data, now)
        if banned is not None:
            return Entry(handle, False, START, banned)
        holder = club_keys.holder(db, data)
        if holder is not None:
            return Entry(handle, False, START, key_elsewhere(holder))
        db.execute("DELETE FROM claims WHERE at <= ?", (now - CLAIM_WINDOW,))
        (claims,) = db.execute(
            "SELECT count(*) FROM claims WHERE address = ? AND at > ?",
            (address, now - CLAIM_WINDOW),
        ).fetchone()
        if claims >= CLAIMS_PER_HOUR:
            return Entry(handle, False, START, TOO_MANY_CLAIMS)
        player = db.execute(
            "INSERT INTO players (handle, claimed_at, last_seen) VALUES (?, ?, ?)",
            (handle, now, now),
        ).lastrowid
        db.execute(
            "INSERT INTO keys (player, type, data, fingerprint, added_at) VALUES (?, ?, ?, ?, ?)",
            (player, kind, data, fingerprint, now),
        )
        db.execute(
            "INSERT INTO claims (address, at, handle) VALUES (?, ?, ?)", (address, now, handle)
        )
        return Entry(handle, False, START)

    @staticmethod
    def _key_banned(db: sqlite3.Connection, data: str, now: float) -> str | None:
        """Why a key of a banned player may not come in (as any handle), or None."""
        row = db.execute(
            "SELECT players.handle, bans.until FROM keys JOIN bans ON bans.player = keys.player"
            " JOIN players ON players.id = keys.player"
            " WHERE keys.data = ? AND (bans.until IS NULL OR bans.until > ?)"
            " ORDER BY bans.until IS NOT NULL, bans.until DESC LIMIT 1",
            (data, now),
        ).fetchone()
        if row is None:
            return None
        until = math.inf if row[1] is None else float(row[1])
        return f"{row[0]} is banned {until_text(until)}."

    def key_word(self, handle: str, now: float) -> str:
        """A one-time word for `handle` (replacing any it had): the next login as
        `HANDLE+WORD` within `WORD_LIFETIME` adds the key it signs in with to the handle.
        UnknownHandle if nobody holds it."""
        word = new_word()
        own = handle.lower()

        def keep(db: sqlite3.Connection) -> None:
            with transaction(db):
                player = _player(db, own)
                if player is None:
                    raise UnknownHandle(f"No player is called {own}.")
                club_keys.keep_word(db, player, word, now)

        self._run(keep)
        return word

    def keys(self, handle: str) -> list[KeyRow]:
        """The keys that sign in as `handle`, oldest first; UnknownHandle if nobody holds it."""
        own = handle.lower()

        def read(db: sqlite3.Connection) -> list[KeyRow]:
            player = _player(db, own)
            if player is None:
                raise UnknownHandle(f"No player is called {own}.")
            return club_keys.keys_of(db, player)

        return self._run(read)

    def remove_key(self, handle: str, fingerprint: str) -> bool:
        """The key of `handle` with `fingerprint` no longer signs in: whether it held one;
        UnknownHandle if nobody holds the handle."""
        own = handle.lower()

        def remove(db: sqlite3.Connection) -> bool:
            with transaction(db):
                player = _player(db, own)
                if player is None:
                    raise UnknownHandle(f"No player is called {own}.")
                return club_keys.remove_key(db, player, fingerprint)

        return self._run(remove)

    # Bans.

    def ban(self, handle: str, until: float | None, now: float | None = None) -> None:
        """Ban `handle` (and its keys) until `until` (seconds since the epoch), or for ever
        with None; UnknownHandle if nobody holds it."""
        own = handle.lower()
        when = datetime.now(UTC).timestamp() if now is None else now

        def ban(db: sqlite3.Connection) -> None:
            with transaction(db):
                player = _player(db, own)
                if player is None:
                    raise UnknownHandle(f"No player is called {own}.")
                db.execute(
                    "INSERT INTO bans (player, until, banned_at) VALUES (?, ?, ?)"
                    " ON CONFLICT (player) DO UPDATE SET until = excluded.until,"
                    " banned_at = excluded.banned_at",
                    (player, until, when),
                )
                db.execute("UPDATE counters SET value = value + 1 WHERE name = 'bans'")

        self._run(ban)

    def unban(self, handle: str) -> bool:
        """Lift the ban on `handle`: whether there was one; UnknownHandle if nobody holds it."""
        own = handle.lower()

        def unban(db: sqlite3.Connection) -> bool:
            with transaction(db):
                player = _player(db, own)
                if player is None:
                    raise UnknownHandle(f"No player is called {own}.")
                lifted = db.execute("DELETE FROM bans WHERE player = ?", (player,)).rowcount
                if lifted:
                    db.execute("UPDATE counters SET value = value + 1 WHERE name = 'bans'")
                return bool(lifted)

        return self._run(unban)

    def banned_until(self, handle: str, now: float) -> float | None:
        """When the ban on `handle` ends (math.inf: never); None when it is not banned now."""

        def until(db: sqlite3.Connection) -> float | None:
            row = db.execute(
                "SELECT bans.until FROM bans JOIN players ON players.id = bans.player"
                " WHERE players.handle = ? AND (bans.until IS NULL OR bans.until > ?)",
                (handle.lower(), now),
            ).fetchone()
            if row is None:
                return None
            return math.inf if row[0] is None else float(row[0])

        return self._run(until)

    def bans_version(self) -> int:
        """A number that changes whenever a ban is made or lifted, by any process: cheap to
        poll, so a running club sees the owner's ban at once."""
        return self._run(
            lambda db: int(
                db.execute("SELECT value FROM counters WHERE name = 'bans'").fetchone()[0]
            )
        )

    # Matches and ratings.

    def finish(
        self,
        table: str,
        players: tuple[str, str],
        rated: bool,
        match: MatchRecord,
        winner: int | None,
        now: float,
    ) -> tuple[Rating, Rating] | None:
        """Keep a finished match of `table` between `players` (handles, in the match's order)
        and, when it is `rated` between two members, both new ratings and their history: all
        in one transaction. `winner` is 0, 1 or None (a draw); it may differ from the board's
        when a seat left past the grace. The new ratings, or None when unrated (or when the
        file cannot be written now: the match waits in memory, `problem` says why, and it is
        written before the next one and at close)."""
        when = match.finished_at or datetime.fromtimestamp(now, UTC)
        kept = _with_time(match, when.replace(microsecond=0))
        with self._lock:
            self._pending.append(_Finished(table, players, rated, kept, winner))
            results = self.save_pending()
            return results[-1] if results and not self._pending else None

    @property
    def unsaved(self) -> int:
        """Finished matches waiting to be written."""
        return len(self._pending)

    def save_pending(self) -> list[tuple[Rating, Rating] | None]:
        """Write every finished match still waiting, in order, one transaction each; their
        new ratings (None for an unrated one). A failure that is not damage leaves the rest
        waiting and says why in `problem`."""
        results: list[tuple[Rating, Rating] | None] = []
        with self._lock:
            while self._pending:
                finished = self._pending[0]
                try:
                    results.append(self._run(functools.partial(_write, finished=finished)))
                except sqlite3.Error as error:
                    self.problem = f"could not be written ({error})"
                    return results
                self._pending.popleft()
            self.problem = None
        return results

    def rating(self, handle: str) -> Rating:
        """The rating of `handle` now (START for a player without a rated match, or nobody)."""

        def read(db: sqlite3.Connection) -> Rating:
            player = _player(db, handle.lower())
            return START if player is None else _rating(db, player)

        return self._run(read)

    def ladder(self, limit: int = 100) -> list[LadderRow]:
        """The best `limit` players with a rated match, best first (by `Rating.points`)."""
        rows = self._run(
            lambda db: db.execute(
                "SELECT players.handle, mu, sigma, matches, wins, draws, losses"
                " FROM ratings JOIN players ON players.id = ratings.player"
                " ORDER BY mu - 3 * sigma DESC, players.handle LIMIT ?",
                (limit,),
            ).fetchall()
        )
        return [
            LadderRow(rank, _handle(handle), Rating(mu, sigma), matches, wins, draws, losses)
            for rank, (handle, mu, sigma, matches, wins, draws, losses) in enumerate(rows, 1)
        ]

    def recent(self, handle: str, limit: int = 10) -> list[MatchRecord]:
        """The last `limit` matches `handle` played, newest first, each replayable."""
        return [match for match, _rated in self.recent_rated(handle, limit)]

    def recent_rated(self, handle: str, limit: int = 10) -> list[tuple[MatchRecord, bool]]:
        """`recent`, each match with whether it was rated."""
        own = handle.lower()
        rows = self._run(
            lambda db: db.execute(
                "SELECT id, finished_at, handle1, handle2, level1, level2, mark1, first_mover,"
                " moves, winner, rated FROM matches WHERE id IN (SELECT id FROM matches"
                " WHERE handle1 = ? UNION SELECT id FROM matches WHERE handle2 = ?)"
                " ORDER BY id DESC LIMIT ?",
                (own, own, limit),
            ).fetchall()
        )
        return [(_match_of(row[:-1]), bool(row[-1])) for row in rows]

    def players(self) -> list[PlayerRow]:
        """Every player who holds a handle, by handle, with their keys' fingerprints."""

        def read(db: sqlite3.Connection) -> list[PlayerRow]:
            fingerprints: dict[int, list[str]] = {}
            for player, fingerprint in db.execute(
                "SELECT player, fingerprint FROM keys ORDER BY id"
            ):
                fingerprints.setdefault(int(player), []).append(str(fingerprint))
            return [
                PlayerRow(_handle(handle), tuple(fingerprints.get(int(player), ())), last_seen)
                for player, handle, last_seen in db.execute(
                    "SELECT id, handle, last_seen FROM players ORDER BY handle"
                )
            ]

        return self._run(read)


def another_key(handle: str) -> str:
    """Why a key that is not one of `handle`'s may not come in as `handle`."""
    return f"The handle {handle} belongs to another key; choose another handle."


def _in_transaction(db: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    with transaction(db):
        return work(db)


def _player(db: sqlite3.Connection, handle: str) -> int | None:
    row = db.execute("SELECT id FROM players WHERE handle = ?", (handle,)).fetchone()
    return None if row is None else int(row[0])


def _rating(db: sqlite3.Connection, player: int) -> Rating:
    row = db.execute("SELECT mu, sigma FROM ratings WHERE player = ?", (player,)).fetchone()
    return START if row is None else Rating(float(row[0]), float(row[1]))


def _handle(text: str) -> str:
    """A handle read back from the file: untrusted text, shown only once made safe."""
    return clean_name(str(text), "?")


def _with_time(match: MatchRecord, when: datetime) -> MatchRecord:
    return MatchRecord(
        match.players, match.marks, match.first_mover, match.moves, match.winner, when, match.id
    )


def _write(db: sqlite3.Connection, *, finished: _Finished) -> tuple[Rating, Rating] | None:
    """One finished match (and, when rated, both ratings and their history): one transaction."""
    match = finished.match
    handles = tuple(handle.lower() for handle in finished.players)
    levels = tuple(None if player.level is None else player.level.value for player in match.players)
    assert match.finished_at is not None
    with transaction(db):
        ids = [_player(db, handle) for handle in handles]
        rating_it = (
            finished.rated
            and handles[0] != handles[1]
            and not any(map(is_guest, handles))
            and levels == (None, None)
            and None not in ids
        )
        row = db.execute(
            "INSERT INTO matches (finished_at, club_table, handle1, handle2, level1, level2, rated,"
            " mark1, first_mover, moves, winner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                match.finished_at.astimezone(UTC).strftime(TIME_FORMAT),
                finished.table,
                *handles,
                *levels,
                int(rating_it),
                str(match.marks[0]),
                match.first_mover + 1,
                "".join(map(str, match.moves)),
                None if finished.winner is None else finished.winner + 1,
            ),
        ).lastrowid
        if not rating_it:
            return None
        first, second = (int(player) for player in ids if player is not None)
        after = rated(_rating(db, first), _rating(db, second), finished.winner)
        for side, (player, rating) in enumerate(zip((first, second), after, strict=True)):
            won = finished.winner == side
            lost = finished.winner is not None and not won
            drew = finished.winner is None
            db.execute(
                "INSERT INTO ratings (player, mu, sigma, matches, wins, draws, losses)"
                " VALUES (?, ?, ?, 1, ?, ?, ?) ON CONFLICT (player) DO UPDATE SET"
                " mu = excluded.mu, sigma = excluded.sigma, matches = matches + 1,"
                " wins = wins + excluded.wins, draws = draws + excluded.draws,"
                " losses = losses + excluded.losses",
                (player, rating.mu, rating.sigma, int(won), int(drew), int(lost)),
            )
            db.execute(
                "INSERT INTO rating_history (player, match, mu, sigma) VALUES (?, ?, ?, ?)",
                (player, row, rating.mu, rating.sigma),
            )
        return after


def _match_of(row: Sequence[object]) -> MatchRecord:
    """A match read back from the file, for the replay screen."""
    match_id, finished_at, handle1, handle2, level1, level2, mark1, first_mover, moves, winner = row
    players = tuple(
        Player(_handle(str(handle))) if level is None else Player.computer(Level(str(level)))
        for handle, level in ((handle1, level1), (handle2, level2))
    )
    first = Mark(str(mark1))
    try:
        when: datetime | None = datetime.strptime(str(finished_at), TIME_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        when = None
    return MatchRecord(
        players=(players[0], players[1]),
        marks=(first, first.other),
        first_mover=int(str(first_mover)) - 1,
        moves=tuple(int(cell) for cell in str(moves)),
        winner=None if winner is None else int(str(winner)) - 1,
        finished_at=when,
        id=int(str(match_id)),
    )
