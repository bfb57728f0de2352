"""The `tictactoe` command: parse the options, run the app, print the final score."""

from __future__ import annotations

import argparse
import difflib
import gc
import os
import sys
from collections.abc import Callable, Collection, Sequence
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from rich.cells import cell_len

from tictactoe import __version__
from tictactoe.ai import Level
from tictactoe.config import GameConfig
from tictactoe.keys import KeyLayout
from tictactoe.labels import side_by_side
from tictactoe.names import NAME_WIDTH
from tictactoe.process import signals_stop, terminal_problem
from tictactoe.record_paths import path_problem
from tictactoe.series import FirstMove, NameClash, Series
from tictactoe.served import is_served, say_farewell

if TYPE_CHECKING:
    from tictactoe.online.hosting import HostConfig
    from tictactoe.online.relay_target import RelayTarget
    from tictactoe.online_app import JoinSetup
    from tictactoe.serve import ServeConfig

__all__ = [
    "build_parser",
    "final_score",
    "game_options",
    "main",
    "parse_config",
    "parse_online",
    "parse_serve",
    "unsaved_note",
    "verdict",
]


def _non_negative_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= seconds <= 10:
        raise argparse.ArgumentTypeError("the delay must be between 0 and 10 seconds")
    return seconds


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError("a port is a number from 1 to 65535 (0: any free one)")
    return port


def _relay(text: str) -> RelayTarget:
    from tictactoe.online.relay_target import parse_relay

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
        type=_non_negative_seconds,
        default=120.0,
        metavar="SECONDS",
        help="how long a dropped friend has to come back before you may end the series"
        " (default: 120)",
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
    return parser, {"serve": serve, "host": host, "join": join}


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
        help="the game record's SQLite file (default: record.sqlite3 in your user data folder)",
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
        help="play another person at this keyboard, or the computer",
    )
    add_argument(
        "--level",
        choices=[level.value for level in Level],
        default=None,
        help="the computer's strength (default: medium)",
    )
    _add_shared_options(add_argument)
    add_argument(
        "--delay",
        type=_non_negative_seconds,
        default=0.4,
        metavar="SECONDS",
        help="how long the computer appears to think (default: 0.4)",
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
    from tictactoe.online.hosting import JOIN_CODE, JOIN_DOOR_KEY, HostConfig
    from tictactoe.online_app import JoinSetup

    command, parser = argv[0], _parsers()[1][argv[0]]
    args = parser.parse_args(argv[1:])
    keys = KeyLayout(args.keys) if args.keys else None
    if command == "join":
        config = GameConfig(keys=keys, save=False)
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
    )
    record = config.record_path()
    problem = None if record is None else path_problem(record)
    if problem is not None:
        parser.exit(2, f"{parser.prog}: error: {problem}\n")
    host = HostConfig(
        listen=args.listen,
        ssh_port=args.ssh_port,
        web_port=None if args.no_web else args.web_port,
        grace=args.grace,
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
        parser.error("--level only applies with --vs computer")
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
    )
    try:
        config.initial_series()
    except NameClash as clash:
        parser.exit(2, f"{parser.prog}: error: {clash}\n")
    record = config.record_path()
    problem = None if record is None else path_problem(record)
    if problem is not None:
        parser.exit(2, f"{parser.prog}: error: {problem}\n")
    return config


def _file_path(parser: argparse.ArgumentParser, option: str, text: str | None) -> Path | None:
    """The path given to `option`; an empty one is refused (Path("") would mean this folder)."""
    if text is None:
        return None
    if not text.strip():
        parser.exit(
            2, f"{parser.prog}: error: {option} needs the path of a file, not an empty string.\n"
        )
    return Path(text)


def final_score(series: Series) -> str:
    """The scoreboard as plain text, printed after the screen is restored.

    Names are shortened as on screen, and the counts line up in terminal cells (a
    character of 山田 takes two).
    """
    (first, second), (wins1, wins2) = side_by_side(series.players, NAME_WIDTH), series.wins
    rows = [(first, wins1), (second, wins2), ("Draws", series.draws)]
    width = max(cell_len(label) for label, _ in rows)
    lines = [
        "Final score",
        *(f"  {label}{' ' * (width - cell_len(label))}  {count}" for label, count in rows),
        f"  ({series.played} match{'' if series.played == 1 else 'es'} played)",
    ]
    return "\n".join(lines)


def verdict(series: Series) -> str:
    """Who won the series, in a sentence."""
    (first, second), (wins1, wins2) = side_by_side(series.players, NAME_WIDTH), series.wins
    if not series.played:
        return "No match was finished."
    if wins1 == wins2:
        return "The series ended level."
    return f"{first if wins1 > wins2 else second} won the series."


def unsaved_note(count: int, path: Path | None) -> str:
    """The last word when finished matches could not be written to the record."""
    if count == 1:
        return f"1 finished match could not be saved to the game record {path}; it is lost."
    return f"{count} finished matches could not be saved to the game record {path}; they are lost."


def main(argv: Sequence[str] | None = None) -> int:
    """The whole command: its exit statuses are in the README."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "serve":  # `tictactoe serve ...`: the game for web browsers
        from tictactoe.serve import serve

        gc.enable()  # a server runs for long (the game turns it on once it is drawn)
        return serve(parse_serve(argv[1:]))
    if argv and argv[0] in ("host", "join"):  # a series with a friend on another machine
        return play_online(argv)
    config = parse_config(argv)
    problem = terminal_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    from tictactoe.app import TicTacToeApp  # imported late: --help and --version stay instant

    app = TicTacToeApp(config)
    with signals_stop(app.stop):
        series = app.run()
    if app.friend_online is not None:  # "A friend online" on the new-game screen
        name, relay = app.friend_online
        app.settings.update(relay=relay)  # remembered for next time; "" forgets it
        options = [f"--player1={name}", *host_options(config)]
        return play_online(["host", *options, *([f"--relay={relay}"] if relay else [])])
    if series is None:  # an unexpected error ended it: the score as of the last finished match
        series = app.series
    if series is not None and is_served():  # stdout is the server's pipe: the tab shows it
        say_farewell(final_score(series), verdict(series))
    elif series is not None:
        _print_score(final_score(series))
    if app.unsaved_matches:
        with suppress(OSError):  # the terminal has gone: nobody is left to tell
            print(unsaved_note(app.unsaved_matches, app.record.path), file=sys.stderr)
    return app.return_code or 0


def play_online(argv: Sequence[str]) -> int:
    """`tictactoe host` or `tictactoe join`: one seat of a series online; the exit status."""
    import asyncio

    if sys.platform == "win32":  # the doors give each friend a pty and a process group
        print(
            f"tictactoe {argv[0]}: hosting a series needs Linux or macOS (from Windows, join"
            " a friend's series with ssh or a web browser).",
            file=sys.stderr,
        )
        return 2
    config, setup, host = parse_online(argv)
    problem = terminal_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    from tictactoe.online.hosting import Hosting, log_to_file
    from tictactoe.online_app import OnlineApp

    if host is not None:
        hosting = host
        log_to_file()

        async def open_doors(name: str) -> Hosting:
            return await Hosting(name, hosting).start()

        setup = replace(setup, host=open_doors)
    app = OnlineApp(config, setup)

    async def run() -> Series | None:
        try:
            return await app.run_async()
        finally:
            await app.close_link()

    with signals_stop(app.stop):
        series = asyncio.run(run())
    if series is None:
        series = app.series
    if is_served():  # a browser tab's game: the tab shows who ended it and the score
        if series is not None:
            say_farewell(final_score(series), f"{app.farewell} {verdict(series)}".strip())
    else:
        if app.farewell:
            _print_score(app.farewell)
        if series is not None:
            _print_score(final_score(series))
    if app.unsaved_matches:
        with suppress(OSError):
            print(unsaved_note(app.unsaved_matches, app.record.path), file=sys.stderr)
    return app.return_code or 0


def _print_score(text: str) -> None:
    try:
        print(text, flush=True)
    except OSError:  # the terminal or the pipe has gone: nobody is left to read it
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


if __name__ == "__main__":
    sys.exit(main())
