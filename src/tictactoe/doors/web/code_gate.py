"""The browser door's check of the code: before any game starts, on a page of its own.

A visitor first gets a small form (no script) that asks for the code. A right code is answered
with the game's page and a ticket: the one websocket that may start a game for it, within
`TICKET_LIFE` seconds, once. A wrong one is counted by the `Throttle`, as at the SSH door, and
answered with the form again and a sentence (late, past the throttle's limit). Tries under way
at once are bounded, in all and per network, so that one network can guess only slowly; the
right code never waits.
"""

from __future__ import annotations

import asyncio
import html
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Final

from tictactoe.core.codes import CODE_LENGTH, normalise_code
from tictactoe.doors.throttle import Throttle

__all__ = ["CodeGate", "Refusal", "form_page"]

TICKET_LIFE: Final = 60.0
"""Seconds a ticket may wait for its websocket."""

WRONG_CODE: Final = "That is not the code of this series. Check what you were given."
TOO_MANY_TRIES: Final = "Too many tries at once from your address: wait a moment and try again."
BUSY: Final = "Too many people are trying codes here: wait a moment and try again."
TOO_MANY_GAMES: Final = "Too many games are open here: try again later."


class Refusal(Exception):
    """A code that let nobody in: the sentence for the visitor, and the HTTP status."""

    def __init__(self, sentence: str, status: int) -> None:
        super().__init__(sentence)
        self.sentence = sentence
        self.status = status


@dataclass(eq=False)
class CodeGate:
    """Checks codes for the browser door and hands out the tickets that start games."""

    accepts: Callable[[str], bool]
    """Whether a code (normalised) is the series' code."""
    throttle: Throttle
    _: KW_ONLY
    max_trying: int = 32
    """Tries under way at once, at most (a wrong code answered late is under way)."""
    max_trying_per_network: int = 4
    """Tries under way at once from one network (see `Throttle.network`), at most."""
    max_tickets: int = 64
    """Tickets not yet used, at most; the oldest go first."""
    clock: Callable[[], float] = time.monotonic
    _trying: Counter[str] = field(default_factory=Counter, init=False, repr=False)
    _tickets: dict[str, tuple[float, str]] = field(default_factory=dict, init=False, repr=False)

    async def check(self, typed: str, peer: str) -> str:
        """A ticket for a right `typed` code from `peer`; else `Refusal`."""
        network = self.throttle.network(peer)
        if self._trying.total() >= self.max_trying:
            raise Refusal(BUSY, 429)
        if self._trying[network] >= self.max_trying_per_network:
            raise Refusal(TOO_MANY_TRIES, 429)
        self._trying[network] += 1
        try:
            code = normalise_code(typed[:64])
            if code is not None and self.accepts(code):
                return self._ticket(peer)
            late = self.throttle.failed(peer)
            if late:
                await asyncio.sleep(late)
            raise Refusal(WRONG_CODE, 403)
        finally:
            self._trying[network] -= 1
            if self._trying[network] <= 0:
                del self._trying[network]

    def _ticket(self, peer: str) -> str:
        self._forget_expired()
        while len(self._tickets) >= self.max_tickets:
            del self._tickets[next(iter(self._tickets))]
        ticket = secrets.token_urlsafe(24)
        self._tickets[ticket] = (self.clock() + TICKET_LIFE, peer)
        return ticket

    def admit(self, ticket: str) -> str | None:
        """The address a ticket was given to, if it is valid (each is valid once)."""
        self._forget_expired()
        found = self._tickets.pop(ticket, None)
        return None if found is None else found[1]

    def _forget_expired(self) -> None:
        now = self.clock()
        for ticket, (expiry, _peer) in list(self._tickets.items()):
            if expiry <= now:
                del self._tickets[ticket]


def form_page(title: str, sentence: str = "") -> str:
    """The page that asks for the code; `sentence` says what went wrong with the last one."""
    said = f'<p class="said" role="alert">{html.escape(sentence)}</p>' if sentence else ""
    return f"""<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>{html.escape(title)}</title>
    <link rel="icon" href="data:," />
    <style>
      body {{ background: #1e1e1e; color: #e0e0e0; font: 18px/1.5 monospace; margin: 3em; }}
      input, button {{ font: inherit; padding: 0.3em 0.6em; }}
      input {{ text-transform: uppercase; letter-spacing: 0.2em; width: 8em; }}
      .said {{ color: #ffb86c; }}
    </style>
  </head>
  <body>
    <h1>{html.escape(title)}</h1>
    <p>Join a friend's series: type the code they gave you.</p>
    <form method="post" action="/">
      <label for="code">The series' code</label><br />
      <input id="code" name="code" autofocus autocomplete="off" spellcheck="false"
        maxlength="{CODE_LENGTH + 4}" placeholder="K7M4QX" />
      <button type="submit">Join</button>
    </form>
    {said}
  </body>
</html>
"""
