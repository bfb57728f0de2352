"""A player's game's end of its lobby link (aiohttp websockets): says hello with the secret its
door gave it, sends what the player asks, and gives what the club sends, until it closes."""

from __future__ import annotations

import asyncio
from typing import Final

import aiohttp

from tictactoe.online.lobby import (
    MAX_LOBBY_MESSAGE,
    LobbyAsk,
    LobbyHello,
    LobbyNews,
    ProtocolError,
    lobby_json,
)
from tictactoe.online.lobby_reading import parse_news

__all__ = ["LobbyLink", "LobbyLinkError"]

OPEN_TIMEOUT: Final = 5.0


class LobbyLinkError(Exception):
    """The lobby could not be reached, or sent what this game does not understand."""


class LobbyLink:
    """One open lobby link; iterating over it gives the club's news until it closes."""

    def __init__(self, session: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse):
        """Use `LobbyLink.open`."""
        self._session = session
        self._ws = ws

    @classmethod
    async def open(cls, url: str, token: str, *, timeout: float = OPEN_TIMEOUT) -> LobbyLink:
        session = aiohttp.ClientSession()
        try:
            ws = await asyncio.wait_for(
                session.ws_connect(url, max_msg_size=MAX_LOBBY_MESSAGE), timeout
            )
            await ws.send_str(lobby_json(LobbyHello(token)))
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            await session.close()
            raise LobbyLinkError(
                f"The club cannot be reached: {error or type(error).__name__}"
            ) from None
        return cls(session, ws)

    async def ask(self, ask: LobbyAsk) -> None:
        try:
            await self._ws.send_str(lobby_json(ask))
        except (aiohttp.ClientError, ConnectionError, RuntimeError) as error:
            raise LobbyLinkError(f"The link to the club is closed: {error}") from None

    async def close(self) -> None:
        await self._ws.close()
        await self._session.close()

    def __aiter__(self) -> LobbyLink:
        return self

    async def __anext__(self) -> LobbyNews:
        frame = await self._ws.receive()
        if frame.type is not aiohttp.WSMsgType.TEXT:
            await self.close()
            raise StopAsyncIteration
        try:
            return parse_news(frame.data)
        except ProtocolError as error:
            await self.close()
            raise LobbyLinkError(
                f"The club sent something this game does not understand: {error}"
            ) from None
