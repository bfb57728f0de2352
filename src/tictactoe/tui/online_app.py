"""The app of one seat in an online series: the host's (`tictactoe host`) or a friend's
(`tictactoe join`, what the doors run for each SSH session and browser tab).

It joins, and hands the link to the authority to this seat's table (`SeatTable`) once there is a
series to show: the table reads it and sends on it; the app puts the game screen up, and ends
when the table says the series has. The host's app also opens the doors once the host's name is
known, and closes them when the session ends (`tictactoe.host.hosting`).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import RenderableType

from tictactoe.config import GameConfig
from tictactoe.core.names import DEFAULT_NAMES, clean_name, short
from tictactoe.core.series import Series
from tictactoe.host.invitation import Invitation
from tictactoe.link.client import AuthorityLink, LinkDenied, LinkError
from tictactoe.online.protocol import Hello
from tictactoe.play.joining import JOIN_WITHIN, NOBODY_JOINED, JoinSetup
from tictactoe.play.seat_table import SeatLink, SeatTable
from tictactoe.tui.app import TicTacToeApp, write_crash_log
from tictactoe.tui.screens.game import GameScreen
from tictactoe.tui.screens.online import InvitationScreen, JoinScreen

if TYPE_CHECKING:
    from tictactoe.host.hosting import Hosting

__all__ = ["OnlineApp"]


class OnlineApp(TicTacToeApp):
    """Tic-tac-toe with a friend elsewhere: the series lives in the host's authority."""

    def __init__(self, config: GameConfig, setup: JoinSetup) -> None:
        super().__init__(config)
        self.setup = setup
        self.hosting: Hosting | None = None
        """The doors and the authority, in the host's app once they are open."""
        self.link: SeatLink | None = None
        self.farewell = ""
        """The sentence that ended the series, printed before the final score."""
        self.seat: SeatTable | None = None
        """This seat's table, once there is a series to show."""
        self._ended = False

    # Joining.

    def begin(self) -> None:
        """Ask the name (and the code, when the door did not carry it), then join."""
        hosting = self.setup.host is not None
        if not hosting:
            self.set_timer(JOIN_WITHIN, self._nobody_joined)
        name = self.config.player1
        self.push_screen(
            JoinScreen(
                self._connect,
                code="" if hosting else self.setup.code,
                name=name,
                hosting=hosting,
            ),
            self._joined,
        )

    async def _connect(self, code: str, name: str) -> str | None:
        """Join with `code` and `name`: None once joined, else the reason in a sentence. The
        host's seat links to the authority in this process; a friend's, over its websocket."""
        name = clean_name(name, DEFAULT_NAMES[0])
        try:
            if self.setup.host is not None:
                if self.hosting is None:
                    try:
                        self.hosting = await self.setup.host(name)
                    except OSError as error:
                        return f"The doors cannot open: {error.strerror or error}."
                    self.hosting.invitation_changed = self._invitation_changed
                hosting = self.hosting
                hello = Hello(hosting.code, name, self.setup.peer, host_token=hosting.host_token)
                self.link = hosting.server.open_local(hello)
                return None
            hello = Hello(code, name, self.setup.peer, door_key=self.setup.door_key)
            self.link = await AuthorityLink.open(self.setup.link_url, hello)
        except LinkDenied as denied:
            if denied.final:  # no name would do: the game ends, saying why (a door hangs up)
                self._gone(str(denied))
            return str(denied)
        except LinkError:
            return "The host's game cannot be reached: it may have ended."
        return None

    def _nobody_joined(self) -> None:
        if self.link is None:
            self._gone(NOBODY_JOINED)

    def _gone(self, text: str) -> None:
        """This game ends before it joined, saying `text`."""
        if not self._ended:
            self._ended = True
            self.farewell = text
            self.exit(None)

    def _joined(self, joined: bool | None) -> None:
        if not joined or self.link is None:
            self.exit(None)
            return
        self.run_worker(self._sit(self.link), name="link", exclusive=True)
        if self.hosting is not None:
            self.push_screen(InvitationScreen(self.invitation))

    @property
    def invitation(self) -> Invitation:
        assert self.hosting is not None
        return self.hosting.invitation

    def _invitation_changed(self, invitation: Invitation) -> None:
        """The relay's line came, moved or went: every invitation shown shows it; elsewhere, the
        host is told in a notification (a friend cut off with the relay needs the new line)."""
        shown = [screen for screen in self.screen_stack if isinstance(screen, InvitationScreen)]
        for screen in shown:
            screen.show(invitation)
        if not isinstance(self.screen, InvitationScreen) and self.link is not None:
            text = invitation.relay_notice or (
                f"The relay's line is now {invitation.first_line} (i shows the invitation)."
                if invitation.relay is not None
                else ""
            )
            if text:
                self.notify(text, title="Relay", markup=False, timeout=8)

    # At the table.

    async def _sit(self, link: SeatLink) -> None:
        """Once the link brings a series (the host's invitation stays up until a friend joins),
        its table plays it on the game screen, until the series ends."""
        invite = self.action_invite if self.hosting is not None else None
        seated = await SeatTable.seated(link, invite=invite)
        if isinstance(seated, SeatTable):
            self.seat = seated
            game = GameScreen(seated, layout=self.key_layout)
            self.series = seated.series
            if isinstance(self.screen, InvitationScreen):
                await self.switch_screen(game)
            else:
                await self.push_screen(game)
            seated = await seated.play()
        if seated is None:
            self._end("The link to the host's game was lost: the series has ended.", None)
        else:
            self._end(seated.text, seated.series)

    def _end(self, text: str, series: Series | None) -> None:
        """The series is over for everyone: say why, print the score, leave."""
        if self._ended:
            return
        self._ended = True
        self.farewell = text
        game = self.game_screen
        self.exit(series or (game.series if game else self.series))

    # Leaving.

    async def action_quit(self) -> None:
        """Leave the series through this seat's table: it ends for both players (the host's
        doors close after); the table says what is printed. Before there is a series, there
        is nothing to leave: the link closes after the app (`close_link`)."""
        if self._ended:
            return  # the series has ended already: its farewell stands
        self._ended = True
        if self.seat is None:
            self.exit(None)
            return
        leaving = await self.seat.leave()
        self.farewell = leaving.farewell
        self.exit(leaving.series)

    def report_crash(self, details: Sequence[RenderableType]) -> None:
        """A friend's game runs on the host's machine: its details go to the host's log, and
        the friend reads that the game stopped, never a path on a disk that is not theirs."""
        if self.setup.host is not None:
            super().report_crash(details)
            return
        write_crash_log(details)
        print(
            "The game stopped after an unexpected error on the host's machine;"
            " the host's log has the details.",
            file=sys.stderr,
        )

    def action_invite(self) -> None:
        """The host shows the invitation again (for someone else to watch)."""
        if self.hosting is not None and not isinstance(self.screen, InvitationScreen):
            self.push_screen(InvitationScreen(self.invitation, waiting=False))

    async def close_link(self) -> None:
        """After the app: the link closes; the host's doors close with a sentence for all."""
        if self.link is not None:
            with contextlib.suppress(Exception):
                await self.link.close()
        if self.hosting is not None:
            host = short(self.hosting.host_name)
            await self.hosting.stop(self.farewell_for_others or f"{host} ended the series.")

    @property
    def farewell_for_others(self) -> str:
        """What the others read when the host's app ends for a reason of its own."""
        if self.return_code and self.return_code >= 128:
            return "The host's game was stopped: the series has ended."
        return ""
