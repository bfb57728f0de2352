"""What the browser door refuses before any game sees it: pages elsewhere, and bad requests.

- bound to loopback, a server answers only requests addressed to a loopback name, and the host's
  door only those addressed to this machine's own addresses and names, so a web site whose name
  is made to resolve here (DNS rebinding) gets nothing;
- a game's websocket opens only from a page of this server (browsers always send the page's
  origin on a websocket);
- a request aiohttp cannot even parse is one line in the log, never a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.typedefs import Middleware
from yarl import URL

from tictactoe.doors.addresses import is_loopback

__all__ = ["BadRequestsInOneLine", "own_page_only"]

log = logging.getLogger("tictactoe.web")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def own_page_only(host: str, own_host: Callable[[str], bool] | None) -> Middleware:
    """A middleware for a server listening on `host` that refuses what a page elsewhere could
    send through the visitor's browser; `own_host`, when given, says which names are this
    machine's (else a server on loopback answers loopback names only)."""
    loopback = is_loopback(host)

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        target = request.url
        if own_host is not None:
            if not own_host(target.host or ""):
                log.warning(
                    "refused a request addressed to %.80r: not this machine",
                    request.host,
                    extra={"peer": request.remote},
                )
                raise web.HTTPMisdirectedRequest(text="This server answers to its own names.\n")
        elif loopback and not is_loopback(target.host or ""):
            log.warning(
                "refused a request addressed to %.80r: not this machine",
                request.host,
                extra={"peer": request.remote},
            )
            raise web.HTTPMisdirectedRequest(text="This server only answers on this machine.\n")
        origin = request.headers.get("Origin")
        if request.path.startswith("/ws") and origin is not None:
            source = URL(origin)
            if (source.host, source.port) != (target.host, target.port):
                log.warning(
                    "refused a game to a page from %.80r", origin, extra={"peer": request.remote}
                )
                raise web.HTTPForbidden(text="Games start only from this server's own page.\n")
        return await handler(request)

    return middleware


class BadRequestsInOneLine(logging.Filter):
    """A request that aiohttp cannot even parse is the sender's doing: one line, no traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            reason = " ".join(str(error.message).split())
            record.msg, record.args = "%s: %s %.80s", (record.getMessage(), error.code, reason)
            record.exc_info = record.exc_text = None
        return True
