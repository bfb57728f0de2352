"""One seat (or a watcher) of a series that lives in the host's authority, as a game screen's table.

What the core says is not this seat's to give (`tictactoe.core.seats`) is refused at once, the rest
is sent to the authority; what the authority sends back (a state, a refusal, who is away and for
how long) is shown as it is. This table keeps no rule of its own, and no clock: the grace of a
dropped link is counted by the authority alone, which sends the time left anew as it counts; how
long a refusal stays on show is its screen's timer (`View.after`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from tictactoe.core.notices import Notice
from tictactoe.core.seats import act, away_notice, check_hint, chooses_now
from tictactoe.core.series import Intent, Series, SeriesError
from tictactoe.online.protocol import Act, AskHint, Away, ClientMessage, State
from tictactoe.tui.table import Table

if TYPE_CHECKING:
    from textual.app import App

__all__ = ["REFUSAL_SHOWN", "SeatTable"]

REFUSAL_SHOWN: Final = 2.0
"""Seconds a refusal stays on a seat's status line before the count of a dropped link's grace,
as the authority sends it, takes its place again."""


class SeatTable(Table):
    """One seat (or a watcher) of a series the host's authority holds."""

    def __init__(
        self,
        series: Series,
        *,
        seat: int | None,
        send: Callable[[ClientMessage], None],
        invite: Callable[[], None] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        super().__init__(series)
        self.seat = seat
        """This screen's seat (0 the host, 1 the guest), or None for a watcher."""
        self.watching = seat is None
        self.can_invite = invite is not None
        self.version = 0
        """The version of the state shown: an intent says which state it was meant for."""
        self.away: Away | None = None
        """The seat whose link dropped, while the series waits for it."""
        self.rng = rng or random.Random()
        self._send = send
        self._invite = invite
        self._refusal_on_show: Callable[[], None] | None = None
        """Cancels the timer of the refusal on show, while it is: the count of a grace waits."""
        self._said = Notice()
        """The last notice the authority gave with a state."""

    def receive(self, state: State) -> None:
        """A new state from the authority: shown as it is."""
        self.version = state.version
        self.away = state.away
        self.view.set_subtitle(self._subtitle(state.watchers))
        if state.notice or self._said:
            self._said = state.notice
            self.view.say(state.notice)
        if state.series is not None and state.series != self.series:
            self.show(state.series, state.notice)
        self._show_away()

    def _subtitle(self, watchers: int) -> str:
        if self.seat is None:
            return "watching"
        return f"online · {watchers} watching" if watchers else "online"

    def refused(self, notice: Notice) -> None:
        """Say why an intent was refused; while a seat is away, the count of its grace that
        the authority sends takes its place again `REFUSAL_SHOWN` seconds later."""
        self.view.say(notice)
        if self._refusal_on_show is not None:
            self._refusal_on_show()
        self._refusal_on_show = self.view.after(REFUSAL_SHOWN, self._refusal_gone)

    def _refusal_gone(self) -> None:
        self._refusal_on_show = None

    def _show_away(self) -> None:
        """While a seat's link is down, the notice is its grace as the authority counts it
        (the authority sends it anew as it counts), unless a refusal is on show."""
        away = self.away
        if away is None or self._refusal_on_show is not None:
            return
        self.view.say(away_notice(away.name, away.seconds_left, seat=self.seat))

    def act(self, intent: Intent) -> SeriesError | None:
        """Send `intent` to the authority, unless the core already says it is not ours."""
        try:
            act(self.series, self.seat, intent, away=self._away_name, rng=self.rng)
        except SeriesError as refusal:
            return refusal
        self.view.say(Notice())
        self._send(Act(self.version, intent))
        return None

    @property
    def _away_name(self) -> str | None:
        return None if self.away is None else self.away.name

    def check_hint(self) -> SeriesError | None:
        """A hint is for this seat's own turn."""
        try:
            check_hint(self.series, self.seat, away=self._away_name)
        except SeriesError as refusal:
            return refusal
        return None

    def hinted(self) -> None:
        """The other screens are told a hint was asked for."""
        self._send(AskHint())

    def next_step(self) -> None:
        """The mark dialog opens only on the chooser's own screen; nobody else waits on it."""
        if chooses_now(self.series, self.seat, away=self._away_name):
            self.view.want_mark()

    def quit(self, app: App[object]) -> None:
        """The dialog's Quit leaves the series, as `q` does."""
        app.call_later(app.action_quit)

    def invite(self) -> None:
        if self._invite is not None:
            self._invite()
