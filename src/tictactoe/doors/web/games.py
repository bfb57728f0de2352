"""The games of the browser door: one process per tab, one kept started ahead for the next.

A game is a child process speaking Textual's web protocol (textual-serve's `AppService`, through
`tictactoe.adapters.app_process`): started without a shell, in its own session, with
`TICTACTOE_SERVED=1` and the served driver (see `tictactoe.served`). Ending one asks it to quit,
then terminates it, then kills it, each after a grace period: every game ends within
`STOP_WITHIN` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Final

from aiohttp import web
from textual_serve.download_manager import DownloadManager

from tictactoe.adapters.app_process import AppProcess
from tictactoe.served import DRIVER, FAREWELL, SERVED_ENV

__all__ = ["KILL_GRACE", "STOP_WITHIN", "GameSession", "Games", "game_command"]

QUIT_GRACE: Final = 0.8
"""Seconds a game has to end after being asked to, before it is terminated."""

KILL_GRACE: Final = 0.4
"""Seconds a game has to end after SIGTERM before it is killed; also the longest wait for the rest
of its output, and for a tab to answer the closing of its websocket."""

SPARE_AFTER: Final = 1.5
"""Seconds after a tab takes the spare game before the next spare starts (not during its paint)."""

STOP_WITHIN: Final = QUIT_GRACE + 3 * KILL_GRACE
"""The longest it takes to stop every game (all are stopped at once)."""


def game_command(game_args: Sequence[str]) -> list[str]:
    """The command that runs one tab's game: this Python, this package, the options given."""
    return [sys.executable, "-m", "tictactoe", *game_args]


class GameSession(AppProcess):
    """One browser tab's game: a child process that speaks Textual's web protocol.

    A session may start before its tab exists (the server keeps one spare, already past its
    imports and first paint): until `attach` gives it a websocket, what the game writes is held,
    then sent in order before anything newer.
    """

    quit_grace = QUIT_GRACE
    kill_grace = KILL_GRACE

    def __init__(
        self,
        argv: Sequence[str],
        download_manager: DownloadManager,
        environment: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(
            argv,
            {"TEXTUAL_DRIVER": DRIVER, SERVED_ENV: "1", **(environment or {})},
            write_bytes=self._send_bytes,
            write_str=self._send_str,
            close=self._close_tab,
            download_manager=download_manager,
        )
        self.websocket: web.WebSocketResponse | None = None
        """The tab showing this game, once attached."""
        self._held: list[bytes | str] = []
        self._output = asyncio.Lock()

    async def attach(self, websocket: web.WebSocketResponse, width: int, height: int) -> None:
        """Show this game in `websocket`'s tab, at that tab's size."""
        async with self._output:
            self.websocket = websocket
            for data in self._held:
                await self._send(data)
            self._held.clear()
        await self.set_terminal_size(width, height)

    async def _send(self, data: bytes | str) -> None:
        assert self.websocket is not None
        with contextlib.suppress(ConnectionResetError):  # the tab has gone: nobody to show it to
            if isinstance(data, bytes):
                await self.websocket.send_bytes(data)
            else:
                await self.websocket.send_str(data)

    async def _send_bytes(self, data: bytes) -> None:
        async with self._output:
            if self.websocket is None:
                self._held.append(data)
            else:
                await self._send(data)

    async def _send_str(self, data: str) -> None:
        async with self._output:
            if self.websocket is None:
                self._held.append(data)
            else:
                await self._send(data)

    async def _close_tab(self) -> None:
        """The game has ended: so does its tab's connection (the page then says so)."""
        if self.websocket is not None:
            await self.websocket.close()

    async def on_meta(self, data: bytes) -> None:
        """The game's own messages: its farewell goes on to the tab, saying why the game ended;
        its exit closes nothing yet, as its farewell comes after it."""
        match json.loads(data):
            case {"type": "exit"}:
                pass
            case {"type": kind, "score": str(score), "verdict": str(verdict)} if kind == FAREWELL:
                why = "stopped" if self.stopping else "quit"
                farewell = {"why": why, "score": score, "verdict": verdict}
                await self._send_str(json.dumps([FAREWELL, farewell]))
            case _:
                await super().on_meta(data)

    async def run(self) -> None:
        """Pass the game's output on until it ends; then close the tab, unless the server is
        ending the game (it closes the tab itself)."""
        await super().run()
        if not self.stopping:
            await self._close_tab()


class Games:
    """The games running for tabs, and the spare: one started ahead, past its imports and first
    paint, for the next tab (when `keep_spare`)."""

    def __init__(
        self,
        argv: Sequence[str],
        environment: Mapping[str, str],
        *,
        keep_spare: bool,
    ) -> None:
        self.argv = list(argv)
        """What each game process runs."""
        self.environment = dict(environment)
        """Added to the environment of every game."""
        self.keep_spare = keep_spare
        self.download_manager = DownloadManager()
        """textual-serve's record of files being sent to tabs (the game sends none)."""
        self.sessions: set[GameSession] = set()
        """Every game running now, the spare included."""
        self._spare: GameSession | None = None
        self._spare_size = (80, 24)
        self._refill: asyncio.Task[None] | None = None
        self._spare_starting = False
        self._stopping = False

    def __len__(self) -> int:
        return len(self.sessions)

    async def start(
        self,
        width: int,
        height: int,
        extra_args: Sequence[str] = (),
        environment: Mapping[str, str] | None = None,
    ) -> GameSession:
        """A new game, with `extra_args` and `environment` (a tab's own) added to every game's."""
        session = GameSession(
            [*self.argv, *extra_args],
            self.download_manager,
            {**self.environment, **(environment or {})},
        )
        self.sessions.add(session)
        await session.start(width, height)
        return session

    async def end(self, session: GameSession) -> None:
        await session.stop()
        self.sessions.discard(session)

    async def take(self, width: int, height: int) -> GameSession:
        """The spare game if it is ready, else a new one; the spare is replaced a little later."""
        spare, self._spare = self._spare, None
        self._spare_size = (width, height)
        if spare is not None and not spare.running:
            await self.end(spare)
            spare = None
        session = spare or await self.start(width, height)
        self.schedule_spare(SPARE_AFTER)
        return session

    def schedule_spare(self, delay: float) -> None:
        """Start the next spare after `delay`: not while the new tab's game is being drawn."""
        if not self.keep_spare or self._stopping or self._spare is not None:
            return
        if self._refill is not None and not self._refill.done():
            return
        self._refill = asyncio.create_task(self._start_spare(delay))

    async def _start_spare(self, delay: float) -> None:
        await asyncio.sleep(delay)  # stopping the server cancels the refill only here
        if self._stopping or self._spare is not None:
            return
        self._spare_starting = True
        try:
            self._spare = await self.start(*self._spare_size)
        finally:
            self._spare_starting = False

    async def stop(self) -> None:
        """End every game, together, and start no more."""
        self._stopping = True
        if self._refill is not None:
            if not self._spare_starting:
                self._refill.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._refill  # a spare being started is then in `sessions`
        await asyncio.gather(*(self.end(session) for session in list(self.sessions)))
