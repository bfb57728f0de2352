"""The words of `tictactoe club`: running a club, its owner's commands (`ladder`, `ban`,
`unban`, `players`, `keys`, `unkey`, `migrate`), and `club-session`, what its door starts for
each player. A club's command refuses in one sentence (`tictactoe.options.parsers`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Final

import tictactoe.options.checks as checks
from tictactoe.club.capacity import MOST_PLAYERS
from tictactoe.core.finished import CLASSIC_NAME
from tictactoe.core.rules import VARIANTS
from tictactoe.options.parsers import CommandParser

__all__ = ["add_club", "add_club_session"]

WORDS: Final = {
    "HANDLE": "the handle",
    "FINGERPRINT": "the key's fingerprint (SHA256:…, as `tictactoe club keys` prints it)",
    "LENGTH": "a length of time, such as 30m, 1h or 2d",
    "DIR": "the club's folder",
    "DSN": "the club's database, postgresql://USER@HOST:PORT/DB",
}
"""What each argument's metavar stands for, in the sentence refusing it."""


def add_club(commands: Any) -> dict[tuple[str, ...], CommandParser]:
    """`tictactoe club` and its owner's commands, added to `commands` (a subparsers action);
    their parsers by the words that choose them."""
    club: CommandParser = commands.add_parser(
        "club",
        prog="tictactoe club",
        description="Run a club: players come in with ssh -p PORT HANDLE@HOST, find a game in"
        " the lobby, and climb the ladder.",
        allow_abbrev=False,
        words=WORDS,
    )
    _add_club_options(club)
    owner = club.add_subparsers(
        title="the owner's commands (beside the running club; none: run the club)",
        dest="owner",
        metavar="COMMAND",
    )
    found: dict[tuple[str, ...], CommandParser] = {("club",): club}
    data = CommandParser(add_help=False, words=WORDS)
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

    def add(name: str, about: str, *, folder: bool = True) -> CommandParser:
        parser: CommandParser = owner.add_parser(
            name,
            prog=f"tictactoe club {name}",
            parents=[data] if folder else [],
            help=about,
            allow_abbrev=False,
        )
        found["club", name] = parser
        return parser

    ladder = add("ladder", "print the ladder of one game")
    ladder.add_argument(
        "--variant",
        choices=tuple(VARIANTS),
        default=CLASSIC_NAME,
        help="the game whose ladder is printed: classic or ultimate, each with a ladder of its"
        " own (default: classic)",
    )
    ladder.add_argument("--json", action="store_true", help="a JSON list of objects")
    ban = add("ban", "refuse a player (and their keys) at the door")
    ban.add_argument("handle", metavar="HANDLE")
    ban.add_argument(
        "--for",
        dest="length",
        type=checks.length,
        default=None,
        metavar="LENGTH",
        help="how long: 30m, 1h, 2d, 1w (default: for ever)",
    )
    unban = add("unban", "let a banned player in again")
    unban.add_argument("handle", metavar="HANDLE")
    players = add("players", "list handles, their keys' fingerprints and when they were last seen")
    players.add_argument("--json", action="store_true", help="a JSON list of objects")
    keys = add("keys", "list the keys that sign in as a handle")
    keys.add_argument("handle", metavar="HANDLE")
    keys.add_argument("--json", action="store_true", help="a JSON list of objects")
    unkey = add(
        "unkey", "a key no longer signs in as a handle (its fingerprint, as `keys` prints it)"
    )
    unkey.add_argument("handle", metavar="HANDLE")
    unkey.add_argument("fingerprint", metavar="FINGERPRINT")
    unkey.add_argument("--json", action="store_true", help="a JSON object")
    migrate = add(
        "migrate", "make or migrate the club's schema: its PostgreSQL database, or its own file"
    )
    migrate.description = (
        "Make or migrate the club's schema ahead of time (a club does it as it starts): its"
        " PostgreSQL database, or else its own file in the club's folder."
    )
    return found


def _add_club_options(club: CommandParser) -> None:
    """The options of a running club."""
    club.add_argument(
        "--listen", default=None, metavar="ADDR", help="the address to listen on (default: all)"
    )
    club.add_argument(
        "--ssh-port",
        type=checks.port,
        default=2222,
        metavar="PORT",
        help="the SSH port (default 2222)",
    )
    club.add_argument(
        "--web-port",
        type=checks.port,
        default=None,
        metavar="PORT",
        help="also a web door on this port: each browser tab a guest (default: none)",
    )
    club.add_argument(
        "--web-name",
        action="append",
        default=[],
        metavar="NAME",
        help="a name the web door is reached by (club.example.org), besides this machine's own"
        " names and addresses; may be given again",
    )
    club.add_argument(
        "--data",
        type=Path,
        default=None,
        metavar="DIR",
        help="the club's folder: its record, host key and log (default: the user data folder)",
    )
    club.add_argument("--grace", type=checks.grace, default=120.0, help=argparse.SUPPRESS)
    club.add_argument(
        "--database",
        default=None,
        metavar="DSN",
        help="a PostgreSQL database, postgresql://USER@HOST:PORT/DB, shared by several club"
        " processes (default: TICTACTOE_DATABASE, else the club's own file in --data)",
    )
    club.add_argument(
        "--host-key",
        type=Path,
        default=None,
        metavar="FILE",
        help="the SSH host key (default: ssh_host_key in --data); give every process of a club"
        " the same one",
    )
    club.add_argument(
        "--cluster-address",
        default=None,
        metavar="ADDR",
        help="with --database: the address the other club processes reach this one's tables at"
        " (default 127.0.0.1: every process on this machine)",
    )
    club.add_argument(
        "--lobby-pace",
        type=checks.pace,
        default=None,
        metavar="N",
        help="the most lobby changes sent a second, over all lobbies, past a burst (default: 25"
        " for each 2 cores): more keeps a busy club's lobbies fresher, fewer its moves faster",
    )
    club.add_argument(
        "--max-players",
        type=checks.players,
        default=None,
        metavar="N",
        help="players at once, each a game of about 22 MiB, guests at most half of them"
        f" (default: what the memory available at the start holds, at most {MOST_PLAYERS})",
    )
    club.add_argument(
        "--proxy-protocol",
        action="store_true",
        help="take only connections that begin with a PROXY protocol header (HAProxy's"
        " send-proxy), and count each player by the address it names: behind a load balancer",
    )


def add_club_session(commands: Any) -> CommandParser:
    """`tictactoe club-session`, what a club's door starts for a player's session (unlisted)."""
    session: CommandParser = commands.add_parser(
        "club-session", prog="tictactoe club-session", allow_abbrev=False
    )
    session.add_argument("--link", required=True, metavar="URL")
    session.add_argument("--peer", default="127.0.0.1")
    return session
