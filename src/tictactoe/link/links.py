"""One link to an authority (`Link`): a websocket or the host's own seat, and what waits to be
sent to it, in order, until it closes.

A link that does not read what it is sent is not waited for: past `OUTBOX` frames waiting, the
caller closes it (`Link.send` says so), and the authority never blocks on one slow reader.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field, replace
from typing import Final

from aiohttp import WSCloseCode, web

from tictactoe.online.authority import LinkId
from tictactoe.online.protocol import ServerMessage, State
from tictactoe.online.wire import to_json

__all__ = ["CLOSE_WITHIN", "OUTBOX", "Link"]

OUTBOX: Final = 64
"""Messages waiting for a link that does not read them; past this, the link is closed."""

CLOSE_WITHIN: Final = 2.0
"""Seconds an authority's `stop` takes at most to end every link."""


@dataclass(eq=False)
class Link:
    """One websocket (or the host's own link): its id, where it comes from, and what waits to
    be sent to it."""

    id: LinkId
    ws: web.WebSocketResponse | None
    peer: str
    request: web.BaseRequest | None = None
    """The websocket's request: its connection is cut if it outlives the authority's stop."""
    refused: bool = False
    """Refused, and waiting out its refusal: the first closed to make room."""
    gone: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the link is closing."""
    close_code: WSCloseCode = WSCloseCode.OK
    """What the closing frame says: `TRY_AGAIN_LATER` when closed to make room."""
    inbox: asyncio.Queue[ServerMessage | None] | None = None
    """The host's own link: what it is sent, as messages; None closes it."""
    outbox: asyncio.Queue[str | None] = field(
        default_factory=lambda: asyncio.Queue(maxsize=OUTBOX + 2)
    )
    """Frames to send, in order; None closes the link."""
    closing: bool = False
    answered: int = 0
    """How many of its intents and hint requests have been answered (`State.answered`)."""

    def send(self, message: ServerMessage) -> bool:
        """Queue `message` (a state says how many of this link's asks it answers); False when
        the link does not read what it is sent, and must be closed."""
        if self.closing:
            return True
        if isinstance(message, State) and message.answered != self.answered:
            message = replace(message, answered=self.answered)
        if self.inbox is not None:
            self.inbox.put_nowait(message)
            return True
        try:
            self.outbox.put_nowait(to_json(message))
        except asyncio.QueueFull:
            return False
        return self.outbox.qsize() <= OUTBOX

    def close(self) -> None:
        """Close after what was queued: the writer (or the host's screen) sees the end."""
        if not self.closing:
            self.closing = True
            self.gone.set()
            with contextlib.suppress(asyncio.QueueFull):
                (self.inbox or self.outbox).put_nowait(None)

    async def write(self) -> None:
        """Send the frames in order; close the websocket after the last."""
        assert self.ws is not None
        try:
            while (frame := await self.outbox.get()) is not None:
                await self.ws.send_str(frame)
        except (ConnectionError, RuntimeError):
            pass
        finally:
            await self.ws.close(code=self.close_code)

    def cut(self) -> None:
        """Drop the websocket's connection at once: it outlived the authority's stop."""
        transport = None if self.request is None else self.request.transport
        if transport is not None:
            transport.abort()
