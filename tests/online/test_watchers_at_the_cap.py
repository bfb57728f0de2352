"""Watchers past the cap, at the real `tictactoe host`'s SSH door: a game the authority refuses
for good says why and ends, so a crowd from one address holds no more games than the series
takes.

Everything runs on 127.0.0.1, bounded in count and time.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from limits import EVENT_LIMIT
from online.test_end_to_end import words
from online.test_hostile_doors import games_of
from web.test_online_browser import HostTerminal

pytestmark = pytest.mark.slow

MAX_WATCHERS = 3
"""The host's cap on watchers here (`--max-watchers`; 32 by default, which the authority's own
tests check): the crowd past it is what counts, not its size."""

CONNECTIONS = 2
SESSIONS = 4
"""Sessions per connection (the door's most): 8 games asked for from one address, 4 of them
past the cap."""

STARTED_WITHIN = 2 * EVENT_LIMIT
"""Seconds for every game asked for to show its first screen (eight at once), on a busy
two-core machine."""

FULL = rb"all the watchers it can take"


@pytest.fixture
def alice(tmp_path: Path) -> Iterator[HostTerminal]:
    host = HostTerminal(tmp_path, "--max-watchers", str(MAX_WATCHERS))
    try:
        yield host
    finally:
        host.stop()


class Watcher:
    """One SSH session at the door: its game's screen as it comes, and its name typed."""

    def __init__(self, process: asyncssh.SSHClientProcess[bytes]) -> None:
        self.process = process
        self.seen = bytearray()

    async def until(self, pattern: bytes, timeout: float) -> bool:
        """Whether `pattern` was shown before the session closed (within `timeout`)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not re.search(pattern, bytes(self.seen)):
            try:
                left = deadline - loop.time()
                chunk = await asyncio.wait_for(self.process.stdout.read(65536), left)
            except TimeoutError:
                raise AssertionError(
                    f"{pattern!r} did not show within {timeout:.0f} s; the screen:"
                    f" {words(bytes(self.seen))[-1500:]!r}"
                ) from None
            if not chunk:
                return False
            self.seen.extend(chunk)
        return True


async def test_watchers_refused_at_the_cap_leave_no_game_running(alice: HostTerminal) -> None:
    port = int(alice.find(r"ssh -p (\d+) ").group(1))
    code = alice.find(r"code: ([A-Z0-9]{6})").group(1)
    await asyncio.sleep(1.0)
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                asyncssh.connect(
                    "127.0.0.1",
                    port,
                    username=code,
                    known_hosts=None,
                    client_keys=None,
                    config=None,
                    agent_path=None,
                )
            )
            for _ in range(CONNECTIONS)
        ]

        async def session(client: asyncssh.SSHClientConnection) -> Watcher:
            process = await client.create_process(
                term_type="xterm", term_size=(100, 32), encoding=None
            )
            return Watcher(process)

        started = time.monotonic()
        sessions = await asyncio.gather(*(session(c) for c in clients for _ in range(SESSIONS)))
        bob, *crowd = sessions
        assert await bob.until(rb"Join a friend", STARTED_WITHIN)
        bob.process.stdin.write(b"Bob\r")
        alice.find("Bob joined the series")

        async def watch(number: int, watcher: Watcher) -> bool:
            """Whether this one was told the series is full."""
            assert await watcher.until(rb"Join a friend", STARTED_WITHIN)
            watcher.process.stdin.write(f"W{number}\r".encode())
            return await watcher.until(rb"watching|" + FULL, STARTED_WITHIN) and bool(
                re.search(FULL, watcher.seen)
            )

        refused = await asyncio.gather(*(watch(n, w) for n, w in enumerate(crowd)))
        assert sum(refused) == len(crowd) - MAX_WATCHERS
        # Each refused game ends by itself, its last words on its terminal; the door hangs up.
        pid = alice.process.pid
        deadline = time.monotonic() + EVENT_LIMIT
        while len(games_of(pid)) > 1 + MAX_WATCHERS and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
        games = games_of(pid)
        print(
            f"{len(sessions)} sessions, {sum(refused)} refused: {len(games)} games running"
            f" {time.monotonic() - started:.0f} s after they were asked for"
        )
        assert len(games) <= 1 + MAX_WATCHERS
        for watcher, full in zip(crowd, refused, strict=True):
            if full:
                await asyncio.wait_for(watcher.process.wait_closed(), EVENT_LIMIT)
        for watcher in sessions:
            watcher.process.close()
