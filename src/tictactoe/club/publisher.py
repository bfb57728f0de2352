"""What every lobby shows, and when it is sent (`Publisher`).

Each player's game keeps one lobby websocket: it is sent a `Snapshot` of the lobby after every
change (at once; the changes within `PUBLISH_AFTER` seconds after it, together), and only when
what it shows has changed. The club sends at most `lobby_rate` of them a second (a busy club's
lobbies, each drawing every change, would take the tables' share of the machine): past it, each
lobby in turn, except for a change in what it shows of its player (sent at once).

What a lobby shows of the record (each game's ladder, a player's rating in each game, recent
matches) is read in threads (`tictactoe.club.calls.Reads`) and shown as last read while it is
read again.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from tictactoe.club.calls import Reads
from tictactoe.club.lobbies import Lobby, Members, Own
from tictactoe.club.table import Table
from tictactoe.core.club import START, LadderRow, Rating, is_guest
from tictactoe.core.finished import CLASSIC_NAME, FinishedMatch
from tictactoe.core.ladder import ladder_after
from tictactoe.core.rules import VARIANTS
from tictactoe.doors.bounds import Bucket
from tictactoe.online.lobby import (
    MAX_LOBBY_MESSAGE,
    LadderLine,
    PastMatch,
    Snapshot,
    TableRow,
    You,
    lobby_json,
    shared_json,
    snapshot_json,
)
from tictactoe.record.club_store import ClubStore

if TYPE_CHECKING:
    from tictactoe.club.cluster import Cluster

__all__ = [
    "LOBBIES_BURST",
    "PUBLISH_AFTER",
    "Publisher",
    "lobby_pace",
    "lobby_rate",
]

log = logging.getLogger("tictactoe.online")

PUBLISH_AFTER: Final = 0.1
"""Seconds after the lobbies are told a change before they are told the next: a change is told
at once, and those that follow it within these seconds together, after them."""
LOBBY_DRAW: Final = 0.02
"""Seconds of CPU a player's game spends drawing a snapshot in its lobby in a busy club
(benchmarks/README.md, "A busy club")."""
LOBBIES_SHARE: Final = 0.25
"""The share of the machine's cores the lobbies' drawing may take in a busy club: the rest is
for the tables, whose moves must stay instant, the players' own screens, and the club. Less
keeps a busy club's moves faster and its lobbies further behind."""
LOBBIES_BURST: Final = 40.0
"""Seconds' worth of snapshots sent at once after a quiet while: a change in a quiet club
reaches every lobby at once."""
LADDER_SHOWN: Final = 20
RECENT_SHOWN: Final = 10
ROWS_SHOWN: Final = 200


def lobby_rate(cores: int) -> float:
    """How many snapshots the club sends its lobbies a second, on `cores` cores, unless its owner
    says (`--lobby-pace`): as many as the players' games can draw with the lobbies' share of the
    machine."""
    return max(1, cores) * LOBBIES_SHARE / LOBBY_DRAW


def lobby_pace(rate: float) -> Bucket:
    """The club's lobbies sent `rate` snapshots a second, in bursts of `LOBBIES_BURST` seconds'
    worth. A change in a quiet club reaches that many lobbies at once; in a busy one, once the
    burst is spent, each lobby owed a snapshot is sent one in turn, the changes meanwhile
    together, and the load of drawing them is spread over time instead of coming all at once."""
    return Bucket(rate, burst=rate * LOBBIES_BURST)


def machine_pace() -> Bucket:
    """`lobby_pace` at the `lobby_rate` of the cores this process may run on."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return lobby_pace(lobby_rate(cores or 1))


@dataclass(frozen=True)
class _Shared:
    """The part of the lobby every lobby shows alike, serialised once (`shared_json`)."""

    published: int
    """The change it was made after (`Publisher.published`)."""
    text: str
    waiting: dict[str, str]
    """The open table each opener waits at, by handle."""
    involved: frozenset[str]
    """Those a table is kept for (a rematch), and its openers: their lists differ."""


class Publisher:
    """Tells every lobby what the club is now: the tables (this process's `tables`, and the
    other processes' through `cluster`), the ladder and each player's own part."""

    def __init__(
        self,
        record: ClubStore,
        members: Members,
        tables: Mapping[str, Table],
        *,
        cluster: Cluster | None = None,
        pace: Bucket | None = None,
    ) -> None:
        self.record = record
        self.members = members
        self.tables = tables
        self.cluster = cluster
        self.pace = pace or machine_pace()
        """The snapshots sent to lobbies for others' changes, a second (`lobby_pace`)."""
        self.published = 0
        """Changes told to the lobbies so far: what `_shared` was made for."""
        self._changed = asyncio.Event()
        self._shared: _Shared | None = None
        # What a lobby shows is shown as last read while it is read again (`Reads.stale`): a
        # lobby is told of a new table without waiting for the ladder's reading.
        self.ladder: Reads[str, tuple[LadderRow, ...]] = Reads(self._read_ladder, self.changed)
        """Each game's ladder, by the variant's name."""
        self.ratings: Reads[tuple[str, str], Rating] = Reads(self._read_rating, self.changed)
        """Each player's rating in each game, by handle and the variant's name."""
        self.recent: Reads[str, tuple[PastMatch, ...]] = Reads(self._read_recent, self.changed)

    def changed(self) -> None:
        """Something every lobby shows has changed: a snapshot goes to each, soon."""
        self._changed.set()
        if self.cluster is not None:
            self.cluster.changed(self.tables.values())

    def forget_cached(self, handles: Iterable[str] | None = None) -> None:
        """A match was written (of `handles`; None: of anyone, or a notice may have been lost):
        every game's ladder, and their ratings and recent matches, are read again."""
        for game in VARIANTS:
            self.ladder.stale(game)
        if handles is None:
            self.ratings.stale_all()
            self.recent.stale_all()
        for handle in handles or ():
            for game in VARIANTS:
                self.ratings.stale((handle, game))
            self.recent.stale(handle)
        self.changed()

    def entered(self, handle: str, rating: Rating) -> None:
        """`handle` came in, with `rating` in classic as the door read it."""
        self.ratings.put((handle, CLASSIC_NAME), rating)

    def forget(self, handle: str) -> None:
        """`handle` has left the club: what was read of them alone goes."""
        for game in VARIANTS:
            self.ratings.forget((handle, game))
        self.recent.forget(handle)

    def written(
        self, players: tuple[str, str], match: FinishedMatch, ratings: tuple[Rating, Rating] | None
    ) -> None:
        """`match`, of `players`, was written, with their new `ratings` (None: unrated, or not
        written yet): the ladder of its game shown is worked out from them (`ladder_after`),
        read again only when it cannot be."""
        if ratings is not None:
            game = match.variant
            for handle, rating in zip(players, ratings, strict=True):
                self.ratings.put((handle, game), rating)
            ladder = self.ladder.known(game)
            after = None
            if ladder is not None:
                handles = (players[0].lower(), players[1].lower())
                after = ladder_after(ladder, LADDER_SHOWN, handles, ratings, match.winner)
            if after is None:
                self.ladder.stale(game)
            else:
                self.ladder.put(game, after)
        for handle in players:
            self.recent.stale(handle)
        self.changed()

    async def publish(self) -> None:
        """Run for the club's life: each change makes every lobby owed a snapshot."""
        while True:
            await self._changed.wait()
            self._changed.clear()
            self.published += 1
            for lobby in self.members.lobbies():
                lobby.owed()
            await asyncio.sleep(PUBLISH_AFTER)

    # What a lobby shows.

    def snapshot(self, handle: str, guest: bool) -> Snapshot:
        """The lobby as `handle` sees it now."""
        playing_rows, waiting = self._tables_by_state()
        open_rows: list[TableRow] = []
        waiting_at = waiting_for = offered_by = None
        for table in waiting:
            if table.opener == handle:
                waiting_at, waiting_for = table.id, table.kept_for
            elif table.kept_for == handle:
                offered_by = table.opener
            elif table.kept_for is not None:
                continue  # a rematch kept for someone else
            open_rows.append(self._open_row(table, rematch=table.kept_for == handle))
        self._add_elsewhere(open_rows, playing_rows)
        return Snapshot(
            You(
                handle, guest, self._ratings_of(handle, guest), waiting_at, waiting_for, offered_by
            ),
            open=tuple(open_rows[:ROWS_SHOWN]),
            playing=tuple(playing_rows[:ROWS_SHOWN]),
            ladder=self._ladder_lines(),
            recent=() if guest else (self.recent.get(handle) or ()),
        )

    def _tables_by_state(self) -> tuple[list[TableRow], list[Table]]:
        """This process's tables not ending: the rows of those in play, and those waiting for a
        sitter."""
        playing_rows, waiting = [], []
        for table in self.tables.values():
            if table.ending:
                continue
            if table.playing:
                playing_rows.append(self._playing_row(table))
            elif table.sitter is None:
                waiting.append(table)
        return playing_rows, waiting

    def _add_elsewhere(self, open_rows: list[TableRow], playing_rows: list[TableRow]) -> None:
        if self.cluster is not None:
            elsewhere_open, elsewhere_playing = self.cluster.rows()
            open_rows += elsewhere_open
            playing_rows += elsewhere_playing

    def _playing_row(self, table: Table) -> TableRow:
        series = table.authority.series
        assert series is not None
        wins = series.wins
        return TableRow(
            table.id,
            (table.opener, table.sitter or "?"),
            table.rated,
            table.matches,
            score=(wins[0], wins[1], series.draws),
            watchers=table.authority.watchers,
            variant=table.variant.name,
        )

    def _open_row(self, table: Table, *, rematch: bool) -> TableRow:
        game = table.variant.name
        rating = "" if is_guest(table.opener) else self.rating(table.opener, game)
        return TableRow(
            table.id,
            (table.opener,),
            table.rated,
            table.matches,
            rating,
            rematch=rematch,
            variant=game,
        )

    def _snapshot_text(self, handle: str, guest: bool, own: Own) -> str:
        """`lobby_json(self.snapshot(handle, guest))`, the same text, with the part every lobby
        shares (the tables, the ladder) made and serialised once a change (`_shared_part`): only
        a player's own part (`own`, from `_own_part`) is made for each lobby."""
        shared = self._shared_part()
        if handle in shared.involved:  # a rematch is offered to them, or by them: their own list
            return lobby_json(self.snapshot(handle, guest))
        you, recent = own
        return snapshot_json(you, recent, shared.text)

    def _own_part(self, handle: str, guest: bool) -> Own:
        """What `handle`'s lobby shows of the player alone: who, the rating, the table waited at
        or the rematch offered, the recent matches (a change in it is sent at once)."""
        shared = self._shared_part()
        if handle in shared.involved:
            snapshot = self.snapshot(handle, guest)
            return snapshot.you, snapshot.recent
        you = You(handle, guest, self._ratings_of(handle, guest), shared.waiting.get(handle))
        return you, () if guest else (self.recent.get(handle) or ())

    def _shared_part(self) -> _Shared:
        """What every lobby's snapshot shows alike, as of the last change told (made once)."""
        if self._shared is not None and self._shared.published == self.published:
            return self._shared
        playing_rows, tables = self._tables_by_state()
        open_rows: list[TableRow] = []
        waiting: dict[str, str] = {}
        involved: set[str] = set()
        for table in tables:
            if table.kept_for is not None:
                involved.update((table.opener, table.kept_for))
                continue
            waiting[table.opener] = table.id
            open_rows.append(self._open_row(table, rematch=False))
        self._add_elsewhere(open_rows, playing_rows)
        text = shared_json(
            tuple(open_rows[:ROWS_SHOWN]),
            tuple(playing_rows[:ROWS_SHOWN]),
            self._ladder_lines(),
        )
        self._shared = _Shared(self.published, text, waiting, frozenset(involved))
        return self._shared

    async def _read_for(self, handle: str, guest: bool) -> None:
        """Read what `handle`'s snapshot shows from the record (in threads), unless kept."""
        ratings = {
            (table.opener, table.variant.name)
            for table in self.tables.values()
            if table.sitter is None
        }
        if not guest:
            ratings.update((handle, game) for game in VARIANTS)
            await self.recent.load(handle)
        for each in ratings:
            await self.ratings.load(each)
        for game in VARIANTS:
            await self.ladder.load(game)

    def rating(self, handle: str, variant: str = CLASSIC_NAME) -> str:
        """`handle`'s rating in the game `variant` as shown, as read."""
        return (self.ratings.get((handle, variant)) or START).shown

    def _ratings_of(self, handle: str, guest: bool) -> tuple[tuple[str, str], ...]:
        """`handle`'s rating in each game as shown (none for a guest)."""
        return () if guest else tuple((game, self.rating(handle, game)) for game in VARIANTS)

    def _read_rating(self, key: tuple[str, str]) -> Rating:
        handle, game = key
        return self.record.rating(handle, game)

    def _read_ladder(self, game: str) -> tuple[LadderRow, ...]:
        return tuple(self.record.ladder(LADDER_SHOWN, game))

    def _ladder_lines(self) -> tuple[LadderLine, ...]:
        """Every game's ladder as a lobby shows it, as last read or worked out."""
        return tuple(
            LadderLine(
                row.rank,
                row.handle,
                row.rating.shown,
                row.matches,
                row.wins,
                row.draws,
                row.losses,
                game,
            )
            for game in VARIANTS
            for row in self.ladder.get(game) or ()
        )

    def _read_recent(self, handle: str) -> tuple[PastMatch, ...]:
        return tuple(
            PastMatch(match, rated)
            for match, rated in self.record.recent_rated(handle, RECENT_SHOWN)
        )

    # Sending.

    async def write(self, lobby: Lobby) -> None:
        """Send `lobby` its news in order, and the snapshot it is owed (as it is when sent), for
        as long as it is open."""
        try:
            while True:
                await lobby.wake.wait()
                lobby.wake.clear()
                while not lobby.outbox.empty():
                    news = lobby.outbox.get_nowait()
                    if news is None:
                        return
                    await lobby.ws.send_str(lobby_json(news))
                if lobby.stale and not lobby.closing:
                    await self._send_owed(lobby)
        except (ConnectionError, RuntimeError):
            pass
        finally:
            if lobby.due is not None:
                lobby.due.cancel()
            await lobby.ws.close()

    async def _send_owed(self, lobby: Lobby) -> None:
        """The snapshot `lobby` is owed, now if it is its turn or its player's own change, else
        at its turn (`pace`)."""
        member = lobby.member
        try:  # what the snapshot shows is read before any of it is made
            await self._read_for(member.handle, member.guest)
        except Exception as error:  # shown as far as it was read; said in the log
            log.warning("the club's record could not be read: %s", error)
        if lobby.closing:
            return
        own = self._own_part(member.handle, member.guest)
        if lobby.turn:
            lobby.turn = False
        elif own != lobby.own:
            pass  # the player's own change goes at once (its turn is kept)
        elif lobby.due is not None:
            return  # others' changes wait for this lobby's turn
        elif late := self.pace.take():
            lobby.due = asyncio.get_running_loop().call_later(late, lobby.take_turn)
            return
        lobby.stale = False
        text = self._snapshot_text(member.handle, member.guest, own)
        if text != lobby.shown and len(text.encode()) <= MAX_LOBBY_MESSAGE:
            lobby.shown, lobby.own = text, own
            await lobby.ws.send_str(text)
