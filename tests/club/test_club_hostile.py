"""The club left open to strangers: floods of claims, guests, seeks and stray bytes, on 127.0.0.1.

One club (`tictactoe club`, in a terminal) serves the whole file; Alice and Bob play a rated match
in it first, and each flood ends by checking that match is still on the ladder (`tictactoe club
ladder --json`). Strangers are asyncssh clients, each flood from a loopback address of its own
(127.0.0.3, 127.0.0.4: the club counts addresses); players are the real `ssh`. Sessions opened
without a terminal are told a sentence and start no game, so a flood costs no game processes.
Every flood is bounded in count and in seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import asyncssh
import pytest

import limits
from club.test_club_end_to_end import Club, open_club
from online.test_end_to_end import WAIT, Terminal
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from tictactoe.club.bounds import (
    ASKS_PER_HANDLE,
    ASKS_PER_NETWORK,
    GUESTS_PER_NETWORK,
    TOO_MANY_GUESTS,
)
from tictactoe.club.link import LobbyLink
from tictactoe.club.lobby import CLUB_TOKEN, TOO_FAST
from tictactoe.club.lobby import Club as Hub
from tictactoe.core.club import CLAIMS_PER_HOUR
from tictactoe.doors.ssh.session import NO_TERMINAL
from tictactoe.online.lobby import LobbyNews, OpenTable, Said, Snapshot, WatchTable
from tictactoe.record.club import TOO_MANY_CLAIMS, ClubRecord

pytestmark = [pytest.mark.usefixtures("ssh"), pytest.mark.slow]

T = TypeVar("T")

MIB = 1024 * 1024


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    running = open_club(tmp_path_factory.mktemp("club"))
    try:
        yield running
    finally:
        running.close()


@pytest.fixture(scope="module")
def played(club: Club) -> tuple[Terminal, Terminal]:
    """Alice and Bob meet by quick pair and play a rated match (Alice wins); both back in the
    lobby: their terminals."""
    alice = club.ssh("alice", "alice")
    bob = club.ssh("bob", "bob")
    alice.expect("Open tables")
    bob.expect("Open tables")
    alice.from_now().send(b"p")  # nobody waits: her table opens
    alice.expect("Nobody is waiting: your table is open.")
    bob.expect(r"alice 1500 ± \d+")
    bob.from_now().send(b"p")  # the closest waiting player: Alice
    alice.expect("alice, choose your mark")
    alice.from_now().send(b"x")
    bob.expect(r"alice \(X\) to move")
    for player, other, key, drawn in (
        (alice, bob, b"7", "alice X top-left"),
        (bob, alice, b"4", "bob O left"),
        (alice, bob, b"8", "alice X top"),
        (bob, alice, b"5", "bob O centre"),
        (alice, bob, b"9", "alice wins!"),
    ):
        other.from_now()
        player.from_now().send(key)
        player.expect(drawn)
        other.expect(drawn)
    bob.from_now().send(b"q")  # leaves the table: both back in the lobby
    bob.expect("Open tables")
    alice.expect("bob left the series")
    return alice, bob


def kept(club: Club) -> None:
    """The match Alice won against Bob is on the club's ladder."""
    argv = [sys.executable, "-m", "tictactoe", "club", "ladder", "--json"]
    argv += ["--data", str(club.folder / "data")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=WAIT, check=True)
    ladder = {row["handle"]: row for row in json.loads(done.stdout)}
    assert (ladder["alice"]["wins"], ladder["alice"]["matches"]) == (1, 1)
    assert (ladder["bob"]["losses"], ladder["bob"]["matches"]) == (1, 1)
    assert club.server.poll() is None  # the club is up


def ssh_line(club: Club, handle: str, *keys: str, verbose: bool = False) -> list[str]:
    """`ssh -p PORT HANDLE@127.0.0.1` offering the keys called `keys`, in that order."""
    line = ["ssh", "-F", "none", "-tt", "-e", "none", "-o", "StrictHostKeyChecking=accept-new"]
    line += ["-o", f"UserKnownHostsFile={club.folder / 'known_hosts'}"]
    line += ["-o", "PasswordAuthentication=no", "-o", "IdentitiesOnly=yes"]
    line += ["-v"] if verbose else ["-o", "LogLevel=ERROR"]
    for key in keys:
        line += ["-i", str(club.key(key))]
    return [*line, "-p", str(club.port), f"{handle}@127.0.0.1"]


def in_a_thread(work: Callable[[], Awaitable[T]]) -> Callable[[], T]:
    """Run `work` (asyncssh clients) on a loop of its own in a thread while the test watches the
    terminals; the returned call waits for its answer."""
    answer: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            answer.append(asyncio.run(asyncio.wait_for(work(), 3 * WAIT)))
        except BaseException as error:
            failed.append(error)

    thread = threading.Thread(target=run)
    thread.start()

    def wait() -> T:
        while thread.is_alive():
            Terminal.read_all(0.05)  # the terminals are read meanwhile
        thread.join()
        if failed:
            raise failed[0]
        return answer[0]

    return wait


class Keyless(asyncssh.SSHClient):
    """A client that logs in without a key (keyboard-interactive, no prompt): a guest."""

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Sequence[tuple[str, bool]]
    ) -> list[str]:
        return []


async def stranger(
    port: int,
    user: str,
    source: str,
    key: asyncssh.SSHKey | None,
    held: list[asyncssh.SSHClientConnection],
) -> str:
    """One login from `source` as `user` (with `key`, or none), one session without a terminal:
    the sentence it is told. A connection let in is kept open in `held` (it holds its place);
    a refused one closes. "dropped" when the door's own bounds closed the connection first."""
    try:
        connection = await asyncssh.connect(
            "127.0.0.1",
            port,
            username=user,
            local_addr=(source, 0),
            known_hosts=None,
            client_keys=[key] if key is not None else None,
            client_factory=Keyless,
            config=None,
            agent_path=None,
            password_auth=False,
        )
        result = await connection.run(term_type=None, check=False, timeout=WAIT)
    except (OSError, asyncssh.Error):
        return "dropped"
    said = result.stderr.strip() if isinstance(result.stderr, str) else ""
    if said == NO_TERMINAL:
        held.append(connection)
    else:
        connection.close()
    return said


def club_memory(pid: int) -> int:
    """Bytes of memory in use (VmRSS) by the club at `pid` and every process it started."""
    total, pids = 0, [pid]
    while pids:
        current = pids.pop()
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{current}/status").read_text()
            found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
            total += int(found[1]) * 1024 if found else 0
            children = Path(f"/proc/{current}/task/{current}/children").read_text()
            pids += map(int, children.split())
    return total


def test_a_wrong_key_first_lets_the_right_one_in_and_alone_it_is_refused(
    club: Club, played: tuple[Terminal, Terminal]
) -> None:
    both = Terminal(ssh_line(club, "alice", "mallory", "alice"))  # the wrong key offered first
    club.players.append(both)
    both.expect(r"alice · Classic 1[5-9]\d\d ± \d+")
    both.expect("Open tables")

    wrong = Terminal(ssh_line(club, "alice", "mallory"))
    club.players.append(wrong)
    wrong.expect(r"The handle alice belongs to another key; choose another handle\.")
    assert wrong.finish() == 1
    assert "Open tables" not in wrong.text  # no game was started for it
    both.from_now().send(b"q")
    assert both.finish() == 0
    kept(club)


def test_a_hundred_claims_from_one_address_claim_five_the_rest_told_why(
    club: Club, played: tuple[Terminal, Terminal]
) -> None:
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(100)]

    async def claims() -> list[str]:
        held: list[asyncssh.SSHClientConnection] = []
        at_once = asyncio.Semaphore(4)

        async def claim(number: int) -> str:
            async with at_once:
                return await stranger(club.port, f"new{number}", "127.0.0.3", keys[number], held)

        try:
            return await asyncio.gather(*(claim(n) for n in range(100)))
        finally:
            for connection in held:
                connection.close()

    said = in_a_thread(claims)()
    assert said.count(NO_TERMINAL) == CLAIMS_PER_HOUR  # claimed: in, no terminal, no game
    assert said.count(TOO_MANY_CLAIMS) == 100 - CLAIMS_PER_HOUR  # one sentence each
    log = (club.folder / "data" / "club.log").read_text()
    assert f"refused 127.0.0.3: {TOO_MANY_CLAIMS}" in log
    kept(club)


def test_a_guest_flood_from_one_address_leaves_room_for_a_player(
    club: Club, played: tuple[Terminal, Terminal]
) -> None:
    async def guests() -> list[str]:
        held: list[asyncssh.SSHClientConnection] = []
        at_once = asyncio.Semaphore(4)

        async def guest(number: int) -> str:
            async with at_once:
                return await stranger(club.port, f"guest{number}", "127.0.0.4", None, held)

        try:
            return await asyncio.gather(*(guest(n) for n in range(40)))
        finally:
            for connection in held:
                connection.close()

    flood = in_a_thread(guests)
    time.sleep(0.2)  # the flood under way (how long her login takes in it: bench_club_flood.py)
    alice = Terminal(ssh_line(club, "alice", "alice", verbose=True))
    club.players.append(alice)
    alice.expect("Authenticated to 127.0.0.1")
    alice.expect(r"alice · Classic 1[5-9]\d\d ± \d+")
    said = flood()
    assert said.count(NO_TERMINAL) == GUESTS_PER_NETWORK  # in, as many as one address may
    assert said.count(TOO_MANY_GUESTS) == 40 - GUESTS_PER_NETWORK
    alice.from_now().send(b"q")
    assert alice.finish() == 0
    kept(club)


def test_a_seek_flood_from_one_lobby_lets_another_through_and_holds_no_memory(
    club: Club, played: tuple[Terminal, Terminal]
) -> None:
    alice, bob = played
    carol = club.ssh("carol", "carol")
    carol.expect("Open tables")
    before = club_memory(club.server.pid)
    until = time.monotonic() + 2.0
    seen_within: float | None = None
    while time.monotonic() < until:  # open, take back, pair, as fast as the terminal takes
        with contextlib.suppress(BlockingIOError):
            alice.send(b"pcpcpcpc")
        Terminal.read_all(0.005)
        if seen_within is None and time.monotonic() > until - 1.5:
            bob.from_now()
            carol.send(b"p")  # opens her table, or sits at Alice's: Bob's lobby shows it
            asked = time.monotonic()
            bob.expect("carol")
            seen_within = time.monotonic() - asked
    grown = club_memory(club.server.pid) - before
    assert seen_within is not None  # shown in the flood (how soon: a figure, not a test)
    print(f"carol's seek reached bob's lobby in {seen_within:.2f} s, in alice's flood")
    assert grown < 64 * MIB, f"the club grew by {grown / MIB:.0f} MiB"
    assert alice.poll() is None and carol.poll() is None
    assert "past its" in (club.folder / "data" / "club.log").read_text()  # the refusals logged
    kept(club)


def test_stray_bytes_never_end_a_lobby(club: Club, played: tuple[Terminal, Terminal]) -> None:
    dora = club.ssh("alice", "alice")
    dora.expect("Open tables")
    stray = [b"\xff", b"\xe9", b"\x1b[99999999999999999999A", b"\x1b[<99999;1;1M", b"\x1b]"]
    noise = random.Random(38)
    stray += [bytes(noise.randrange(0x80, 0x100) for _ in range(64)) for _ in range(8)]
    for chunk in stray:
        dora.send(chunk)
        Terminal.read_all(0.02)
    dora.send(b"\x1b\x1b")  # whatever was left half-said ends
    Terminal.read_all(0.3)
    assert dora.poll() is None
    dora.from_now().send(b"q")  # the lobby still hears its keys
    assert dora.finish() == 0
    kept(club)


# The club's hub itself, in this process: its gate and its lobby websockets, no SSH.


class SlowRecord(ClubRecord):
    """A club record on a slow disk: every call takes half a second more, and the logins of the
    handles in `held` hang until `released` is set (a disk that stalls)."""

    held: frozenset[str] = frozenset()
    released = threading.Event()

    def __getattribute__(self, name: str) -> Any:
        found = super().__getattribute__(name)
        if name.startswith("_") or not callable(found):
            return found
        held, released = super().__getattribute__("held"), super().__getattribute__("released")

        def slowly(*args: Any, **kwargs: Any) -> Any:
            if name == "enter" and args and args[0] in held:
                assert released.wait(limits.EVENT_LIMIT), "the stalled logins were never released"
            time.sleep(0.5)
            return found(*args, **kwargs)

        return slowly


def key_line() -> str:
    """A new public key, as an OpenSSH line."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    return key.export_public_key().decode().strip()


async def come_in(club: Hub, handle: str, peer: str = "127.0.0.1") -> LobbyLink:
    """`handle` comes in with a key of its own from `peer`, and opens a lobby."""
    admission = await club.enter(handle, key_line(), peer)
    assert admission.refusal is None, admission.refusal
    return await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN])


async def heard(link: LobbyLink, wanted: Callable[[LobbyNews], bool], within: float) -> LobbyNews:
    """The first news on `link` that is `wanted`, within `within` seconds."""

    seen: list[LobbyNews] = []

    async def first() -> LobbyNews:
        async for news in link:
            if wanted(news):
                return news
            seen.append(news)
        raise AssertionError(f"the lobby closed; it was sent: {seen!r}")

    return await limits.within(first(), lambda: seen, "the news wanted", within)


def opened_by(handle: str) -> Callable[[LobbyNews], bool]:
    return lambda news: (
        isinstance(news, Snapshot) and any(row.players == (handle,) for row in news.open)
    )


async def test_a_slow_record_delays_no_other_lobby(tmp_path: Path) -> None:
    """Logins stalled in the record (a disk that hangs) hold back no lobby's news: Ada's table
    reaches Bob's lobby while they wait, whatever the machine's speed."""
    record = SlowRecord(tmp_path / "club.sqlite3")
    record.held = frozenset(f"p{n}" for n in range(2))
    record.released = threading.Event()
    club = Hub(record)
    await club.start()
    others: list[asyncio.Task[object]] = []
    try:
        ada, bob = await come_in(club, "ada"), await come_in(club, "bob")
        await heard(bob, lambda news: isinstance(news, Snapshot), WAIT)  # read once
        others += [
            asyncio.create_task(club.enter(handle, key_line(), "127.0.0.5"))
            for handle in sorted(record.held)
        ]
        await ada.ask(OpenTable(rated=True))
        await heard(bob, opened_by("ada"), WAIT)
        assert not any(task.done() for task in others)  # shown while the logins still hang
        record.released.set()
        await asyncio.gather(*others)
        await ada.close()
        await bob.close()
    finally:
        record.released.set()
        await asyncio.gather(*others, return_exceptions=True)
        await club.stop()


async def test_one_table_waits_for_a_player_however_many_lobbies_ask(tmp_path: Path) -> None:
    club = Hub(ClubRecord(tmp_path / "club.sqlite3"))
    await club.start()
    try:
        handle = "ada"
        key = key_line()
        links = []
        for _ in range(3):  # three sessions of one player
            admission = await club.enter(handle, key, "127.0.0.1")
            links.append(await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN]))
        watcher = await come_in(club, "bob")
        await asyncio.gather(*(link.ask(OpenTable(rated=False)) for link in links))
        shown = await heard(watcher, opened_by("ada"), WAIT)
        await asyncio.sleep(0.3)  # any second table would be published by now
        tables = [news for news in await drained(watcher) if isinstance(news, Snapshot)]
        last = tables[-1] if tables else shown
        assert isinstance(last, Snapshot)
        assert [row.players for row in last.open] == [("ada",)]
    finally:
        await club.stop()


async def drained(link: LobbyLink) -> list[LobbyNews]:
    """What `link` has been sent and not read yet (what arrives within a moment): for what must
    not come, once what had to come has."""
    news: list[LobbyNews] = []
    with contextlib.suppress(TimeoutError):
        while True:
            news.append(await asyncio.wait_for(anext(link), 0.2))
    return news


async def answers(link: LobbyLink, count: int) -> list[Said]:
    """The next `count` sentences `link` is told (an answer to each ask), waited for."""
    said: list[Said] = []
    news: list[LobbyNews] = []

    async def read() -> list[Said]:
        async for item in link:
            news.append(item)
            if isinstance(item, Said):
                said.append(item)
                if len(said) == count:
                    return said
        raise AssertionError(f"the lobby closed; it was sent: {news!r}")

    return await limits.within(read(), lambda: news, f"{count} answers")


async def test_asks_are_paced_per_handle_and_per_address_across_lobbies(tmp_path: Path) -> None:
    club = Hub(ClubRecord(tmp_path / "club.sqlite3"))
    await club.start()
    try:
        key = key_line()
        ada = []
        for _ in range(3):  # three lobbies of one handle: each within its own pace
            admission = await club.enter("ada", key, "127.0.0.6")
            ada.append(await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN]))
        for link in ada:
            for _ in range(4):
                await link.ask(WatchTable("none"))
        said = [news for link in ada for news in await answers(link, 4)]
        assert sum(news.text == TOO_FAST for news in said) >= 12 - ASKS_PER_HANDLE

        crowd = [await come_in(club, f"p{n}", "127.0.0.7") for n in range(5)]
        for link in crowd:  # five handles (an address's claims in an hour) from one address
            for _ in range(5):
                await link.ask(WatchTable("none"))
        said = [news for link in crowd for news in await answers(link, 5)]
        assert sum(news.text == TOO_FAST for news in said) >= 25 - ASKS_PER_NETWORK - 1

        elsewhere = await come_in(club, "zed", "127.0.0.8")  # another address is not held back
        await elsewhere.ask(WatchTable("none"))
        assert [news.text for news in await answers(elsewhere, 1)] == ["That table is not in play."]
        assert not [news for news in await drained(elsewhere) if isinstance(news, Said)]
    finally:
        await club.stop()


async def test_guests_from_one_address_are_bounded_and_others_still_come_in(
    tmp_path: Path,
) -> None:
    club = Hub(ClubRecord(tmp_path / "club.sqlite3"))
    await club.start()
    try:
        guests = await asyncio.gather(
            *(club.enter("anyone", None, "127.0.0.9") for _ in range(GUESTS_PER_NETWORK + 3))
        )
        refusals = [admission.refusal for admission in guests]
        assert refusals.count(None) == GUESTS_PER_NETWORK
        assert refusals.count(TOO_MANY_GUESTS) == 3
        assert (await club.enter("anyone", None, "127.0.0.10")).refusal is None
        assert (await club.enter("ada", key_line(), "127.0.0.9")).refusal is None
        club.left(next(admission for admission in guests if admission.refusal is None))
        assert (await club.enter("anyone", None, "127.0.0.9")).refusal is None  # a place freed
    finally:
        await club.stop()
