"""The one tree of the `tictactoe` command's words: the game's options, then each command
(`serve`, `host`, `join`, `club` and its owner's commands, `club-session`) with its own."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from pathlib import Path

import tictactoe.options.checks as checks
from tictactoe import __version__
from tictactoe.core.ai import Level
from tictactoe.core.keys import KeyLayout
from tictactoe.core.rules import VARIANTS
from tictactoe.core.series import FirstMove
from tictactoe.online.authority import MAX_WATCHERS
from tictactoe.options.club import add_club, add_club_session
from tictactoe.options.parsers import CommandParser
from tictactoe.record.paths import default_record_path

__all__ = ["Tree", "add_game_options", "tree"]

Tree = dict[tuple[str, ...], CommandParser]
"""Each parser of the tree by the words that choose it: () the game's, ("club", "ban")..."""

_EPILOG = """\
With both players given (each a name or the computer: --vs computer or
--playerN-computer) the new-game screen is skipped. A command takes its own
options after its name (tictactoe serve --help).

examples:
  tictactoe                              names and opponent asked on screen
  tictactoe --player1 Ada --player2 Bob  hot seat, straight to the first match
  tictactoe --vs computer --level hard   you against the computer at its best
  tictactoe --player1-computer easy --player2-computer hard
                                         watch the computer play itself
  tictactoe --variant ultimate           Ultimate: nine boards in one
  tictactoe --keys phone --no-save       1 2 3 on the top row; nothing kept
  tictactoe serve                        the game in web browsers, one per tab
  tictactoe host --player1 Ada           a series for a friend online
  tictactoe host --relay me@example.org  a friend on another network, via your server
"""
"""The end of `tictactoe --help`, laid out as it is written."""

NEEDS_A_PTY = (
    "hosting a series needs Linux or macOS (from Windows, join a friend's series with ssh or a"
    " web browser)."
)
"""Why `host` and `join` refuse on Windows: the doors give each friend a pty."""


def tree() -> Tree:
    """Every parser of the `tictactoe` command, the game's first (`tree()[()]`)."""
    parser = CommandParser(
        prog="tictactoe",
        usage="%(prog)s [options]\n       %(prog)s COMMAND [options]",
        description="Tic-tac-toe in the terminal: hot seat, against the computer, or a friend\n"
        "online.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_game_options(parser.add_argument)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        prog="tictactoe serve",
        help="serve the game to web browsers on this machine, one game per tab",
        description="Serve the game to web browsers: each tab plays its own series.",
        epilog="All tabs keep their finished matches in the same place.",
        allow_abbrev=False,
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default: 127.0.0.1, this machine only); another address"
        " lets anyone who can reach it play and add to your game record",
    )
    port = functools.partial(checks.port_option, serve.add_argument)
    port("--port", 8000, "the port to listen on (default: 8000; 0: any)")
    port(
        "--ssh-port",
        None,
        "also an SSH door on this port (on the same address): every session gets its own"
        " game in its terminal, as every tab does (ssh -p PORT play@HOST)",
    )
    add_game_options(serve.add_argument_group("every tab's game").add_argument)
    host = commands.add_parser(
        "host",
        prog="tictactoe host",
        help="host a series for a friend on another machine (they join with ssh or a browser)",
        description="Host a series online: a friend joins with the ssh line or the web address"
        " shown; anyone else with them watches.",
        epilog="The SSH door and the browser door listen on every address of this machine"
        " (--listen narrows them); the browser door is plain, unencrypted HTTP. Every finished"
        " match goes into your game record. Refused codes and connections are logged, a line"
        " each, in host.log in your user log folder (on Linux ~/.local/state/tictactoe/log).",
        allow_abbrev=False,
        needs=NEEDS_A_PTY,
    )
    _add_host_options(host)
    join = commands.add_parser(
        "join",
        prog="tictactoe join",
        description="Join a series hosted on this machine through its loopback link.",
        allow_abbrev=False,
        needs=NEEDS_A_PTY,
    )
    join.add_argument("--link", required=True, metavar="URL", help="the host's loopback link")
    join.add_argument("--peer", default="127.0.0.1", help=argparse.SUPPRESS)
    join.add_argument("--keys", choices=[layout.value for layout in KeyLayout], default=None)
    join.add_argument(
        "--plain",
        action="store_true",
        help="follow and play the series line by line (chosen by itself when TERM is dumb)",
    )
    found: Tree = {(): parser, ("serve",): serve, ("host",): host, ("join",): join}
    found.update(add_club(commands))
    found[("club-session",)] = add_club_session(commands)
    return found


def _add_variant(add_argument: Callable[..., argparse.Action]) -> None:
    """The choice of the game, the same for playing here and for hosting."""
    add_argument(
        "--variant",
        choices=list(VARIANTS),
        default=None,
        help="the game: classic tic-tac-toe or ultimate, nine boards in one (default: the one"
        " last chosen on the new-game screen, else classic)",
    )


def _add_host_options(host: CommandParser) -> None:
    """The options of `tictactoe host`."""
    host.add_argument("--player1", metavar="NAME", help="your name (asked if not given)")
    _add_variant(host.add_argument)
    host.add_argument(
        "--listen", metavar="ADDRESS", default=None, help="the one address the doors listen on"
    )
    port = functools.partial(checks.port_option, host.add_argument)
    port("--ssh-port", 2222, "the SSH door's port (default: 2222; 0: any)")
    port("--web-port", 8000, "the browser door's port (default: 8000; 0: any)")
    host.add_argument("--no-web", action="store_true", help="no browser door: ssh only")
    host.add_argument(
        "--relay",
        type=checks.relay,
        metavar="USER@HOST[:PORT]",
        help="for a friend on another network: forward a port of this SSH server (one you can"
        " log into with ssh and your keys; its sshd needs GatewayPorts clientspecified) to the"
        " SSH door; it carries only encrypted bytes",
    )
    port("--relay-port", 0, "the relay's port for your friend (default: 0, one the relay chooses)")
    host.add_argument(
        "--grace",
        type=checks.grace,
        default=120.0,
        metavar="SECONDS",
        help="how long a dropped friend has to come back before you may end the series"
        " (default: 120)",
    )
    host.add_argument(
        "--max-watchers",
        type=checks.watchers,
        default=MAX_WATCHERS,
        metavar="N",
        help=f"how many may watch the series at once, 0 to {MAX_WATCHERS}"
        f" (default: {MAX_WATCHERS})",
    )
    host.add_argument(
        "--plain",
        action="store_true",
        help="host line by line, for screen readers (chosen by itself when TERM is dumb)",
    )
    _add_shared_options(host.add_argument)


def _help_text(path: Path) -> str:
    """`path` as an option's help may hold it (argparse reads % as a format)."""
    return str(path).replace("%", "%%")


def _add_shared_options(add_argument: Callable[..., argparse.Action]) -> None:
    """The options a hosted series shares with a game at one keyboard."""
    add_argument(
        "--first",
        choices=[rule.value for rule in FirstMove],
        default=FirstMove.CHOOSER.value,
        help="who moves first: the player who chose the mark (default), X, or at random",
    )
    add_argument(
        "--keys",
        choices=[layout.value for layout in KeyLayout],
        default=None,
        help="digit layout: numpad puts 7 8 9 on top (the default), phone puts 1 2 3 on top;"
        " remembered from the command palette otherwise",
    )
    add_argument(
        "--record",
        metavar="PATH",
        help=f"the game record's SQLite file (default: {_help_text(default_record_path())})",
    )
    add_argument("--no-save", action="store_true", help="keep nothing: no record, no settings")


def add_game_options(add_argument: Callable[..., argparse.Action]) -> None:
    """The options that set up a game, added with `add_argument` (a parser's or a group's)."""
    add_argument("--player1", metavar="NAME", help="the first player's name")
    add_argument("--player2", metavar="NAME", help="the second player's name")
    _add_variant(add_argument)
    add_argument(
        "--vs",
        choices=["person", "computer"],
        default=None,
        help="play another person at this keyboard (the default), or the computer",
    )
    add_argument(
        "--level",
        choices=[level.value for level in Level],
        default=None,
        help="the computer's strength (default: medium); implies --vs computer, so it goes"
        " with --player1 only",
    )
    levels = [level.value for level in Level]
    for seat in (1, 2):
        add_argument(
            f"--player{seat}-computer",
            choices=levels,
            default=None,
            metavar="LEVEL",
            help=f"the computer plays in player {seat}'s seat, at this strength"
            f" ({', '.join(levels)})"
            + ("; with both, watch the computer play itself" if seat == 2 else ""),
        )
    _add_shared_options(add_argument)
    add_argument(
        "--delay",
        type=checks.delay,
        default=0.4,
        metavar="SECONDS",
        help="how long the computer appears to think (default: 0.4)",
    )
    add_argument(
        "--plain",
        action="store_true",
        help="play line by line, for screen readers and braille displays: a sentence for each"
        " event, never an escape sequence (chosen by itself when TERM is dumb)",
    )
    add_argument(
        "--show-cursor",
        action="store_true",
        help="show the terminal's cursor on the board's cursor cell, for a magnifier to follow"
        " (remembered from the command palette otherwise)",
    )
    add_argument("--seed", type=int, default=None, help=argparse.SUPPRESS)
    add_argument("--stats-file", help=argparse.SUPPRESS)  # deprecated: see --record
