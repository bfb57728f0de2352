"""Which of the club's refusals of a key are about the user name itself (`NameRefused`).

A user name that is no handle (`a..b`, 25 characters, `-x`) cannot log in with any key: the door
is told so (`tictactoe.doors.ssh.gate.NameRefused`), takes the key, and says the sentence once the
login is over, so that a client that may not log in without a key hears why too.
"""

from __future__ import annotations

from tictactoe.core.club import BadHandle, handle_of
from tictactoe.doors.ssh.gate import NameRefused

__all__ = ["about_the_name"]


def about_the_name(user: str, refusal: str | None) -> str | None:
    """`refusal` of a key offered as `user`, a `NameRefused` when it is the sentence saying that
    `user` is no handle (any key would be refused the same)."""
    if refusal is None:
        return None
    try:
        handle_of(user)
    except BadHandle as bad:
        if refusal == str(bad):
            return NameRefused(refusal)
    return refusal
