"""Who may hold a connection to the browser door, and for how long before a request.

aiohttp bounds the size of a request, but neither how many connections may be open nor how long
one may take to send its headers: a stranger sending a header byte every few seconds (slowloris)
holds a connection, and a file descriptor, for as long as they like. `Admission` stands in front
of aiohttp's own protocol, through asyncio's public `Protocol` interface only:

- connections are bounded per address and in all. At a bound, the oldest connection still
  waiting for its request (from the address with the most of them) is dropped to make room, so
  slow and silent strangers keep nobody out; when every connection is busy, the newcomer is
  answered 503 in one sentence and closed, and gets one line in the log;
- a connection has `deadline` seconds to send a whole request's headers (and again after each
  answer, for the next request on it); it is closed when it has not;
- a request other than a websocket's has `answer_within` seconds to be read and answered (a
  wrong code past the throttle's limit is answered late, on purpose: this is longer).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Final

from aiohttp import web

from tictactoe.doors.bounds import peer_address, printable

__all__ = ["TOO_MANY_CONNECTIONS", "Admission"]

log = logging.getLogger("tictactoe.web")

TOO_MANY_CONNECTIONS: Final = "This door has as many connections as it can take: try again soon."

_SAID_WHERE_REFUSED: Final = frozenset({403, 421, 429, 503})
"""Refusals whose own line the door writes where it refuses (no ticket, another name...)."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Admission:
    """Connections to the browser door: bounded per address and in all, and in time."""

    def __init__(
        self,
        *,
        max_open: int = 256,
        max_per_address: int = 32,
        deadline: float = 10.0,
        answer_within: float = 30.0,
    ) -> None:
        self.max_open = max_open
        """Connections open at once, at most."""
        self.max_per_address = max_per_address
        """Connections open at once from one address, at most (a browser opens a few for a
        page, its files and its game; a café's visitors share one address)."""
        self.deadline = deadline
        """Seconds a connection has to send a request's headers."""
        self.answer_within = answer_within
        """Seconds a request that is not a websocket's has to be read and answered."""
        self._open: dict[asyncio.BaseTransport, _Guarded] = {}
        self._per_address: Counter[str] = Counter()

    @property
    def open(self) -> int:
        """Connections open now."""
        return len(self._open)

    def protocol(self, make: Callable[[], asyncio.Protocol]) -> Callable[[], asyncio.Protocol]:
        """A protocol factory for `loop.create_server`: `make`'s protocols, guarded."""
        return lambda: _Guarded(self, make)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """A request's headers are in: its connection's deadline stops; a request that is not a
        websocket's must be answered within `answer_within`; then the next one's deadline
        starts."""
        guarded = self._open.get(request.transport) if request.transport is not None else None
        if guarded is not None:
            guarded.disarm()
        try:
            if request.headers.get("Upgrade", "").lower() == "websocket":
                return await handler(request)
            async with asyncio.timeout(self.answer_within):
                return await handler(request)
        except web.HTTPException as refusal:
            if refusal.status >= 400 and refusal.status not in _SAID_WHERE_REFUSED:
                log.warning(
                    "answered %s %s to %s: %s",
                    refusal.status,
                    printable(request.path),
                    request.remote,
                    refusal.reason,
                    extra={"peer": request.remote},
                )
            raise
        except TimeoutError:
            log.warning(
                "closed a request from %s: not read and answered within %g s",
                request.remote,
                self.answer_within,
                extra={"peer": request.remote},
            )
            raise web.HTTPRequestTimeout(text="Too slow.\n") from None
        finally:
            if guarded is not None:
                guarded.arm()

    def admit(self, guarded: _Guarded) -> str | None:
        """Count a new connection in, dropping the oldest waiting ones it needs room from; why
        not, when it may not come in."""
        peer = guarded.peer
        if self._per_address[peer] >= self.max_per_address and not self._drop_waiting(
            lambda other: other.peer == peer, guarded
        ):
            return f"{self._per_address[peer]} connections from that address are busy"
        if len(self._open) >= self.max_open:
            waiting = Counter(other.peer for other in self._open.values() if other.waiting)
            most = max(waiting.values(), default=0)
            if not most or not self._drop_waiting(
                lambda other: waiting[other.peer] == most, guarded
            ):
                return f"{len(self._open)} connections are busy"
        assert guarded.transport is not None
        self._open[guarded.transport] = guarded
        self._per_address[peer] += 1
        return None

    def _drop_waiting(self, among: Callable[[_Guarded], bool], newcomer: _Guarded) -> bool:
        """Drop the oldest connection `among` waiting for a request; whether there was one."""
        oldest = next(
            (other for other in self._open.values() if other.waiting and among(other)), None
        )
        if oldest is None:
            return False
        log.warning(
            "dropped a connection from %s that sent no request, to let one from %s in",
            oldest.peer,
            newcomer.peer,
            extra={"peer": oldest.peer},
        )
        oldest.drop()
        return True

    def forget(self, guarded: _Guarded) -> None:
        """A connection has closed."""
        if guarded.transport is not None and self._open.pop(guarded.transport, None) is not None:
            self._per_address[guarded.peer] -= 1
            if self._per_address[guarded.peer] <= 0:
                del self._per_address[guarded.peer]


def _refusal(sentence: str) -> bytes:
    body = (sentence + "\n").encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


class _Guarded(asyncio.Protocol):
    """aiohttp's protocol for one connection, once `Admission` has let it in."""

    def __init__(self, admission: Admission, make: Callable[[], asyncio.Protocol]) -> None:
        self.admission = admission
        self.make = make
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self.peer = "?"
        self._timer: asyncio.TimerHandle | None = None

    @property
    def waiting(self) -> bool:
        """Whether the connection is waiting for a request's headers (not serving one)."""
        return self._timer is not None

    def drop(self) -> None:
        """Close at once, and count out now."""
        self.disarm()
        self.admission.forget(self)
        if self.transport is not None:
            self.transport.abort()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.peer = peer_address(transport.get_extra_info("peername"))
        why = self.admission.admit(self)
        if why is not None:
            log.warning(
                "refused a connection from %s: %s", self.peer, why, extra={"peer": self.peer}
            )
            with contextlib.suppress(OSError, RuntimeError):
                transport.write(_refusal(TOO_MANY_CONNECTIONS))
            transport.close()
            self.transport = None
            return
        self.inner = self.make()
        self.inner.connection_made(transport)
        self.arm()

    def arm(self) -> None:
        """Start the deadline for the next request's headers."""
        self.disarm()
        if self.transport is not None and not self.transport.is_closing():
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.admission.deadline, self._too_slow)

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _too_slow(self) -> None:
        self._timer = None
        if self.transport is not None:
            log.warning(
                "closed a connection from %s: no request within %g s",
                self.peer,
                self.admission.deadline,
                extra={"peer": self.peer},
            )
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        if self.inner is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm()
        self.admission.forget(self)
        if self.inner is not None:
            self.inner.connection_lost(exc)
