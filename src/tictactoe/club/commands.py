"""The club owner's commands: `tictactoe club ladder | ban | unban | players | keys | unkey`.

Each opens the club's file (`--data DIR`, as the running club does) beside the running club,
which sees a ban at once; each prints plain text in aligned columns (or `--json`), names made
safe by the record. Exit status 0; 2 for bad arguments (`tictactoe.club.arguments`: never
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
from pathlib import Path
from typing import Final

from rich.cells import cell_len

from tictactoe.club.arguments import BadArguments, OwnerParser, unknown
from tictactoe.core.club import BadDuration, duration_of, until_text
from tictactoe.record.club import ClubUnavailable, UnknownHandle, club_path
from tictactoe.record.club_store import ClubStore, database_of, open_club_store

__all__ = ["COMMANDS", "run_command"]

COMMANDS: Final = ("ladder", "ban", "unban", "players", "keys", "unkey", "migrate")
"""The owner's commands, the word after `tictactoe club`."""

PROG: Final = "tictactoe club"

WORDS: Final = {
    "HANDLE": "the handle",
    "FINGERPRINT": "the key's fingerprint (SHA256:…, as `tictactoe club keys` prints it)",
    "LENGTH": "a length of time, such as 30m, 1h or 2d",
    "DIR": "the club's folder",
    "DSN": "the club's database, postgresql://USER@HOST:PORT/DB",
}
"""What each argument's metavar stands for, in the sentence refusing it."""


def _length(text: str) -> float:
    try:
        return duration_of(text)
    except BadDuration as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _parser() -> OwnerParser:
    parser = OwnerParser(
        prog=PROG, description="The club owner's commands.", allow_abbrev=False, words=WORDS
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    data = OwnerParser(add_help=False, words=WORDS)
    data.add_argument(
        "--data",
        type=Path,
        default=None,
        metavar="DIR",
        help="the club's folder, as given to `tictactoe club` (default: the user data folder's)",
    )
    data.add_argument(
        "--database",
        default=None,
        metavar="DSN",
        help="the club's PostgreSQL database, postgresql://USER@HOST:PORT/DB, as given to"
        " `tictactoe club` (default: $TICTACTOE_DATABASE; without it, the club's folder)",
    )
    ladder = commands.add_parser(
        "ladder", parents=[data], help="print the ladder", allow_abbrev=False
    )
    ladder.add_argument("--json", action="store_true", help="a JSON list of objects")
    ban = commands.add_parser(
        "ban",
        parents=[data],
        help="refuse a player (and their keys) at the door",
        allow_abbrev=False,
    )
    ban.add_argument("handle", metavar="HANDLE")
    ban.add_argument(
        "--for",
        dest="length",
        type=_length,
        default=None,
        metavar="LENGTH",
        help="how long: 30m, 1h, 2d, 1w (default: for ever)",
    )
    unban = commands.add_parser(
        "unban", parents=[data], help="let a banned player in again", allow_abbrev=False
    )
    unban.add_argument("handle", metavar="HANDLE")
    players = commands.add_parser(
        "players",
        parents=[data],
        help="list handles, their keys' fingerprints and when they were last seen",
        allow_abbrev=False,
    )
    players.add_argument("--json", action="store_true", help="a JSON list of objects")
    keys = commands.add_parser(
        "keys", parents=[data], help="list the keys that sign in as a handle", allow_abbrev=False
    )
    keys.add_argument("handle", metavar="HANDLE")
    keys.add_argument("--json", action="store_true", help="a JSON list of objects")
    unkey = commands.add_parser(
        "unkey",
        parents=[data],
        help="a key no longer signs in as a handle (its fingerprint, as `keys` prints it)",
        allow_abbrev=False,
    )
    unkey.add_argument("handle", metavar="HANDLE")
    unkey.add_argument("fingerprint", metavar="FINGERPRINT")
    unkey.add_argument("--json", action="store_true", help="a JSON object")
    return parser


def run_command(argv: Sequence[str]) -> int:
    """One owner's command (`argv` begins with its name); the exit status."""
    if argv and argv[0] == "migrate":
        from tictactoe.club.migrate import run_migrate

        return run_migrate(argv[1:])
    parser = _parser()
    try:
        args, extras = parser.parse_known_args(argv)
        if extras:
            raise unknown(f"{PROG} {args.command}", extras)
    except BadArguments as error:
        print(error, file=sys.stderr)
        return 2
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
        if args.command == "ladder":
            _ladder(record, as_json=args.json)
        elif args.command == "players":
            _players(record, as_json=args.json)
        elif args.command == "keys":
            _keys(record, args.handle, as_json=args.json)
        elif args.command == "unkey":
            return _unkey(record, args.handle, args.fingerprint, as_json=args.json)
        elif args.command == "ban":
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


def _ladder(record: ClubStore, *, as_json: bool) -> None:
    rows = record.ladder(limit=1_000_000)
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
        print("Nobody has played a rated match yet.")
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
