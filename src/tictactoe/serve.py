"""`tictactoe serve`: the same game in web browsers, one game process per tab, and in terminals
over SSH when asked (`--ssh-port`), one game process per session.

Both doors are `tictactoe.doors`'; this puts them together for a real deployment: every tab and
session runs the game with the options given to `serve`, so each keeps its finished matches in the
same place. Bound to loopback (the default), only this machine can play.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Final

from tictactoe.doors.addresses import is_loopback, url_host
from tictactoe.doors.web.guard import BadRequestsInOneLine
from tictactoe.doors.web.server import GameServer

__all__ = ["ServeConfig", "serve"]

MAX_SSH_SESSIONS: Final = 64
"""The most SSH sessions `serve --ssh-port` runs games for at once."""


@dataclass(frozen=True, slots=True)
class ServeConfig:
    """What `tictactoe serve` was asked for."""

    host: str = "127.0.0.1"
    """The address to listen on."""
    port: int = 8000
    """The port to listen on; 0 for any free one."""
    game_args: tuple[str, ...] = ()
    """The options every tab's game is started with."""
    ssh_port: int | None = None
    """Also an SSH door on this port: every SSH session gets its own game, as a tab does."""


@asynccontextmanager
async def _ssh_door(server: GameServer, port: int) -> AsyncIterator[None]:
    """An SSH door beside `server`, for as long as it serves: any user name gets its own game
    in a terminal, as a tab does."""
    from tictactoe.doors.ssh import SshDoor, load_host_key  # not on Windows

    # On loopback (the default) every session comes from one address: the bound per
    # address is then the bound on sessions.
    loopback = is_loopback(server.host)
    door = SshDoor(
        host_key=load_host_key(),
        command=lambda _info: server.games.argv,
        max_sessions=MAX_SSH_SESSIONS,
        max_per_address=MAX_SSH_SESSIONS if loopback else 16,
        max_logging_in_per_address=32 if loopback else 4,
    )
    port = await door.start(server.host, port)
    print(
        f"Or from a terminal: ssh -p {port} play@{url_host(server.address_host)}"
        " (any user name; each session its own game)"
    )
    sys.stdout.flush()
    try:
        yield
    finally:
        await door.stop()


def serve(config: ServeConfig) -> int:
    """`tictactoe serve`: serve until stopped; the exit status."""
    output = logging.StreamHandler()
    output.addFilter(BadRequestsInOneLine())
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s", handlers=[output])
    server = GameServer(config.game_args, host=config.host, port=config.port)
    beside = None if config.ssh_port is None else partial(_ssh_door, server, config.ssh_port)

    def announce(address: str) -> None:
        print(f"Serving tic-tac-toe on {address} (open it in a web browser; Ctrl+C stops)")
        if not is_loopback(config.host):
            print(
                f"Listening on {config.host}: anyone who can reach it can play, and every game"
                " they finish goes into your game record."
            )
        sys.stdout.flush()

    try:
        asyncio.run(server.run(announce, beside))
    except KeyboardInterrupt:  # before the signal handlers were in place: nothing started yet
        return 128 + signal.SIGINT
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else str(error)
        print(
            f"tictactoe serve: cannot listen on {config.host} port {config.port}: {reason}",
            file=sys.stderr,
        )
        return 2
    return 0
