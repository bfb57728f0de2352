"""A club session's lobby drawn once, headless, by the warm parent that forks each session's game
(`tictactoe.doors.warm`), before it forks any: what drawing it makes once and keeps (parsed
styles, the widgets' default CSS, Rich's and Textual's caches) is then made once for every
session and shared with each, instead of made again by each.

Nothing of it reaches a player: the lobby shown is made up, on a headless driver, and no link to
any club is opened.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from tictactoe.config import GameConfig
from tictactoe.core.engine import Mark
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.players import Player
from tictactoe.online.lobby import (
    LadderLine,
    LobbyAsk,
    LobbyNews,
    PastMatch,
    Snapshot,
    TableRow,
    You,
)
from tictactoe.tui.club_app import ClubApp, ClubSetup

__all__ = ["SIZE", "warm_up"]

SIZE = (80, 24)
"""The terminal the lobby is drawn in."""

_SHOWN = Snapshot(
    You("warm", False, (("classic", "1500 ± 500"),)),
    open=(TableRow("1", ("ada",), True, None, rating="1500 ± 500"),),
    playing=(TableRow("2", ("bob", "cy"), False, 3, score=(1, 0, 1), watchers=1),),
    ladder=(LadderLine(1, "ada", "1520 ± 90", 3, 2, 1, 0),),
    recent=(
        PastMatch(
            FinishedMatch((Player("warm"), Player("ada")), (Mark.X, Mark.O), 0, (4, 0, 8), 0), True
        ),
    ),
)


class _MadeUpLobby:
    """A lobby link that says one snapshot, then nothing until closed."""

    def __init__(self) -> None:
        self._closed = asyncio.Event()

    async def ask(self, ask: LobbyAsk) -> None:
        return None

    async def close(self) -> None:
        self._closed.set()

    async def __aiter__(self) -> AsyncIterator[LobbyNews]:
        yield _SHOWN
        await self._closed.wait()


async def _draw() -> None:
    made_up = _MadeUpLobby()

    async def open_lobby(url: str, token: str) -> _MadeUpLobby:
        return made_up

    app = ClubApp(GameConfig(save=False), ClubSetup("", ""), open_lobby=open_lobby)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
    await made_up.close()


def warm_up() -> None:
    """Draw the lobby once, headless, and leave nothing running."""
    asyncio.run(_draw())
