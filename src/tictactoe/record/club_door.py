"""Who may come in with a key, as the club's store decides it: the SQL both databases run (each
in its own transaction) for a login with a key, a free handle claimed, and the question asked
of each key a client offers before one is chosen.
"""

from __future__ import annotations

import math
from typing import Final

import tictactoe.record.club_keys as club_keys
from tictactoe.core.club import CLAIMS_PER_HOUR, START, Entry, PublicKey, until_text
from tictactoe.core.key_words import key_elsewhere
from tictactoe.record.club_dialects import Database

__all__ = ["CLAIM_WINDOW", "TOO_MANY_CLAIMS", "another_key", "come_in", "refusal"]

CLAIM_WINDOW: Final = 3600.0
"""Seconds over which `CLAIMS_PER_HOUR` counts an address's new handles."""

TOO_MANY_CLAIMS: Final = (
    "Too many new handles were claimed from this address this hour; please try again later."
)


def another_key(handle: str) -> str:
    """Why a key that is not one of `handle`'s may not come in as `handle`."""
    return f"The handle {handle} belongs to another key; choose another handle."


def come_in(db: Database, own: str, line: PublicKey, address: str, now: float) -> Entry:
    """`own` signing in with the key `line` from `address`: a free handle is claimed, a held
    one lets in only its own keys, unless a ban says otherwise."""
    player = club_keys.player_of(db, own)
    if player is None:
        return _claim(db, own, line, address, now)
    if not _holds(db, player, line.data):
        return Entry(own, False, START, another_key(own))
    banned = _key_banned(db, line.data, now)
    if banned is not None:
        return Entry(own, False, START, banned)
    db.execute("UPDATE players SET last_seen = ? WHERE id = ?", (now, player))
    return Entry(own, False, club_keys.rating_of(db, player))


def refusal(db: Database, own: str, line: PublicKey, address: str, now: float) -> str | None:
    """Why `come_in` would refuse, changing nothing; None when it would let the key in."""
    player = club_keys.player_of(db, own)
    if player is not None:
        return (
            _key_banned(db, line.data, now) if _holds(db, player, line.data) else another_key(own)
        )
    banned = _key_banned(db, line.data, now)
    if banned is not None:
        return banned
    holder = club_keys.holder(db, line.data)
    if holder is not None:
        return key_elsewhere(holder)
    return TOO_MANY_CLAIMS if _claims(db, address, now) >= CLAIMS_PER_HOUR else None


def _holds(db: Database, player: int, data: str) -> bool:
    found = db.execute("SELECT 1 FROM keys WHERE player = ? AND data = ?", (player, data))
    return found.fetchone() is not None


def _claims(db: Database, address: str, now: float) -> int:
    (claims,) = db.execute(
        "SELECT count(*) FROM claims WHERE address = ? AND at > ?", (address, now - CLAIM_WINDOW)
    ).fetchone()
    return int(claims)


def _claim(db: Database, handle: str, line: PublicKey, address: str, now: float) -> Entry:
    """A free handle claimed by a key, within the caller's transaction."""
    banned = _key_banned(db, line.data, now)
    if banned is not None:
        return Entry(handle, False, START, banned)
    holder = club_keys.holder(db, line.data)
    if holder is not None:
        return Entry(handle, False, START, key_elsewhere(holder))
    db.one_at_a_time(address)  # across processes, so that no address passes the bound
    db.execute("DELETE FROM claims WHERE at <= ?", (now - CLAIM_WINDOW,))
    if _claims(db, address, now) >= CLAIMS_PER_HOUR:
        return Entry(handle, False, START, TOO_MANY_CLAIMS)
    player = db.insert(
        "INSERT INTO players (handle, claimed_at, last_seen) VALUES (?, ?, ?)", (handle, now, now)
    )
    db.execute(
        "INSERT INTO keys (player, type, data, fingerprint, added_at) VALUES (?, ?, ?, ?, ?)",
        (player, line.type, line.data, line.fingerprint, now),
    )
    db.execute("INSERT INTO claims (address, at, handle) VALUES (?, ?, ?)", (address, now, handle))
    return Entry(handle, False, START)


def _key_banned(db: Database, data: str, now: float) -> str | None:
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
