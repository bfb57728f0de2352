"""Where authorities' links are served (aiohttp): many on one port (`LinkServer`, a club's tables
at `/tables/ID/link`), or one on a port of its own (`AuthorityServer`, the host's series at
`/link`). What each link may do is its authority's links' business (`tictactoe.link.served`).
"""

from __future__ import annotations

from urllib.parse import quote

from aiohttp import web

from tictactoe.link.links import CLOSE_WITHIN
from tictactoe.link.served import AuthorityLinks

__all__ = ["AuthorityServer", "LinkServer"]

NO_SUCH_TABLE = "There is no such table here."
"""What a link to a path no authority is served at is told (a table that has ended)."""


class LinkServer:
    """One aiohttp application on one port, serving the links of many authorities, each at a path
    of its own; an authority is routed to from `serve` until its `stop` is over."""

    def __init__(self) -> None:
        self.app = web.Application()
        self.app.router.add_get("/link", self._handle)
        self.app.router.add_get("/tables/{table}/link", self._handle)
        self._served: dict[str | None, AuthorityLinks] = {}
        """By table (None: the one at `/link`)."""
        self._runner: web.AppRunner | None = None
        self._base: str | None = None

    @property
    def port(self) -> int:
        if self._runner is None:
            raise RuntimeError("the server is not started")
        return int(self._runner.addresses[0][1])

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen on `host`:`port` (0: any free port); the port bound. Links are told to come
        to `host`, which is where the other processes of a club reach this one."""
        self._runner = web.AppRunner(
            self.app, access_log=None, shutdown_timeout=CLOSE_WITHIN / 4, handle_signals=False
        )
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        self._base = f"ws://{f'[{host}]' if ':' in host else host}:{self.port}"
        return self.port

    async def stop(self) -> None:
        """Stop listening (the authorities served are stopped first, each by its owner)."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def serve(self, links: AuthorityLinks, table: str | None = None) -> AuthorityLinks:
        """Route `table`'s path (None: `/link`) to `links`, until `links.stop` is over."""
        if self._base is None:
            raise RuntimeError("the server is not started")
        if table in self._served:
            raise ValueError(f"table {table!r} is served already")
        path = "/link" if table is None else f"/tables/{quote(table, safe='')}/link"
        self._served[table] = links

        def stopped() -> None:
            if self._served.get(table) is links:
                del self._served[table]

        links.on_stopped = stopped
        links.served(self._base + path)
        return links

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        links = self._served.get(request.match_info.get("table"))
        if links is None:
            return web.Response(status=404, text=NO_SUCH_TABLE)
        return await links.handle(request)


class AuthorityServer(AuthorityLinks):
    """An `Authority` served over websockets at `/link`, on a port of its own on the host's
    loopback (the host's one series)."""

    _server: LinkServer | None = None

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the server is not started")
        return self._server.port

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen on `host`:`port` (0: any free port); the port bound."""
        self._server = LinkServer()
        bound = await self._server.start(host, port)
        self._server.serve(self)
        return bound

    async def stop(self, text: str = "The host ended the series.") -> None:
        """End the series with `text`: every link is sent `Ended` and closed, within 2 s."""
        await super().stop(text)
        if self._server is not None:
            await self._server.stop()
