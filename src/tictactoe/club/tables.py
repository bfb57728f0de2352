"""The club's tables (`Tables`): opening, sitting, quick pair, watching, taking one's table back,
rematches, and what becomes of a table's matches.

- every finished match is written, with both ratings when rated, in one transaction
  (`ClubStore.finish`), in the order they finish (`InOrder`), and every lobby is told; a table of
  N matches ends after the Nth;
- leaving a match once both players have moved (`q`, a closed `ssh`, a ban, the grace running
  out) is the leaver's loss; before that it is aborted (`tictactoe.core.club.loses_by_leaving`);
  both seats away past the grace abort it;
- a table plays one game (`Variant`): its series is of that game, its rated matches move that
  game's ladder, and quick pair seats a player only at a table of the game they asked for;
- after a series, either player may offer the other a rematch (`Rematch`): a table like the last
  (the same game, rated or not, the same length), kept for the other, who takes it with the
  same ask; the offer lapses when the other leaves the club or goes to another table; whoever
  did not choose first last time chooses first.

Who may sit, quick pair and which tables are rated are `tictactoe.core.club_tables`' rules.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import secrets
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Final

from tictactoe.club.calls import InOrder
from tictactoe.club.guidance import SEATED_ELSEWHERE, unrated_pair
from tictactoe.club.lobbies import Lobby, Members
from tictactoe.club.publisher import Publisher
from tictactoe.club.table import Table
from tictactoe.core.club import BOTH_AWAY, START, left_text, loses_by_leaving
from tictactoe.core.club_tables import (
    NOT_OPEN,
    WAITING_ALREADY,
    pair_with,
    rated_table,
    rematch_opens,
    sit_refusal,
)
from tictactoe.core.codes import new_code
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.rules import CLASSIC, Variant
from tictactoe.core.series import Series
from tictactoe.doors.throttle import Throttle
from tictactoe.link.served import AuthorityLinks
from tictactoe.link.server import LinkServer
from tictactoe.online.authority import Authority
from tictactoe.online.lobby import GoTo, Said
from tictactoe.online.protocol import State
from tictactoe.record.club_store import ClubStore

if TYPE_CHECKING:
    from tictactoe.club.cluster import Cluster

__all__ = ["ENDED_TABLE_KEPT", "Tables"]

log = logging.getLogger("tictactoe.online")

ENDED_TABLE_KEPT: Final = 1.0
"""Seconds an ended table's authority stays up for its last words to reach its links."""

_Last = tuple[str, bool, int | None, str, Variant]
"""A player's last series with both seats taken: the other, rated, its length, who chose first,
its game."""


class Tables:
    """This process's tables, by id (`by_id`), and what the lobbies ask of them."""

    def __init__(
        self,
        record: ClubStore,
        members: Members,
        publisher: Publisher,
        *,
        grace: float,
        clock: Callable[[], float],
        spawn: Callable[[Coroutine[Any, Any, Any]], None],
        cluster: Cluster | None = None,
        by_id: dict[str, Table] | None = None,
        links: LinkServer,
    ) -> None:
        self.record = record
        self.members = members
        self.publisher = publisher
        self.grace = grace
        """Seconds a seat whose link dropped is kept for its player."""
        self.clock = clock
        self.spawn = spawn
        self.cluster = cluster
        self.links = links
        """The server every table is served by, a path each (started by the club)."""
        self.by_id: dict[str, Table] = {} if by_id is None else by_id
        """The tables by id (shared with the publisher, which shows them)."""
        self.writes = InOrder()
        """Finished matches being written, in the order they finished."""
        self._ids = itertools.count(1)
        self._opening: set[str] = set()
        """Handles whose table is being opened."""
        self._last: dict[str, _Last] = {}

    def changed(self) -> None:
        self.publisher.changed()

    def forget(self, handle: str) -> None:
        """`handle` has left the club: no rematch is offered to their last opponent."""
        self._last.pop(handle, None)

    async def stop(self, text: str) -> None:
        """Every table ends with `text`, and every finished match is written."""
        await asyncio.gather(*(table.server.stop(text) for table in self.by_id.values()))
        await self.writes.drain()  # nothing finished is lost

    def busy(self, handle: str) -> str | None:
        """Why `handle` may not open or sit at a table now, or None."""
        if handle in self._opening:
            return WAITING_ALREADY
        for table in self.by_id.values():
            if table.ending:
                continue
            if table.opener == handle and not table.playing:
                return WAITING_ALREADY
            if handle in table.players:
                return SEATED_ELSEWHERE
        return None if self.cluster is None else self.cluster.busy(handle)

    def goto(self, table: Table, handle: str | None) -> GoTo:
        """What `handle` (None: a watcher) says hello with at `table`."""
        return table.goto(handle, table.server.url)

    # What a lobby asks.

    async def open(
        self,
        lobby: Lobby,
        *,
        rated: bool,
        matches: int | None,
        kept_for: str | None = None,
        opens: int = 0,
        variant: Variant = CLASSIC,
    ) -> None:
        """Open a table of the game `variant` for `lobby`'s player (a rematch kept for
        `kept_for`, its first mark chosen by seat `opens`), and send them to it."""
        handle = lobby.member.handle
        busy = self.busy(handle)
        if busy is not None:
            lobby.send(Said(busy))
            return
        number = next(self._ids)
        table_id = str(number) if self.cluster is None else self.cluster.table_id(number)
        code, host_token, door_key = (
            new_code(),
            secrets.token_urlsafe(24),
            secrets.token_urlsafe(24),
        )
        authority = Authority(
            code, handle, host_token=host_token, grace=self.grace, opens=opens, variant=variant
        )
        server = AuthorityLinks(authority, Throttle(), door_key=door_key)
        rated = rated_table(rated, lobby.member.guest)
        table = Table(table_id, handle, rated, matches, server, host_token, door_key)
        table.kept_for = kept_for
        server.on_change = lambda state: self._table_changed(table, state)
        self._opening.add(handle)  # one table waiting, however many lobbies ask
        try:
            self.links.serve(server, table_id)
            refused = None
            if self.cluster is not None:  # one table a handle, club-wide
                refused = await self.cluster.register(table, lobby.member.guest)
        finally:
            self._opening.discard(handle)
        if refused is not None:
            table.ending = True
            await server.stop(refused)
            lobby.send(Said(refused))
            return
        self.by_id[table_id] = table
        self._lapse(handle, f"{handle} opened a table: the rematch offer lapsed.")
        lobby.send(self.goto(table, handle))
        self.changed()

    def sit(self, lobby: Lobby, table: Table | None) -> None:
        handle, guest = lobby.member.handle, lobby.member.guest
        if table is None or not table.waiting:
            lobby.send(Said(NOT_OPEN))
            return
        refused = sit_refusal(handle, table.opener, table.kept_for) or self.busy(handle)
        if refused is None and self.cluster is not None:
            refused = self.cluster.claim(table.id, handle, guest)
        if refused is not None:
            lobby.send(Said(refused))
            return
        table.sitter = handle
        table.rated = rated_table(table.rated, guest)
        self._lapse(handle, f"{handle} sat at another table: the rematch offer lapsed.")
        lobby.send(self.goto(table, handle))
        self.changed()

    async def pair(self, lobby: Lobby, variant: Variant = CLASSIC) -> None:
        """Quick pair in the game `variant`: sit at the closest waiting table of it
        (`pair_with`), or open one."""
        member, game = lobby.member, variant.name
        ratings = self.publisher.ratings
        mine = await ratings.load((member.handle, game))
        candidates = [
            table
            for table in self.by_id.values()
            if table.waiting
            and table.opener != member.handle
            and table.kept_for is None
            and table.variant == variant
        ]
        for opener in {table.opener for table in candidates}:
            await ratings.load((opener, game))
        waiting = [
            (table, ratings.get((table.opener, game)) or START, table.rated)
            for table in candidates
            if table.waiting  # still, after the reads
        ]
        table, unlike = pair_with(mine, member.guest, waiting)
        if table is None:
            await self.open(lobby, rated=True, matches=None, variant=variant)
            lobby.send(Said("Nobody is waiting: your table is open."))
            return
        self.sit(lobby, table)
        if unlike and table.sitter == member.handle:
            lobby.send(Said(unrated_pair(table.opener)))

    def watch(self, lobby: Lobby, table: Table | None) -> None:
        if table is None or table.ending or not table.playing:
            lobby.send(Said("That table is not in play."))
            return
        lobby.send(self.goto(table, None))

    async def close_own(self, handle: str) -> None:
        """`handle`'s open table, nobody at it yet, closes."""
        for table in list(self.by_id.values()):
            if table.opener == handle and table.waiting:
                table.ending = True
                await table.server.stop("The table was closed.")
                self.by_id.pop(table.id, None)
                self.changed()

    def gone(self, handle: str) -> None:
        """`handle` has no lobby left: a table of theirs nobody sat at closes, and so does a
        rematch kept for them."""
        if not self.members.present(handle):
            self.spawn(self.close_own(handle))
            self._lapse(handle, f"{handle} left the club: the rematch offer lapsed.")

    async def rematch(self, lobby: Lobby) -> None:
        """Take the rematch offered to this player, or offer one to their last opponent."""
        member = lobby.member
        for table in self.by_id.values():
            if table.kept_for == member.handle and table.waiting:
                self.sit(lobby, table)
                return
        last = self._last.get(member.handle)
        if last is None:
            lobby.send(Said("There is nobody to offer a rematch to: play a series first."))
            return
        other, rated, matches, chose_first, game = last
        if not self.members.present(other):
            lobby.send(Said(f"{other} is not in the club now."))
        elif self.busy(other) is not None:
            lobby.send(Said(f"{other} is at a table now."))
        else:
            opens = rematch_opens(chose_first, member.handle)
            await self.open(
                lobby, rated=rated, matches=matches, kept_for=other, opens=opens, variant=game
            )

    def _lapse(self, handle: str, text: str) -> None:
        """Rematches kept for `handle` close, their openers told `text`."""
        for table in list(self.by_id.values()):
            if table.kept_for == handle and table.waiting:
                table.ending = True
                self.by_id.pop(table.id, None)
                self.spawn(table.server.stop(text))
                self.changed()

    def seat_back(self, lobby: Lobby, *, tell: bool = False) -> bool:
        """A player whose seat is away (a dropped link) is sent back to it; one whose seat is
        held by another of their sessions is told so (`SEATED_ELSEWHERE`) when `tell`. Whether
        sent back."""
        handle = lobby.member.handle
        for table in self.by_id.values():
            away = table.authority.away
            if not table.ending and away is not None and away.name == handle:
                lobby.send(self.goto(table, handle))
                return True
        goto = None if self.cluster is None else self.cluster.seat_back(handle)
        if goto is not None:
            lobby.send(goto)
        elif tell and any(
            table.playing and not table.ending and handle in table.players
            for table in self.by_id.values()
        ):
            lobby.send(Said(SEATED_ELSEWHERE))
        return goto is not None

    def banned(self, handles: dict[str, float]) -> None:
        """The players `handles` are banned: a match of theirs in play is left (`_forfeit`)."""
        for table in list(self.by_id.values()):
            series = table.authority.series
            for seat, handle in enumerate(table.players):
                if handle in handles and series is not None and not table.ending:
                    self._forfeit(table, series, seat)
                    self._end(table, f"{handle} was banned: the series is over.")

    def players(self) -> set[str]:
        """The handles at this process's tables."""
        return {each for table in self.by_id.values() for each in table.players if each}

    # What becomes of a table.

    def _table_changed(self, table: Table, state: State) -> None:
        series = state.series
        if series is not None:
            for finished in series.finished[table.recorded :]:
                self._finished(table, finished)
                table.recorded += 1
            if table.matches is not None and len(series.finished) >= table.matches:
                played = "1 match" if table.matches == 1 else f"{table.matches} matches"
                self._end(table, f"The series of {played} is over.")
        away = table.authority.away
        if series is not None and away is not None and away.seconds_left <= 0:
            if table.authority.everyone_away:  # nobody's loss: the match in play is aborted
                self._end(table, BOTH_AWAY)
            else:
                self._forfeit(table, series, away.seat)
                self._end(table, f"{away.name} did not come back in time: the series is over.")
        if table.authority.ended is not None:
            left = table.authority.left
            if series is not None and left is not None:
                self._forfeit(table, series, left)
            self._end(table, table.authority.ended.text)
        shown = table.shown()
        if shown != table.told:  # a move alone changes nothing a lobby shows
            table.told = shown
            self.changed()

    def _forfeit(self, table: Table, series: Series, seat: int) -> None:
        """The seat `seat` left the match in play (`q`, a ban, its grace run out): its loss once
        both players have moved (`loses_by_leaving`), else aborted; both players are told which.
        Nothing is written for a table already ending (a match is lost once)."""
        match, marks = series.match, series.marks
        if table.ending or match is None or marks is None or match.is_over:
            return
        lost = loses_by_leaving(len(match.moves), match.is_over)
        names = (table.opener, table.sitter or "?")
        told = left_text(names[seat], names[1 - seat], lost)
        for handle in names:
            self.members.tell(handle, told)
        if not lost:
            return
        left = FinishedMatch.of(
            series.players, match, marks, winner=1 - seat, variant=series.variant.name
        )
        self._finished(table, left)

    def _finished(self, table: Table, match: FinishedMatch) -> None:
        """Write `match` (in a thread, after those finished before it); then every lobby is
        told."""
        players = (table.opener, table.sitter or "")
        finish = functools.partial(
            self.record.finish, table.id, players, table.rated, match, self.clock()
        )
        self.writes.call(finish, functools.partial(self.publisher.written, players, match))

    def _end(self, table: Table, text: str) -> None:
        if table.ending:
            return
        table.ending = True
        if table.sitter is not None:  # either may offer the other a rematch
            log.info("table %s of %s and %s ended: %s", table.id, table.opener, table.sitter, text)
            chose_first = table.players[table.authority.opens] or table.opener
            last = (table.rated, table.matches, chose_first, table.variant)
            self._last[table.opener] = (table.sitter, *last)
            self._last[table.sitter] = (table.opener, *last)

        async def end() -> None:
            await table.server.stop(text)
            await asyncio.sleep(ENDED_TABLE_KEPT)
            self.by_id.pop(table.id, None)
            self.changed()

        self.spawn(end())
