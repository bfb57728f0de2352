"""`tictactoe serve`: the same game in web browsers, one game process per tab, via textual-serve.

textual-serve provides the page (xterm.js draws a terminal and opens a websocket) and the service
that runs a Textual app as a child process speaking Textual's web protocol (screen on stdout, keys
on stdin). This server puts them together for a real deployment:

- it serves the page, the page's files and the games' websocket, and lists no folder; the page is
  our own copy of textual-serve's, with its fonts served from here (no request leaves this server,
  so it works offline);
- each game process is started without a shell, in its own session, with `TICTACTOE_SERVED=1` and
  the served driver (see `tictactoe.served`), and with the game options given to `serve`, so every
  tab keeps its finished matches in the same place;
- one game process is kept started ahead (the spare), so that a new tab shows its game sooner;
- stopping the server (Ctrl+C, SIGTERM, SIGHUP) ends every game within `STOP_WITHIN` seconds;
- bound to loopback (the default), it answers only requests addressed to a loopback name, and a
  game's websocket only opens from the server's own page, so other web sites the person visits
  cannot start or play games through it; what a tab sends is checked before it reaches a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import aiohttp_jinja2
import jinja2
import textual_serve
from aiohttp import WSMsgType, web
from aiohttp.http_exceptions import HttpProcessingError
from textual_serve.download_manager import DownloadManager
from yarl import URL

from tictactoe.adapters.app_process import AppProcess
from tictactoe.addresses import is_loopback, url_host
from tictactoe.online.code_gate import TOO_MANY_GAMES, CodeGate, Refusal, form_page

if TYPE_CHECKING:
    from tictactoe.doors.ssh import SshDoor
from tictactoe.served import DRIVER, FAREWELL, SERVED_ENV

__all__ = ["GameServer", "GameSession", "ServeConfig", "game_command", "serve"]

log = logging.getLogger("tictactoe.web")

TEMPLATES: Final = Path(__file__).with_name("web_templates")
"""Our copy of textual-serve's page (`app_index.html`)."""

STATIC: Final = Path(textual_serve.__file__).with_name("static")
"""textual-serve's files for the page: its script, style sheet, fonts and background."""

TITLE: Final = "Tic-tac-toe"

QUIT_GRACE: Final = 0.8
"""Seconds a game has to end after being asked to, before it is terminated."""

KILL_GRACE: Final = 0.4
"""Seconds a game has to end after SIGTERM before it is killed; also the longest wait for the rest
of its output, and for a tab to answer the closing of its websocket."""

SPARE_AFTER: Final = 1.5
"""Seconds after a tab takes the spare game before the next spare starts (not during its paint)."""

STOP_WITHIN: Final = QUIT_GRACE + 3 * KILL_GRACE
"""The longest the server takes to stop with games open (all are stopped at once)."""

MAX_SIZE: Final = (1000, 500)
"""The largest terminal a tab may ask for, in columns and rows (a wall of 8K screens is less)."""

MAX_SSH_SESSIONS: Final = 64
"""The most SSH sessions `serve --ssh-port` runs games for at once."""

MAX_GAMES: Final = 64
"""The most games a server runs for browser tabs at once."""

MAX_FRAME: Final = 64 * 1024
"""The largest message a tab may send, in bytes (a paste of a page of text)."""

FRAME_RATE: Final = 200.0
"""Messages a tab may send a second, in bursts of as many; faster ones wait."""


class _Pace:
    """Lets `rate` events a second through, in bursts of as many; the rest wait their turn."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.tokens = rate
        self.stamp = time.monotonic()

    async def wait(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.rate, self.tokens + (now - self.stamp) * self.rate) - 1
        self.stamp = now
        if self.tokens < 0:
            await asyncio.sleep(-self.tokens / self.rate)


_STOP_SIGNALS: Final = ("SIGINT", "SIGTERM", "SIGHUP")


@dataclass(frozen=True, slots=True)
class ServeConfig:
    """What `tictactoe serve` was asked for."""

    host: str = "127.0.0.1"
    """The address to listen on."""
    port: int = 8000
    """The port to listen on; 0 for any free one."""
    game_args: tuple[str, ...] = ()
    """The options every tab's game is started with."""
    ssh_port: int | None = None
    """Also an SSH door on this port: every SSH session gets its own game, as a tab does."""


def game_command(game_args: Sequence[str]) -> list[str]:
    """The command that runs one tab's game: this Python, this package, the options given."""
    return [sys.executable, "-m", "tictactoe", *game_args]


def fits(width: int, height: int) -> bool:
    """A terminal size a page can ask for: from one cell to `MAX_SIZE`."""
    return 0 < width <= MAX_SIZE[0] and 0 < height <= MAX_SIZE[1]


def _number(text: str | None, default: int) -> int:
    """The whole number in `text`, else `default`."""
    try:
        return int(text or default)
    except ValueError:
        return default


class GameSession(AppProcess):
    """One browser tab's game: a child process that speaks Textual's web protocol.

    A session may start before its tab exists (the server keeps one spare, already past its
    imports and first paint): until `attach` gives it a websocket, what the game writes is held,
    then sent in order before anything newer.
    """

    quit_grace = QUIT_GRACE
    kill_grace = KILL_GRACE

    def __init__(
        self,
        argv: Sequence[str],
        download_manager: DownloadManager,
        environment: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(
            argv,
            {"TEXTUAL_DRIVER": DRIVER, SERVED_ENV: "1", **(environment or {})},
            write_bytes=self._send_bytes,
            write_str=self._send_str,
            close=self._close_tab,
            download_manager=download_manager,
        )
        self.websocket: web.WebSocketResponse | None = None
        """The tab showing this game, once attached."""
        self._held: list[bytes | str] = []
        self._output = asyncio.Lock()

    async def attach(self, websocket: web.WebSocketResponse, width: int, height: int) -> None:
        """Show this game in `websocket`'s tab, at that tab's size."""
        async with self._output:
            self.websocket = websocket
            for data in self._held:
                await self._send(data)
            self._held.clear()
        await self.set_terminal_size(width, height)

    async def _send(self, data: bytes | str) -> None:
        assert self.websocket is not None
        with contextlib.suppress(ConnectionResetError):  # the tab has gone: nobody to show it to
            if isinstance(data, bytes):
                await self.websocket.send_bytes(data)
            else:
                await self.websocket.send_str(data)

    async def _send_bytes(self, data: bytes) -> None:
        async with self._output:
            if self.websocket is None:
                self._held.append(data)
            else:
                await self._send(data)

    async def _send_str(self, data: str) -> None:
        async with self._output:
            if self.websocket is None:
                self._held.append(data)
            else:
                await self._send(data)

    async def _close_tab(self) -> None:
        """The game has ended: so does its tab's connection (the page then says so)."""
        if self.websocket is not None:
            await self.websocket.close()

    async def on_meta(self, data: bytes) -> None:
        """The game's own messages: its farewell goes on to the tab, saying why the game ended;
        its exit closes nothing yet, as its farewell comes after it."""
        match json.loads(data):
            case {"type": "exit"}:
                pass
            case {"type": kind, "score": str(score), "verdict": str(verdict)} if kind == FAREWELL:
                why = "stopped" if self.stopping else "quit"
                farewell = {"why": why, "score": score, "verdict": verdict}
                await self._send_str(json.dumps([FAREWELL, farewell]))
            case _:
                await super().on_meta(data)

    async def run(self) -> None:
        """Pass the game's output on until it ends; then close the tab, unless the server is
        ending the game (it closes the tab itself)."""
        await super().run()
        if not self.stopping:
            await self._close_tab()


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
    ) -> None:
        self.host = host
        """The address listened on."""
        self.port = port
        """The port listened on (once bound, the real one when 0 was asked for)."""
        self.download_manager = DownloadManager()
        """textual-serve's record of files being sent to tabs (the game sends none)."""
        self.game_argv = game_command(game_args)
        """What each tab's game process runs."""
        self.sessions: set[GameSession] = set()
        """Every game running now, the spare included."""
        self.keep_spare = spare and tab_args is None
        """Keep one game started ahead, past its imports and first paint, for the next tab."""
        self.tab_args = tab_args
        """Options for one tab's game taken from its request (the address it came from);
        given, no spare is kept: a spare cannot know its tab."""
        self.environment = dict(environment or {})
        """Added to the environment of every game."""
        self.gate = gate
        """When given, a tab starts a game only with a ticket for a right code (the host's door)."""
        self.own_host = own_host
        """Whether a request's Host names this server: when given, others are refused with 421
        (when not, a server on loopback answers loopback names only)."""
        self.max_games = max_games
        """Games running at once, at most (the spare counted)."""
        self._spare: GameSession | None = None
        self._spare_size = (80, 24)
        self._refill: asyncio.Task[None] | None = None
        self._spare_starting = False
        self._stopping = False
        self._stop = asyncio.Event()

    async def make_app(self) -> web.Application:
        """The site: the page, its files (never a listing of their folders) and the games'
        websocket, answering only what a page of this server on this machine asks."""
        app = web.Application(middlewares=[self._only_our_own_page])
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

    @web.middleware
    async def _only_our_own_page(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """Refuse what a page elsewhere could send through the visitor's browser.

        Bound to loopback, only requests addressed to a loopback name are served, so a web site
        whose name is made to resolve to 127.0.0.1 gets nothing. A game's websocket only opens
        from a page of this server (browsers always send the page's origin on a websocket).
        """
        target = request.url
        if self.own_host is not None:
            if not self.own_host(target.host or ""):
                log.warning("refused a request addressed to %.80r: not this machine", request.host)
                raise web.HTTPMisdirectedRequest(text="This server answers to its own names.\n")
        elif is_loopback(self.host) and not is_loopback(target.host or ""):
            log.warning("refused a request addressed to %.80r: not this machine", request.host)
            raise web.HTTPMisdirectedRequest(text="This server only answers on this machine.\n")
        origin = request.headers.get("Origin")
        if request.path.startswith("/ws") and origin is not None:
            source = URL(origin)
            if (source.host, source.port) != (target.host, target.port):
                log.warning("refused a game to a page from %.80r", origin)
                raise web.HTTPForbidden(text="Games start only from this server's own page.\n")
        return await handler(request)

    async def handle_index(self, request: web.Request) -> web.Response:
        """The page, with its addresses taken from the request: they work whatever name was used."""
        if len(self.sessions) >= self.max_games:
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
            if len(self.sessions) >= self.max_games:
                raise Refusal(TOO_MANY_GAMES, 503)
            ticket = await self.gate.check(typed if isinstance(typed, str) else "", peer)
        except Refusal as refusal:
            log.warning("refused a code from %s: %s", peer, refusal.sentence)
            page = form_page(TITLE, refusal.sentence)
            return web.Response(status=refusal.status, text=page, content_type="text/html")
        return self._game_page(request, f"ws://{request.host}/ws/{ticket}")

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One tab: give it a game, pass keys, mouse and resizes on until either side leaves."""
        if self.gate is not None and self.gate.admit(request.match_info["ticket"]) is None:
            log.warning("refused a game to %s: no valid ticket", request.remote)
            raise web.HTTPForbidden(text="Give the series' code first.\n")
        if len(self.sessions) >= self.max_games:
            log.warning("refused a game to %s: %d are open", request.remote, len(self.sessions))
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
        try:
            if self.tab_args is not None:
                session = await self._start(*size, self.tab_args(request))
            else:
                session = await self._take_session(*size)
            await session.attach(websocket, *size)
            await self._relay(websocket, session)
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("a game session failed")
        finally:
            if session is not None:
                await self._end(session)
            await websocket.close()
        return websocket

    async def _relay(self, websocket: web.WebSocketResponse, session: GameSession) -> None:
        """Pass on what the tab sends to its game (keys, resizes, focus) and answer its pings;
        anything else the page never sends is logged in one line and ignored. Past `FRAME_RATE`
        frames a second the tab is read more slowly (its own link holds it back)."""
        rate = _Pace(FRAME_RATE)
        async for message in websocket:
            await rate.wait()
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

    async def _start(self, width: int, height: int, extra_args: Sequence[str] = ()) -> GameSession:
        session = GameSession(
            [*self.game_argv, *extra_args], self.download_manager, self.environment
        )
        self.sessions.add(session)
        await session.start(width, height)
        return session

    async def _end(self, session: GameSession) -> None:
        await session.stop()
        self.sessions.discard(session)

    async def _take_session(self, width: int, height: int) -> GameSession:
        """The spare game if it is ready, else a new one; the spare is replaced a little later."""
        spare, self._spare = self._spare, None
        self._spare_size = (width, height)
        if spare is not None and not spare.running:
            await self._end(spare)
            spare = None
        session = spare or await self._start(width, height)
        self._schedule_spare(SPARE_AFTER)
        return session

    def _schedule_spare(self, delay: float) -> None:
        """Start the next spare after `delay`: not while the new tab's game is being drawn."""
        if not self.keep_spare or self._stopping or self._spare is not None:
            return
        if self._refill is not None and not self._refill.done():
            return
        self._refill = asyncio.create_task(self._start_spare(delay))

    async def _start_spare(self, delay: float) -> None:
        await asyncio.sleep(delay)  # stopping the server cancels the refill only here
        if self._stopping or self._spare is not None:
            return
        self._spare_starting = True
        try:
            self._spare = await self._start(*self._spare_size)
        finally:
            self._spare_starting = False

    async def on_shutdown(self, app: web.Application) -> None:
        """Every game ends, together, before the server does."""
        await self.stop_sessions()

    async def stop_sessions(self) -> None:
        self._stopping = True
        if self._refill is not None:
            if not self._spare_starting:
                self._refill.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._refill  # a spare being started is then in `sessions`
        sessions = list(self.sessions)
        await asyncio.gather(*(self._end(session) for session in sessions))
        await asyncio.gather(
            *(
                session.websocket.close(code=1001, message=b"server stopped")
                for session in sessions
                if session.websocket is not None
            )
        )

    async def run(
        self, announce: Callable[[str], None] = print, ssh_port: int | None = None
    ) -> None:
        """Serve until SIGINT, SIGTERM or SIGHUP; `announce` gets the address to open, then
        the ssh line when `ssh_port` asks for an SSH door too."""
        runner = web.AppRunner(
            await self.make_app(),
            handle_signals=False,
            access_log=None,
            shutdown_timeout=KILL_GRACE,
        )
        await runner.setup()
        loop = asyncio.get_running_loop()
        for name in _STOP_SIGNALS:
            number = getattr(signal, name, None)
            if number is not None:
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.add_signal_handler(number, self.request_exit)
        door = None
        try:
            site = web.TCPSite(runner, self.host, self.port)
            await site.start()
            self.port = bound_port(runner, self.port)
            announce(self.address)
            if ssh_port is not None:
                door = await self._open_ssh_door(ssh_port)
                announce(f"ssh -p {door[1]} play@{url_host(self.address_host)}")
            self._schedule_spare(0)
            await self._stop.wait()
        finally:
            if door is not None:
                await door[0].stop()
            await runner.cleanup()

    async def _open_ssh_door(self, port: int) -> tuple[SshDoor, int]:
        """An SSH door where any user name gets its own game in a terminal, as a tab does."""
        from tictactoe.doors.ssh import SshDoor, load_host_key

        # On loopback (the default) every session comes from one address: the bound per
        # address is then the bound on sessions.
        loopback = is_loopback(self.host)
        door = SshDoor(
            host_key=load_host_key(),
            command=lambda _info: self.game_argv,
            max_sessions=MAX_SSH_SESSIONS,
            max_per_address=MAX_SSH_SESSIONS if loopback else 16,
            max_logging_in_per_address=32 if loopback else 4,
        )
        return door, await door.start(self.host, port)

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


class BadRequestsInOneLine(logging.Filter):
    """A request that aiohttp cannot even parse is the sender's doing: one line, no traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            reason = " ".join(str(error.message).split())
            record.msg, record.args = "%s: %s %.80s", (record.getMessage(), error.code, reason)
            record.exc_info = record.exc_text = None
        return True


def bound_port(runner: web.AppRunner, asked: int) -> int:
    """The port `runner` listens on (the real one when 0 was asked for)."""
    for address in runner.addresses:
        if isinstance(address, tuple) and len(address) >= 2:
            return int(address[1])
    return asked


def serve(config: ServeConfig) -> int:
    """`tictactoe serve`: serve until stopped; the exit status."""
    output = logging.StreamHandler()
    output.addFilter(BadRequestsInOneLine())
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s", handlers=[output])
    server = GameServer(config.game_args, host=config.host, port=config.port)

    def announce(address: str) -> None:
        if address.startswith("ssh "):
            print(f"Or from a terminal: {address} (any user name; each session its own game)")
            sys.stdout.flush()
            return
        print(f"Serving tic-tac-toe on {address} (open it in a web browser; Ctrl+C stops)")
        if not is_loopback(config.host):
            print(
                f"Listening on {config.host}: anyone who can reach it can play, and every game"
                " they finish goes into your game record."
            )
        sys.stdout.flush()

    try:
        asyncio.run(server.run(announce, config.ssh_port))
    except KeyboardInterrupt:  # before the signal handlers were in place: nothing started yet
        return 128 + signal.SIGINT
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else str(error)
        print(
            f"tictactoe serve: cannot listen on {config.host} port {config.port}: {reason}",
            file=sys.stderr,
        )
        return 2
    return 0
