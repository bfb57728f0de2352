"""One authority's links (`AuthorityLinks`): the websockets of its seats and watchers, wherever
they are served (`tictactoe.link.server`: a port of its own, or a path on a server of many).

Each link says `Hello` first, and then sends intents; after every change every link is sent the
state as it sees it. A hello is taken only with the doors' key (a game a door started) or the
host's token, both checked in constant time before anything else: without them, whatever the
code, name or token, the link is told the same sentence a second later, so a local program learns
nothing and tries slowly. Links that have not been welcomed are few at once: past `MAX_PENDING`,
the oldest is closed (one already refused first), so a flood of links is never what a door's game
meets; the joined ones are bounded by the authority (two seats and its watchers), and each door
bounds the games it starts.

The host's own seat, in this process, is a `HostLink`: the same messages, in order, with no socket
and no JSON between the host's screen and the authority. The link is where hostile input stops:
a message that is malformed, too large, binary or too fast closes that link alone, with one line
in the log (`tictactoe.online`), and the series and every other link carry on.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import logging
from collections.abc import Callable
from typing import Final

from aiohttp import WSCloseCode, WSMessage, WSMsgType, web

from tictactoe.doors.bounds import Bucket
from tictactoe.doors.throttle import Throttle
from tictactoe.link.client import LinkDenied
from tictactoe.link.host_link import HostLink
from tictactoe.link.links import CLOSE_WITHIN, Link
from tictactoe.online import protocol
from tictactoe.online.authority import Authority, JoinDenied, LinkId, Stale, WrongCode
from tictactoe.online.wire import MAX_MESSAGE, ProtocolError, parse_client

__all__ = [
    "HELLO_TIMEOUT",
    "MAX_PENDING",
    "NOT_FROM_A_DOOR",
    "RATE",
    "REFUSE_AFTER",
    "AuthorityLinks",
]

log = logging.getLogger("tictactoe.online")

HELLO_TIMEOUT: Final = 5.0
"""Seconds a new link has to say hello."""

MAX_PENDING: Final = 16
"""Links open at once that have not been welcomed (silent, or waiting for their refusal); a new
one past this closes the oldest, one already refused first. A door's game says hello as soon as
it is linked, and links again when closed this way (`client.AuthorityLink.open`)."""

REFUSE_AFTER: Final = 1.0
"""Seconds a link that was not welcomed waits for its refusal (a hello without the key, or no
hello at all): every such refusal reads the same and comes as late."""

RATE: Final = 30.0
"""Messages a link may send per second, in bursts of as many."""

NOT_FROM_A_DOOR: Final = "Join with the ssh line or the web address of the invitation."
"""What a link that did not come through a door is told."""


class AuthorityLinks:
    """An `Authority`'s links: each websocket handed to `handle`, and the host's own seat."""

    def __init__(
        self,
        authority: Authority,
        throttle: Throttle,
        *,
        door_key: str,
        on_change: Callable[[protocol.State], None] | None = None,
        max_pending: int = MAX_PENDING,
        rate: float = RATE,
        hello_timeout: float = HELLO_TIMEOUT,
        refuse_after: float = REFUSE_AFTER,
    ) -> None:
        self.authority = authority
        self.throttle = throttle
        """Wrong codes, counted by the address the door saw (`Hello.peer`)."""
        self.door_key = door_key
        """The doors' secret: a hello without it (or the host's token) is refused."""
        self.on_change = on_change
        """Called with the host's view of the state after every change."""
        self.max_pending = max_pending
        self.rate = rate
        self.hello_timeout = hello_timeout
        self.refuse_after = refuse_after
        self.on_stopped: Callable[[], None] | None = None
        """Called once `stop` is over (the server stops routing links here)."""
        self._url: str | None = None
        self._links: dict[LinkId, Link] = {}
        self._pending: dict[LinkId, Link] = {}
        """The links not welcomed yet, oldest first."""
        self._ids = itertools.count(1)
        self._handlers: dict[asyncio.Task[object], Link] = {}
        self._ticking: asyncio.Task[None] | None = None
        self._stopping = False

    @property
    def url(self) -> str:
        """Where a seat's process links to (`ws://HOST:PORT/PATH`)."""
        if self._url is None:
            raise RuntimeError("the authority is not served")
        return self._url

    def served(self, url: str) -> None:
        """Links now come at `url`: the clock of a seat's grace starts."""
        self._url = url
        if self._ticking is None:
            self._ticking = asyncio.create_task(self._tick())

    async def stop(self, text: str = "The host ended the series.") -> None:
        """End the series with `text`: every link is sent `Ended` and closed, within 2 s."""
        if self._ticking is None or self._stopping:
            return
        self._stopping = True
        self._finish(self.authority.end(text))
        if self._handlers:
            await asyncio.wait(set(self._handlers), timeout=CLOSE_WITHIN / 2)
        self._ticking.cancel()
        if self._handlers:  # a link that did not close in time: its connection is cut
            for link in self._handlers.values():
                link.cut()
            await asyncio.wait(set(self._handlers), timeout=CLOSE_WITHIN / 4)
        if self.on_stopped is not None:
            self.on_stopped()

    # Each link.

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """Serve one websocket until it closes."""
        if self._stopping:
            return web.Response(status=503, text="The series has ended.")
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, timeout=CLOSE_WITHIN / 4)
        await ws.prepare(request)
        link = Link(next(self._ids), ws, peer=request.remote or "?", request=request)
        self._links[link.id] = link
        self._pending[link.id] = link
        self._make_room()
        task = asyncio.current_task()
        assert task is not None
        self._handlers[task] = link
        writer = asyncio.create_task(link.write())
        try:
            await self._serve(link)
        finally:
            self._forget(link)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(writer, CLOSE_WITHIN / 2)
            await ws.close()
            self._handlers.pop(task, None)
        return ws

    def _make_room(self) -> None:
        """Past `max_pending` links not welcomed, close the oldest: one already refused, else
        the oldest silent one (its game, if a door started it, links again)."""
        while len(self._pending) > self.max_pending:
            oldest = next((each for each in self._pending.values() if each.refused), None)
            if oldest is None:
                oldest = next(iter(self._pending.values()))
            del self._pending[oldest.id]
            log.warning(
                "link %d from %r closed: too many links saying hello",
                oldest.id,
                oldest.peer,
                extra={"peer": oldest.peer},
            )
            oldest.close_code = WSCloseCode.TRY_AGAIN_LATER
            oldest.close()

    def _forget(self, link: Link) -> None:
        """`link` has gone: its seat is away (or its watcher gone)."""
        self._pending.pop(link.id, None)
        if self._links.pop(link.id, None) is None:
            return
        if self.authority.knows(link.id) and self.authority.drop(link.id):
            self._broadcast()
        link.close()

    def open_local(self, hello: protocol.Hello) -> HostLink:
        """The host's own link, in this process: `LinkDenied` when the authority refuses it."""
        link = Link(next(self._ids), None, peer=hello.peer, inbox=asyncio.Queue())
        self._links[link.id] = link
        assert link.inbox is not None
        if not self._keyed(hello):
            self._forget(link)
            raise LinkDenied(NOT_FROM_A_DOOR, final=True)
        if not self._join(link, hello):
            self._forget(link)
            first = link.inbox.get_nowait()
            if isinstance(first, protocol.Denied):
                raise LinkDenied(first.text, final=first.final)
            raise LinkDenied("refused")
        welcome = link.inbox.get_nowait()
        assert isinstance(welcome, protocol.Welcome)
        return HostLink(link, welcome, give=self._give_local, close=self._forget)

    def _give_local(self, link: Link, message: protocol.ClientMessage) -> None:
        """The host's own link gives `message`, as a websocket's would: acted on, and the link
        goes once the message closes it (it left)."""
        if not self._dispatch(link, message):
            self._forget(link)

    async def _serve(self, link: Link) -> None:
        """Hello, then messages until the link closes or misbehaves."""
        assert link.ws is not None
        try:
            first = await link.ws.receive(timeout=self.hello_timeout)
        except TimeoutError:
            await self._turn_away(link, "no hello in time")
            return
        if first.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
            return
        try:
            hello = parse_client(first.data) if first.type is WSMsgType.TEXT else None
        except ProtocolError as error:
            await self._turn_away(link, str(error))
            return
        if not isinstance(hello, protocol.Hello):
            await self._turn_away(link, _unwelcome(first))
            return
        if not self._keyed(hello):
            await self._turn_away(link, "not from a door")
            return
        if not self._join(link, hello):
            return
        bucket = Bucket(self.rate)
        while not link.closing:
            frame = await link.ws.receive()
            if frame.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                return
            if bucket.take():  # past the rate: a client that floods is closed
                self._refuse(link, "too many messages")
                return
            message = self._read(link, frame)
            if message is None or not self._dispatch(link, message):
                return

    def _keyed(self, hello: protocol.Hello) -> bool:
        """Whether `hello` carries the doors' key or the host's token: both are checked, in
        constant time, whatever the hello holds."""
        door = hmac.compare_digest((hello.door_key or "").encode(), self.door_key.encode())
        host = self.authority.is_host_token(hello.host_token or "")
        return door | host

    async def _turn_away(self, link: Link, reason: str) -> None:
        """Refuse a link that was not welcomed, whatever was wrong: one line in the log, then
        `REFUSE_AFTER` seconds later the one sentence, and the link closes (sooner, unanswered,
        when it is closed to make room)."""
        log.warning(
            "link %d from %r refused: %s", link.id, link.peer, reason, extra={"peer": link.peer}
        )
        link.refused = True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(link.gone.wait(), self.refuse_after)
        self._send_and_close(link, protocol.Denied(NOT_FROM_A_DOOR, final=True))

    def _join(self, link: Link, hello: protocol.Hello) -> bool:
        """Seat or watch `link`, whose hello has the key: whether it was welcomed."""
        self._pending.pop(link.id, None)
        link.peer = hello.peer  # the address the door saw
        try:
            welcome = self.authority.join(hello, link.id)
        except WrongCode as wrong:
            self.throttle.failed(hello.peer)
            log.warning(
                "link %d from %r: %s", link.id, hello.peer, wrong, extra={"peer": link.peer}
            )
            self._send_and_close(link, wrong.denied)
            return False
        except JoinDenied as denied:
            self._send_and_close(link, denied.denied)
            return False
        self._send(link, welcome)
        self._broadcast()
        return True

    def _dispatch(self, link: Link, message: protocol.ClientMessage) -> bool:
        """Act on one message; whether the link stays open."""
        match message:
            case protocol.Act(version, intent):
                link.answered += 1
                result = self.authority.act(link.id, version, intent)
                if isinstance(result, protocol.Refused):
                    self._send(link, result)
                elif isinstance(result, Stale):
                    self._send(link, self.authority.state_for(link.id))
                else:
                    self._broadcast()
            case protocol.AskHint():
                link.answered += 1
                notice = self.authority.hint(link.id)
                if isinstance(notice, protocol.Refused):
                    self._send(link, notice)
                else:
                    self._broadcast()
            case protocol.Leave():
                ended = self.authority.leave(link.id)
                if ended is None:
                    self._broadcast()
                else:
                    self._finish(ended)
                return False
            case protocol.Hello():
                self._refuse(link, "a second hello")
                return False
        return True

    def _read(self, link: Link, frame: WSMessage) -> protocol.ClientMessage | None:
        """The message in `frame`, or None when the link must close (logged)."""
        if frame.type is WSMsgType.TEXT:
            try:
                return parse_client(frame.data)
            except ProtocolError as error:
                self._refuse(link, str(error))
                return None
        if frame.type is WSMsgType.BINARY:
            self._refuse(link, "a binary frame")
        elif frame.type is WSMsgType.ERROR:
            assert link.ws is not None
            self._refuse(link, f"a bad frame ({link.ws.exception()})")
        elif frame.type not in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
            self._refuse(link, f"an unexpected frame ({frame.type!r})")
        return None

    def _refuse(self, link: Link, reason: str) -> None:
        """Close `link` for misbehaving, with one line in the log."""
        log.warning(
            "link %d from %r closed: %s", link.id, link.peer, reason, extra={"peer": link.peer}
        )
        link.close()

    # Sending.

    def _send(self, link: Link, message: protocol.ServerMessage) -> None:
        if not link.send(message):
            self._refuse(link, "it does not read what it is sent")

    def _send_and_close(self, link: Link, message: protocol.ServerMessage) -> None:
        self._send(link, message)
        link.close()

    def _broadcast(self) -> None:
        """Every joined link is sent the state as it sees it; then `on_change`."""
        if self.authority.ended is not None:
            self._finish(self.authority.ended)
            return
        for link in list(self._links.values()):
            if self.authority.knows(link.id):
                self._send(link, self.authority.state_for(link.id))
        if self.on_change is not None:
            self.on_change(self.authority.state_for(None))

    def _finish(self, ended: protocol.Ended) -> None:
        """The series is over: every link is told why and closed."""
        for link in list(self._links.values()):
            self._send_and_close(link, ended)
        if self.on_change is not None:
            self.on_change(self.authority.state_for(None))

    async def _tick(self) -> None:
        """The one clock of a seat's grace: while a seat is away, everyone is sent the time
        it has left each time that passes a whole second (what the screens show), and once
        more when it runs out."""
        while True:
            await asyncio.sleep(_to_next_second(self.authority.away))
            if self.authority.ended is not None:
                continue
            ran_out = self.authority.tick()
            away = self.authority.away
            if ran_out or (away is not None and away.seconds_left > 0):
                self._broadcast()


def _unwelcome(first: WSMessage) -> str:
    """Why `first`, the first frame of a link, was not a hello it can be welcomed with."""
    if first.type is WSMsgType.TEXT:
        return "the first message was not a hello"
    if first.type is WSMsgType.BINARY:
        return "a binary frame"
    if first.type is WSMsgType.ERROR:
        return f"a bad frame ({first.data})"
    return f"an unexpected frame ({first.type!r})"


def _to_next_second(away: protocol.Away | None) -> float:
    """Seconds until the grace `away` has left passes a whole second (one while nobody is
    away, or once the grace is over)."""
    if away is None or away.seconds_left <= 0:
        return 1.0
    return away.seconds_left % 1.0 or 1.0
