"""What the club tells a player finding their way: a guest without a key how to come back with
one, a player seated in another session where their seat is, and a player quick pair seated at
an unrated table that it did.

Quick pair (`p`) seats a player with a handle at a rated table when one waits, and a guest at an
unrated one (a guest sitting at a rated table makes it unrated); only when none of that kind
waits does it seat them at the other kind, and a player with a handle is told so
(`unrated_pair`), so a rated match is never silently an unrated one.
"""

from __future__ import annotations

from typing import Final

from tictactoe.core.club import BadHandle, handle_of

__all__ = ["SEATED_ELSEWHERE", "guest_welcome", "unrated_pair"]

SEATED_ELSEWHERE: Final = (
    "You are playing at a table in another session: play on there, or leave that session"
    " and press p here to take your seat back."
)
"""Said to a session of a player whose seat is held by another of their sessions."""


def guest_welcome(user: str, port: int | None) -> str:
    """What a guest who came in without a key is told first: that they are a guest, and how to
    come back as the handle they typed (`user`, when it can be one) with a key."""
    try:
        handle = handle_of(user)
    except BadHandle:
        handle = "HANDLE"
    where = "" if port is None or port == 22 else f"-p {port} "
    return (
        "You came in without a key, as a guest (unrated, your name not kept): to play as"
        f" {handle}, make a key with ssh-keygen -t ed25519 and come in again with"
        f" ssh {where}{handle}@HOST."
    )


def unrated_pair(opener: str) -> str:
    """What a player with a handle is told when quick pair seated them at an unrated table."""
    return f"No rated table was waiting: you sat at {opener}'s unrated table (o opens a rated one)."
