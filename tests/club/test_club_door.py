"""The club's door keeps room for players with keys: a guest flood from 40 addresses, on 127.0.0.x.

One club (`tictactoe club --max-players 16`: guests at most 8 of them) serves the file. Guests
are asyncssh clients logging in without a key, each with a terminal (so each one let in starts a
game), from 40 loopback addresses of their own (127.0.0.2 to 127.0.0.41); the friend is the real
`ssh` with a key, from 127.0.0.1. Floods are bounded in count and in seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from club.test_club_end_to_end import Club, open_club
from club.test_club_hostile import Keyless, club_memory, in_a_thread, ssh_line
from online.test_end_to_end import WAIT, Terminal
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from tictactoe.club.capacity import GUESTS_FULL, GUESTS_WAIT_TOO_LONG
from tictactoe.doors.ssh.session import NO_MORE_GAMES

pytestmark = [pytest.mark.usefixtures("ssh"), pytest.mark.slow]

PLAYERS = 16
GUESTS = 8
"""The guests' share of `PLAYERS`."""
ADDRESSES = [f"127.0.0.{number}" for number in range(2, 42)]
LOBBY = "Open tables"
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    running = open_club(tmp_path_factory.mktemp("club"), "--max-players", str(PLAYERS))
    try:
        running.server.expect(rf"Room for {PLAYERS} players at once .*guests at most {GUESTS}")
        yield running
    finally:
        running.close()


def terminal_of(pid: int) -> int:
    """The controlling terminal of `pid` (0 when none, or gone)."""
    with contextlib.suppress(OSError, IndexError):
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[4])
    return 0


def games(pid: int) -> int:
    """The club's players' games now: the processes under the club at `pid` whose controlling
    terminal is a pseudo-terminal other than the club's own."""
    own = terminal_of(pid)
    found, todo = 0, [pid]
    while todo:
        current = todo.pop()
        terminal = terminal_of(current)
        if terminal >> 8 & 0xFF in range(136, 144) and terminal != own:
            found += 1
        with contextlib.suppress(OSError):
            children = Path(f"/proc/{current}/task/{current}/children").read_text()
            todo += map(int, children.split())
    return found


async def guest(
    port: int, source: str, held: list[asyncssh.SSHClientConnection], sessions: int = 1
) -> list[str]:
    """A guest from `source` with `sessions` terminals on one connection: what each was shown
    first, the lobby or a sentence. A connection let in is kept in `held` (it holds its place)."""
    try:
        connection = await asyncssh.connect(
            "127.0.0.1",
            port,
            username="guest",
            local_addr=(source, 0),
            known_hosts=None,
            client_keys=None,
            client_factory=Keyless,
            config=None,
            agent_path=None,
            password_auth=False,
        )
    except (OSError, asyncssh.Error) as error:
        return [f"dropped: {error}"]
    held.append(connection)
    said: list[str] = []
    for _ in range(sessions):
        try:
            process = await connection.create_process(
                term_type="xterm-256color", term_size=(80, 24), encoding="utf-8"
            )
        except (OSError, asyncssh.Error) as error:
            return [*said, f"dropped: {error}"]
        said.append(await first_words(process))
    return said


async def first_words(process: asyncssh.SSHClientProcess[str]) -> str:
    """The lobby, or the sentence the session ended with."""
    shown = ""

    async def lobby() -> str:
        nonlocal shown
        while LOBBY not in shown:
            chunk = await process.stdout.read(4096)
            if not chunk:
                await asyncio.Event().wait()  # ended: `ended` answers
            shown += chunk
        return LOBBY

    async def ended() -> str:
        result = await process.wait(check=False)  # what was not read yet
        said = result.stderr if isinstance(result.stderr, str) else ""
        return said.strip() or f"ended: {shown[-200:]!r}"

    tasks = [asyncio.create_task(lobby()), asyncio.create_task(ended())]
    try:
        done, _ = await asyncio.wait(tasks, timeout=3 * WAIT, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
    return next(iter(done)).result() if done else f"nothing within {3 * WAIT} s: {shown!r}"


def test_a_guest_flood_from_40_addresses_leaves_room_for_a_friend_with_a_key(club: Club) -> None:
    alice = club.ssh("alice", "alice")  # claims her handle first, as a friend of the club has
    alice.expect(r"alice · Classic 1500 ± \d+")
    alice.from_now().send(b"q")
    assert alice.finish() == 0

    most = 0
    held: list[asyncssh.SSHClientConnection] = []

    async def flood() -> list[str]:
        asked = [guest(club.port, source, held) for source in ADDRESSES for _ in range(2)]
        try:
            return [said for saying in await asyncio.gather(*asked) for said in saying]
        finally:
            for connection in held:
                connection.close()

    flooding = in_a_thread(flood)
    started = time.monotonic()
    friend = Terminal(ssh_line(club, "alice", "alice"))
    club.players.append(friend)
    deadline = started + 3 * WAIT
    while "alice · Classic 1500" not in friend.text:  # her lobby's line, whatever the flood does
        assert time.monotonic() < deadline, f"alice never came in: {friend.text!r}"
        assert friend.poll() is None, f"alice was refused: {friend.text!r} {club.server.text!r}"
        Terminal.read_all(0.05)
        most = max(most, games(club.server.pid))
    print(f"alice came in {time.monotonic() - started:.1f} s after the flood began")
    said = flooding()
    most = max(most, games(club.server.pid))

    assert said.count(LOBBY) <= GUESTS, said
    assert GUESTS_FULL in said, said  # past their share, told so
    told = {LOBBY, GUESTS_FULL, GUESTS_WAIT_TOO_LONG}
    assert all(one in told or one.startswith("dropped") for one in said), set(said)
    print({one: said.count(one) for one in set(said)})
    assert most <= GUESTS + 1, f"{most} games at once"  # the guests' share, and alice
    print(f"at most {most} games; the club took {club_memory(club.server.pid) / MIB:.0f} MiB")
    friend.from_now().send(b"q")
    assert friend.finish() == 0


def test_a_guest_has_one_game_at_a_time(club: Club) -> None:
    held: list[asyncssh.SSHClientConnection] = []

    async def two() -> list[str]:
        try:
            return await guest(club.port, "127.0.0.50", held, sessions=2)
        finally:
            for connection in held:
                connection.close()

    assert in_a_thread(two)() == [LOBBY, NO_MORE_GAMES]


def test_the_club_s_files_are_its_owner_s_alone(club: Club) -> None:
    data = club.folder / "data"
    for name in ("club.sqlite3", "club.sqlite3-wal", "club.sqlite3-shm", "club.log"):
        assert stat.S_IMODE((data / name).stat().st_mode) == 0o600, name
    assert stat.S_IMODE((data / "ssh_host_key").stat().st_mode) == 0o600
