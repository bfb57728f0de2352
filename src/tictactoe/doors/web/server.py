"""The browser door's server: textual-serve's page, one game process per tab, a clean stop.

textual-serve provides the page (xterm.js draws a terminal and opens a websocket) and the service
that runs a Textual app as a child process (`games`). This server puts them together:

- it serves the page, the page's files and the games' websocket, and lists no folder; the page is
  our own copy of textual-serve's (`templates/`), with its fonts served from here (no request
  leaves this server, so it works offline);
- with a `CodeGate` (the host's door), the first page asks for the code, and only a ticket for a
  right one opens a game's websocket; with a `TabGate` (the club's door), each tab is asked about
  before its game starts, and its game is given the tab's own environment (its secret);
- what a page elsewhere could send through a visitor's browser is refused (`guard`), and what a
  tab sends is checked and paced before it reaches its game;
- connections are bounded per address, in all and in time (`admission`): a stranger who opens
  many, or sends headers a byte at a time, holds none for long and keeps nobody out;
- stopping the server (Ctrl+C, SIGTERM, SIGHUP) ends every game within `STOP_WITHIN` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import signal
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Final, Protocol

import aiohttp_jinja2
import jinja2
import textual_serve
from aiohttp import WSMsgType, web

from tictactoe.doors.addresses import url_host
from tictactoe.doors.bounds import Bucket, fits
from tictactoe.doors.web.admission import Admission
from tictactoe.doors.web.code_gate import TOO_MANY_GAMES, CodeGate, Refusal, form_page
from tictactoe.doors.web.games import KILL_GRACE, Games, GameSession, game_command
from tictactoe.doors.web.guard import own_page_only
from tictactoe.served import FAREWELL

__all__ = ["GameServer", "TabGate"]

log = logging.getLogger("tictactoe.web")

TEMPLATES: Final = Path(__file__).with_name("templates")
"""Our copy of textual-serve's page (`app_index.html`)."""

STATIC: Final = Path(textual_serve.__file__).with_name("static")
"""textual-serve's files for the page: its script, style sheet, fonts and background."""

TITLE: Final = "Tic-tac-toe"

MAX_GAMES: Final = 64
"""The most games a server runs for browser tabs at once."""

MAX_FRAME: Final = 64 * 1024
"""The largest message a tab may send, in bytes (a paste of a page of text)."""

FRAME_RATE: Final = 200.0
"""Messages a tab may send a second, in bursts of as many; faster ones wait."""

_BIND_TRIES: Final = 5
"""Draws of a free port before giving up on one free on every address."""

_STOP_SIGNALS: Final = ("SIGINT", "SIGTERM", "SIGHUP")


class TabGate(Protocol):
    """Who each tab is, before its game starts (the club's door: every tab a guest)."""

    async def enter(self, peer: str) -> Mapping[str, str]:
        """What the game of a tab from `peer` adds to its environment (its secret); `Refusal`,
        in one sentence, when the tab gets no game."""

    def left(self, environment: Mapping[str, str]) -> None:
        """The game of the tab `enter` gave `environment` has ended."""


class GameServer:
    """The game's web server: textual-serve's page, one game process per tab, a clean stop."""

    def __init__(
        self,
        game_args: Sequence[str] = (),
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        spare: bool = True,
        tab_args: Callable[[web.Request], Sequence[str]] | None = None,
        environment: Mapping[str, str] | None = None,
        gate: CodeGate | None = None,
        own_host: Callable[[str], bool] | None = None,
        max_games: int = MAX_GAMES,
        admission: Admission | None = None,
        tab_gate: TabGate | None = None,
    ) -> None:
        self.host = host
        """The address listened on."""
        self.port = port
        """The port listened on (once bound, the real one when 0 was asked for)."""
        self.games = Games(
            game_command(game_args),
            environment or {},
            keep_spare=spare and tab_args is None and tab_gate is None,
        )
        """The games running for tabs, and the spare (kept only when neither `tab_args` nor
        `tab_gate` is given: a spare cannot know its tab)."""
        self.tab_args = tab_args
        """Options for one tab's game taken from its request (the address it came from);
        given, no spare is kept."""
        self.gate = gate
        """When given, a tab starts a game only with a ticket for a right code (the host's door)."""
        self.own_host = own_host
        """Whether a request's Host names this server: when given, others are refused with 421
        (when not, a server on loopback answers loopback names only)."""
        self.max_games = max_games
        """Games running at once, at most (the spare counted)."""
        self.admission = admission if admission is not None else Admission()
        """Who may hold a connection, and for how long before a request."""
        self.tab_gate = tab_gate
        """When given, asked about each tab before its game starts."""
        self._runner: web.AppRunner | None = None
        self._listening: list[asyncio.Server] = []
        self._stopping = False
        self._stop = asyncio.Event()

    async def make_app(self) -> web.Application:
        """The site: the page, its files (never a listing of their folders) and the games'
        websocket, answering only what a page of this server on this machine asks."""
        app = web.Application(
            middlewares=[self.admission.middleware, own_page_only(self.host, self.own_host)]
        )
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(TEMPLATES))
        if self.gate is None:
            routes = [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_websocket, name="websocket"),
            ]
        else:
            routes = [
                web.get("/", self.handle_code_page),
                web.post("/", self.handle_code),
                web.get("/ws/{ticket}", self.handle_websocket),
            ]
        app.add_routes([*routes, web.static("/static", STATIC, name="static")])
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def handle_index(self, request: web.Request) -> web.Response:
        """The page, with its addresses taken from the request: they work whatever name was used."""
        if len(self.games.sessions) >= self.max_games:
            return web.Response(status=503, text=TOO_MANY_GAMES + "\n")
        return self._game_page(request, f"ws://{request.host}/ws")

    def _game_page(self, request: web.Request, websocket_url: str) -> web.Response:
        context = {
            "font_size": _number(request.query.get("fontsize"), 16),
            "app_websocket_url": websocket_url,
            "config": {"static": {"url": "/static/"}},
            "application": {"name": TITLE},
        }
        return aiohttp_jinja2.render_template("app_index.html", request, context)

    async def handle_code_page(self, request: web.Request) -> web.Response:
        """The host's door: a page that asks for the code."""
        return web.Response(text=form_page(TITLE), content_type="text/html")

    async def handle_code(self, request: web.Request) -> web.Response:
        """A code typed on the host's door: the game's page with a ticket, or the form again."""
        assert self.gate is not None
        peer = request.remote or "?"
        try:
            form = await request.post()
            typed = form.get("code")
            if len(self.games.sessions) >= self.max_games:
                raise Refusal(TOO_MANY_GAMES, 503)
            ticket = await self.gate.check(typed if isinstance(typed, str) else "", peer)
        except Refusal as refusal:
            log.warning("refused a code from %s: %s", peer, refusal.sentence, extra={"peer": peer})
            page = form_page(TITLE, refusal.sentence)
            return web.Response(status=refusal.status, text=page, content_type="text/html")
        return self._game_page(request, f"ws://{request.host}/ws/{ticket}")

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One tab: give it a game, pass keys, mouse and resizes on until either side leaves."""
        if self.gate is not None and self.gate.admit(request.match_info["ticket"]) is None:
            log.warning(
                "refused a game to %s: no valid ticket",
                request.remote,
                extra={"peer": request.remote},
            )
            raise web.HTTPForbidden(text="Give the series' code first.\n")
        if len(self.games.sessions) >= self.max_games:
            log.warning(
                "refused a game to %s: %d are open",
                request.remote,
                len(self.games.sessions),
                extra={"peer": request.remote},
            )
            raise web.HTTPServiceUnavailable(text=TOO_MANY_GAMES + "\n")
        websocket = web.WebSocketResponse(heartbeat=15, timeout=KILL_GRACE, max_msg_size=MAX_FRAME)
        await websocket.prepare(request)
        if self._stopping:
            await websocket.close()
            return websocket
        size = (
            _number(request.query.get("width"), 80),
            _number(request.query.get("height"), 24),
        )
        if not fits(*size):
            size = (80, 24)
        session: GameSession | None = None
        entered: Mapping[str, str] | None = None
        try:
            if self.tab_gate is not None:
                try:
                    entered = await self.tab_gate.enter(request.remote or "?")
                except Refusal as refusal:
                    log.warning(
                        "refused a game to %s: %s",
                        request.remote,
                        refusal.sentence,
                        extra={"peer": request.remote},
                    )
                    said = {"why": "refused", "score": "", "verdict": refusal.sentence}
                    await websocket.send_json([FAREWELL, said])
                    return websocket
            if self.tab_args is not None or entered is not None:
                extra = self.tab_args(request) if self.tab_args is not None else ()
                session = await self.games.start(*size, extra, entered)
            else:
                session = await self.games.take(*size)
            await session.attach(websocket, *size)
            await self._relay(websocket, session, request.remote or "?")
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("a game session failed")
        finally:
            if session is not None:
                await self.games.end(session)
            if entered is not None and self.tab_gate is not None:
                self.tab_gate.left(entered)
            await websocket.close()
        return websocket

    async def _relay(
        self, websocket: web.WebSocketResponse, session: GameSession, peer: str
    ) -> None:
        """Pass on what the tab sends to its game (keys, resizes, focus) and answer its pings;
        anything else the page never sends is logged in one line and ignored. Past `FRAME_RATE`
        frames a second the tab is read more slowly (its own link holds it back)."""
        rate = Bucket(FRAME_RATE)
        async for message in websocket:
            await rate.wait()
            if message.type == WSMsgType.ERROR:  # a frame past MAX_FRAME, or not a websocket's
                log.warning(
                    "closed the tab of %s: %s",
                    peer,
                    websocket.exception() or "a bad frame",
                    extra={"peer": peer},
                )
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except ValueError:
                envelope = None
            match envelope:
                case ["stdin", str(keys)]:
                    await session.send_bytes(keys.encode("utf-8", errors="replace"))
                case ["resize", {"width": int(width), "height": int(height)}]:
                    if fits(width, height):
                        await session.set_terminal_size(width, height)
                    else:
                        log.warning("ignored a resize to %d by %d cells", width, height)
                case ["ping", str(stamp)]:
                    await websocket.send_json(["pong", stamp])
                case ["focus"]:
                    await session.focus()
                case ["blur"]:
                    await session.blur()
                case _:
                    log.warning("ignored a message the page never sends: %.80r", message.data)

    async def on_shutdown(self, app: web.Application) -> None:
        """Every game ends, together, before the server does."""
        self._stopping = True
        await self.stop_sessions()

    async def stop_sessions(self) -> None:
        """End every game, then close its tab's websocket."""
        sessions = list(self.games.sessions)
        await self.games.stop()
        await asyncio.gather(
            *(
                session.websocket.close(code=1001, message=b"server stopped")
                for session in sessions
                if session.websocket is not None
            )
        )

    async def start(self, listen: str | None) -> int:
        """Serve on `listen` (every address of this machine when None) at `port`; the port
        bound, the same on every address (port 0: any free one)."""
        runner = web.AppRunner(
            await self.make_app(),
            handle_signals=False,
            access_log=None,
            shutdown_timeout=KILL_GRACE,
            keepalive_timeout=self.admission.deadline,
        )
        await runner.setup()
        self._runner = runner
        assert runner.server is not None
        self._listening, self.port = await _bind(
            self.admission.protocol(runner.server), listen, self.port
        )
        return self.port

    async def close(self) -> None:
        """Stop serving: every game ends, every tab is closed."""
        for listening in self._listening:
            listening.close()
        self._listening = []
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def run(
        self,
        announce: Callable[[str], None] = print,
        beside: Callable[[], AbstractAsyncContextManager[object]] | None = None,
    ) -> None:
        """Serve until SIGINT, SIGTERM or SIGHUP (or `request_exit`); `announce` gets the
        address to open. `beside` is what runs for as long as the server does, once it is
        listening (`serve`'s SSH door)."""
        loop = asyncio.get_running_loop()
        for name in _STOP_SIGNALS:
            number = getattr(signal, name, None)
            if number is not None:
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.add_signal_handler(number, self.request_exit)
        try:
            await self.start(self.host)
            announce(self.address)
            async with beside() if beside is not None else contextlib.nullcontext():
                self.games.schedule_spare(0)
                await self._stop.wait()
        finally:
            await self.close()

    def request_exit(self) -> None:
        """Stop serving: every game ends, then `run` returns."""
        self._stop.set()

    @property
    def address_host(self) -> str:
        """The host part of the addresses to give: loopback when listening everywhere."""
        return "127.0.0.1" if self.host in ("", "0.0.0.0", "::") else self.host

    @property
    def address(self) -> str:
        """The address to open in a browser."""
        return f"http://{url_host(self.address_host)}:{self.port}/"


def _number(text: str | None, default: int) -> int:
    """The whole number in `text`, else `default`."""
    try:
        return int(text or default)
    except ValueError:
        return default


async def _bind(
    protocol: Callable[[], asyncio.Protocol], listen: str | None, port: int
) -> tuple[list[asyncio.Server], int]:
    """Listen with `protocol` on `listen` at `port`, the same port on every address: the
    servers, and that port."""
    loop = asyncio.get_running_loop()
    for _ in range(_BIND_TRIES):
        server = await loop.create_server(protocol, listen, port, reuse_address=True)
        ports = {int(sock.getsockname()[1]) for sock in server.sockets}
        if len(ports) <= 1:
            return [server], ports.pop() if ports else port
        # Port 0 on IPv4 and IPv6 gave each its own: ask for one of them on both.
        server.close()
        await server.wait_closed()
        port = min(ports)
        with contextlib.suppress(OSError):
            return [await loop.create_server(protocol, listen, port, reuse_address=True)], port
        port = 0  # taken on the other one meanwhile: draw again
    raise OSError(errno.EADDRINUSE, "no port is free on every address")
