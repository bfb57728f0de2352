"""The SSH door over loopback: asyncssh's client, and the real OpenSSH client in a terminal.

The game is a small program that says, as JSON lines, what it was started with (its
arguments, TERM, terminal size, whether the terminal is its controlling one) and then
echoes what it reads; `q` ends it with status 3. A child told `stubborn` ignores SIGHUP,
one told `flood` never reads. A child that gets SIGHUP leaves a file named after its pid.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import inspect
import json
import logging
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import termios
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import asyncssh
import platformdirs
import pytest

from limits import EVENT_LIMIT
from tictactoe.doors.ssh import (
    NO_TERMINAL,
    WRONG_CODE,
    HostKeyError,
    SessionInfo,
    SshDoor,
    fingerprint,
    host_key_path,
    load_host_key,
)
from tictactoe.doors.throttle import Throttle

pytestmark = pytest.mark.slow  # real processes: CI runs them, `-m slow` too

CODE = "K7M4QX"
WAIT = EVENT_LIMIT
"""The longest any one step of a test may take (on a busy machine)."""

CHILD = r"""
import fcntl, json, os, signal, struct, sys, termios, time, tty

def size():
    rows, columns, _, _ = struct.unpack("HHHH", fcntl.ioctl(0, termios.TIOCGWINSZ, bytes(8)))
    return [columns, rows]

def say(**what):
    os.write(1, json.dumps(what).encode() + b"\r\n")

def hung_up(number, frame):
    with open(os.path.join(os.environ["HUP_DIR"], str(os.getpid())), "w") as file:
        file.write("SIGHUP")
    os._exit(129)

fcntl.ioctl(0, termios.TIOCSCTTY, 0)  # as the game does (tictactoe.process.take_terminal)
mode = sys.argv[1].lower()
signal.signal(signal.SIGHUP, signal.SIG_IGN if mode == "stubborn" else hung_up)
signal.signal(signal.SIGWINCH, lambda number, frame: say(size=size()))
tty.setraw(0)
say(
    argv=sys.argv[1:], term=os.environ.get("TERM"), size=size(), pid=os.getpid(),
    controlling=os.tcgetpgrp(0) == os.getpgrp(), leader=os.getsid(0) == os.getpid(),
    agent=os.environ.get("SSH_AUTH_SOCK"), extra=os.environ.get("EXTRA"),
    lang=os.environ.get("LANG"), preload=os.environ.get("LD_PRELOAD"),
    colorterm=os.environ.get("COLORTERM"),
)
if mode == "flood":
    time.sleep(60)
if mode == "slow":
    while os.read(0, 1024):
        time.sleep(0.25)
if mode == "farewell":  # a last screen larger than a small window, then status 3
    os.read(0, 1)
    os.write(1, b"x" * 20000 + b"END")
    sys.exit(3)
while data := os.read(0, 1024):
    if data == b"q":
        say(bye=True)
        sys.exit(3)
    os.write(1, data)
"""

HOST_KEY = asyncssh.generate_private_key("ssh-ed25519")


def child_command(info: SessionInfo) -> list[str]:
    return [sys.executable, "-c", CHILD, info.code]


def gone(pid: int) -> bool:
    """The process has ended and been waited for (a zombie still answers signal 0)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def until(
    condition: Callable[[], bool],
    timeout: float = WAIT,
    seen: Callable[[], object] = lambda: "nothing more",
) -> None:
    """Wait until `condition` holds; past `timeout`, say which condition and what `seen` shows."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"not true within {timeout:.0f} s: {inspect.getsource(condition).strip()};"
                f" seen: {seen()!r}"
            )
        await asyncio.sleep(0.02)


class Doors:
    """Doors on 127.0.0.1 and clients to them, all closed when the test ends."""

    def __init__(self, hup_dir: Path) -> None:
        self.hup_dir = hup_dir
        self.doors: list[SshDoor] = []
        self.clients: list[asyncssh.SSHClientConnection] = []
        self.commands: list[SessionInfo] = []

    async def open(self, *, codes: bool = True, **options: Any) -> tuple[SshDoor, int]:
        def command(info: SessionInfo) -> Sequence[str]:
            self.commands.append(info)
            return child_command(info)

        door = SshDoor(
            host_key=HOST_KEY,
            command=command,
            accepts=(lambda code: code == CODE) if codes else None,
            env={"HUP_DIR": str(self.hup_dir), "EXTRA": "given"},
            **options,
        )
        self.doors.append(door)
        return door, await door.start("127.0.0.1", 0)

    async def connect(
        self, port: int, user: str = CODE, **options: Any
    ) -> asyncssh.SSHClientConnection:
        options.setdefault("agent_path", None)
        client = await asyncio.wait_for(
            asyncssh.connect(
                "127.0.0.1",
                port,
                username=user,
                known_hosts=None,
                client_keys=None,
                config=None,
                **options,
            ),
            WAIT,
        )
        self.clients.append(client)
        return client

    async def close(self) -> None:
        for client in self.clients:
            client.abort()
        for door in self.doors:
            await door.stop()


@pytest.fixture
async def doors(tmp_path: Path) -> AsyncIterator[Doors]:
    doors = Doors(tmp_path)
    yield doors
    await doors.close()


async def game(
    client: asyncssh.SSHClientConnection, size: tuple[int, int] = (80, 24), **options: Any
) -> tuple[asyncssh.SSHClientProcess[bytes], dict[str, Any]]:
    """A session in a terminal, and what its game said first."""
    process = await client.create_process(
        term_type="xterm", term_size=size, encoding=None, **options
    )
    return process, await said(process)


async def said(process: asyncssh.SSHClientProcess[bytes]) -> dict[str, Any]:
    line = await asyncio.wait_for(process.stdout.readuntil(b"\r\n"), WAIT)
    what: dict[str, Any] = json.loads(line)
    return what


async def refused(
    client: asyncssh.SSHClientConnection, *, terminal: bool = True
) -> tuple[str, int | None]:
    """What a refused session said on its standard error, and its exit status."""
    if terminal:
        process = await client.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
    else:
        process = await client.create_process(encoding=None)
    finished = await asyncio.wait_for(process.wait(), WAIT)
    assert finished.stdout == b""
    errors = finished.stderr
    assert isinstance(errors, bytes)
    return errors.decode(), finished.exit_status


async def test_the_code_opens_a_game_in_a_terminal_of_its_own(
    doors: Doors, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLORTERM", "truecolor")  # the host's terminal, not the friend's
    door, port = await doors.open()
    client = await doors.connect(port, user="k7m-4qx")
    sent = {"LANG": "C.UTF-8", "LD_PRELOAD": "/tmp/evil.so"}
    process, hello = await game(client, (80, 24), env=sent)
    assert hello["argv"] == [CODE]
    assert hello["term"] == "xterm"
    assert hello["size"] == [80, 24]
    assert hello["controlling"] and hello["leader"]
    assert hello["extra"] == "given"
    assert (hello["lang"], hello["preload"], hello["colorterm"]) == ("C.UTF-8", None, None)
    assert door.sessions == 1
    assert doors.commands[0].peer == "127.0.0.1"

    process.change_terminal_size(100, 30)
    assert await said(process) == {"size": [100, 30]}

    process.stdin.write(b"hello")
    echoed = await asyncio.wait_for(process.stdout.readexactly(5), WAIT)
    assert echoed == b"hello"
    process.stdin.write(b"q")
    assert await said(process) == {"bye": True}
    finished = await asyncio.wait_for(process.wait(), WAIT)
    assert finished.exit_status == 3
    await until(lambda: door.sessions == 0 and gone(hello["pid"]))


class BannerReader(asyncssh.SSHClient):
    """A client that keeps the login banners the server sends."""

    def __init__(self, banners: list[str]) -> None:
        self.banners = banners

    def auth_banner_received(self, msg: str, lang: str) -> None:
        self.banners.append(msg)


async def wrong_code(doors: Doors, port: int, user: str) -> tuple[list[str], float]:
    """Log in with a wrong code: the banners the door sent, and how long its answer took."""
    banners: list[str] = []
    started = time.monotonic()
    with pytest.raises(asyncssh.PermissionDenied):
        await doors.connect(port, user=user, client_factory=lambda: BannerReader(banners))
    return banners, time.monotonic() - started


async def test_a_wrong_code_is_refused_at_login_and_past_five_answered_late(
    doors: Doors, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "tictactoe.online")
    door, port = await doors.open(throttle=Throttle(limit=5, window=60, delay=1.0))
    for wrong in ("AAAAAA", "nonsense", "K7M4QY", "K7M4Q0", "K7M4Q"):
        banners, _ = await wrong_code(doors, port, wrong)
        assert banners == [WRONG_CODE + "\n"]
    banners, took = await wrong_code(doors, port, "BBBBBB")
    assert banners == [WRONG_CODE + "\n"] and took >= 1.0
    assert doors.commands == [] and door.sessions == 0

    client = await doors.connect(port, user=CODE)  # the friend, from the same address
    _, hello = await game(client)
    assert hello["argv"] == [CODE]
    lines = [record.getMessage() for record in caplog.records if record.name == "tictactoe.online"]
    assert len(lines) == 6 and "answered 1 s late" in lines[-1]
    assert not [line for line in lines[:-1] if "late" in line]  # the first five answered at once


async def test_logins_under_way_are_bounded_per_network(doors: Doors) -> None:
    door, port = await doors.open(
        throttle=Throttle(limit=0, delay=3.0), max_logging_in_per_address=2
    )
    slow = [asyncio.create_task(wrong_code(doors, port, "AAAAAA")) for _ in range(2)]
    await until(lambda: door.logging_in == 2)  # both wait for their late answer
    with pytest.raises((asyncssh.ConnectionLost, asyncssh.DisconnectError, OSError)):
        await doors.connect(port, user=CODE)
    await asyncio.gather(*slow)
    client = await doors.connect(port, user=CODE)
    _, hello = await game(client)
    assert hello["argv"] == [CODE]


async def silent(port: int, address: str) -> asyncio.StreamWriter:
    """A TCP connection to the door from `address` that never says a word."""
    _, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
    return writer


async def joins(doors: Doors, port: int, address: str) -> float:
    """The friend, from `address`, logs in with the code and is in a game (a connection kept
    out is closed by the door's login timeout, well within the test's limit): the seconds it
    took, printed (a figure, not a test)."""
    started = time.monotonic()
    client = await doors.connect(port, local_addr=(address, 0))
    process, hello = await game(client)
    took = time.monotonic() - started
    print(f"the friend from {address} joined in {took:.2f} s")
    assert hello["argv"] == [CODE]
    process.stdin.write(b"q")
    await asyncio.wait_for(process.wait(), WAIT)
    client.close()
    return took


async def test_silent_strangers_never_keep_the_friend_out(doors: Doors) -> None:
    door, port = await doors.open()
    strangers = [f"127.0.0.{n}" for n in range(3, 11)]  # eight other addresses
    held = [await silent(port, strangers[n % 8]) for n in range(200)]
    assert door.logging_in <= door.max_logging_in
    for _ in range(5):
        await joins(doors, port, "127.0.0.2")

    async def reopen(address: str) -> None:  # a holder that opens a new one as each is dropped
        while True:
            writer = await silent(port, address)
            held.append(writer)
            await asyncio.sleep(0.01)

    holders = [asyncio.create_task(reopen(strangers[n])) for n in range(6)]
    try:
        for _ in range(5):
            await joins(doors, port, "127.0.0.2")
        # Silence from the friend's own address keeps the friend out no more.
        held += [await silent(port, "127.0.0.2") for _ in range(8)]
        await joins(doors, port, "127.0.0.2")
    finally:
        for holder in holders:
            holder.cancel()
        for writer in held:
            writer.close()


async def test_wrong_codes_slow_their_own_network_not_the_friend(doors: Doors) -> None:
    door, port = await doors.open(throttle=Throttle(limit=1, delay=3.0))

    async def guess(address: str) -> None:
        while True:
            with contextlib.suppress(asyncssh.Error, OSError):
                await doors.connect(port, user="AAAAAA", local_addr=(address, 0))
            await asyncio.sleep(0.01)

    guessers = [asyncio.create_task(guess(f"127.0.0.{n}")) for n in range(3, 11) for _ in range(4)]
    try:
        await until(lambda: door.logging_in >= 24)
        for _ in range(5):
            await joins(doors, port, "127.0.0.2")
    finally:
        for guesser in guessers:
            guesser.cancel()


async def test_a_late_answer_holds_its_network_s_place_even_when_its_connection_goes(
    doors: Doors,
) -> None:
    held = 8.0  # the late answers' delay: all that comes before the third try fits in it on a
    # busy machine (2 s did not: the places were free again by then)
    door, port = await doors.open(
        throttle=Throttle(limit=0, delay=held), max_logging_in_per_address=2
    )
    waiting = [asyncio.create_task(wrong_code(doors, port, "AAAAAA")) for _ in range(2)]
    await until(lambda: door.logging_in == 2)
    for task in waiting:  # the guesser does not wait for the answer it can guess
        task.cancel()
    await until(lambda: door.logging_in == 0)
    with pytest.raises((asyncssh.ConnectionLost, OSError)):  # not a wrong code's refusal:
        await doors.connect(port, user=CODE)  # that network tries no third code meanwhile
    await joins(doors, port, "127.0.0.2")  # another network is let in
    await asyncio.sleep(held)
    await joins(doors, port, "127.0.0.1")


async def test_a_session_without_a_terminal_is_told_to_ask_for_one(doors: Doors) -> None:
    _, port = await doors.open()
    client = await doors.connect(port)
    assert await refused(client, terminal=False) == (NO_TERMINAL + "\n", 1)
    assert doors.commands == []


async def test_commands_subsystems_forwarding_agent_and_x11_are_refused(
    doors: Doors, tmp_path: Path
) -> None:
    _, port = await doors.open()
    client = await doors.connect(port)
    with pytest.raises(asyncssh.ChannelOpenError):
        await client.create_process("ls")
    with pytest.raises(asyncssh.ChannelOpenError):
        await client.start_sftp_client()
    with pytest.raises(asyncssh.ChannelOpenError):
        await client.open_connection("127.0.0.1", port)
    with pytest.raises(asyncssh.ChannelListenError):
        await client.forward_remote_port("127.0.0.1", 0, "127.0.0.1", port)
    with pytest.raises(asyncssh.ChannelOpenError):
        await client.open_unix_connection(str(tmp_path / "socket"))
    with pytest.raises(asyncssh.ChannelListenError):
        await client.forward_remote_path(str(tmp_path / "listen"), str(tmp_path / "socket"))
    (tmp_path / "xauth").touch()
    with pytest.raises(asyncssh.ChannelOpenError):
        await client.create_process(
            term_type="xterm",
            x11_forwarding=True,
            x11_display="127.0.0.1:0",
            x11_auth_path=str(tmp_path / "xauth"),
        )
    assert doors.commands == []

    forwarding = await doors.connect(
        port, agent_forwarding=True, agent_path=str(tmp_path / "agent")
    )
    _, hello = await game(forwarding)
    assert hello["agent"] is None


async def test_a_client_that_leaves_hangs_up_its_game(doors: Doors, tmp_path: Path) -> None:
    door, port = await doors.open()
    client = await doors.connect(port)
    _, hello = await game(client)
    client.abort()
    await until(lambda: gone(hello["pid"]))
    assert (tmp_path / str(hello["pid"])).read_text() == "SIGHUP"
    await until(lambda: door.sessions == 0)


async def test_a_client_that_vanishes_is_noticed_by_keepalives(
    doors: Doors, tmp_path: Path
) -> None:
    door, port = await doors.open(keepalive=0.2, keepalive_count=1)
    link = await BlackHole.open(port)
    try:
        client = await doors.connect(link.port)
        _, hello = await game(client)
        link.frozen = True  # the cable is cut: nothing passes, nothing closes
        await until(lambda: gone(hello["pid"]))
        assert (tmp_path / str(hello["pid"])).read_text() == "SIGHUP"
        await until(lambda: door.sessions == 0)  # the door counts it gone once it has reaped it
    finally:
        await link.close()


async def test_stop_ends_every_game_in_bounded_time(doors: Doors) -> None:
    door, port = await doors.open(codes=False)
    processes = []
    pids = []
    for user in ("ann", "bob", "stubborn"):
        process, hello = await game(await doors.connect(port, user=user))
        processes.append(process)
        pids.append(hello["pid"])
    assert door.sessions == 3
    await asyncio.wait_for(door.stop(within=1.0), WAIT)
    assert all(gone(pid) for pid in pids)
    assert door.sessions == 0
    statuses = [(await asyncio.wait_for(p.wait(), WAIT)).exit_status for p in processes]
    assert statuses == [129, 129, 137]  # SIGHUP ends two; SIGKILL the one that ignores it


async def test_stop_lets_an_ended_game_s_last_words_and_status_reach_its_client(
    doors: Doors,
) -> None:
    """The host stops the door just after a friend's game ended (its series over): what the
    game wrote last and its exit status still reach the friend, however slowly the friend's
    client reads, before the connection closes."""
    door, port = await doors.open(codes=False)
    client = await doors.connect(port, user="farewell")
    process = await client.create_process(
        term_type="xterm", term_size=(80, 24), encoding=None, window=4096
    )
    await said(process)
    process.stdin.write(b"q")
    await until(lambda: door.sessions == 0)  # the game has ended, its words not all sent
    stopping = asyncio.create_task(door.stop())
    words = await asyncio.wait_for(process.stdout.read(), WAIT)
    await asyncio.wait_for(stopping, WAIT)
    assert words.endswith(b"END") and words.count(b"x") == 20000, (len(words), words[-40:])
    assert (await asyncio.wait_for(process.wait(), WAIT)).exit_status == 3


async def test_a_flood_of_input_is_held_back_and_others_still_play(doors: Doors) -> None:
    door, port = await doors.open(codes=False)
    flood, _ = await game(await doors.connect(port, user="flood"))
    flood.stdin.write(bytes(16 * 1024 * 1024))
    with pytest.raises(TimeoutError):  # the door takes no more than the game's terminal holds
        await asyncio.wait_for(flood.stdin.drain(), 1.0)

    other, _ = await game(await doors.connect(port, user="ann"))
    other.stdin.write(b"still here")
    echoed = await asyncio.wait_for(other.stdout.readexactly(10), WAIT)
    assert echoed == b"still here"
    assert door.sessions == 2


async def test_after_a_megabyte_pasted_the_next_key_reaches_the_game_within_seconds(
    doors: Doors,
) -> None:
    """PRODUCT.md: after any paste or flood the next key acts within 2 s. A megabyte pasted
    into a terminal without bracketed paste, then a key: a game that reads at once has the key
    within seconds (at a pace of 16 KB a second the door would take a minute to pass it on,
    holding the sender back, the key queued behind the paste)."""
    _, port = await doors.open(codes=False)
    paster, _ = await game(await doors.connect(port, user="paster"))
    paster.stdin.write(b"x" * 1024 * 1024 + b"!")
    started = time.monotonic()
    echoed = await asyncio.wait_for(paster.stdout.readuntil(b"!"), 2 * WAIT)
    assert echoed.endswith(b"x!")
    print(f"the key after a megabyte's paste: {time.monotonic() - started:.2f} s")


async def test_the_doors_sessions_together_take_no_more_than_its_own_pace(doors: Doors) -> None:
    """Each session takes a paste at once; all of them together take no more than the door's
    own pace (`input_rate` bytes a second past twice as many): three floods at once, each far
    within its session's pace, get 128 KB and 64 KB a second between them, not 3 MB at once."""
    _, port = await doors.open(codes=False, input_rate=64 * 1024)
    floods = [(await game(await doors.connect(port, user=f"flood{n}")))[0] for n in range(3)]
    echoed = [0, 0, 0]

    async def read(number: int) -> None:
        while data := await floods[number].stdout.read(65536):
            echoed[number] += len(data)

    readers = [asyncio.create_task(read(number)) for number in range(3)]
    for flood in floods:
        flood.stdin.write(b"x" * 1024 * 1024)
    await asyncio.sleep(2.0)
    for reader in readers:
        reader.cancel()
    taken = sum(echoed)
    assert taken < 512 * 1024, f"the door took {taken // 1024} KB in 2 s, all sessions together"
    assert all(echoed), echoed  # each had its share


async def test_a_game_that_reads_slowly_holds_its_sender_to_its_own_pace(doors: Doors) -> None:
    """While a game's terminal is full, the door takes no more than the game reads, whatever
    its own pace (1 MB/s) allows: the rest would pile up in the door for as long as the
    sender goes on."""
    _, port = await doors.open(codes=False)
    slow, _ = await game(await doors.connect(port, user="slow"))  # reads 4 KB/s
    slow.stdin.write(bytes(1024 * 1024))
    await asyncio.sleep(2.0)  # the game's terminal and the door's window have filled
    waiting = slow.stdin.channel.get_write_buffer_size()
    await asyncio.sleep(6.0)
    taken = waiting - slow.stdin.channel.get_write_buffer_size()
    assert taken < 40 * 1024, f"in 6 s the door took {taken // 1024} KB for a game that read 24"


async def test_a_browser_at_the_ssh_port_gets_one_log_line(
    doors: Doors, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    _, port = await doors.open()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    banner = await asyncio.wait_for(reader.readline(), WAIT)
    assert banner.startswith(b"SSH-2.0-")
    writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/html\r\n\r\n")
    assert await asyncio.wait_for(reader.read(), WAIT) == b""  # closed
    writer.close()
    await until(lambda: any(r.name == "tictactoe.online" for r in caplog.records))
    ours = [r for r in caplog.records if r.name == "tictactoe.online"]
    assert len(ours) == 1 and ours[0].levelno == logging.WARNING
    assert "127.0.0.1" in ours[0].getMessage()
    assert not [r for r in caplog.records if r.exc_info and r.levelno >= logging.INFO]
    _, hello = await game(await doors.connect(port))
    assert hello["argv"] == [CODE]


async def test_connections_are_bounded_per_address(doors: Doors) -> None:
    _, port = await doors.open(max_per_address=2)
    first = await doors.connect(port)
    await doors.connect(port)
    with pytest.raises((OSError, asyncssh.Error)):
        await doors.connect(port)
    first.close()
    await first.wait_closed()
    for _ in range(50):  # the door counts the first one out as soon as it sees it close
        with contextlib.suppress(OSError, asyncssh.Error):
            await doors.connect(port)
            break
        await asyncio.sleep(0.02)
    else:
        pytest.fail("a connection was refused after one of two had closed")


async def test_connections_are_bounded_in_number_and_in_time(doors: Doors) -> None:
    _, port = await doors.open(max_connections=2, login_timeout=0.3)
    silent = [await asyncio.open_connection("127.0.0.1", port) for _ in range(2)]
    with pytest.raises((OSError, asyncssh.Error)):
        await doors.connect(port)
    for reader, writer in silent:  # never logged in: closed after the login timeout
        await asyncio.wait_for(reader.read(), WAIT)
        writer.close()
    idle = await doors.connect(port)  # logged in, never opened a session: closed as well
    await asyncio.wait_for(idle.wait_closed(), WAIT)
    _, hello = await game(await doors.connect(port))
    assert hello["argv"] == [CODE]


async def test_any_free_port_is_the_same_on_every_address(doors: Doors) -> None:
    door = SshDoor(host_key=HOST_KEY, command=child_command, accepts=lambda code: code == CODE)
    doors.doors.append(door)
    try:
        port = await door.start(["127.0.0.1", "::1"], 0)
    except OSError:
        pytest.skip("this machine has no IPv6 loopback")
    assert port != 0
    _, hello = await game(await doors.connect(port))
    assert hello["argv"] == [CODE]


async def test_games_are_bounded_in_number(doors: Doors) -> None:
    door, port = await doors.open(codes=False, max_sessions=1)
    await game(await doors.connect(port, user="ann"))
    client = await doors.connect(port, user="bob")
    assert await refused(client) == ("Too many games are open here: try again later.\r\n", 1)
    assert door.sessions == 1


def test_the_host_key_is_made_once_private_and_reused(user_folders_in_tmp: Path) -> None:
    path = host_key_path()
    assert path == platformdirs.user_data_path("tictactoe") / "ssh_host_key"
    before = os.umask(0)  # even so, the key is private from its first byte
    try:
        key = load_host_key()
    finally:
        os.umask(before)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = load_host_key()
    assert again.export_public_key() == key.export_public_key()
    assert [p.name for p in path.parent.iterdir()] == ["ssh_host_key"]


def test_a_host_key_others_may_read_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "key"
    key = load_host_key(path)
    path.chmod(0o644)
    assert load_host_key(path).export_public_key() == key.export_public_key()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_file_that_is_no_key_is_refused_in_words(tmp_path: Path) -> None:
    path = tmp_path / "key"
    path.write_text("not a key\n")
    with pytest.raises(HostKeyError, match="is not a key"):
        load_host_key(path)
    assert path.read_text() == "not a key\n"


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")
def test_the_fingerprint_is_the_one_openssh_shows(tmp_path: Path) -> None:
    path = tmp_path / "key"
    key = load_host_key(path)
    (tmp_path / "key.pub").write_bytes(key.export_public_key())
    shown = subprocess.run(
        ["ssh-keygen", "-lf", str(tmp_path / "key.pub")],
        capture_output=True,
        text=True,
        check=True,
        timeout=WAIT,
    ).stdout.split()
    assert shown[1] == fingerprint(key)
    assert fingerprint(key).startswith("SHA256:")


class BlackHole:
    """A TCP relay to the door that can be frozen: then nothing passes and nothing closes."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.frozen = False
        self.port = 0
        self.server: asyncio.Server | None = None
        self.writers: list[asyncio.StreamWriter] = []
        self.tasks: set[asyncio.Task[None]] = set()

    @classmethod
    async def open(cls, target: int) -> BlackHole:
        link = cls(target)
        link.server = await asyncio.start_server(link._relay, "127.0.0.1", 0)
        link.port = link.server.sockets[0].getsockname()[1]
        return link

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self.writers += [writer, upstream_writer]
        for source, sink in ((reader, upstream_writer), (upstream_reader, writer)):
            task = asyncio.create_task(self._pipe(source, sink))
            self.tasks.add(task)

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        while data := await source.read(65536):
            if self.frozen:
                await asyncio.Event().wait()
            sink.write(data)
            await sink.drain()

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        for writer in self.writers:
            writer.close()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


class Terminal:
    """A program in a pseudo-terminal of its own, as a person's terminal runs it."""

    def __init__(self, process: asyncio.subprocess.Process, master: int) -> None:
        self.process = process
        self.master = master
        self.screen = b""

    @classmethod
    async def run(cls, argv: Sequence[str], size: tuple[int, int] = (100, 30)) -> Terminal:
        master, slave = os.openpty()
        columns, rows = size
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        try:
            process = await asyncio.create_subprocess_exec(
                *argv, stdin=slave, stdout=slave, stderr=slave, start_new_session=True
            )
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        return cls(process, master)

    async def expect(self, pattern: bytes) -> bytes:
        """Read until `pattern` (a regular expression) shows; the match."""
        deadline = time.monotonic() + WAIT
        while (found := re.search(pattern, self.screen)) is None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{pattern!r} did not show; the screen: {self.screen!r}")
            try:
                self.screen += os.read(self.master, 4096)
            except BlockingIOError:
                await asyncio.sleep(0.02)
            except OSError:  # the program has ended and its terminal closed
                await asyncio.sleep(0.02)
        return found.group(0)

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    async def status(self) -> int:
        return await asyncio.wait_for(self.process.wait(), WAIT)

    async def close(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
        os.close(self.master)


def ssh_line(port: int, user: str, known_hosts: Path, *extra: str) -> list[str]:
    """The invitation's line, with what keeps a test's `ssh` off the person's own files."""
    return [
        "ssh",
        "-F",
        "none",
        "-o",
        "StrictHostKeyChecking=accept-new",
        "-o",
        f"UserKnownHostsFile={known_hosts}",
        "-o",
        "BatchMode=yes",
        *extra,
        "-p",
        str(port),
        f"{user}@127.0.0.1",
    ]


@pytest.fixture
def ssh() -> None:
    if shutil.which("ssh") is None:
        if os.environ.get("TICTACTOE_REQUIRE_SSH") == "1":
            pytest.fail("the OpenSSH client (ssh) is required but not installed")
        pytest.skip("the OpenSSH client (ssh) is not installed")


@pytest.mark.usefixtures("ssh")
async def test_the_real_ssh_client_plays_and_is_told_what_is_wrong(
    doors: Doors, tmp_path: Path
) -> None:
    _, port = await doors.open()
    known_hosts = tmp_path / "known_hosts"

    terminal = await Terminal.run(ssh_line(port, CODE.lower(), known_hosts, "-tt"))
    try:
        hello = json.loads(await terminal.expect(rb"\{\"argv\".*?\}"))
        assert hello["argv"] == [CODE]
        assert hello["size"] == [100, 30]
        assert hello["controlling"]
        terminal.send(b"hi")
        await terminal.expect(rb"\}\r\nhi")
        terminal.send(b"q")
        await terminal.expect(rb'\{"bye": true\}')
        assert await terminal.status() == 3
    finally:
        await terminal.close()
    assert HOST_KEY.export_public_key().split()[1] in known_hosts.read_bytes()

    terminal = await Terminal.run(ssh_line(port, "WRONG2", known_hosts))
    try:
        await terminal.expect(re.escape(WRONG_CODE.encode()) + rb"\r\n.*Permission denied")
        assert await terminal.status() == 255  # ssh's status for a login that failed
    finally:
        await terminal.close()

    terminal = await Terminal.run(ssh_line(port, CODE, known_hosts, "-T"))
    try:
        await terminal.expect(re.escape(NO_TERMINAL.encode()))
        assert await terminal.status() == 1
    finally:
        await terminal.close()


def rss() -> int:
    """This process's resident memory, in bytes (the door runs in it)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


ENV_FLOOD = r"""
import asyncio, contextlib, sys
import asyncssh

async def main(port, user):
    flood = {f"LC_{index}": "x" * 30_000 for index in range(2_000)}  # 60 MB a session
    async with asyncssh.connect(
        "127.0.0.1", int(port), username=user, known_hosts=None, client_keys=None,
        config=None, agent_path=None,
    ) as client:
        for _ in range(4):
            with contextlib.suppress(asyncssh.Error, OSError):
                process = await client.create_process(
                    term_type="xterm", term_size=(80, 24), env=flood, encoding=None
                )
                await asyncio.wait_for(process.wait(), 10)

asyncio.run(main(*sys.argv[1:]))
"""
"""A client, in a process of its own, whose four sessions send 2,000 `env` requests of 30 KB."""


async def test_env_requests_are_bounded_in_number_and_size(doors: Doors) -> None:
    door, port = await doors.open()
    before = rss()
    client = await asyncio.create_subprocess_exec(sys.executable, "-c", ENV_FLOOD, str(port), CODE)
    assert await asyncio.wait_for(client.wait(), 60) == 0
    grown = rss() - before
    assert grown < 30 * 1024 * 1024, f"the door grew by {grown / 2**20:.0f} MiB"
    await until(lambda: door.sessions == 0)
    assert doors.commands == []

    friend = await doors.connect(port)
    sent = {"LANG": "C.UTF-8", "LC_ALL": "x" * 2_000}
    _, hello = await game(friend, env=sent)
    assert hello["lang"] == "C.UTF-8"
