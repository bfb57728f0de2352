"""`tictactoe serve` as a process, without a browser: its command line, its stop, its games' ends.

A websocket opened with aiohttp stands in for a tab: the server starts a game for it exactly as
for Chromium.
"""

from __future__ import annotations

import errno
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
import pytest
from textual_serve.download_manager import DownloadManager

from limits import EVENT_LIMIT
from tictactoe.doors.addresses import is_loopback
from tictactoe.doors.web.games import GameSession, game_command
from tictactoe.served import DRIVER, FAREWELL, SERVED_ENV, is_served
from web.conftest import Served, alive, wait_until

pytestmark = pytest.mark.slow  # real processes: CI runs them, `-m slow` too


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tictactoe", "serve", *args],
        capture_output=True,
        text=True,
        timeout=EVENT_LIMIT,
        stdin=subprocess.DEVNULL,
    )


@asynccontextmanager
async def tab(url: str, **headers: str) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    """A websocket like a tab's, open once the game's first screen has arrived."""
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"{url}ws?width=100&height=32", headers=headers) as websocket,
    ):
        received = 0
        while received < 5000:  # the first screen is tens of kilobytes
            message = await websocket.receive(timeout=EVENT_LIMIT)
            assert message.type == aiohttp.WSMsgType.BINARY, message
            received += len(message.data)
        yield websocket


def test_a_game_knows_it_is_served_from_its_environment() -> None:
    assert is_served({SERVED_ENV: "1"})
    assert not is_served({})
    assert not is_served({SERVED_ENV: "0"})

    environment = GameSession(game_command([]), DownloadManager()).environment(80, 24)
    assert environment[SERVED_ENV] == "1"
    assert environment["TEXTUAL_DRIVER"] == DRIVER


def packets(stream: bytes) -> list[tuple[bytes, bytes]]:
    """What a served game wrote after its greeting: Textual's web packets (type, payload)."""
    stream = stream.partition(b"__GANGLION__\n")[2]
    found = []
    while stream:
        kind, size = stream[:1], int.from_bytes(stream[1:5], "big")
        assert kind in (b"D", b"M", b"P") and len(stream) >= 5 + size, stream[:40]
        found.append((kind, stream[5 : 5 + size]))
        stream = stream[5 + size :]
    return found


def test_a_served_game_ends_by_itself_when_its_input_closes() -> None:
    """The server gone (its end of the pipes closed), the game leaves at once; all it writes is
    packets of Textual's web protocol, the last its farewell with the final score."""
    environment = GameSession(game_command([]), DownloadManager()).environment(100, 32)
    game = subprocess.Popen(
        game_command(["--player1", "Ada", "--player2", "Bob", "--no-save"]),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
    )
    assert game.stdin is not None and game.stdout is not None
    output = b""
    deadline = time.monotonic() + EVENT_LIMIT
    while b"choose your mark" not in output:
        assert time.monotonic() < deadline, f"the game never drew its first screen: {output!r}"
        if select.select([game.stdout], [], [], 0.1)[0]:
            output += os.read(game.stdout.fileno(), 65536)

    game.stdin.close()

    took = wait_until(lambda: game.poll() is not None, "the game to end after its input closed")
    rest, errors = game.stdout.read(), game.stderr.read() if game.stderr else b""
    assert game.returncode == 0, errors
    kind, last = packets(output + rest)[-1]
    assert kind == b"M" and json.loads(last)["type"] == FAREWELL
    assert json.loads(last)["score"].startswith("Final score")
    print(f"the game ended {took:.2f} s after its input closed")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_stopping_the_server_ends_every_game(served: Served, sig: signal.Signals) -> None:
    async with AsyncExitStack() as tabs:
        for _ in range(2):
            await tabs.enter_async_context(tab(served.url))
        games = served.games()
        assert len(games) >= 2

        took = served.stop(sig)
        print(f"stopped in {took:.2f} s")

    assert served.process.returncode == 0
    assert not [pid for pid in served.games_seen if alive(pid)]


async def test_a_killed_server_leaves_no_game_behind(served: Served) -> None:
    async with tab(served.url):
        games = served.games()
        assert games

        os.kill(served.pid, signal.SIGKILL)
        served.process.wait(EVENT_LIMIT)

        wait_until(lambda: not any(alive(pid) for pid in games), "orphaned games to end")


async def test_only_pages_of_this_server_on_this_machine_are_answered(served: Served) -> None:
    port = served.url.rstrip("/").rpartition(":")[2]
    async with aiohttp.ClientSession() as session:
        async with session.get(served.url) as page:
            assert page.status == 200
            assert "Tic-tac-toe" in await page.text()
        async with session.get(served.url.replace("127.0.0.1", "localhost")) as page:
            assert page.status == 200
        async with session.get(served.url, headers={"Host": f"rebound.example:{port}"}) as page:
            assert page.status == 421
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(f"{served.url}ws", origin="http://elsewhere.example")
        assert refused.value.status == 403

    async with tab(served.url, Origin=served.url.rstrip("/")):
        pass


def test_is_loopback() -> None:
    for host in ("127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "app.localhost"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "192.0.2.1", "example.org", "::", ""):
        assert not is_loopback(host), host


def test_serve_has_its_own_help() -> None:
    result = serve("--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: tictactoe serve ")
    for option in ("--host", "--port", "--delay", "--keys", "--record", "--no-save"):
        assert option in result.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--port", "70000"], "port"),
        (["--port", "http"], "port"),
        (["--delay", "99"], "delay"),
        (["--no-such-option"], "--no-such-option"),
    ],
)
def test_a_bad_option_is_one_sentence_and_status_2(args: list[str], says: str) -> None:
    result = serve(*args)
    assert result.returncode == 2
    assert says in result.stderr
    assert "Traceback" not in result.stderr


def test_a_port_in_use_is_one_sentence_and_status_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = serve("--port", str(port), "--no-save")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"tictactoe serve: cannot listen on 127.0.0.1 port {port}: {os.strerror(errno.EADDRINUSE)}"
    ]


def test_the_page_is_our_own_and_names_no_other_host() -> None:
    templates = Path(__file__).parents[2] / "src/tictactoe/doors/web/templates"
    page = (templates / "app_index.html").read_text()
    assert "fonts.googleapis" not in page
    assert "@font-face" in page
    for line in page.splitlines():
        if "http" in line:
            assert "xmlns=" in line, line


async def test_no_folder_is_listed(served: Served) -> None:
    async with aiohttp.ClientSession() as session:
        for folder in ("static/", "static/js/", "static/fonts/", "static/css/"):
            async with session.get(f"{served.url}{folder}") as response:
                assert response.status in (403, 404), f"/{folder} answered {response.status}"
                assert "Index of" not in await response.text()
        async with session.get(f"{served.url}static/js/textual.js") as script:
            assert script.status == 200


def ask(url: str, request: bytes) -> bytes:
    """Send `request` as it is to the server at `url`; the first line of the answer."""
    address = urlsplit(url)
    with socket.create_connection(
        (address.hostname, address.port), timeout=EVENT_LIMIT
    ) as connection:
        connection.sendall(request)
        answer = b""
        while b"\r\n" not in answer:
            chunk = connection.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer.partition(b"\r\n")[0]


async def pong(websocket: aiohttp.ClientWebSocketResponse) -> None:
    """Ping the server through a tab's websocket, as the page does, and wait for the answer."""
    await websocket.send_str('["ping", "7"]')
    while True:
        message = await websocket.receive(timeout=EVENT_LIMIT)
        assert message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT), message
        if message.type == aiohttp.WSMsgType.TEXT:
            assert message.json() == ["pong", "7"]
            return


async def test_malformed_requests_and_frames_are_one_line_each_and_no_traceback(
    served: Served,
) -> None:
    def new_lines(before: str) -> list[str]:
        return served.output()[len(before) :].splitlines()

    host = urlsplit(served.url).netloc.encode()
    requests = {
        "no Host header": b"GET / HTTP/1.1\r\n\r\n",
        "an empty Host header": b"GET / HTTP/1.1\r\nHost:\r\n\r\n",
        "a 100 KB header": b"GET / HTTP/1.1\r\nHost: "
        + host
        + b"\r\nX-Big: "
        + b"a" * 100_000
        + b"\r\n\r\n",
    }
    for what, request in requests.items():
        before = served.output()
        status = ask(served.url, request)
        assert status.split()[1][:1] == b"4", f"{what}: {status!r}"
        assert len(new_lines(before)) == 1, f"{what}: {new_lines(before)}"

    async with tab(served.url) as websocket:
        for frame in ("{{{not json", '["resize",{"width":"x"}]', '["stdin",12345]', "[]"):
            before = served.output()
            await websocket.send_str(frame)
            await pong(websocket)  # the tab's game goes on
            assert len(new_lines(before)) == 1, f"{frame}: {new_lines(before)}"
    served.stop()
    assert "Traceback" not in served.output(), served.output()
