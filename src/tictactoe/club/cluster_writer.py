"""This process's tables in the registry of a club of several processes (`RegistryWriter`).

After every change of this process's tables, one writer brings the registry to what they are:
only what changed is written, a table ended is taken out, and what the registry lost (its
process taken for dead, an outage) is written again. What the registry holds of a table is its
players and its state (`state`): where its authority answers, with which code and door key, and
what the lobbies show of it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable

from tictactoe.club.cluster_tables import LocalTable
from tictactoe.club.registry_pg import ClubTable, TableRegistry
from tictactoe.core.club import is_guest
from tictactoe.record.club_sql import ClubUnavailable

__all__ = ["RegistryWriter"]

_Wanted = dict[str, tuple[tuple[str, ...], str, LocalTable]]


class RegistryWriter:
    """Writes this process's tables (`local`) to the registry whenever `dirty` is set."""

    def __init__(
        self,
        registry: TableRegistry,
        process: str,
        *,
        clock: Callable[[], float],
        rating: Callable[[str, str], str],
    ) -> None:
        self.registry = registry
        self.process = process
        self.clock = clock
        self.rating = rating
        """How a handle's rating in a game is shown, for an open table's row."""
        self.local: dict[str, LocalTable] = {}
        """This process's live tables, by id."""
        self.written: dict[str, tuple[tuple[str, ...], str]] = {}
        """What the registry holds of this process's tables (players, state), as written; only
        the writer changes it (`rewrite` and `ended` say what it should first forget)."""
        self.rewrite: set[str] = set()
        """Tables the registry lost (taken for dead, or an outage): written again."""
        self.rewrite_all = False
        self.ended: set[str] = set()
        """Tables of this process still in the registry though ended: taken out."""
        self.registering: set[str] = set()
        """Tables of this process being registered as they open (not yet in `local`)."""
        self.dirty = asyncio.Event()

    def state(self, table: LocalTable) -> str:
        """What the registry holds of `table` beside its players."""
        authority = table.authority
        series = authority.series
        wins = series.wins if series is not None else (0, 0)
        away = authority.away
        return json.dumps(
            {
                "url": table.server.url,
                "code": authority.code,
                "key": table.door_key,
                "rating": self.rating(table.opener, table.variant.name),
                "playing": series is not None,
                "score": [wins[0], wins[1], series.draws if series is not None else 0],
                "watchers": authority.watchers,
                "away": None if away is None else away.name,
            },
            sort_keys=True,
        )

    def row(self, table: LocalTable, players: tuple[str, ...], state: str) -> ClubTable:
        beat = self.clock()
        return ClubTable(
            table.id,
            self.process,
            table.opener,
            table.rated,
            table.matches,
            players,
            state,
            beat,
            table.variant.name,
        )

    def write_all(self) -> None:
        """Everything is written again (the registry took this process for dead, or was away)."""
        self.rewrite_all = True
        self.dirty.set()

    def mine(self, rows: Iterable[ClubTable]) -> None:
        """The registry's rows of this process's tables, as just read: a seat taken through
        another process is this table's sitter; a table the registry lost is written again, one
        ended that it still holds is taken out."""
        mine: set[str] = set()
        for row in rows:
            mine.add(row.id)
            table = self.local.get(row.id)
            if table is not None and table.sitter is None and len(row.players) == 2:
                table.sitter = row.players[1]
                if is_guest(table.sitter):
                    table.rated = False
                self.dirty.set()
        lost = set(self.written.copy()) - mine  # taken out meanwhile (thought dead)
        ended = mine - set(self.local) - self.registering
        if lost or ended:
            self.rewrite |= lost
            self.ended |= ended
            self.dirty.set()

    async def run(self, up: Callable[[], bool], away: Callable[[], None]) -> None:
        """After every change, bring the registry to what this process's tables are (while the
        database answers: `up`; `away` is told when it does not)."""
        while True:
            await self.dirty.wait()
            self.dirty.clear()
            if not up():
                continue
            if self.rewrite_all:
                self.written.clear()
                self.rewrite_all = False
            for table_id in self.rewrite:
                self.written.pop(table_id, None)
            for table_id in self.ended:
                self.written.setdefault(table_id, ((), ""))
            self.rewrite, self.ended = set(), set()
            wanted: _Wanted = {
                table.id: (
                    (table.opener,) if table.sitter is None else (table.opener, table.sitter),
                    self.state(table),
                    table,
                )
                for table in self.local.values()
            }
            try:
                await asyncio.to_thread(self._put, wanted)
            except ClubUnavailable:
                away()

    def _put(self, wanted: _Wanted) -> None:
        for table_id in [table_id for table_id in self.written if table_id not in wanted]:
            self.registry.remove_table(table_id)
            del self.written[table_id]
        for table_id, (players, state, table) in wanted.items():
            written = self.written.get(table_id)
            if written == (players, state):
                continue
            if written is None or not self.registry.update_table(
                table_id,
                players=players if len(players) > len(written[0]) else None,
                state=state,
                heartbeat=self.clock(),
            ):
                self.registry.register_table(self.row(table, players, state))
            self.written[table_id] = (players, state)
