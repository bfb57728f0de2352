"""The authority of an online series: who holds which seat, and the one place the series changes.

The host process keeps one `Authority`. Links (a seat's or a watcher's game process,
each known by an id the server gives it) join with a `Hello`; seat 0 is the host's,
claimed with the host's token; seat 1 is the first other name to come, then later
comers watch. The series is of the authority's variant, and only a game that plays it is
welcomed. Every intent is checked by the core, with the variant's rules, for the seat that sent
it (`Series.apply_as`); a stale one changes nothing. A seat whose link drops is away: the
series is paused until the same name comes back, for as long as the host waits.

Pure: no I/O, and the clock is injected, so every rule is tested without a network.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final, NamedTuple

from tictactoe.core.codes import normalise_code
from tictactoe.core.names import DEFAULT_NAMES, clean_name, name_key, short
from tictactoe.core.notices import Notice
from tictactoe.core.rules import CLASSIC, Variant
from tictactoe.core.seats import HOST_SEAT, act, acting_seat, check_hint
from tictactoe.core.series import FirstMove, Intent, NameClash, Series, SeriesError
from tictactoe.online.protocol import Away, Denied, Ended, Hello, Refused, State, Welcome

__all__ = [
    "HOST_SEAT",
    "MAX_WATCHERS",
    "Authority",
    "JoinDenied",
    "LinkId",
    "Stale",
    "WrongCode",
]

LinkId = int
"""How the server names a link: unique for the life of the authority."""

GUEST_SEAT: Final = 1

MAX_WATCHERS: Final = 32
"""Watchers one series takes; later comers are told so."""


class JoinDenied(Exception):
    """A hello refused; `denied` is the message the link is sent before it closes (`final` when
    no other name could be welcomed either: the game that asked ends)."""

    def __init__(self, text: str, *, final: bool = False) -> None:
        super().__init__(text)
        self.denied = Denied(text, final)


class WrongCode(JoinDenied):
    """A hello with a wrong code or a wrong host token: the doors count it against the address."""


class Stale(NamedTuple):
    """An intent made on another version than the current one: nothing changed, and the
    link is owed the current state."""

    version: int
    """The current version."""


@dataclass(slots=True)
class _Seat:
    """One seat: its player's name once taken, its link, and its deadline while away."""

    name: str | None
    link: LinkId | None = None
    deadline: float | None = None
    """Set while the seat's link is down: when its grace ends (the clock's time)."""
    grace_over: bool = False
    """Whether the end of the grace has been announced (a change of its own)."""


class Authority:
    """The one holder of an online series, between the host and a guest, with watchers."""

    def __init__(
        self,
        code: str,
        host: str,
        *,
        host_token: str,
        grace: float = 120.0,
        first_move: FirstMove = FirstMove.CHOOSER,
        opens: int = 0,
        variant: Variant = CLASSIC,
        max_watchers: int = MAX_WATCHERS,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self.code = code
        self.max_watchers = max_watchers
        """How many may watch at once; past that, a watcher is refused for good."""
        """The series' code, as `new_code` made it."""
        self.grace = grace
        """Seconds an away seat is waited for before the host is told the grace is over."""
        self.first_move = FirstMove(first_move)
        self.opens = opens
        """The seat that chooses the first match's mark (0, the host's, but in a rematch)."""
        self.variant = variant
        """The game of the series: a game that does not play it is not welcomed."""
        self._host_token = host_token
        self._clock = clock
        self._rng = rng or random.Random()
        self._seats = (_Seat(clean_name(host, DEFAULT_NAMES[HOST_SEAT])), _Seat(None))
        self._watchers: set[LinkId] = set()
        self._series: Series | None = None
        self._version = 0
        self._series_version = 0
        """The version at which the series itself last changed: an intent made on any
        version since then was made on the series as it stands."""
        self._notice = Notice()
        self._notice_hidden_from: int | None = None
        """The seat that caused the notice, which does not need to be told."""
        self._ended: Ended | None = None
        self._left: int | None = None

    # What the server reads.

    @property
    def series(self) -> Series | None:
        """The series; None until the guest has joined."""
        return self._series

    @property
    def version(self) -> int:
        """Grows by one on every change: an intent, a join, a drop, a return, a hint, an end."""
        return self._version

    @property
    def ended(self) -> Ended | None:
        """How the series ended, once it has."""
        return self._ended

    @property
    def left(self) -> int | None:
        """The seat whose leaving ended the series, when a seat's leaving did."""
        return self._left

    @property
    def everyone_away(self) -> bool:
        """Whether both seats are taken and both their links are down."""
        return all(seat.name is not None and seat.deadline is not None for seat in self._seats)

    @property
    def watchers(self) -> int:
        return len(self._watchers)

    @property
    def names(self) -> tuple[str, str | None]:
        """The host's name and the guest's (None until the guest has joined)."""
        host, guest = self._seats
        assert host.name is not None
        return host.name, guest.name

    @property
    def paused(self) -> bool:
        """Whether a seat is away: nobody may act until it is back."""
        return any(seat.deadline is not None for seat in self._seats)

    @property
    def away(self) -> Away | None:
        """The first seat that is away, with the grace it has left (0 once over)."""
        for index, seat in enumerate(self._seats):
            if seat.deadline is not None and seat.name is not None:
                left = max(0.0, seat.deadline - self._clock())
                return Away(index, seat.name, left)
        return None

    def seat_of(self, link: LinkId) -> int | None:
        """The seat `link` holds, or None (a watcher, or a stranger)."""
        for index, seat in enumerate(self._seats):
            if seat.link == link:
                return index
        return None

    def knows(self, link: LinkId) -> bool:
        """Whether `link` has joined (as a seat or a watcher) and not gone."""
        return link in self._watchers or self.seat_of(link) is not None

    def state_for(self, link: LinkId | None = None) -> State:
        """The state as `link` is shown it (None: as the host's process sees it)."""
        seat = None if link is None else self.seat_of(link)
        hidden = seat is not None and seat == self._notice_hidden_from
        return State(
            version=self._version,
            series=self._series,
            names=self.names,
            watchers=len(self._watchers),
            away=self.away,
            notice=Notice() if hidden else self._notice,
        )

    # Joining and going.

    def join(self, hello: Hello, link: LinkId) -> Welcome:
        """Seat or watch `link`, or raise `JoinDenied` (`WrongCode` for a wrong code or token).

        The host's token claims seat 0; the first other name takes seat 1; the name of
        an away seat takes that seat back where it was; anyone else watches.
        """
        if self._ended is not None:
            raise JoinDenied(f"This series has ended: {self._ended.text}", final=True)
        if normalise_code(hello.code) != self.code:
            raise WrongCode("That is not the code of this series.")
        if self.knows(link):
            raise JoinDenied("This link has joined already.")
        if not hello.plays(self.variant.name):
            raise JoinDenied(
                f"This series is {self.variant.title} tic-tac-toe, which this game cannot play:"
                " join with the same version of tictactoe as the host.",
                final=True,
            )
        welcome = self._seat(hello, link)
        return replace(welcome, variant=self.variant.name, protocol=hello.protocol)

    def _seat(self, hello: Hello, link: LinkId) -> Welcome:
        """Seat or watch `link`, whose game plays this series' game (see `join`)."""
        if hello.host_token is not None:
            return self._join_host(hello.host_token, link)
        host, guest = self._seats
        if guest.name is None:
            assert host.name is not None
            name = clean_name(hello.name, DEFAULT_NAMES[GUEST_SEAT])
            try:
                self._series = Series.new(
                    host.name, name, self.first_move, self.opens, self.variant
                )
            except NameClash:  # the core's rule, said to the one who joins
                raise JoinDenied(
                    f"{short(host.name)} is playing already: choose another name."
                ) from None
            guest.name, guest.link = name, link
            self._changed(Notice.of(f"{short(name)} joined the series."), GUEST_SEAT)
            self._series_version = self._version
            return Welcome("seat", GUEST_SEAT)
        name = clean_name(hello.name, DEFAULT_NAMES[GUEST_SEAT])
        if guest.deadline is not None and name_key(name) == name_key(guest.name):
            self._back(GUEST_SEAT, link)
            return Welcome("seat", GUEST_SEAT)
        if name_key(name) == name_key(host.name or ""):
            raise JoinDenied(f"{short(name)} is hosting this series: choose another name.")
        if name_key(name) == name_key(guest.name):
            # A link that died without a word (a laptop closed) is noticed only by the
            # keepalives; the player coming back meanwhile is told, not made a watcher.
            raise JoinDenied(
                f"{short(guest.name)} is still connected: if that is you, try again in half"
                " a minute, once the old connection has been noticed gone."
            )
        if len(self._watchers) >= self.max_watchers:
            raise JoinDenied("This series has all the watchers it can take.", final=True)
        self._watchers.add(link)
        self._changed()
        return Welcome("watcher", None)

    def is_host_token(self, token: str) -> bool:
        """Whether `token` is the host's, compared in constant time."""
        return secrets.compare_digest(token.encode(), self._host_token.encode())

    def _join_host(self, token: str, link: LinkId) -> Welcome:
        if not self.is_host_token(token):
            raise WrongCode("That is not the host's token.")
        host = self._seats[HOST_SEAT]
        if host.link is not None:
            raise JoinDenied("The host's seat is taken.")
        if host.deadline is not None:
            self._back(HOST_SEAT, link)
        else:
            host.link = link
            self._changed()
        return Welcome("seat", HOST_SEAT)

    def _back(self, index: int, link: LinkId) -> None:
        seat = self._seats[index]
        assert seat.name is not None
        seat.link, seat.deadline, seat.grace_over = link, None, False
        self._changed(Notice.of(f"{short(seat.name)} is back."), index)

    def drop(self, link: LinkId) -> bool:
        """`link` closed without leaving: a seat is away for the grace time, a watcher goes.
        Whether anything changed (after the end, nothing does)."""
        if self._ended is not None:
            self._watchers.discard(link)
            return False
        if link in self._watchers:
            self._watchers.discard(link)
            self._changed()
            return True
        index = self.seat_of(link)
        if index is None:
            return False
        seat = self._seats[index]
        seat.link, seat.deadline, seat.grace_over = None, self._clock() + self.grace, False
        self._changed()
        return True

    def leave(self, link: LinkId) -> Ended | None:
        """`link` leaves: a seat ends the series for everyone (returned), a watcher just goes."""
        index = self.seat_of(link)
        if index is None:
            self.drop(link)
            return None
        name = self._seats[index].name
        assert name is not None
        self._seats[index].link = None
        if self._ended is None:
            self._left = index
        return self.end(f"{short(name)} left the series.")

    def end(self, text: str) -> Ended:
        """The series ends, with `text` saying why (the host quit, a seat left)."""
        if self._ended is None:
            self._ended = Ended(text, self._series)
            self._changed(Notice.of(text))
        return self._ended

    def tick(self) -> bool:
        """Called by the clock's owner from time to time: whether an away seat's grace has
        just run out (a change to tell everyone, once)."""
        now = self._clock()
        changed = False
        for seat in self._seats:
            if seat.deadline is not None and not seat.grace_over and now >= seat.deadline:
                seat.grace_over = changed = True
        if changed:
            self._changed()
        return changed

    # Acting.

    def act(self, link: LinkId, version: int, intent: Intent) -> Series | Refused | Stale:
        """Apply `intent` from `link`, made on `version`: the new series, a refusal in words,
        or `Stale` (nothing changed) when the series has changed since `version` (a watcher
        coming or a hint asked for in between change the version, not the series)."""
        refusal = self._refusal(link)
        if refusal is not None:
            return refusal
        if not self._series_version <= version <= self._version:
            return Stale(self._version)
        assert self._series is not None
        try:
            series = act(
                self._series, self.seat_of(link), intent, away=self._away_name, rng=self._rng
            )
        except SeriesError as error:
            return Refused(error.notice)
        self._series = series
        self._changed()
        self._series_version = self._version
        return series

    def hint(self, link: LinkId) -> Notice | Refused:
        """The seat to move asks for a hint (its own process finds it): the notice the
        other seat and the watchers are shown, or a refusal."""
        refusal = self._refusal(link)
        if refusal is not None:
            return refusal
        seat = self.seat_of(link)
        assert seat is not None and self._series is not None
        try:
            check_hint(self._series, seat, away=self._away_name)
        except SeriesError as error:
            return Refused(error.notice)
        name = self._series.players[seat].name
        notice = Notice.of(f"{short(name)} asked for a hint.")
        self._changed(notice, seat)
        return notice

    def _refusal(self, link: LinkId) -> Refused | None:
        """Why `link` may not act at all now, or None: the core says what its seat (or a
        watcher) may do once the link has a place in a series."""
        if self._ended is not None:
            return Refused(Notice.of("This series has ended:", self._ended.text))
        if link not in self._watchers and self.seat_of(link) is None:
            return Refused(Notice.of("Join the series first."))
        if self._series is None:
            return Refused(Notice.of("Wait for your friend to join."))
        try:
            acting_seat(self.seat_of(link), away=self._away_name)
        except SeriesError as error:
            return Refused(error.notice)
        return None

    @property
    def _away_name(self) -> str | None:
        away = self.away
        return None if away is None else away.name

    def _changed(self, notice: Notice | None = None, hidden_from: int | None = None) -> None:
        self._version += 1
        self._notice = notice or Notice()
        self._notice_hidden_from = hidden_from
