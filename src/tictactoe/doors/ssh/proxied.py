"""Connections that come to the SSH door through a TCP load balancer, each beginning with a
PROXY protocol header (`tictactoe.doors.proxy`) naming the address it is from.

The door listens itself (`ProxiedAcceptor`), hears each connection's header (`Hearing`: at most
the door's `max_logging_in` wait for theirs, the oldest dropped for a newcomer, each within the
door's `header_timeout`), and only then hands the socket to asyncssh, to be counted, throttled
and logged as from the address the header names. A connection without a header is closed, and
one that closes right after its header (a balancer's health check) is let go unlogged.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("the SSH door runs games in pseudo-terminals: it needs Linux or macOS")

import asyncio
import logging
import socket
from collections.abc import Callable, Sequence
from typing import Protocol, cast

import asyncssh

from tictactoe.doors.bounds import peer_address, printable
from tictactoe.doors.proxy import BadHeader, read_header

__all__ = ["Acceptor", "Hearing", "ProxiedAcceptor", "ProxyDoor"]

log = logging.getLogger("tictactoe.online")


class Acceptor(Protocol):
    """What the door listens with: asyncssh's own, or one that hears PROXY headers first."""

    def get_addresses(self) -> list[tuple[str, int]]: ...
    def get_port(self) -> int: ...
    def close(self) -> None: ...
    async def wait_closed(self) -> None: ...


class ProxyDoor(Protocol):
    """What hearing PROXY headers asks of the door (`tictactoe.doors.ssh.door.SshDoor`)."""

    max_logging_in: int
    header_timeout: float
    relayed: dict[tuple[str, int], str]

    @property
    def stopping(self) -> bool: ...

    async def serve(self, sock: socket.socket) -> None:
        """Serve `sock` as asyncssh serves a connection it accepted itself."""


class Hearing:
    """The door's connections from their accepting until asyncssh has logged them in: first
    waiting for their PROXY header, then being served."""

    def __init__(self, door: ProxyDoor) -> None:
        self.door = door
        self._unheard: dict[asyncio.Task[None], None] = {}
        """Connections waiting for their PROXY header, oldest first."""
        self._proxied: set[asyncio.Task[None]] = set()
        """Connections that came with a PROXY header, until asyncssh has logged them in."""

    def take(self, sock: socket.socket) -> None:
        """A connection came: hear its header (at most `max_logging_in` wait for theirs, the
        oldest dropped for a newcomer), then serve it as from the address the header names."""
        try:
            peername = sock.getpeername()
        except OSError:  # gone already
            sock.close()
            return
        if self.door.stopping:
            sock.close()
            return
        if len(self._unheard) >= self.door.max_logging_in:
            oldest = next(iter(self._unheard))
            del self._unheard[oldest]
            oldest.cancel()
        task = asyncio.create_task(self._hear(sock, peername))
        self._unheard[task] = None
        self._proxied.add(task)
        task.add_done_callback(self._proxied.discard)

    async def _hear(self, sock: socket.socket, peername: tuple[object, ...]) -> None:
        balancer = peer_address(peername)
        task = asyncio.current_task()
        timeout = self.door.header_timeout
        try:
            header = await asyncio.wait_for(read_header(sock), timeout)
        except (BadHeader, TimeoutError, OSError, asyncio.CancelledError) as error:
            sock.close()
            why = {
                BadHeader: str(error),
                TimeoutError: f"no PROXY header within {timeout:g} s",
                asyncio.CancelledError: "no PROXY header yet, to let a newer one in",
            }.get(type(error), "closed before its PROXY header")
            if isinstance(error, asyncio.CancelledError) and self.door.stopping:
                raise
            log.warning(
                "closed a connection from %s: %s",
                balancer,
                printable(why),
                extra={"peer": balancer},
            )
            return
        finally:
            if task is not None:
                self._unheard.pop(task, None)
        if _gone(sock):  # a health check: a header, and gone
            sock.close()
            return
        key = (balancer, int(cast(int, peername[1])))
        if header.source is not None:
            self.door.relayed[key] = header.source
        try:
            await self.door.serve(sock)
        except (OSError, asyncssh.Error, TimeoutError):
            pass  # the connection has logged why, if it came as far as being one
        finally:
            self.door.relayed.pop(key, None)

    def stop_hearing(self) -> None:
        """The door is closing: no more headers are waited for."""
        for task in list(self._unheard):
            task.cancel()

    async def close(self) -> None:
        """Drop every connection not yet logged in, and wait until each has gone."""
        for task in list(self._proxied):
            task.cancel()
        await asyncio.gather(*list(self._proxied), return_exceptions=True)


class ProxiedAcceptor:
    """Listening sockets whose connections are given to `take` (`Hearing.take`), not to
    asyncssh."""

    def __init__(self, take: Callable[[socket.socket], None], sockets: list[socket.socket]):
        self._sockets = sockets
        self._tasks = [asyncio.create_task(self._accept(take, sock)) for sock in sockets]

    @classmethod
    async def open(
        cls, take: Callable[[socket.socket], None], host: str | Sequence[str], port: int
    ) -> ProxiedAcceptor:
        loop = asyncio.get_running_loop()
        hosts = [host] if isinstance(host, str) else list(host)
        places: list[tuple[int, tuple[object, ...]]] = []
        for name in hosts:
            found = await loop.getaddrinfo(
                name or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
            )
            places += [(family, address) for family, *_, address in found]
        sockets: list[socket.socket] = []
        try:
            for family, address in dict.fromkeys(places):
                sock = socket.socket(family, socket.SOCK_STREAM)
                sockets.append(sock)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                sock.bind(address)
                sock.listen(100)
                sock.setblocking(False)
        except OSError:
            for sock in sockets:
                sock.close()
            raise
        return cls(take, sockets)

    async def _accept(self, take: Callable[[socket.socket], None], listener: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                sock, _ = await loop.sock_accept(listener)
            except OSError as error:  # out of descriptors, for one: try again in a moment
                log.warning("could not take a connection: %s", printable(str(error), 120))
                await asyncio.sleep(0.1)
                continue
            sock.setblocking(False)
            take(sock)

    def get_addresses(self) -> list[tuple[str, int]]:
        return [cast(tuple[str, int], sock.getsockname()[:2]) for sock in self._sockets]

    def get_port(self) -> int:
        ports = {address[1] for address in self.get_addresses()}
        return ports.pop() if len(ports) == 1 else 0

    def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for sock in self._sockets:
            sock.close()

    async def wait_closed(self) -> None:
        await asyncio.gather(*self._tasks, return_exceptions=True)


def _gone(sock: socket.socket) -> bool:
    """Whether the other end has closed `sock` already (nothing left to read but its end)."""
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
