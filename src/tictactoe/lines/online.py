"""A friend's seat, or a watcher, of a series online, line by line: `tictactoe join --plain`,
which a door starts for `ssh -t -p PORT CODE@HOST plain` (or a dumb terminal).

It is the line view (`tictactoe.lines.view`) at a seat's table (`SeatTable`): the name is asked
a line at a time, the link to the host's authority is opened as the full-screen seat opens it,
and each state the authority sends is said the moment it lands, while the lines typed go out
in the order typed. `q` leaves (a seat ends the series for both, a watcher just goes); the
farewell and the final score are printed as the full-screen seat prints them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Final, TextIO

from tictactoe.config import GameConfig
from tictactoe.core.keys import KeyLayout
from tictactoe.core.names import DEFAULT_NAMES
from tictactoe.core.series import Series
from tictactoe.lines.play import LineSession, plain_streams
from tictactoe.lines.view import LineView
from tictactoe.link.client import AuthorityLink, LinkDenied, LinkError
from tictactoe.online.protocol import Ended, Hello
from tictactoe.play.joining import JOIN_WITHIN, NOBODY_JOINED, JoinSetup
from tictactoe.play.seat_table import SeatLink, SeatTable
from tictactoe.process import signals_stop
from tictactoe.report import tell_the_end

__all__ = ["SeatLines", "join_lines"]

UNREACHABLE: Final = "The host's game cannot be reached: it may have ended."
LOST: Final = "The link to the host's game was lost: the series has ended."

ANSWER_WITHIN: Final = 5.0
"""Seconds a line typed waits for the authority's answer to the one before (lines act in the
order typed, each on the series as the one before left it)."""

CODE_HELP: Final = (
    "The code the host gave you: in the line ssh -p PORT CODE@HOST, the CODE.",
    "Ctrl-D or Ctrl-C leaves.",
)
"""What `?` says at the question for the series' code."""

WAIT_SAID_AFTER: Final = 0.5
"""Seconds without a series to show before saying that the series has yet to begin."""


def join_lines(
    config: GameConfig, setup: JoinSetup, source: TextIO | None = None, out: TextIO | None = None
) -> int:
    """Join the series `setup` reaches, line by line; the exit status."""
    session = _Joining(config, setup, *plain_streams(source, out))
    with signals_stop(session.stop):
        return asyncio.run(session.run())


class SeatLines(LineSession):
    """A seat's (or a watcher's) lines at a series in an authority: `play_seat`."""

    def __init__(self, config: GameConfig, source: TextIO, out: TextIO) -> None:
        super().__init__(source, out)
        self.config = config

    def typed(self, table: SeatTable) -> None:
        """A line of the person's has been handed to the table's view."""

    async def play_seat(
        self, link: SeatLink, *, invite: Callable[[], None] | None = None
    ) -> tuple[Series | None, str]:
        """Follow (and play) the series until it ends or the person leaves (`q`, or the end of
        input): the series as it ended, and the sentence that ended it. A signal (the terminal
        hung up) leaves nothing: the link just drops, and the seat may be taken back. With
        `invite`, `i` shows the invitation."""
        waiting = asyncio.ensure_future(SeatTable.seated(link, invite=invite))
        done, _ = await asyncio.wait({waiting}, timeout=WAIT_SAID_AFTER)
        if not done and invite is None:
            self.say("Waiting for the series to begin.")
        held: list[str] = []  # typed before there was a series: played once there is
        while not waiting.done():
            reading = asyncio.ensure_future(self.line())
            await asyncio.wait({waiting, reading}, return_when=asyncio.FIRST_COMPLETED)
            if not reading.done():
                reading.cancel()
                continue
            line = reading.result()
            if line is None or line.strip().lower() == "q":  # left before the series began
                waiting.cancel()
                return None, ""
            if line.strip().lower() == "i" and invite is not None:
                invite()
            else:
                held.append(line)
        seated = waiting.result()
        if seated is None:
            return None, LOST
        if isinstance(seated, Ended):
            return seated.series, seated.text
        table = seated
        view = LineView(table, self.out, self.config.keys or KeyLayout.NUMPAD, self.stop)
        table.attach(view)
        view.start(table.series)
        for line in held:
            view.read(line)
        playing = asyncio.ensure_future(table.play())
        typing = asyncio.ensure_future(self._typed(view, table))
        await asyncio.wait({playing, typing}, return_when=asyncio.FIRST_COMPLETED)
        if playing.done():
            typing.cancel()
            ended = playing.result()
            if ended is None:
                return table.series, LOST
            return ended.series or table.series, ended.text
        hung_up = bool(self.status)  # a signal: the terminal has gone, not the person
        leaving = None if hung_up else await table.leave()
        playing.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await playing
        if leaving is None:  # the link drops as the full-screen seat's does: it may come back
            return table.series, ""
        return leaving.series, leaving.farewell

    async def _typed(self, view: LineView, table: SeatTable) -> None:
        """Each line typed, to the view in the order typed, until `q` or the end of input."""
        while (line := await self.line()) is not None:
            view.read(line)
            self.typed(table)
            with contextlib.suppress(TimeoutError):  # never held for long by a silent host
                await asyncio.wait_for(table.answered(), ANSWER_WITHIN)


class _Joining(SeatLines):
    def __init__(self, config: GameConfig, setup: JoinSetup, source: TextIO, out: TextIO):
        super().__init__(config, source, out)
        self.setup = setup

    async def run(self) -> int:
        self.start_reading()
        series: Series | None = None
        try:
            link = await asyncio.wait_for(self._link(), JOIN_WITHIN)
        except TimeoutError:
            link, farewell = None, NOBODY_JOINED
        if isinstance(link, AuthorityLink):
            try:
                series, farewell = await self.play_seat(link)
            finally:
                with contextlib.suppress(Exception):
                    await link.close()
        elif link is not None:
            farewell = link
        tell_the_end(series, farewell, 0, None)
        return self.status or 0

    async def _link(self) -> AuthorityLink | str | None:
        """The link, once the authority welcomed it; else the sentence that ends the game
        (None: the person left first)."""
        code = self.setup.code
        while code is None:
            typed = await self.ask("The series' code:", CODE_HELP)
            if typed is None:
                return None
            code = typed.strip() or None
        while True:
            name = await self.ask_name(f"Your name (Enter: {DEFAULT_NAMES[1]}):", DEFAULT_NAMES[1])
            if name is None:
                return None
            hello = Hello(code, name, self.setup.peer, door_key=self.setup.door_key)
            try:
                return await AuthorityLink.open(self.setup.link_url, hello)
            except LinkDenied as denied:
                if denied.final:
                    return str(denied)
                self.say(str(denied))
            except LinkError:
                return UNREACHABLE
