"""The browser door's connections: bounded per address, in all and in time, over loopback.

A stranger here is a raw TCP connection (bound to an address of 127.0.0.0/8 of its own, which
the door counts as another address) that sends a request slowly or not at all; the friend is
aiohttp's client. No game is started: the door's pages are enough.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import aiohttp
import pytest

from limits import EVENT_LIMIT
from tictactoe.doors.throttle import Throttle
from tictactoe.doors.web.admission import TOO_MANY_CONNECTIONS, Admission
from tictactoe.doors.web.code_gate import CodeGate
from tictactoe.doors.web.server import GameServer

WAIT = EVENT_LIMIT


async def started(deadline: float) -> GameServer:
    """The browser door, its connections' deadline (and its answers') `deadline` seconds."""
    server = GameServer(
        ("--no-save",),
        host="127.0.0.1",
        port=0,
        spare=False,
        tab_args=lambda request: (),
        gate=CodeGate(lambda code: code == "K7M4QX", Throttle()),
        admission=Admission(
            max_open=8, max_per_address=4, deadline=deadline, answer_within=deadline
        ),
    )
    await server.start("127.0.0.1")
    return server


@pytest.fixture
async def door() -> AsyncIterator[GameServer]:
    """A door whose deadline passes within the test."""
    server = await started(1.0)
    yield server
    await server.close()


@pytest.fixture
async def patient_door() -> AsyncIterator[GameServer]:
    """A door whose deadline is past the test's limit: whatever happens within the limit was
    not the deadline's doing, however slow the machine."""
    server = await started(2 * EVENT_LIMIT)
    yield server
    await server.close()


async def stranger(
    door: GameServer, address: str, sends: bytes = b""
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", door.port, local_addr=(address, 0))
    writer.write(sends)
    await writer.drain()
    return reader, writer


async def closed(reader: asyncio.StreamReader, within: float = WAIT) -> bytes:
    """What the door said before it closed the connection."""
    return await asyncio.wait_for(reader.read(), within)


async def friend_gets_the_page(door: GameServer, address: str = "127.0.0.2") -> float:
    """The friend asks for the door's page and gets it (within the limit): the seconds it took,
    printed (a figure, not a test)."""
    return await asyncio.wait_for(page(door, address), WAIT)


async def page(door: GameServer, address: str) -> float:
    began = time.monotonic()
    connector = aiohttp.TCPConnector(local_addr=(address, 0))
    async with (
        aiohttp.ClientSession(connector=connector) as session,
        session.get(f"http://127.0.0.1:{door.port}/") as response,
    ):
        assert response.status == 200
        assert "code" in await response.text()
    print(f"the friend got the page in {time.monotonic() - began:.2f} s")
    return time.monotonic() - began


SLOW_HEADERS = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
SLOW_BODY = (
    b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
    b"Content-Length: 100\r\n\r\ncode="
)


async def test_a_request_whose_headers_never_end_is_closed_after_the_deadline(
    door: GameServer,
) -> None:
    reader, writer = await stranger(door, "127.0.0.3", SLOW_HEADERS)
    started = time.monotonic()
    for _ in range(3):  # a header line now and then, never the end of them
        await asyncio.sleep(0.3)
        writer.write(b"X-Slow: 1\r\n")
    assert await closed(reader) == b""
    assert time.monotonic() - started > 0.9  # not before the deadline
    writer.close()
    assert door.admission.open == 0


async def test_silent_strangers_never_keep_the_friend_out(patient_door: GameServer) -> None:
    door = patient_door
    held = [await stranger(door, f"127.0.0.{3 + n % 8}") for n in range(40)]  # 5 per address
    await asyncio.sleep(0.1)
    assert door.admission.open <= 8
    for _ in range(3):  # long before the deadline: the friend is let in at once
        await friend_gets_the_page(door)
    # The oldest ones were dropped to let the newer in (the last few, held, wait for the
    # deadline: test_a_request_whose_headers_never_end_is_closed_after_the_deadline).
    for reader, _writer in held[:32]:
        await closed(reader)
    for _reader, writer in held:
        writer.close()


async def test_a_full_address_drops_its_own_oldest_silent_connection(
    patient_door: GameServer,
) -> None:
    door = patient_door
    first = await stranger(door, "127.0.0.3")
    others = [await stranger(door, "127.0.0.3", SLOW_HEADERS) for _ in range(3)]
    await asyncio.sleep(0.1)
    newest = await stranger(door, "127.0.0.3")
    assert await closed(first[0]) == b""  # dropped, long before the deadline
    assert not newest[0].at_eof() and not any(reader.at_eof() for reader, _ in others)
    await friend_gets_the_page(door, "127.0.0.3")


async def test_when_every_connection_is_busy_the_newcomer_is_told_in_one_sentence(
    door: GameServer,
) -> None:
    busy = [await stranger(door, "127.0.0.3", SLOW_BODY) for _ in range(4)]
    await asyncio.sleep(0.2)  # their headers are in: each is a request being read, not waiting
    reader, writer = await stranger(door, "127.0.0.3")
    answer = await closed(reader)
    assert answer.startswith(b"HTTP/1.1 503 ") and TOO_MANY_CONNECTIONS.encode() in answer
    # A request must be read and answered within the deadline too: a body that never comes.
    for slow, _ in busy:
        assert (await closed(slow)).startswith(b"HTTP/1.1 408 ")
    writer.close()
