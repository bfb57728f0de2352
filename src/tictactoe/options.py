"""The `tictactoe` command's words: its options, checked and turned into what each way of
playing needs (`GameConfig`, `ServeConfig`, `JoinSetup` and `HostConfig`), and back into options
for a game started by another (a browser tab's, a seat's)."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from tictactoe import __version__
from tictactoe.config import GameConfig
from tictactoe.core.ai import Level
from tictactoe.core.keys import KeyLayout
from tictactoe.core.series import FirstMove, NameClash
from tictactoe.online.authority import MAX_WATCHERS
from tictactoe.record.paths import default_record_path, is_database, path_problem

if TYPE_CHECKING:
    from tictactoe.doors.relay_target import RelayTarget
    from tictactoe.host.hosting import HostConfig
    from tictactoe.play.joining import JoinSetup
    from tictactoe.serve import ServeConfig

__all__ = [
    "build_parser",
    "game_options",
    "host_options",
    "parse_config",
    "parse_online",
    "parse_serve",
]


def _non_negative_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= seconds <= 10:
        raise argparse.ArgumentTypeError("the delay must be between 0 and 10 seconds")
    return seconds


GRACE_MOST = 3600.0
"""The longest grace a host may give a dropped friend, in seconds: an hour."""


def _grace_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= seconds <= GRACE_MOST:
        raise argparse.ArgumentTypeError(
            f"the grace must be between 0 and {GRACE_MOST:.0f} seconds"
        )
    return seconds


def _watchers(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= count <= MAX_WATCHERS:
        raise argparse.ArgumentTypeError(f"the watchers must be between 0 and {MAX_WATCHERS}")
    return count


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError("a port is a number from 1 to 65535 (0: any free one)")
    return port


def _relay(text: str) -> RelayTarget:
    from tictactoe.doors.relay_target import parse_relay

    try:
        return parse_relay(text)
    except ValueError as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None


def build_parser() -> argparse.ArgumentParser:
    """The `tictactoe` command's options, and its commands with theirs."""
    return _parsers()[0]


_EPILOG = """\
With both names (or --vs computer and --player1) the new-game screen is
skipped. A command takes its own options after its name (tictactoe serve
--help).

examples:
  tictactoe                              names and opponent asked on screen
  tictactoe --player1 Ada --player2 Bob  hot seat, straight to the first match
  tictactoe --vs computer --level hard   you against the computer at its best
  tictactoe --keys phone --no-save       1 2 3 on the top row; nothing kept
  tictactoe serve                        the game in web browsers, one per tab
  tictactoe host --player1 Ada           a series for a friend online
  tictactoe host --relay me@example.org  a friend on another network, via your server
"""
"""The end of `tictactoe --help`, laid out as it is written."""


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser of `tictactoe`, and those of its commands by name (`join`, what the doors
    run, is not listed)."""
    parser = argparse.ArgumentParser(
        prog="tictactoe",
        usage="%(prog)s [options]\n       %(prog)s COMMAND [options]",
        description="Tic-tac-toe in the terminal: hot seat, against the computer, or a friend\n"
        "online.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_game_options(parser.add_argument)
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
    serve.add_argument(
        "--port", type=_port, default=8000, help="the port to listen on (default: 8000; 0: any)"
    )
    serve.add_argument(
        "--ssh-port",
        type=_port,
        default=None,
        metavar="PORT",
        help="also an SSH door on this port (on the same address): every session gets its own"
        " game in its terminal, as every tab does (ssh -p PORT play@HOST)",
    )
    _add_game_options(serve.add_argument_group("every tab's game").add_argument)
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
    )
    host.add_argument("--player1", metavar="NAME", help="your name (asked if not given)")
    host.add_argument(
        "--listen", metavar="ADDRESS", default=None, help="the one address the doors listen on"
    )
    host.add_argument(
        "--ssh-port",
        type=_port,
        default=2222,
        metavar="PORT",
        help="the SSH door's port (default: 2222; 0: any)",
    )
    host.add_argument(
        "--web-port",
        type=_port,
        default=8000,
        metavar="PORT",
        help="the browser door's port (default: 8000; 0: any)",
    )
    host.add_argument("--no-web", action="store_true", help="no browser door: ssh only")
    host.add_argument(
        "--relay",
        type=_relay,
        metavar="USER@HOST[:PORT]",
        help="for a friend on another network: forward a port of this SSH server (one you can"
        " log into with ssh and your keys; its sshd needs GatewayPorts clientspecified) to the"
        " SSH door; it carries only encrypted bytes",
    )
    host.add_argument(
        "--relay-port",
        type=_port,
        default=0,
        metavar="PORT",
        help="the relay's port for your friend (default: 0, one the relay chooses)",
    )
    host.add_argument(
        "--grace",
        type=_grace_seconds,
        default=120.0,
        metavar="SECONDS",
        help="how long a dropped friend has to come back before you may end the series"
        " (default: 120)",
    )
    host.add_argument(
        "--max-watchers",
        type=_watchers,
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
    join = commands.add_parser(
        "join",
        prog="tictactoe join",
        description="Join a series hosted on this machine through its loopback link.",
        allow_abbrev=False,
    )
    join.add_argument("--link", required=True, metavar="URL", help="the host's loopback link")
    join.add_argument("--peer", default="127.0.0.1", help=argparse.SUPPRESS)
    join.add_argument("--keys", choices=[layout.value for layout in KeyLayout], default=None)
    join.add_argument(
        "--plain",
        action="store_true",
        help="follow and play the series line by line (chosen by itself when TERM is dumb)",
    )
    return parser, {"serve": serve, "host": host, "join": join}


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


def _add_game_options(add_argument: Callable[..., argparse.Action]) -> None:
    """The options that set up a game, added with `add_argument` (a parser's or a group's)."""
    add_argument("--player1", metavar="NAME", help="the first player's name")
    add_argument("--player2", metavar="NAME", help="the second player's name")
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
    _add_shared_options(add_argument)
    add_argument(
        "--delay",
        type=_non_negative_seconds,
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


def parse_config(argv: Sequence[str] | None = None) -> GameConfig:
    """The session's setup from the command line; argparse exits on bad values."""
    parser, commands = _parsers()
    unknown = _unknown_word(sys.argv[1:] if argv is None else argv, commands)
    if unknown is not None:
        parser.error(unknown)
    args = parser.parse_args(argv)
    if args.command is not None:
        parser.error(f"the options of {args.command} go after it: tictactoe {args.command} ...")
    return _game_config(parser, args)


class _OptionsAlone(argparse.ArgumentParser):
    """The game's options without the commands, raising ArgumentError instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise argparse.ArgumentError(None, message)


def _unknown_word(argv: Sequence[str], commands: Collection[str]) -> str | None:
    """What to say of the first word of `argv` that is neither an option of the game nor one
    of `commands`; None when there is none (anything else wrong is the full parser's to say).

    argparse would take the word after an unknown option for a command ("--levle hard":
    "invalid choice: 'hard'"), and list every command, the unlisted `join` too.
    """
    known = _OptionsAlone(add_help=False)
    actions = [known.add_argument(name, action="store_true") for name in ("-h", "--help")]

    def add_argument(*args: Any, **kwargs: Any) -> argparse.Action:
        actions.append(known.add_argument(*args, **kwargs))
        return actions[-1]

    _add_game_options(add_argument)
    actions.append(known.add_argument("--version", action="store_true"))
    try:
        _, extras = known.parse_known_args(argv)
    except argparse.ArgumentError:  # a known option's bad value, or an ambiguous one
        return None
    if not extras or extras[0] in commands:
        return None
    if not extras[0].startswith("-"):
        return f"{extras[0]!r} is neither an option nor a command (tictactoe --help lists both)"
    option = extras[0].partition("=")[0]
    shown = (action for action in actions if action.help != argparse.SUPPRESS)
    listed = [name for action in shown for name in action.option_strings]
    near = difflib.get_close_matches(option, listed, n=1)
    hint = f"did you mean {near[0]}?" if near else "tictactoe --help lists the options"
    return f"unknown option {option} ({hint})"


def parse_serve(argv: Sequence[str]) -> ServeConfig:
    """What `tictactoe serve` was asked for (`argv` follows `serve`); argparse exits on bad values.

    The game options are checked here, once, and given to every tab's game as options again.
    """
    from tictactoe.serve import ServeConfig  # imported late: --help stays instant

    parser = _parsers()[1]["serve"]
    args = parser.parse_args(argv)
    if args.ssh_port is not None and sys.platform == "win32":
        parser.exit(
            2,
            f"{parser.prog}: the SSH door (--ssh-port) needs Linux or macOS; the browser door"
            " works on Windows too.\n",
        )
    game = _game_config(parser, args)
    return ServeConfig(
        host=args.host,
        port=args.port,
        game_args=tuple(game_options(game)),
        ssh_port=args.ssh_port,
    )


def parse_online(argv: Sequence[str]) -> tuple[GameConfig, JoinSetup, HostConfig | None]:
    """What `tictactoe host` or `tictactoe join` was asked for (`argv` starts with the
    command); argparse exits on bad values."""
    from tictactoe.host.hosting import JOIN_CODE, JOIN_DOOR_KEY, HostConfig
    from tictactoe.play.joining import JoinSetup

    command, parser = argv[0], _parsers()[1][argv[0]]
    args = parser.parse_args(argv[1:])
    keys = KeyLayout(args.keys) if args.keys else None
    if command == "join":
        config = GameConfig(
            keys=keys, save=False, plain=args.plain or os.environ.get("TERM") == "dumb"
        )
        setup = JoinSetup(
            link_url=args.link,
            code=os.environ.pop(JOIN_CODE, None),
            door_key=os.environ.pop(JOIN_DOOR_KEY, None),
            peer=args.peer,
        )
        return config, setup, None
    config = GameConfig(
        player1=args.player1,
        first_move=FirstMove(args.first),
        keys=keys,
        save=not args.no_save,
        record_file=_file_path(parser, "--record", args.record),
        plain=args.plain or os.environ.get("TERM") == "dumb",
    )
    problem = _record_problem(config)
    if problem is not None:
        parser.exit(2, f"{parser.prog}: error: {problem}\n")
    host = HostConfig(
        listen=args.listen,
        ssh_port=args.ssh_port,
        web_port=None if args.no_web else args.web_port,
        grace=args.grace,
        max_watchers=args.max_watchers,
        first_move=config.first_move,
        relay=args.relay,
        relay_port=args.relay_port,
    )
    return config, JoinSetup(), host


def game_options(config: GameConfig) -> list[str]:
    """The command-line options that set up `config` again."""
    options = [f"--first={config.first_move.value}", f"--delay={config.computer_delay!r}"]
    if config.player1 is not None:
        options.append(f"--player1={config.player1}")
    if config.level is not None:
        options += ["--vs=computer", f"--level={config.level.value}"]
    elif config.player2 is not None:
        options.append(f"--player2={config.player2}")
    if config.keys is not None:
        options.append(f"--keys={config.keys.value}")
    if config.show_cursor:
        options.append("--show-cursor")
    if config.seed is not None:
        options.append(f"--seed={config.seed}")
    if not config.save:
        options.append("--no-save")
    if config.record_file is not None:
        options.append(f"--record={config.record_file}")
    if config.stats_file is not None:
        options.append(f"--stats-file={config.stats_file}")
    return options


def host_options(config: GameConfig) -> list[str]:
    """The options of `tictactoe host` that carry `config` on (its record, keys, first move)."""
    options = [f"--first={config.first_move.value}"]
    if config.keys is not None:
        options.append(f"--keys={config.keys.value}")
    if not config.save:
        options.append("--no-save")
    if config.record_file is not None:
        options.append(f"--record={config.record_file}")
    return options


def _game_config(parser: argparse.ArgumentParser, args: argparse.Namespace) -> GameConfig:
    """The game's setup from the options `parser` parsed into `args`; its errors exit."""
    vs = args.vs or ("computer" if args.level else "person")
    if vs == "person" and args.level:
        parser.error(
            "--level sets the computer's strength, so it does not go with --vs person: give one"
            " of them."
        )
    if args.level and args.player2:
        parser.error(
            "--level means playing the computer (it implies --vs computer), so there is no"
            " --player2 to name: give one of them."
        )
    if vs == "computer" and args.player2:
        parser.error("--player2 does not apply against the computer")
    config = GameConfig(
        player1=args.player1,
        player2=args.player2,
        level=Level(args.level or "medium") if vs == "computer" else None,
        first_move=FirstMove(args.first),
        keys=KeyLayout(args.keys) if args.keys else None,
        computer_delay=args.delay,
        seed=args.seed,
        save=not args.no_save,
        record_file=_file_path(parser, "--record", args.record),
        stats_file=_file_path(parser, "--stats-file", args.stats_file),
        plain=args.plain or os.environ.get("TERM") == "dumb",
        show_cursor=args.show_cursor,
    )
    try:
        config.initial_series()
    except NameClash as clash:
        parser.exit(2, f"{parser.prog}: error: {clash}\n")
    problem = _record_problem(config)
    if problem is not None:
        parser.exit(2, f"{parser.prog}: error: {problem}\n")
    return config


def _record_problem(config: GameConfig) -> str | None:
    """Why the record file of `config` can never hold the record, as a sentence; None when
    it may. A database given with --record is read first: another program's (or a newer
    version's) is refused here, not found out at the first match and left unsaved."""
    record = config.record_path()
    if record is None:
        return None
    problem = path_problem(record)
    if problem is None and config.record_file is not None and is_database(record):
        from tictactoe.record.opening import not_ours  # SQLite only for a database given

        refusal = not_ours(record)
        if refusal is not None:
            why = refusal.removesuffix(", so it is left as it is")
            problem = (
                f"{record} {why}; it is left untouched (--record takes a record of this"
                " game, or a new file)."
            )
    return problem


def _file_path(parser: argparse.ArgumentParser, option: str, text: str | None) -> Path | None:
    """The path given to `option`; an empty one is refused (Path("") would mean this folder)."""
    if text is None:
        return None
    if not text.strip():
        parser.exit(
            2, f"{parser.prog}: error: {option} needs the path of a file, not an empty string.\n"
        )
    return Path(text)
