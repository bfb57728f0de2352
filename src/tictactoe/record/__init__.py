"""The game record: every finished match, kept in a SQLite database.

One row a match (when, both players, their marks, who moved first, the moves in
order, the result), written in one transaction each. Lifetime totals are not a
second copy kept by this code: the `totals` table is kept by triggers inside the
database, in the same transaction as each match, so it always agrees with
`matches` (plus the totals imported from an old stats.json, which had no matches).

Where each rule lives:

- `schema`: the tables, `MIGRATIONS` and `SCHEMA_VERSION`, and which files are ours;
- `store`: `GameRecord`, which has each match written, keeps what could not be
  written, and moves a damaged file aside;
- `writing`: one match's row, and the writer thread that writes matches beside play;
- `opening`: the connections to the file (the game's, and the record screen's), and
  how a file is told from one put in its place;
- `upkeep`: what runs beside play (the integrity check, checkpoints, the import of
  an old stats.json);
- `queries`: what the record screen reads (totals, head to head, recent matches);
- `match`: a match's row written and read back (`MatchRecord` is the core's `FinishedMatch`);
- `database`: the SQLite calls the others share;
- `club_store`: `ClubStore`, what a club asks of its store, and `open_club_store` (SQLite, or
  PostgreSQL when asked);
- `club_sql`: `SqlClubStore`, the club's store with every rule once (the door, keys, bans,
  matches and ratings, the queue of matches not written yet), over `club_door`, `club_keys`
  and `club_matches` (the SQL, written once) and `club_dialects` (where the databases differ);
- `club`: `ClubRecord`, a club's store in its own SQLite file (`club_schema`);
- `club_pg`: `PostgresClubRecord`, a club's store in PostgreSQL, shared by several processes
  (`club_schema_pg`, and `pg_cutter` for connections that stop answering).

Names read back are untrusted: each passes through `clean_name`. The record speaks
to the player only through notices (`GameRecord.take_notices`); it never raises for
the file's sake, and it imports nothing from Textual. How players and results read
in words is `tictactoe.core.labels`.
"""

import importlib
from typing import TYPE_CHECKING, Any, Final

from tictactoe.record.paths import (
    RECORD_NAME,
    default_legacy_path,
    default_record_path,
    path_problem,
)

if TYPE_CHECKING:
    from tictactoe.record.club import ClubRecord
    from tictactoe.record.match import MatchRecord
    from tictactoe.record.queries import HeadToHead, PlayerSort, PlayerTotals
    from tictactoe.record.schema import MIGRATIONS, SCHEMA_VERSION
    from tictactoe.record.store import GameRecord

_LOADED_WHEN_USED: Final = {
    "ClubRecord": "club",
    "GameRecord": "store",
    "HeadToHead": "queries",
    "MatchRecord": "match",
    "MIGRATIONS": "schema",
    "PlayerSort": "queries",
    "PlayerTotals": "queries",
    "SCHEMA_VERSION": "schema",
}
"""Names whose modules bring SQLite: loaded when first used, so that the paths, which the game
reads at start, come without them."""


def __getattr__(name: str) -> Any:
    module = _LOADED_WHEN_USED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


__all__ = [
    "MIGRATIONS",
    "RECORD_NAME",
    "SCHEMA_VERSION",
    "ClubRecord",
    "GameRecord",
    "HeadToHead",
    "MatchRecord",
    "PlayerSort",
    "PlayerTotals",
    "default_legacy_path",
    "default_record_path",
    "path_problem",
]
