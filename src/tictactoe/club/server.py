"""`tictactoe club`: a long-running club that players reach with plain `ssh -p PORT HANDLE@HOST`.

The club has no screen of its own: it says at once that it is starting (importing, reading its
record and warming the players' sessions take seconds), then where it listens, how many players
it has room for and whether the kernel merges their pages (KSM); it writes its
refusals to the bounded log in its data folder (`club.log`), and stops on SIGINT or SIGTERM,
telling every player. Its SSH door (`tictactoe.doors.ssh`) asks the club who each connection is
(`Club.enter`, the club's record decides from the handle and the key), and starts for each
session a `tictactoe club-session` game, which shows the lobby (`tictactoe.tui.club_app`). With
`--web-port`, a web door too (`tictactoe.club.web`): each browser tab a guest, its game the same.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Final, cast

import platformdirs

from tictactoe.club.capacity import (
    MOST_PLAYERS,
    GuestDoor,
    available_memory,
    door_bounds,
    machine_cores,
    players_for,
)

if TYPE_CHECKING:
    from tictactoe.club.lobby import Club
    from tictactoe.record.club_store import ClubStore

__all__ = [
    "club_for",
    "default_data",
    "merging_said",
    "run_club",
    "session_command",
]

HOST_KEY_FILE: Final = "ssh_host_key"
LOG_FILE: Final = "club.log"

SESSION_MODULES: Final = (
    "tictactoe.cli",
    "tictactoe.club.lobby",
    "tictactoe.tui.club_warm:warm_up",
)
"""What a player's session imports, imported once (and its lobby drawn once, headless) by the
warm parent that forks each session's game (`tictactoe.doors.warm`)."""
STARTING: Final = "Starting the club…"
"""Said before anything slow, so that the owner knows it has heard them."""
MERGING_OFF: Final = (
    "KSM is off: each player takes about 22 MiB of memory here; with the kernel's KSM on, about"
    " 10 (docs/club.md)."
)
"""Said at the start where the kernel could merge the games' pages and does not."""
MERGING_ON: Final = (
    "KSM is on: each player takes about 10 MiB of memory here once the kernel has merged their"
    " pages, 22 before (docs/club.md)."
)
"""Said at the start where the kernel merges the games' pages."""
PLAYERS_LEAVE_WITHIN: Final = 1.0
"""Seconds the players' games have to end by themselves when the club closes."""


def default_data() -> Path:
    """The club's data folder when `--data` is not given: the user data folder's `club`."""
    return platformdirs.user_data_path("tictactoe") / "club"


def session_command(lobby_url: str, peer: str) -> list[str]:
    """The game a door starts for a player's session: this Python, `tictactoe club-session`."""
    return [sys.executable, "-m", "tictactoe", "club-session", "--link", lobby_url, "--peer", peer]


def run_club(args: argparse.Namespace) -> int:
    """`tictactoe club [options]` (`args`, as `tictactoe.options` read them): run until SIGINT
    or SIGTERM; the exit status."""
    if sys.platform == "win32":
        print("tictactoe club: a club needs Linux or macOS.", file=sys.stderr)
        return 2
    print(STARTING, flush=True)
    data: Path = args.data if args.data is not None else default_data()
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or str(error)
        return _refused(f"cannot make the folder {data}: {reason}.")
    from tictactoe.doors.log import log_to_file
    from tictactoe.doors.ssh import HostKeyError, load_host_key

    log_to_file(data / LOG_FILE)
    try:
        key = load_host_key(args.host_key or data / HOST_KEY_FILE)
    except HostKeyError as error:
        return _refused(str(error))
    from tictactoe.record.club import ClubUnavailable
    from tictactoe.record.club_store import open_club_store

    try:
        record = open_club_store(data, args.database)
    except ClubUnavailable as error:
        return _refused(str(error))
    try:
        return asyncio.run(_serve(args, key, record))
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else str(error)
        print(f"tictactoe club: cannot listen on port {args.ssh_port}: {reason}", file=sys.stderr)
        return 2
    finally:
        record.close()


def _refused(problem: str) -> int:
    """The club cannot start: `problem` said, and the exit status 2."""
    print(f"tictactoe club: error: {problem}", file=sys.stderr)
    return 2


async def _serve(args: argparse.Namespace, key: object, record: object) -> int:
    import asyncssh

    from tictactoe.doors.ssh import SshDoor, fingerprint
    from tictactoe.doors.warm import WarmParent
    from tictactoe.record.club_store import ClubStore

    assert isinstance(key, asyncssh.SSHKey)
    club = club_for(
        cast(ClubStore, record),
        grace=args.grace,
        address=args.cluster_address,
        lobby_pace=args.lobby_pace,
    )
    players = args.max_players or players_for(available_memory())
    bounds = door_bounds(players, machine_cores())
    club.guest_door = GuestDoor(bounds.guests)
    await club.start()
    warm = WarmParent(SESSION_MODULES)
    await warm.start()
    door = SshDoor(
        host_key=key,
        command=lambda info: session_command(club.url, info.peer),
        gate=club,
        max_sessions=bounds.players,
        max_connections=bounds.connections,
        max_logging_in=bounds.logging_in,
        start_game=warm.spawn,
        proxy_protocol=args.proxy_protocol,
    )
    web = None
    port = 0
    try:
        port = await door.start(args.listen, args.ssh_port)
        club.ssh_port = port
        if args.web_port is not None:
            from tictactoe.club.web import open_web_door

            web = await open_web_door(club, args.listen, args.web_port, args.web_name)
    except BaseException as error:
        await door.stop()
        await warm.stop()
        await club.stop()
        if port and isinstance(error, OSError):  # the SSH door opened, the web door did not
            reason = os.strerror(error.errno) if error.errno else str(error)
            where = f"port {args.web_port}"
            print(f"tictactoe club: cannot listen on {where}: {reason}", file=sys.stderr)
            return 2
        raise
    stopped = asyncio.Event()
    status = 0

    def stop(number: int) -> None:
        nonlocal status
        status = 128 + number
        stopped.set()

    loop = asyncio.get_running_loop()
    for number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(number, stop, number)
    where = args.listen or "every address"
    print(
        f"The club is open on {where}, port {port}: players type ssh -p {port} HANDLE@HOST"
        f" (host key {fingerprint(key)}; Ctrl+C closes it)",
        flush=True,
    )
    if web is not None:
        print(f"Browsers open {web.address} (each tab a guest)", flush=True)
    whence = "--max-players" if args.max_players else f"from the memory, at most {MOST_PLAYERS}"
    print(
        f"Room for {bounds.players} players at once ({whence}), guests at most {bounds.guests}"
        " of them.",
        flush=True,
    )
    merging = merging_said()
    if merging is not None:
        print(merging, flush=True)
    await stopped.wait()
    await club.stop("The club has closed.")
    deadline = loop.time() + PLAYERS_LEAVE_WITHIN
    while door.sessions and loop.time() < deadline:
        await asyncio.sleep(0.05)
    await door.stop()
    if web is not None:
        await web.close()
    await warm.stop()
    return status


def merging_said(run: Path | None = None) -> str | None:
    """What the club says of the kernel's same-page merging (KSM, its switch at `run`) as it
    starts: that it is on (`MERGING_ON`) or off (`MERGING_OFF`); None on a kernel without it."""
    from tictactoe.doors.warm import KSM_RUN

    try:
        state = (run or KSM_RUN).read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return MERGING_ON if state == "1" else MERGING_OFF


def club_for(
    record: ClubStore,
    *,
    grace: float,
    address: str | None = None,
    lobby_pace: float | None = None,
) -> Club:
    """The club over `record`: one of several processes (a `Cluster`) when it is PostgreSQL,
    its tables listening on `address` (default: loopback, one machine); else a club alone. Its
    lobbies are sent at most `lobby_pace` changes a second past a burst (default: from the
    machine's cores, `tictactoe.club.lobby.lobby_pace`)."""
    from tictactoe.club import lobby

    pace = None if lobby_pace is None else lobby.lobby_pace(lobby_pace)
    club_pg = sys.modules.get("tictactoe.record.club_pg")  # loaded when the store is PostgreSQL
    if club_pg is None or not isinstance(record, club_pg.PostgresClubRecord):
        return lobby.Club(record, grace=grace, pace=pace)
    ours = logging.getLogger("tictactoe")
    for handler in ours.handlers:  # the pool's words go to the club's log, not its terminal
        logging.getLogger("psycopg").addHandler(handler)
    logging.getLogger("psycopg").propagate = False
    logging.getLogger("psycopg").setLevel(logging.ERROR)  # an outage: the club's own line says it
    from tictactoe.club.cluster import Cluster

    cluster = Cluster(record, address=address or "127.0.0.1")
    return lobby.Club(cluster.store, grace=grace, cluster=cluster, pace=pace)
