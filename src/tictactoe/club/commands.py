"""The club owner's commands: `tictactoe club ladder | ban | unban | players | keys | unkey`
(`migrate` is `tictactoe.club.migrate`'s). `ladder` prints one game's ladder (`--variant`,
classic unless told).

Each opens the club's file (`--data DIR`, as the running club does) beside the running club,
which sees a ban at once; each prints plain text in aligned columns (or `--json`), names made
safe by the record. Exit status 0; 2 for bad arguments (refused by `tictactoe.options`: never
argparse's usage block), an unknown handle or a folder that holds no club, each said in one
sentence.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Final

from rich.cells import cell_len

from tictactoe.core.club import until_text
from tictactoe.core.rules import VARIANTS
from tictactoe.record.club import ClubUnavailable, UnknownHandle, club_path
from tictactoe.record.club_store import ClubStore, database_of, open_club_store

__all__ = ["run_command"]

PROG: Final = "tictactoe club"


def run_command(args: argparse.Namespace) -> int:
    """One owner's command (`args.owner`, its arguments read by `tictactoe.options`); the exit
    status."""
    if args.owner == "migrate":
        from tictactoe.club.migrate import run_migrate

        return run_migrate(args.database, args.data)
    path = club_path(args.data)
    if database_of(args.database) is None and not path.is_file():
        where = path.parent
        print(f"{PROG}: there is no club in {where} (no {path.name} there).", file=sys.stderr)
        return 2
    try:
        record = open_club_store(args.data, args.database)
    except ClubUnavailable as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    try:
        for notice in record.take_notices():
            print(notice, file=sys.stderr)
        if args.owner == "ladder":
            _ladder(record, args.variant, as_json=args.json)
        elif args.owner == "players":
            _players(record, as_json=args.json)
        elif args.owner == "keys":
            _keys(record, args.handle, as_json=args.json)
        elif args.owner == "unkey":
            return _unkey(record, args.handle, args.fingerprint, as_json=args.json)
        elif args.owner == "ban":
            until = None if args.length is None else time.time() + args.length
            record.ban(args.handle, until)
            print(f"{args.handle.lower()} is banned {until_text(until or float('inf'))}.")
        else:
            lifted = record.unban(args.handle)
            handle = args.handle.lower()
            print(f"{handle} may come in again." if lifted else f"{handle} was not banned.")
    except (UnknownHandle, ClubUnavailable) as error:  # PostgreSQL out of reach mid-command
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    finally:
        record.close()
    return 0


def _ladder(record: ClubStore, game: str, *, as_json: bool) -> None:
    rows = record.ladder(1_000_000, game)
    if as_json:
        print(
            json.dumps(
                [
                    {
                        "rank": row.rank,
                        "handle": row.handle,
                        "rating": row.rating.shown,
                        "points": row.rating.points,
                        "mu": row.rating.mu,
                        "sigma": row.rating.sigma,
                        "matches": row.matches,
                        "wins": row.wins,
                        "draws": row.draws,
                        "losses": row.losses,
                    }
                    for row in rows
                ],
                indent=2,
            )
        )
        return
    if not rows:
        print(f"Nobody has played a rated {VARIANTS[game].title} match yet.")
        return
    _print_table(
        ("Rank", "Handle", "Rating", "Matches", "Wins", "Draws", "Losses"),
        [
            (
                str(row.rank),
                row.handle,
                row.rating.shown,
                str(row.matches),
                str(row.wins),
                str(row.draws),
                str(row.losses),
            )
            for row in rows
        ],
        right=frozenset({0, 3, 4, 5, 6}),
    )


def _players(record: ClubStore, *, as_json: bool) -> None:
    rows = record.players()
    if as_json:
        print(
            json.dumps(
                [
                    {
                        "handle": row.handle,
                        "fingerprints": list(row.fingerprints),
                        "last_seen": _when(row.last_seen),
                    }
                    for row in rows
                ],
                indent=2,
            )
        )
        return
    if not rows:
        print("Nobody has claimed a handle yet.")
        return
    lines: list[tuple[str, ...]] = []
    for row in rows:
        fingerprints = row.fingerprints or ("",)
        lines.append((row.handle, _when(row.last_seen), fingerprints[0]))
        lines.extend(("", "", more) for more in fingerprints[1:])
    _print_table(("Handle", "Last seen", "Keys"), lines)


def _keys(record: ClubStore, handle: str, *, as_json: bool) -> None:
    rows = record.keys(handle)
    if as_json:
        print(
            json.dumps(
                [
                    {"type": row.type, "fingerprint": row.fingerprint, "added": _when(row.added_at)}
                    for row in rows
                ],
                indent=2,
            )
        )
        return
    if not rows:
        print(f"No key signs in as {handle.lower()}.")
        return
    _print_table(
        ("Fingerprint", "Type", "Added"),
        [(row.fingerprint, row.type, _when(row.added_at)) for row in rows],
    )


def _unkey(record: ClubStore, handle: str, fingerprint: str, *, as_json: bool) -> int:
    """Remove the key; 0, or 2 when the handle holds no such key."""
    own = handle.lower()
    removed = record.remove_key(own, fingerprint)
    if as_json:
        print(json.dumps({"handle": own, "fingerprint": fingerprint, "removed": removed}))
    elif removed:
        print(f"The key {fingerprint} no longer signs in as {own}.")
    else:
        print(
            f"{PROG}: {own} holds no key {fingerprint} ({PROG} keys lists them).", file=sys.stderr
        )
    return 0 if removed else 2


def _when(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _print_table(
    heading: tuple[str, ...], rows: Sequence[tuple[str, ...]], right: frozenset[int] = frozenset()
) -> None:
    """Aligned columns, two spaces apart, counted in terminal cells; no trailing spaces."""
    widths = [
        max(cell_len(line[column]) for line in (heading, *rows)) for column in range(len(heading))
    ]
    for line in (heading, *rows):
        cells = []
        for column, text in enumerate(line):
            pad = " " * (widths[column] - cell_len(text))
            cells.append(pad + text if column in right else text + pad)
        print("  ".join(cells).rstrip())
