"""The host's seat of a series online, line by line: `tictactoe host --plain` (or a dumb
terminal).

The doors open as they open for the full-screen host (`tictactoe.host.hosting.Hosting`); the
invitation is said as plain lines, and `i` says it again. The host's seat reaches the authority
in this process, as the full-screen host's does, and plays through the seat's lines
(`tictactoe.lines.online.SeatLines`). Every finished match goes into the game record; `q`
ends the series for everyone, and the doors close telling them why.
"""

from __future__ import annotations

import asyncio
from typing import Final, TextIO

from tictactoe.config import GameConfig
from tictactoe.core.names import DEFAULT_NAMES, clean_name, short
from tictactoe.core.series import Series
from tictactoe.host.hosting import HostConfig, Hosting
from tictactoe.host.invitation import Invitation
from tictactoe.lines.online import SeatLines
from tictactoe.lines.play import UNSAVED, plain_streams
from tictactoe.link.client import LinkDenied
from tictactoe.online.protocol import Hello
from tictactoe.play.seat_table import SeatTable
from tictactoe.process import signals_stop
from tictactoe.record import GameRecord
from tictactoe.report import tell_the_end

__all__ = ["host_lines"]

CANNOT_OPEN: Final = 1
"""The exit status when the doors could not open (said in a sentence)."""


def host_lines(
    config: GameConfig, host: HostConfig, source: TextIO | None = None, out: TextIO | None = None
) -> int:
    """Host a series with `host`'s doors, line by line; the exit status."""
    session = _Hosting(config, host, *plain_streams(source, out))
    with signals_stop(session.stop):
        return asyncio.run(session.run())


class _Hosting(SeatLines):
    def __init__(self, config: GameConfig, host: HostConfig, source: TextIO, out: TextIO):
        super().__init__(config, source, out)
        self.host = host
        self.record = GameRecord(config.record_path(), legacy=config.legacy_path())
        self._recorded = 0
        self._invitation: Invitation | None = None

    async def run(self) -> int:
        self.start_reading()
        name = self.config.player1
        if name is None:
            name = await self.ask_name(f"Your name (Enter: {DEFAULT_NAMES[0]}):", DEFAULT_NAMES[0])
        if name is None:
            return self.status or 0
        name = clean_name(name, DEFAULT_NAMES[0])
        try:
            hosting = await Hosting(name, self.host).start()
        except OSError as error:
            self.say(f"The doors cannot open: {error.strerror or error}.")
            return CANNOT_OPEN
        hosting.invitation_changed = self._invitation_changed
        self._invitation = hosting.invitation
        series: Series | None = None
        farewell = ""
        try:
            self.say(f"Your series' code: {hosting.code}")
            self.invite()
            self.say("Waiting for a friend to join. i: the invitation again. q: stop hosting.")
            hello = Hello(hosting.code, name, "127.0.0.1", host_token=hosting.host_token)
            try:
                link = hosting.server.open_local(hello)
            except LinkDenied as denied:
                farewell = str(denied)
            else:
                series, farewell = await self.play_seat(link, invite=self.invite)
        finally:
            others = "The host's game was stopped: the series has ended." if self.status else ""
            await hosting.stop(others or f"{short(name)} ended the series.")
        if series is not None:
            self._keep(series)
        self.record.finish()
        tell_the_end(series, farewell, self.record.unsaved, self.record.path)
        if self.status:
            return self.status
        return UNSAVED if self.record.unsaved else 0

    def invite(self) -> None:
        """Say the invitation: how a friend joins."""
        if self._invitation is not None:
            self.say(self._invitation.text())

    def _invitation_changed(self, invitation: Invitation) -> None:
        """The relay's line came, moved or went: said at once, a friend may need the new one."""
        self._invitation = invitation
        if invitation.relay_notice:
            self.say(invitation.relay_notice)
        elif invitation.relay is not None:
            self.say(f"The relay's line is now {invitation.first_line} (i says the invitation).")

    def typed(self, table: SeatTable) -> None:
        self._keep(table.series)

    def _keep(self, series: Series) -> None:
        """Hand each finished match not handed yet to the record (a match of a game the record
        keeps: as the full screen does)."""
        for finished in series.finished[self._recorded :]:
            if series.recorded:
                self.record.queue(finished)
            self._recorded += 1
