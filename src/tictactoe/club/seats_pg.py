"""One seat a handle, club-wide: the check, made where every process of a club meets (the registry
of tables in PostgreSQL), that a handle holds no open or seated table of another process, in the
transaction that opens a table or claims a seat.

Two processes seating one handle at the same moment each take the handle's lock first (an
advisory lock held to the end of the transaction), so the second one's check sees the first
one's table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import psycopg

    Connection = psycopg.Connection[tuple[Any, ...]]

__all__ = ["NOT_OPEN", "PLAYING", "WAITING_ELSEWHERE", "seat_free", "seated_elsewhere"]

PLAYING: Final = "You are playing at a table already."
WAITING_ELSEWHERE: Final = "You are waiting at your own table in another session already."
NOT_OPEN: Final = "That table is not open any more."

_SEAT_LOCKS: Final = 0x7454
"""The first key of the advisory locks held on handles (the second is the handle's hash)."""


def seated_elsewhere(
    conn: Connection, handle: str, process: str, now: float, within: float
) -> str | None:
    """Why `handle` may not open a table or take a seat: it holds one at a table of a process
    other than `process` whose heartbeat is within `within` seconds of `now` (the tables of
    `process` itself are its own to check); None when it holds none. The handle stays locked
    until the caller's transaction ends."""
    conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_SEAT_LOCKS, handle))
    row = conn.execute(
        "SELECT cardinality(players) FROM tables WHERE %s = ANY(players) AND process <> %s"
        " AND heartbeat > %s ORDER BY cardinality(players) DESC LIMIT 1",
        (handle, process, now - within),
    ).fetchone()
    if row is None:
        return None
    return WAITING_ELSEWHERE if int(row[0]) == 1 else PLAYING


def seat_free(conn: Connection, table_id: str, handle: str, *, unknown: bool) -> str | None:
    """Seat `handle` at the open table `table_id` (its opener alone there), in one statement so
    that of two processes claiming it at once one has it: None when it is theirs now, else why
    not. A table the registry does not hold (yet) is theirs when `unknown` is true (its process
    decides alone, and writes it soon)."""
    found = conn.execute(
        "UPDATE tables SET players = players || %s::text WHERE id = %s"
        " AND cardinality(players) = 1 AND NOT %s = ANY(players)",
        (handle, table_id, handle),
    ).rowcount
    if found:
        return None
    if (
        unknown
        and conn.execute("SELECT 1 FROM tables WHERE id = %s", (table_id,)).fetchone() is None
    ):
        return None
    return NOT_OPEN
