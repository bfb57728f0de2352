"""A stranger at the real `tictactoe host`'s doors, with its address and not its code.

Everything here runs on 127.0.0.1, bounded in count and time. The host's game processes are
counted, and the memory of its process tree (VmRSS, from /proc) is read before and after.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import resource
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import asyncssh
import pytest

from app.test_stray_bytes import STRAY, flood, pour, rss_of_tree
from limits import EVENT_LIMIT
from online.test_ssh_door import Terminal, ssh_line
from online.test_ssh_door import ssh as ssh  # the fixture: the real OpenSSH client
from web.test_online_browser import HostTerminal

pytestmark = pytest.mark.slow

MIB = 1024 * 1024


def games_of(pid: int) -> list[int]:
    """The game processes the host at `pid` has started (its descendants running `join`)."""
    found = []
    pids = [pid]
    while pids:
        current = pids.pop()
        children = Path(f"/proc/{current}/task/{current}/children")
        with contextlib.suppress(OSError):
            for child in map(int, children.read_text().split()):
                pids.append(child)
                command = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
                if b"join" in command:
                    found.append(child)
    return found


def host_log(host: HostTerminal) -> Path:
    """The host's log file, as the host's environment places it."""
    state = host.environment.get("XDG_STATE_HOME") or str(
        Path(host.environment["HOME"]) / ".local/state"
    )
    return Path(state) / "tictactoe" / "log" / "host.log"


@pytest.fixture
def alice(tmp_path: Path) -> Iterator[HostTerminal]:
    host = HostTerminal(tmp_path)
    try:
        yield host
    finally:
        host.stop()


async def strangers_at_the_web_door(address: str) -> list[int]:
    """Code-less websockets, forged tickets, wrong codes, a rebinding Host: the statuses."""
    statuses: list[int] = []
    # A connection each: the door closes a kept-alive one idle past its deadline, and a request
    # sent on it as it closes would fail as at any server (a browser sends it again).
    connector = aiohttp.TCPConnector(force_close=True)
    async with aiohttp.ClientSession(connector=connector) as session:
        for path in ["/ws", "/ws/forged-ticket", "/ws/"] * 10:
            with contextlib.suppress(aiohttp.WSServerHandshakeError):
                async with session.ws_connect(address.rstrip("/") + path) as ws:
                    for _ in range(30):  # what used to grow a game to gigabytes
                        await ws.send_json(["stdin", "a" * 60_000])
                    statuses.append(101)
        for path in ["/ws", "/ws/forged-ticket"]:
            async with session.get(address.rstrip("/") + path) as response:
                statuses.append(response.status)

        async def wrong() -> int:
            async with session.post(address, data={"code": "ABCDEF"}) as response:
                return response.status

        statuses += await asyncio.gather(*(wrong() for _ in range(8)))
        async with session.get(address, headers={"Host": "rebound.example"}) as response:
            statuses.append(response.status)
    return statuses


async def strangers_at_the_ssh_door(port: int) -> int:
    """Wrong codes at the SSH door, each a connection of its own, all at once: how many got in
    (past the throttle's limit each is answered late, so the door holds them a while)."""

    async def stranger(user: str) -> int:
        with contextlib.suppress(asyncssh.PermissionDenied, asyncssh.DisconnectError, OSError):
            async with asyncssh.connect(
                "127.0.0.1",
                port,
                username=user,
                known_hosts=None,
                client_keys=None,
                config=None,
                agent_path=None,
            ) as client:
                for _ in range(4):
                    with contextlib.suppress(asyncssh.Error):
                        env: dict[bytes | str, bytes | str] = {
                            f"X{n}": "x" * 30_000 for n in range(50)
                        }
                        await client.create_session(asyncssh.SSHClientSession, env=env)
                return 1
        return 0

    users = ["NOTTHECODE", "ABCDEF", "root", "a" * 200] * 2
    return sum(await asyncio.wait_for(asyncio.gather(*map(stranger, users)), EVENT_LIMIT))


async def test_a_stranger_without_the_code_starts_nothing_and_costs_the_host_nothing(
    alice: HostTerminal,
) -> None:
    address = alice.find(r"http://127\.0\.0\.1:\d+/").group(0)
    port = int(alice.find(r"ssh -p (\d+) ").group(1))
    code = alice.find(r"code: ([A-Z0-9]{6})").group(1)
    await asyncio.sleep(1.0)  # the invitation is drawn: the host is settled
    before = rss_of_tree(alice.process.pid)

    # Both doors at once: each holds its late answers (the throttle's delay) at the same time.
    statuses, admitted = await asyncio.gather(
        strangers_at_the_web_door(address), strangers_at_the_ssh_door(port)
    )

    assert 101 not in statuses, statuses  # no websocket opened without a ticket
    assert statuses[:2] == [404, 403], statuses  # a plain GET of the websockets' addresses
    assert set(statuses[2:-1]) <= {403, 429}, statuses  # wrong codes: refused, or told to wait
    assert statuses[-1] == 421, statuses  # a page whose name was made to point here
    assert admitted == 0
    assert games_of(alice.process.pid) == []
    grown = rss_of_tree(alice.process.pid) - before
    assert grown < 30 * MIB, f"the host grew by {grown / MIB:.0f} MiB"
    logged = host_log(alice).read_text(encoding="utf-8").splitlines()
    assert any("no valid ticket" in line for line in logged)
    assert not any("NOTTHECODE" in line or "ABCDEF" in line for line in logged)  # never a code
    assert stat.S_IMODE(host_log(alice).stat().st_mode) == 0o600
    assert len(logged) <= 20  # a minute's lines about one address: the rest are counted

    # The friend, with the code, still gets in and plays.
    async with asyncssh.connect(
        "127.0.0.1",
        port,
        username=code,
        known_hosts=None,
        client_keys=None,
        config=None,
        agent_path=None,
    ) as client:
        bob = await client.create_process(term_type="xterm", term_size=(100, 32), encoding=None)
        seen = bytearray()

        async def until(pattern: bytes) -> None:
            deadline = time.monotonic() + EVENT_LIMIT
            while not re.search(pattern, bytes(seen)):
                left = deadline - time.monotonic()
                assert left > 0, f"{pattern!r} did not show; Bob's screen: {bytes(seen)[-1500:]!r}"
                with contextlib.suppress(TimeoutError):
                    seen.extend(await asyncio.wait_for(bob.stdout.read(65536), left))

        await until(rb"Join a friend")
        bob.stdin.write(b"Bob\r")
        alice.find("Bob joined the series")
        alice.type("x")
        alice.find(r"Alice \(X\) to move")
        alice.type("5")
        alice.find(r"Bob \(O\) to move")
        bob.stdin.write(b"7")
        alice.find(r"2\. Bob O top-left")
        [game] = games_of(alice.process.pid)
        tty = int(Path(f"/proc/{game}/stat").read_text().rsplit(")", 1)[1].split()[4])
        assert tty != 0, "the game took its terminal as its controlling one"

        # No byte either side sends ends the series: stray bytes on both keyboards, then 64 KB
        # of garbage into Bob's seat (4 s at the door's pace; the 10 MB flood is test_stray_bytes').
        os.write(alice.master, b"".join(STRAY.values()))
        bob.stdin.write(b"".join(STRAY.values()))
        before = rss_of_tree(game)
        bob.stdin.write(b"".join(flood(64 * 1024)))
        await asyncio.wait_for(bob.stdin.drain(), EVENT_LIMIT)
        grown = rss_of_tree(game) - before
        assert grown < 30 * MIB, f"Bob's game grew by {grown / MIB:.0f} MiB"
        # And the host's own terminal: as much of 10 MB as it lets in for 5 s (its screen is
        # read all the while by a thread of `alice`).
        before = rss_of_tree(alice.process.pid)
        await asyncio.to_thread(pour, alice.master, flood(10 * MIB), 5)
        grown = rss_of_tree(alice.process.pid) - before
        assert grown < 30 * MIB, f"the host grew by {grown / MIB:.0f} MiB"
        alice.type("1")  # behind what was held back: the host's game catches up first
        await asyncio.to_thread(alice.find, r"3\. Alice X bottom-left", timeout=EVENT_LIMIT)
        bob.stdin.write(b"9")  # behind what was held back: his game catches up first
        # Waiting in a thread: Bob's client sends the rest as the door's window opens.
        await asyncio.to_thread(alice.find, r"4\. Bob O top-right", timeout=EVENT_LIMIT)
        assert alice.process.poll() is None and games_of(alice.process.pid) == [game]
        bob.close()


def descriptors(pid: int) -> int:
    """File descriptors the process at `pid` has open."""
    try:
        return sum(1 for _ in Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return 0


@contextlib.contextmanager
def many_files(wanted: int) -> Iterator[None]:
    """This test's own process may open `wanted` files (the strangers' side of the flood)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"this machine lets a process open only {hard} files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


class Strangers:
    """Slow and silent strangers from addresses of their own, each one re-opening as soon as
    (or a moment after) the door drops it, until `stop`."""

    def __init__(self) -> None:
        self.tasks: list[asyncio.Task[None]] = []
        self.opened = 0

    def slowloris(self, port: int, addresses: list[str], count: int) -> None:
        """`count` connections that send a request's headers a line every 3 s, never ending."""

        async def one(address: str) -> None:
            while True:
                with contextlib.suppress(OSError):
                    _, writer = await asyncio.open_connection(
                        "127.0.0.1", port, local_addr=(address, 0)
                    )
                    self.opened += 1
                    try:
                        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                        while not writer.is_closing():
                            await asyncio.sleep(3)
                            writer.write(b"X-Slow: 1\r\n")
                            await writer.drain()
                    finally:
                        writer.close()
                await asyncio.sleep(2)

        self.tasks += [
            asyncio.create_task(one(addresses[n % len(addresses)])) for n in range(count)
        ]

    def silent(self, port: int, addresses: list[str], count: int) -> None:
        """`count` TCP connections that never say a word (not even SSH's version)."""

        async def one(address: str) -> None:
            while True:
                with contextlib.suppress(OSError):
                    reader, writer = await asyncio.open_connection(
                        "127.0.0.1", port, local_addr=(address, 0)
                    )
                    self.opened += 1
                    with contextlib.suppress(OSError):
                        await reader.read()  # until the door drops it
                    writer.close()
                await asyncio.sleep(0.5)

        self.tasks += [
            asyncio.create_task(one(addresses[n % len(addresses)])) for n in range(count)
        ]

    def guessers(self, port: int, addresses: list[str]) -> None:
        """One stranger per address logging in with wrong codes, one after another."""

        async def one(address: str) -> None:
            for attempt in itertools.count():
                with contextlib.suppress(asyncssh.Error, OSError):
                    await asyncssh.connect(
                        "127.0.0.1",
                        port,
                        username=f"WRONG{attempt % 10}",
                        local_addr=(address, 0),
                        known_hosts=None,
                        client_keys=None,
                        config=None,
                        agent_path=None,
                    )
                await asyncio.sleep(0.05)

        self.tasks += [asyncio.create_task(one(address)) for address in addresses]

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def friend_by_ssh(port: int, code: str, home: Path) -> tuple[float, float]:
    """Bob joins with the real `ssh` from 127.0.0.2: seconds until he is logged in, and until
    his game's first screen shows."""
    started = time.monotonic()
    terminal = await Terminal.run(
        ssh_line(port, code, home / "known_hosts", "-tt", "-v", "-b", "127.0.0.2")
    )
    try:
        await terminal.expect(rb"Authenticated to 127\.0\.0\.1")
        logged_in = time.monotonic() - started
        await terminal.expect(rb"Join a friend|Your name")
        return logged_in, time.monotonic() - started
    finally:
        await terminal.close()


async def friend_by_browser(address: str, code: str) -> float:
    """Bob gives the code on the door's page from 127.0.0.2 and his tab's game starts: the
    seconds that took."""
    started = time.monotonic()
    connector = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
    async with aiohttp.ClientSession(connector=connector) as session:
        async with session.post(address, data={"code": code}) as response:
            assert response.status == 200
            page = await response.text()
        ticket = re.search(r"/ws/([\w-]+)", page)
        assert ticket is not None, page
        url = f"{address.rstrip('/')}/ws/{ticket.group(1)}?width=100&height=32"
        async with session.ws_connect(url) as websocket:
            received = 0
            while received < 5000:  # the game's first screen
                message = await websocket.receive(timeout=EVENT_LIMIT)
                assert message.type == aiohttp.WSMsgType.BINARY, message
                received += len(message.data)
    return time.monotonic() - started


@pytest.mark.usefixtures("ssh")
@pytest.mark.parametrize("files", ["-Sn 1024", "-n 1024"], ids=["soft-limit", "hard-limit"])
async def test_slow_and_silent_strangers_never_keep_the_friend_out_of_either_door(
    tmp_path: Path, files: str
) -> None:
    # Under a tool's soft limit of 1,024 files, which the host raises; and under a hard one,
    # which it may not: the doors' own bounds must then keep it within the limit.
    alice = HostTerminal(tmp_path, files=files)
    try:
        address = alice.find(r"http://127\.0\.0\.1:\d+/").group(0)
        web_port = int(address.rsplit(":", 1)[1].strip("/"))
        port = int(alice.find(r"ssh -p (\d+) ").group(1))
        code = alice.find(r"code: ([A-Z0-9]{6})").group(1)
        await asyncio.sleep(1.0)
        pid = alice.process.pid
        before = descriptors(pid)
        memory = rss_of_tree(pid)
        strangers = Strangers()
        with many_files(8192):
            try:
                strangers.slowloris(web_port, [f"127.0.0.{n}" for n in range(3, 13)], 3000)
                strangers.silent(port, [f"127.0.0.{n}" for n in range(3, 11)], 200)
                strangers.guessers(port, [f"127.0.0.{n}" for n in range(13, 21)])
                most = before
                for _ in range(20):  # the flood builds up for 4 s
                    await asyncio.sleep(0.2)
                    most = max(most, descriptors(pid))
                joins = [await friend_by_ssh(port, code, tmp_path) for _ in range(3)]
                tabs = [await friend_by_browser(address, code) for _ in range(2)]
                most = max(most, descriptors(pid))
                grown = rss_of_tree(pid) - memory
            finally:
                await strangers.stop()
        print(f"host descriptors {before} -> at most {most}; strangers opened {strangers.opened}")
        print(f"host's process tree: {grown / MIB:.1f} MiB more than before the strangers")
        print(f"the friend by ssh: logged in, game shown (s): {joins}; by browser (s): {tabs}")
        assert strangers.opened > 3000
        assert most < 1024 - 64, f"the host had {most} files open, under a limit of 1024"
        assert alice.process.poll() is None
        logged = host_log(alice).read_text(encoding="utf-8").splitlines()
        assert any("dropped a connection" in line for line in logged)
        assert len(logged) < 1000
    finally:
        alice.stop()
