"""The PROXY protocol (HAProxy's `send-proxy`): a balancer says whom a connection is from.

A TCP load balancer in `mode tcp` passes each player's connection on from its own address; with
the PROXY protocol it first sends one header naming the player's address, then the player's
bytes. Version 1 is a line of text (`PROXY TCP4 203.0.113.7 10.0.0.11 51234 2222\\r\\n`, at most
107 bytes), version 2 a binary block (12 bytes of signature, then its length). Only the header is
read off the socket (it is peeked at first), so what follows it is left for the SSH server.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from typing import Final

__all__ = ["V1_LIMIT", "BadHeader", "Header", "header_length", "parse_header", "read_header"]

V1_LIMIT: Final = 107
"""The longest version 1 header, its CRLF included."""

V2_SIGNATURE: Final = b"\r\n\r\n\x00\r\nQUIT\n"
V2_LIMIT: Final = 16 + 216
"""The longest version 2 header taken: its addresses (a pair of UNIX paths at most) and no
room for long extensions."""

_V1_START: Final = b"PROXY "
_PEEK_AGAIN: Final = 0.02
"""Seconds before looking again at a header that has come in part."""


class BadHeader(Exception):
    """What a connection began with is not a PROXY protocol header; why, in a few words."""


@dataclass(frozen=True)
class Header:
    """A PROXY protocol header: its length in bytes, and the address the connection is from
    (None: the balancer's own connection, a health check, or one it cannot name)."""

    length: int
    source: str | None


def header_length(data: bytes) -> int | None:
    """How long the header `data` begins with is; None while too little has come to tell.
    Raises `BadHeader` when `data` cannot begin one."""
    if data[: len(V2_SIGNATURE)] == V2_SIGNATURE[: len(data)]:
        if len(data) < 16:
            return None
        length = 16 + int.from_bytes(data[14:16], "big")
        if length > V2_LIMIT:
            raise BadHeader("a version 2 header too long")
        return length
    if data[: len(_V1_START)] != _V1_START[: len(data)]:
        raise BadHeader("no PROXY header")
    end = data.find(b"\r\n", 0, V1_LIMIT)
    if end >= 0:
        return end + 2
    if len(data) >= V1_LIMIT:
        raise BadHeader("a version 1 header too long")
    return None


def parse_header(data: bytes) -> Header:
    """The header `data` is, all of it and nothing more; `BadHeader` if it is not one."""
    length = header_length(data)
    if length is None or length != len(data):
        raise BadHeader("an incomplete header")
    if data.startswith(V2_SIGNATURE):
        return Header(length, _v2_source(data))
    return Header(length, _v1_source(data[:-2]))


def _v1_source(line: bytes) -> str | None:
    parts = line.split(b" ")
    if len(parts) >= 2 and parts[1] == b"UNKNOWN":
        return None
    if len(parts) != 6 or parts[1] not in (b"TCP4", b"TCP6"):
        raise BadHeader("a malformed version 1 header")
    version = 4 if parts[1] == b"TCP4" else 6
    try:
        source, destination = (ipaddress.ip_address(part.decode("ascii")) for part in parts[2:4])
        ports = [int(part.decode("ascii")) for part in parts[4:6]]
    except (UnicodeDecodeError, ValueError):
        raise BadHeader("a malformed version 1 header") from None
    if source.version != version or destination.version != version:
        raise BadHeader("a version 1 header of mixed addresses")
    if not all(
        part.isdigit() and 0 <= port <= 65535 for part, port in zip(parts[4:], ports, strict=True)
    ):
        raise BadHeader("a malformed version 1 header")
    return str(source)


def _v2_source(data: bytes) -> str | None:
    version, command = data[12] >> 4, data[12] & 0x0F
    if version != 2 or command > 1:
        raise BadHeader("a version 2 header of an unknown version or command")
    if command == 0:  # LOCAL: the balancer's own connection (a health check)
        return None
    family, body = data[13], data[16:]
    if family == 0x11 and len(body) >= 12:  # TCP over IPv4
        return str(ipaddress.IPv4Address(body[:4]))
    if family == 0x21 and len(body) >= 36:  # TCP over IPv6
        return str(ipaddress.IPv6Address(body[:16]))
    if family in (0x11, 0x21):
        raise BadHeader("a version 2 header too short for its addresses")
    return None  # another family (UNSPEC, UDP, UNIX): the socket's own peer


async def read_header(sock: socket.socket) -> Header:
    """Read the PROXY header `sock` begins with, and not a byte more; `BadHeader` if it does
    not begin with one, `ConnectionError` if it closes first. The caller bounds the time."""
    loop = asyncio.get_running_loop()
    while True:
        await _readable(loop, sock)
        data = sock.recv(V2_LIMIT, socket.MSG_PEEK)
        if not data:
            raise ConnectionResetError("closed before its PROXY header")
        length = header_length(data)
        if length is not None and len(data) >= length:
            header = parse_header(sock.recv(length))
            return header
        await asyncio.sleep(_PEEK_AGAIN)  # part of it: the rest is on its way


async def _readable(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> None:
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(sock, wake)
    try:
        await ready
    finally:
        loop.remove_reader(sock)
