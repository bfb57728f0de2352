"""The `tictactoe` command: read its words once (`tictactoe.options`), run what they ask for,
then say how the series ended (`tictactoe.report`)."""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from tictactoe.config import GameConfig
from tictactoe.core.series import Series
from tictactoe.options import (
    BadArguments,
    Parsed,
    game_config,
    host_options,
    online_setup,
    parse,
    serve_config,
)
from tictactoe.process import echo_back, open_files_limit, signals_stop, terminal_problem
from tictactoe.report import tell_the_end

__all__ = ["UNSAVED", "exit_status", "main", "play_online", "run"]

UNSAVED: Final = 3
"""The exit status of a game that ended as asked but lost finished matches (the last line
printed says how many, and where they were meant to go)."""


def main(argv: Sequence[str] | None = None) -> int:
    """The whole command: its exit statuses are in the README."""
    try:
        return run(parse(sys.argv[1:] if argv is None else argv))
    except BadArguments as refusal:  # a club's command, or hosting on Windows: one sentence
        print(refusal, file=sys.stderr)
        return 2


def run(parsed: Parsed) -> int:
    """The command `parsed` names, with its arguments; the exit status."""
    if parsed.command and parsed.command != ("club-session",):  # typing shows again
        echo_back()
    match parsed.command:
        case ("serve",):  # the game for web browsers
            from tictactoe.serve import serve

            gc.enable()  # a server runs for long (the game turns it on once it is drawn)
            open_files_limit()  # the doors' own bounds are what limit connections
            return serve(serve_config(parsed))
        case ("host",) | ("join",):  # a series with a friend on another machine
            return play_online(parsed)
        case ("club",):  # a club players reach with ssh
            from tictactoe.club.server import run_club

            gc.enable()  # a server runs for long
            open_files_limit()  # the door's own bounds are what limit connections
            return run_club(parsed.args)
        case ("club", _):  # one of the club owner's commands
            from tictactoe.club.commands import run_command

            return run_command(parsed.args)
        case ("club-session",):  # what a club's door starts for a player's session
            from tictactoe.tui.club_app import play_at_club

            return play_at_club(parsed.args.link, parsed.args.peer)
    config = game_config(parsed)
    if not config.plain and plain_by_choice(config):
        config = replace(config, plain=True)
    if config.plain:  # line by line: no screen to draw, any input will do
        echo_back()
        from tictactoe.lines.play import play_lines

        return play_lines(config)
    problem = terminal_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    from tictactoe.tui.app import TicTacToeApp  # imported late: --help and --version stay instant

    app = TicTacToeApp(config)
    with signals_stop(app.stop):
        series = app.run()
    if app.friend_online is not None:  # "A friend online" on the new-game screen
        name, relay, game = app.friend_online
        app.settings.update(relay=relay, variant=game)  # remembered for next time; "" forgets it
        options = [f"--player1={name}", *host_options(replace(config, variant=game))]
        return play_online(parse(["host", *options, *([f"--relay={relay}"] if relay else [])]))
    if series is None:  # an unexpected error ended it: the score as of the last finished match
        series = app.series
    tell_the_end(series, "", app.unsaved_matches, app.record.path)
    return exit_status(app.return_code, app.unsaved_matches)


def plain_by_choice(config: GameConfig) -> bool:
    """Whether the person chose to play line by line from now on (a setting)."""
    from tictactoe.settings import SettingsStore

    settings = SettingsStore(config.settings_path())
    settings.load()
    return settings.settings.plain


def play_online(parsed: Parsed) -> int:
    """`tictactoe host` or `tictactoe join` (refused on Windows as they are read: the doors
    give each friend a pty and a process group): one seat of a series online; the exit
    status."""
    import asyncio

    config, setup, host = online_setup(parsed)
    if config.plain and host is None:  # a friend's seat, or a watcher, line by line
        from tictactoe.lines.online import join_lines

        return join_lines(config, setup)
    if config.plain and host is not None:  # the host's seat, line by line
        from tictactoe.host.hosting import log_to_file
        from tictactoe.lines.hosting import host_lines

        log_to_file()
        open_files_limit()  # the doors' own bounds are what limit connections
        return host_lines(config, host)
    problem = terminal_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    from tictactoe.host.hosting import Hosting, log_to_file
    from tictactoe.tui.online_app import OnlineApp

    if host is not None:
        hosting = host
        log_to_file()
        open_files_limit()  # the doors' own bounds are what limit connections

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
    tell_the_end(series, app.farewell, app.unsaved_matches, app.record.path)
    return exit_status(app.return_code, app.unsaved_matches)


def exit_status(return_code: int | None, unsaved: int) -> int:
    """The status the game leaves (the README's table): the app's own when it has one (a
    signal's, an unexpected error's); else 3 when finished matches could not be saved, so
    that a script can tell they are lost; else 0."""
    if return_code:
        return return_code
    return UNSAVED if unsaved else 0


if __name__ == "__main__":
    sys.exit(main())
