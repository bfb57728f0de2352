"""The host's own seat, in the authority's process (`HostLink`): what `AuthorityLink` is to a
friend's seat (the same messages, in the same order), with no socket and no JSON in between."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from tictactoe.core.series import Intent
from tictactoe.link.client import LinkError
from tictactoe.link.links import Link
from tictactoe.online.protocol import (
    Act,
    AskHint,
    ClientMessage,
    Ended,
    Leave,
    Refused,
    ServerMessage,
    State,
    Welcome,
)

__all__ = ["HostLink"]


class HostLink:
    """The host's own seat: it gives its messages to the authority's links, and reads what they
    send it from its inbox."""

    def __init__(
        self,
        link: Link,
        welcome: Welcome,
        *,
        give: Callable[[Link, ClientMessage], None],
        close: Callable[[Link], None],
    ) -> None:
        """Use `AuthorityLinks.open_local`."""
        self._link = link
        assert link.inbox is not None
        self._inbox: asyncio.Queue[ServerMessage | None] = link.inbox
        self._give_to = give
        self._close = close
        self.welcome = welcome
        """The seat this link holds."""

    async def act(self, version: int, intent: Intent) -> None:
        """Give `intent`, made on the state of `version`."""
        self._give(Act(version, intent))

    async def ask_hint(self) -> None:
        self._give(AskHint())

    async def leave(self) -> None:
        """Leave: the series ends for both."""
        self._give(Leave())

    def _give(self, message: ClientMessage) -> None:
        if self._link.closing:
            raise LinkError("The link to the series is closed.")
        self._give_to(self._link, message)

    async def close(self) -> None:
        """Close the link without leaving: the host's seat is then away."""
        self._close(self._link)

    @property
    def closed(self) -> bool:
        return self._link.closing

    def __aiter__(self) -> HostLink:
        return self

    async def __anext__(self) -> State | Refused | Ended:
        message = await self._inbox.get()
        if message is None:
            raise StopAsyncIteration
        assert isinstance(message, State | Refused | Ended)
        return message
