"""A seat's or a watcher's end of the link to the authority (aiohttp websockets).

`AuthorityLink.open` says hello and returns once the authority has welcomed the link;
then the game sends intents with `act` and reads what the authority sends by iterating
over the link, until it closes. The link decides nothing: it carries messages.
"""

from __future__ import annotations

import asyncio
from typing import Final

import aiohttp

from tictactoe.core.series import Intent
from tictactoe.online import protocol
from tictactoe.online.wire import MAX_SERVER_MESSAGE, ProtocolError, parse_server, to_json

__all__ = ["AuthorityLink", "LinkDenied", "LinkError"]

OPEN_TIMEOUT: Final = 5.0
"""Seconds to connect and be welcomed."""

AGAIN_AFTER: Final = 0.05
"""Seconds before linking again when the authority closed the link unanswered to make room (a
flood of other links saying hello)."""


class LinkError(Exception):
    """The link to the authority could not be made, or broke; the text says how."""


class LinkDenied(LinkError):
    """The authority refused the hello: the text is its sentence (a wrong code, a name taken…)."""

    def __init__(self, text: str, *, final: bool = False) -> None:
        super().__init__(text)
        self.final = final
        """Whether asking again cannot help (`Denied.final`)."""


class AuthorityLink:
    """One open link to the authority; it owns its own HTTP session."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        ws: aiohttp.ClientWebSocketResponse,
        welcome: protocol.Welcome,
    ) -> None:
        """Use `AuthorityLink.open`."""
        self._session = session
        self._ws = ws
        self.welcome = welcome
        """The seat this link holds, or that it watches."""

    @classmethod
    async def open(
        cls, url: str, hello: protocol.Hello, *, timeout: float = OPEN_TIMEOUT
    ) -> AuthorityLink:
        """Connect to `url`, say `hello`, and wait for the welcome.

        Raises `LinkDenied` with the authority's sentence when it refuses, and
        `LinkError` when there is no authority to talk to. Iterating over the link gives
        what the authority sends (`State`, `Refused`, `Ended`) until it closes.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            session = aiohttp.ClientSession()
            try:
                ws = await asyncio.wait_for(
                    session.ws_connect(url, max_msg_size=MAX_SERVER_MESSAGE),
                    max(0.0, deadline - loop.time()),
                )
                await ws.send_str(to_json(hello))
                frame = await ws.receive(timeout=max(0.0, deadline - loop.time()))
            except (aiohttp.ClientError, OSError, TimeoutError) as error:
                await session.close()
                raise LinkError(
                    f"The host cannot be reached: {error or type(error).__name__}"
                ) from None
            if not _room_made(frame) or loop.time() + AGAIN_AFTER >= deadline:
                break
            # Closed unanswered to make room among links saying hello: link again.
            await ws.close()
            await session.close()
            await asyncio.sleep(AGAIN_AFTER)
        try:
            message = _parsed(frame)
        except LinkError:
            await ws.close()
            await session.close()
            raise
        if isinstance(message, protocol.Welcome):
            return cls(session, ws, message)
        await ws.close()
        await session.close()
        if isinstance(message, protocol.Denied):
            raise LinkDenied(message.text, final=message.final)
        raise LinkError("The host did not welcome this link.")

    async def act(self, version: int, intent: Intent) -> None:
        """Send `intent`, made on the state of `version`."""
        await self._send(protocol.Act(version, intent))

    async def ask_hint(self) -> None:
        await self._send(protocol.AskHint())

    async def leave(self) -> None:
        """Leave: a seat ends the series for both; a watcher just goes."""
        await self._send(protocol.Leave())

    async def close(self) -> None:
        """Close the link without leaving: a seat is then away, and may come back."""
        await self._ws.close()
        await self._session.close()

    @property
    def closed(self) -> bool:
        return self._ws.closed

    def __aiter__(self) -> AuthorityLink:
        return self

    async def __anext__(self) -> protocol.State | protocol.Refused | protocol.Ended:
        message = await self.receive()
        if message is None:
            raise StopAsyncIteration
        return message

    async def receive(self) -> protocol.State | protocol.Refused | protocol.Ended | None:
        """The next message from the authority, or None once the link has closed (its
        session is closed then too). A message that is not the protocol's closes the link
        and raises `LinkError`."""
        frame = await self._ws.receive()
        if frame.type is not aiohttp.WSMsgType.TEXT:
            await self.close()
            return None
        try:
            message = _parsed(frame)
        except LinkError:
            await self.close()
            raise
        if not isinstance(message, protocol.State | protocol.Refused | protocol.Ended):
            await self.close()
            raise LinkError(f"The host sent {type(message).__name__} out of turn.")
        return message

    async def _send(self, message: protocol.ClientMessage) -> None:
        try:
            await self._ws.send_str(to_json(message))
        except (aiohttp.ClientError, ConnectionError, RuntimeError) as error:
            raise LinkError(f"The link to the host is closed: {error}") from None


def _room_made(frame: aiohttp.WSMessage) -> bool:
    """Whether the authority closed the link before answering, to make room for others."""
    return (
        frame.type is aiohttp.WSMsgType.CLOSE and frame.data == aiohttp.WSCloseCode.TRY_AGAIN_LATER
    )


def _parsed(
    frame: aiohttp.WSMessage,
) -> protocol.Welcome | protocol.State | protocol.Refused | protocol.Ended | protocol.Denied:
    if frame.type is not aiohttp.WSMsgType.TEXT:
        raise LinkError("The host closed the link.")
    try:
        return parse_server(frame.data)
    except ProtocolError as error:
        raise LinkError(f"The host sent something this game does not understand: {error}") from None
