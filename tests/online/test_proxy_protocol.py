"""The SSH door behind a TCP load balancer: `SshDoor(proxy_protocol=True)` takes the player's
address from the PROXY protocol header each connection begins with (HAProxy's `send-proxy`).

A tiny relay on 127.0.0.1 plays the balancer: it prepends a header naming a made-up address
(RFC 5737's documentation networks) and passes the bytes on.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections.abc import AsyncIterator

import asyncssh
import pytest

from online.test_ssh_door import CODE, WAIT, Doors, game, until
from online.test_ssh_door import doors as doors  # the fixture
from tictactoe.doors.proxy import V2_SIGNATURE, BadHeader, parse_header

pytestmark = pytest.mark.slow  # real processes: CI runs them, `-m slow` too


def v1(address: str) -> bytes:
    family = "TCP6" if ":" in address else "TCP4"
    target = "::1" if ":" in address else "127.0.0.1"
    return f"PROXY {family} {address} {target} 5555 2222\r\n".encode()


def v2(address: str) -> bytes:
    source = ipaddress.ip_address(address)
    family = 0x11 if source.version == 4 else 0x21
    target = ipaddress.ip_address("127.0.0.1" if source.version == 4 else "::1")
    body = source.packed + target.packed + (5555).to_bytes(2, "big") + (2222).to_bytes(2, "big")
    return V2_SIGNATURE + bytes([0x21, family]) + len(body).to_bytes(2, "big") + body


class Balancer:
    """Passes each connection on to the door after `header` (sent in pieces when `split`)."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.header = v1("203.0.113.7")
        self.split = False
        self.port = 0
        self.server: asyncio.Server | None = None
        self.writers: list[asyncio.StreamWriter] = []
        self.tasks: set[asyncio.Task[None]] = set()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        header = self.header
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self.writers += [writer, upstream_writer]
        if self.split:
            upstream_writer.write(header[:9])
            await upstream_writer.drain()
            await asyncio.sleep(0.1)
            header = header[9:]
        upstream_writer.write(header)
        for source, sink in ((reader, upstream_writer), (upstream_reader, writer)):
            task = asyncio.create_task(self._pipe(source, sink))
            self.tasks.add(task)

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        except OSError:
            pass
        sink.close()

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for writer in self.writers:
            writer.close()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


@pytest.fixture
async def balancer(doors: Doors) -> AsyncIterator[tuple[Balancer, int]]:
    """A door that takes the PROXY protocol, and a balancer in front of it: (balancer, door's
    port)."""
    _, port = await doors.open(
        proxy_protocol=True, max_per_address=2, max_logging_in=4, header_timeout=0.5
    )
    link = Balancer(port)
    link.server = await asyncio.start_server(link._relay, "127.0.0.1", 0)
    link.port = link.server.sockets[0].getsockname()[1]
    yield link, port
    await link.close()


async def heard(reader: asyncio.StreamReader) -> bytes:
    """All the door sent before it closed (a reset, when it closed with bytes unread)."""
    try:
        return await asyncio.wait_for(reader.read(), WAIT)
    except ConnectionResetError:
        return b""


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == "tictactoe.online"]


@pytest.mark.parametrize(
    ("header", "address"),
    [
        (v1("203.0.113.7"), "203.0.113.7"),
        (v1("2001:db8::7"), "2001:db8::7"),
        (v2("198.51.100.9"), "198.51.100.9"),
        (v2("2001:db8::9"), "2001:db8::9"),
        (b"PROXY UNKNOWN\r\n", "127.0.0.1"),
    ],
)
async def test_a_game_is_played_as_from_the_address_the_header_names(
    doors: Doors, balancer: tuple[Balancer, int], header: bytes, address: str
) -> None:
    link, _ = balancer
    link.header = header
    process, hello = await game(await doors.connect(link.port))
    assert hello["argv"] == [CODE]
    assert [info.peer for info in doors.commands] == [address]
    process.stdin.write(b"q")
    assert (await asyncio.wait_for(process.wait(), WAIT)).exit_status == 3


async def test_a_header_in_pieces_is_waited_for(
    doors: Doors, balancer: tuple[Balancer, int]
) -> None:
    link, _ = balancer
    link.split = True
    _, hello = await game(await doors.connect(link.port))
    assert hello["argv"] == [CODE]
    assert [info.peer for info in doors.commands] == ["203.0.113.7"]


async def test_connections_are_bounded_per_address_the_header_names(
    doors: Doors, balancer: tuple[Balancer, int]
) -> None:
    link, _ = balancer
    for number in range(5):  # five addresses: all in, though all come from the balancer
        link.header = v1(f"203.0.113.{number + 1}")
        await doors.connect(link.port)
    link.header = v1("198.51.100.1")
    await doors.connect(link.port)
    await doors.connect(link.port)
    with pytest.raises((OSError, asyncssh.Error)):
        await doors.connect(link.port)


async def test_without_a_header_a_connection_is_closed_at_once_and_logged(
    doors: Doors, balancer: tuple[Balancer, int], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "tictactoe.online")
    _, port = balancer
    with pytest.raises((OSError, asyncssh.Error)):
        await doors.connect(port)  # straight to the door: an SSH client begins with SSH-2.0
    for first in (b"SSH-2.0-OpenSSH_9.2\r\n", b"PROXY TCP4 nonsense\r\n", b"x" * 200):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(first)
        assert await heard(reader) == b""  # not even the SSH banner
        writer.close()
    await until(lambda: len(lines(caplog)) == 4)
    said = lines(caplog)
    assert all(line.startswith("closed a connection from 127.0.0.1: ") for line in said)
    assert all(len(line) < 200 for line in said)
    assert "no PROXY header" in said[1] and "malformed" in said[2]
    assert doors.commands == []


async def test_a_health_check_is_not_logged(
    doors: Doors, balancer: tuple[Balancer, int], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "tictactoe.online")
    link, port = balancer
    for header in (v1("192.0.2.1"), V2_SIGNATURE + bytes([0x20, 0x00, 0, 0])):
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(header)  # HAProxy's check-send-proxy: the header, and gone
        writer.close()
    _, hello = await game(await doors.connect(link.port))
    assert hello["argv"] == [CODE]
    assert len(doors.commands) == 1
    assert lines(caplog) == []


async def test_silent_connections_are_closed_in_time_and_keep_no_one_out(
    doors: Doors, balancer: tuple[Balancer, int]
) -> None:
    link, port = balancer
    silent = [await asyncio.open_connection("127.0.0.1", port) for _ in range(10)]
    _, hello = await game(await doors.connect(link.port))  # past the four waiting: let in
    assert hello["argv"] == [CODE]
    for reader, writer in silent:  # the oldest dropped for newer ones, the rest in 0.5 s
        assert await heard(reader) == b""
        writer.close()
    assert len(doors.commands) == 1


def test_headers_are_read_to_the_letter() -> None:
    assert parse_header(v1("203.0.113.7")).source == "203.0.113.7"
    assert parse_header(v2("2001:db8::9")).length == 16 + 36
    local = V2_SIGNATURE + bytes([0x20, 0x00, 0, 0])
    assert parse_header(local).source is None
    for bad in (
        b"PROXY TCP4 203.0.113.7 127.0.0.1 5555\r\n",
        b"PROXY TCP4 2001:db8::7 127.0.0.1 5555 2222\r\n",
        b"PROXY TCP4 203.0.113.7 127.0.0.1 5555 99999\r\n",
        b"PROXY TCP4 203.0.113.7 127.0.0.1 +555 2222\r\n",
        b"PROXY UDP4 203.0.113.7 127.0.0.1 5555 2222\r\n",
        b"PROXY TCP4 203.0.113.7 127.0.0.1 5555 2222\n",
        b"PROXY " + b"1" * 120 + b"\r\n",
        V2_SIGNATURE + bytes([0x31, 0x11, 0, 0]),
        V2_SIGNATURE + bytes([0x21, 0x11, 0, 4]) + bytes(4),
    ):
        with pytest.raises(BadHeader):
            parse_header(bad)
