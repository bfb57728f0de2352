"""The `tictactoe` command's words read once (`parse`), checked, and turned into what each way
of playing needs (`GameConfig`, `ServeConfig`, `JoinSetup` and `HostConfig`); and back into
options for a game started by another (a browser tab's, a seat's)."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from tictactoe.config import GameConfig
from tictactoe.core.ai import Level
from tictactoe.core.keys import KeyLayout
from tictactoe.core.series import FirstMove, NameClash
from tictactoe.options.parsers import CommandParser
from tictactoe.options.tree import add_game_options, tree
from tictactoe.record.paths import is_database, path_problem

if TYPE_CHECKING:
    from tictactoe.host.hosting import HostConfig
    from tictactoe.play.joining import JoinSetup
    from tictactoe.serve import ServeConfig

__all__ = [
    "Parsed",
    "game_config",
    "game_options",
    "host_options",
    "online_setup",
    "parse",
    "parse_config",
    "parse_online",
    "parse_serve",
    "serve_config",
]


@dataclass(frozen=True, slots=True)
class Parsed:
    """The command line, read: which command, its arguments, and the parser that read them
    (which refuses what the arguments cannot be together)."""

    command: tuple[str, ...]
    """The words naming the command: () the game, ("serve",), ("club", "ban")..."""
    args: argparse.Namespace
    parser: CommandParser


def parse(argv: Sequence[str]) -> Parsed:
    """`argv` read by the one tree of parsers; argparse exits on bad values, and a club's
    command raises `BadArguments` (one sentence, for status 2)."""
    parsers = tree()
    top = parsers[()]
    commands = {words[0] for words in parsers if words}
    unknown = _unknown_word(argv, commands)
    if unknown is not None:
        top.error(unknown)
    args, extras = top.parse_known_args(argv)
    command = tuple(
        word for word in (args.command, getattr(args, "owner", None)) if word is not None
    )
    parser = parsers[command]
    for depth, word in enumerate(command):
        if argv[depth] != word:  # options before the command's name
            above = parsers[command[:depth]]
            said = " ".join(command[: depth + 1])
            above.error(f"the options of {said} go after its name (tictactoe {said} --help)")
    if extras:
        parser.error(f"unrecognized arguments: {' '.join(extras)}")
    return Parsed(command, args, parser)


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

    add_game_options(add_argument)
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


def parse_config(argv: Sequence[str]) -> GameConfig:
    """The game's setup from its options (`argv`, no command); argparse exits on bad values."""
    parsed = parse(argv)
    if parsed.command:
        parsed.parser.error(f"tictactoe {' '.join(parsed.command)} is a command, not the game")
    return game_config(parsed)


def parse_serve(argv: Sequence[str]) -> ServeConfig:
    """What `tictactoe serve` was asked for (`argv` follows `serve`)."""
    return serve_config(parse(["serve", *argv]))


def parse_online(argv: Sequence[str]) -> tuple[GameConfig, JoinSetup, HostConfig | None]:
    """What `tictactoe host` or `tictactoe join` was asked for (`argv` starts with the
    command)."""
    return online_setup(parse(argv))


def game_config(parsed: Parsed) -> GameConfig:
    """The game's setup from the options `parsed` holds (the game's, or every tab's of
    `serve`); what cannot go together exits, said by its parser."""
    parser, args = parsed.parser, parsed.args
    _seat_the_computers(parser, args)
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
        player1_level=Level(args.player1_computer) if args.player1_computer else None,
        first_move=FirstMove(args.first),
        keys=KeyLayout(args.keys) if args.keys else None,
        variant=args.variant,
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
    _refuse_the_record(parser, config)
    return config


def _seat_the_computers(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse what cannot go with --player1-computer and --player2-computer; the latter is
    --vs computer --level LEVEL said another way, and set as that."""
    if args.player1_computer and args.player1:
        parser.error(
            "--player1-computer seats the computer in player 1's place, so there is no"
            " --player1 to name: give one of them."
        )
    second = args.player2_computer
    if second is None:
        return
    if args.vs == "person" or args.player2:
        parser.error(
            "--player2-computer seats the computer in player 2's place, so it does not go with"
            " --vs person or --player2: give one of them."
        )
    if args.level and args.level != second:
        parser.error("--level and --player2-computer both set player 2's strength: give one.")
    args.vs, args.level = "computer", second


def serve_config(parsed: Parsed) -> ServeConfig:
    """What `tictactoe serve` was asked for; argparse exits on bad values.

    The game options are checked here, once, and given to every tab's game as options again.
    """
    from tictactoe.serve import ServeConfig  # imported late: --help stays instant

    parser, args = parsed.parser, parsed.args
    if args.ssh_port is not None and sys.platform == "win32":
        parser.exit(
            2,
            f"{parser.prog}: the SSH door (--ssh-port) needs Linux or macOS; the browser door"
            " works on Windows too.\n",
        )
    game = game_config(parsed)
    return ServeConfig(
        host=args.host,
        port=args.port,
        game_args=tuple(game_options(game)),
        ssh_port=args.ssh_port,
    )


def online_setup(parsed: Parsed) -> tuple[GameConfig, JoinSetup, HostConfig | None]:
    """What `tictactoe host` or `tictactoe join` was asked for; argparse exits on bad values."""
    from tictactoe.host.hosting import JOIN_CODE, JOIN_DOOR_KEY, HostConfig
    from tictactoe.play.joining import JoinSetup

    parser, args = parsed.parser, parsed.args
    keys = KeyLayout(args.keys) if args.keys else None
    if parsed.command == ("join",):
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
        variant=args.variant,
        keys=keys,
        save=not args.no_save,
        record_file=_file_path(parser, "--record", args.record),
        plain=args.plain or os.environ.get("TERM") == "dumb",
    )
    _refuse_the_record(parser, config)
    host = HostConfig(
        listen=args.listen,
        ssh_port=args.ssh_port,
        web_port=None if args.no_web else args.web_port,
        grace=args.grace,
        max_watchers=args.max_watchers,
        first_move=config.first_move,
        variant=config.game(_remembered_game(config)),
        relay=args.relay,
        relay_port=args.relay_port,
    )
    return config, JoinSetup(), host


def _remembered_game(config: GameConfig) -> str | None:
    """The game last chosen on the new-game screen (a setting), which `host` plays without
    --variant; None with --no-save, which keeps no settings."""
    from tictactoe.settings import SettingsStore

    store = SettingsStore(config.settings_path())
    store.load()
    return store.settings.variant


def game_options(config: GameConfig) -> list[str]:
    """The command-line options that set up `config` again."""
    options = [f"--first={config.first_move.value}", f"--delay={config.computer_delay!r}"]
    if config.player1 is not None:
        options.append(f"--player1={config.player1}")
    if config.player1_level is not None:
        options.append(f"--player1-computer={config.player1_level.value}")
    if config.level is not None:
        options += ["--vs=computer", f"--level={config.level.value}"]
    elif config.player2 is not None:
        options.append(f"--player2={config.player2}")
    if config.keys is not None:
        options.append(f"--keys={config.keys.value}")
    if config.variant is not None:
        options.append(f"--variant={config.variant}")
    if config.show_cursor:
        options.append("--show-cursor")
    if config.seed is not None:
        options.append(f"--seed={config.seed}")
    return options + _record_options(config, stats=True)


def host_options(config: GameConfig) -> list[str]:
    """The options of `tictactoe host` that carry `config` on (its record, keys, first move,
    game)."""
    options = [f"--first={config.first_move.value}"]
    if config.keys is not None:
        options.append(f"--keys={config.keys.value}")
    if config.variant is not None:
        options.append(f"--variant={config.variant}")
    return options + _record_options(config)


def _record_options(config: GameConfig, *, stats: bool = False) -> list[str]:
    """The options saying where `config` keeps its record, if anywhere."""
    options = [] if config.save else ["--no-save"]
    if config.record_file is not None:
        options.append(f"--record={config.record_file}")
    if stats and config.stats_file is not None:
        options.append(f"--stats-file={config.stats_file}")
    return options


def _refuse_the_record(parser: argparse.ArgumentParser, config: GameConfig) -> None:
    """Exit, said by `parser`, when the record file of `config` can never hold the record. A
    database given with --record is read first: another program's (or a newer version's) is
    refused here, not found out at the first match and left unsaved."""
    record = config.record_path()
    if record is None:
        return
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
    if problem is not None:
        parser.exit(2, f"{parser.prog}: error: {problem}\n")


def _file_path(parser: argparse.ArgumentParser, option: str, text: str | None) -> Path | None:
    """The path given to `option`; an empty one is refused (Path("") would mean this folder)."""
    if text is None:
        return None
    if not text.strip():
        parser.exit(
            2, f"{parser.prog}: error: {option} needs the path of a file, not an empty string.\n"
        )
    return Path(text)
