"""One seat (or a watcher) of a series that lives in the host's authority, as a game screen's table.

The table holds this seat's link to the authority (`SeatLink`): what the core says is not this
seat's to give (`tictactoe.core.seats`) is refused at once, the rest is sent on the link in the
order given; what the authority sends back on it (a state, a refusal, who is away and for how
long, the end) is shown as it is. This table keeps no rule of its own, and no clock: the grace of a
dropped link is counted by the authority alone, which sends the time left anew as it counts; how
long a refusal stays on show is its screen's timer (`View.after`).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Final, Protocol

from tictactoe.core.notices import Notice
from tictactoe.core.seats import act, away_notice, check_hint, chooses_now
from tictactoe.core.series import Intent, Series, SeriesError
from tictactoe.link.client import LinkError
from tictactoe.online.protocol import (
    Act,
    AskHint,
    Away,
    ClientMessage,
    Ended,
    Refused,
    State,
    Welcome,
)
from tictactoe.play.table import Leaving, Table

__all__ = ["REFUSAL_SHOWN", "SeatLink", "SeatTable"]

REFUSAL_SHOWN: Final = 2.0
"""Seconds a refusal stays on a seat's status line before the count of a dropped link's grace,
as the authority sends it, takes its place again."""

LEAVE_WITHIN: Final = 1.0
"""Seconds to tell the authority that this seat leaves, before leaving anyway."""


class SeatLink(Protocol):
    """A seat's link to the authority: a friend's over its websocket (`AuthorityLink`), the
    host's in the authority's own process (`HostLink`). Iterating over it gives what the
    authority sends, until it closes."""

    @property
    def welcome(self) -> Welcome:
        """The seat the link holds, or that it watches."""

    async def act(self, version: int, intent: Intent) -> None: ...

    async def ask_hint(self) -> None: ...

    async def leave(self) -> None: ...

    async def close(self) -> None:
        """Close the link without leaving: this seat is then away."""

    def __aiter__(self) -> AsyncIterator[State | Refused | Ended]: ...


class SeatTable(Table):
    """One seat (or a watcher) of a series the host's authority holds, through its link."""

    def __init__(
        self,
        series: Series,
        link: SeatLink,
        *,
        invite: Callable[[], None] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        super().__init__(series)
        self.link = link
        """This seat's link to the authority: the table reads it and sends on it."""
        seat = link.welcome.seat
        self.terms = ""
        """What the seat's player is told of the table's terms, beside "online" (the club's
        leaving rule)."""
        self.seat = seat
        """This screen's seat (0 the host, 1 the guest), or None for a watcher."""
        self.watching = seat is None
        self.can_invite = invite is not None
        self.version = 0
        """The version of the state shown: an intent says which state it was meant for."""
        self.away: Away | None = None
        """The seat whose link dropped, while the series waits for it."""
        self.rng = rng or random.Random()
        self._outbox: asyncio.Queue[ClientMessage] = asyncio.Queue()
        """What this seat sends, in the order given, until the link takes it."""
        self._first: State | None = None
        """The state that seated this table (`seated`), shown first when it plays."""
        self._invite = invite
        self._refusal_on_show: Callable[[], None] | None = None
        """Cancels the timer of the refusal on show, while it is: the count of a grace waits."""
        self._said = Notice()
        """The last notice the authority gave with a state."""
        self._given = 0
        """How many intents and hint requests this seat has sent."""
        self._answered_upto = 0
        """How many of them the authority has answered (`State.answered`, and each refusal)."""
        self._answered = asyncio.Event()
        self._answered.set()
        self._kept: deque[Intent] = deque()
        """Intents given while an answer was awaited, in order, for once it has come."""

    @classmethod
    async def seated(
        cls,
        link: SeatLink,
        *,
        invite: Callable[[], None] | None = None,
        rng: random.Random | None = None,
    ) -> SeatTable | Ended | None:
        """Read `link` until there is a series to play (the host waits for a friend, a watcher
        for the second seat): the table of this seat for it, or how the series ended before
        one began (None: the link closed)."""
        async for message in link:
            match message:
                case State(series=Series() as series):
                    table = cls(series, link, invite=invite, rng=rng)
                    table._first = message
                    return table
                case Ended():
                    return message
        return None

    async def play(self) -> Ended | None:
        """Show the state that seated this table, then each the authority sends, while what this
        seat gives goes out on the link in the order given; until the series ends: how (None:
        the link closed)."""
        async with asyncio.TaskGroup() as group:
            sending = group.create_task(self._send_all())
            ended = await self._read()
            sending.cancel()
        return ended

    async def _read(self) -> Ended | None:
        if self._first is not None:
            self.receive(self._first)
        try:
            async for message in self.link:
                match message:
                    case State(series=None):
                        pass  # not for a series on show
                    case State():
                        self.receive(message)
                        self._answers(message.answered)
                    case Refused(notice=notice):
                        self.refused(notice)
                        self._answers(self._answered_upto + 1)
                    case Ended():
                        return message
            return None
        finally:
            self._answered_upto = self._given
            self._kept.clear()
            self._answered.set()

    @property
    def _unanswered(self) -> int:
        return self._given - self._answered_upto

    def _sent(self, message: ClientMessage) -> None:
        self._given += 1
        self._answered.clear()
        self._outbox.put_nowait(message)

    def _answers(self, upto: int) -> None:
        """The authority has answered this seat's first `upto` intents and hint requests:
        once it has answered them all, what was kept meanwhile is given, in order."""
        self._answered_upto = max(self._answered_upto, min(upto, self._given))
        if not self._unanswered:
            self._give_kept()
        if not self._unanswered:
            self._answered.set()

    async def answered(self) -> None:
        """Once the authority has answered all this seat has sent (or the link has closed): a
        line view hands the next line typed to a table that shows what the last one did."""
        await self._answered.wait()

    async def _send_all(self) -> None:
        while True:
            message = await self._outbox.get()
            try:
                match message:
                    case Act(version=version, intent=intent):
                        await self.link.act(version, intent)
                    case AskHint():
                        await self.link.ask_hint()
            except LinkError:
                return

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
        parts = ["online", f"{watchers} watching" if watchers else "", self.terms]
        return " · ".join(part for part in parts if part)

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
        """Send `intent` to the authority, unless the core already says it is not ours. While
        the authority has yet to answer what this seat sent, an intent the core refuses is
        kept (type-ahead, as a local table keeps keys while the computer thinks), and so is
        every one after it: once answered, they are checked in order, each on the series the
        authority answered with, and a refusal then is said."""
        if self._kept:
            self._kept.append(intent)
            return None
        refusal = self._give(intent)
        if refusal is not None and self._unanswered:
            self._kept.append(intent)
            return None
        return refusal

    def _give(self, intent: Intent) -> SeriesError | None:
        try:
            act(self.series, self.seat, intent, away=self._away_name, rng=self.rng)
        except SeriesError as refusal:
            return refusal
        self.view.say(Notice())
        self._sent(Act(self.version, intent))
        return None

    def _give_kept(self) -> None:
        """The intents kept while an answer was awaited, until one is awaited again."""
        while self._kept and not self._unanswered:
            refusal = self._give(self._kept.popleft())
            if refusal is not None:
                self.view.say(self.view.explain(refusal))

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
        self._sent(AskHint())

    def acts_for(self, seat: int) -> bool:
        """Only for its own seat: the other is at a screen of its own."""
        return seat == self.seat

    def next_step(self) -> None:
        """The mark dialog opens only on the chooser's own screen; nobody else waits on it."""
        if chooses_now(self.series, self.seat, away=self._away_name):
            self.view.want_mark()

    async def leave(self) -> Leaving:
        """Leave the series: a seat ends it for both, a watcher just goes. The host's seat (the
        one that invites) says nothing on its link: its doors close after the app, telling
        everyone why (`OnlineApp.close_link`)."""
        if self._invite is None:
            with contextlib.suppress(LinkError, TimeoutError):
                await asyncio.wait_for(self.link.leave(), LEAVE_WITHIN)
        said = "You stopped watching." if self.watching else "You ended the series."
        return Leaving(self.series, said)

    def invite(self) -> None:
        if self._invite is not None:
            self._invite()
