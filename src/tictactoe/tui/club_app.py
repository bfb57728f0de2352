"""The app of one player's session at a club (`tictactoe club-session`, what the club's door
starts for each SSH session).

Its first screen is the lobby (`LobbyScreen`), fed by the lobby link (`tictactoe.club.link`):
what the player asks there goes to the club; when the club sends the player to a table (`GoTo`),
the app links to that table's authority and plays there on the game screen, at a seat's table
(`SeatTable`), as a friend online does; when the series ends (or the player leaves it, `q`), the
game screen goes and the lobby is back.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from rich.console import RenderableType

from tictactoe.club.link import LobbyLink, LobbyLinkError
from tictactoe.config import GameConfig
from tictactoe.core.club import LEAVING_RULE
from tictactoe.core.labels import side_by_side
from tictactoe.core.names import NAME_WIDTH
from tictactoe.core.series import Series
from tictactoe.link.client import AuthorityLink, LinkError
from tictactoe.online.lobby import Farewell, GoTo, KeyWord, LobbyAsk, LobbyNews, Said, Snapshot
from tictactoe.online.protocol import Hello
from tictactoe.play.seat_table import SeatTable
from tictactoe.play.table import Leaving
from tictactoe.tui.app import TicTacToeApp, write_crash_log
from tictactoe.tui.screens.add_key import AddKeyScreen
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.lobby import LobbyScreen

__all__ = ["ClubApp", "ClubSetup", "Lobby", "play_at_club"]

LOST = "The link to the club was lost: this session has ended."
READING = 16.0
"""Characters a second a player reads what the club says: a longer word stays longer."""


def score(series: Series | None) -> str:
    """The score a series ended with, said as the player goes back to the lobby ("Score: alice
    2, bob 1, draws 0."); nothing before a match was finished."""
    if series is None or not series.played:
        return ""
    (first, second), (wins1, wins2) = side_by_side(series.players, NAME_WIDTH), series.wins
    return f"Score: {first} {wins1}, {second} {wins2}, draws {series.draws}."


@dataclass(frozen=True, slots=True)
class ClubSetup:
    """How this session reaches the club."""

    lobby_url: str
    token: str
    """The secret the door gave this session: the club knows the player by it."""
    peer: str = "127.0.0.1"


class Lobby(Protocol):
    """The link to the club's lobby (`LobbyLink`): iterating over it gives the club's news."""

    async def ask(self, ask: LobbyAsk) -> None: ...

    async def close(self) -> None: ...

    def __aiter__(self) -> AsyncIterator[LobbyNews]: ...


class ClubApp(TicTacToeApp):
    """A player at a club: the lobby, and the tables the player sits at or watches."""

    def __init__(
        self,
        config: GameConfig,
        setup: ClubSetup,
        *,
        open_lobby: Callable[[str, str], Awaitable[Lobby]] = LobbyLink.open,
    ) -> None:
        super().__init__(config)
        self.setup = setup
        self.open_lobby = open_lobby
        """Links to the lobby at a URL with a secret: `LobbyLink.open`."""
        self.lobby = LobbyScreen()
        self.lobby_link: Lobby | None = None
        self.seat: SeatTable | None = None
        """This player's table, while at one."""
        self.farewell = ""
        """Why the session ended, printed after the app."""
        self._left: Leaving | None = None

    def begin(self) -> None:
        self.push_screen(self.lobby)
        self.run_worker(self._hear_the_club(), name="lobby", group="lobby")

    async def _hear_the_club(self) -> None:
        try:
            self.lobby_link = await self.open_lobby(self.setup.lobby_url, self.setup.token)
            async for news in self.lobby_link:
                if isinstance(news, Farewell) and self.seat is not None:
                    self._left = await self.seat.leave()  # the other seat is not kept waiting
                self.hear(news)
        except LobbyLinkError as error:
            self._gone(str(error))
            return
        self._gone(self.farewell or LOST)

    def hear(self, news: LobbyNews) -> None:
        """What the club said."""
        match news:
            case Snapshot():
                self.lobby.snapshot = news
            case GoTo():
                if self.seat is None:
                    self.run_worker(self._sit(news), name="table", group="table", exclusive=True)
            case Said(text):  # on screen long enough to be read (a guest's welcome: 12 s)
                self.notify(text, markup=False, timeout=max(5.0, len(text) / READING))
            case KeyWord():
                if isinstance(self.screen, AddKeyScreen):  # k again: the new word replaces it
                    self.screen.action_close()
                self.push_screen(AddKeyScreen(news))
            case Farewell(text):
                self.farewell = text
                self._gone(text)

    async def action_help(self) -> None:
        """In the lobby, the help begins with the club's keys; at a table, with the board's."""
        from tictactoe.tui.screens.help import CLUB_SECTION, HelpScreen

        if isinstance(self.screen, LobbyScreen):
            await self.push_screen(HelpScreen(first=CLUB_SECTION))
        elif not isinstance(self.screen, HelpScreen):
            await super().action_help()

    async def on_lobby_screen_asked(self, event: LobbyScreen.Asked) -> None:
        if self.lobby_link is None:
            return
        with contextlib.suppress(LobbyLinkError):
            await self.lobby_link.ask(event.ask)

    async def _sit(self, goto: GoTo) -> None:
        """Link to the table `goto` names; once there is a series (the opener waits in the
        lobby), play it on the game screen; then back to the lobby."""
        hello = Hello(
            goto.code,
            goto.name,
            self.setup.peer,
            host_token=goto.host_token,
            door_key=goto.door_key,
        )
        try:
            link = await AuthorityLink.open(goto.url, hello)
        except LinkError as error:
            self.notify(str(error), markup=False)
            return
        try:
            seated = await SeatTable.seated(link)
            if not isinstance(seated, SeatTable):
                text = seated.text if seated is not None else "The table has closed."
            else:
                self.seat, self._left = seated, None
                seated.terms = LEAVING_RULE
                game = GameScreen(seated, layout=self.key_layout)
                await self.push_screen(game)
                ended = await seated.play()
                while game in self.screen_stack and len(self.screen_stack) > 2:
                    await self.pop_screen()
                left, self.seat = self._left, None
                if left is not None and left.farewell:
                    text = left.farewell
                else:
                    text = (
                        "The link to the table was lost."
                        if ended is None
                        else f"{ended.text} {score(ended.series)}".strip()
                    )
        finally:
            with contextlib.suppress(Exception):
                await link.close()
        self.notify(text, markup=False)

    def _gone(self, text: str) -> None:
        """The club ended the session (a ban, the club closing) or its link was lost: said,
        and an exit status of 1 (a player's own `q` is 0)."""
        self.farewell = self.farewell or text
        self.exit(None, return_code=1)

    async def action_quit(self) -> None:
        """At a table, `q` leaves it (a seat ends the series for both); in the lobby, it ends
        the session."""
        if self.seat is not None:
            if self._left is None:
                self._left = await self.seat.leave()
            return
        self.exit(None)

    def report_crash(self, details: Sequence[RenderableType]) -> None:
        """A player's game runs on the club's machine: the details go to its log."""
        write_crash_log(details)
        print(
            "The game stopped after an unexpected error on the club's machine;"
            " the club's log has the details.",
            file=sys.stderr,
        )

    async def close_link(self) -> None:
        """After the app: the lobby link closes."""
        if self.lobby_link is not None:
            with contextlib.suppress(Exception):
                await self.lobby_link.close()


def play_at_club(link: str, peer: str) -> int:
    """`tictactoe club-session --link URL [--peer ADDRESS]`, what the club's door starts for a
    session (the player's secret in `CLUB_TOKEN`): the lobby at `link` and its tables, for the
    player at the address `peer`; the exit status."""
    import asyncio
    import os

    from tictactoe.club.lobby import CLUB_TOKEN
    from tictactoe.process import signals_stop, terminal_problem

    token = os.environ.pop(CLUB_TOKEN, "")
    problem = terminal_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    app = ClubApp(GameConfig(save=False), ClubSetup(link, token, peer))

    async def run() -> None:
        try:
            await app.run_async()
        finally:
            await app.close_link()

    with signals_stop(app.stop):
        asyncio.run(run())
    if app.farewell:
        print(app.farewell, file=sys.stderr)
    return app.return_code or 0
