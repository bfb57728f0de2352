"""asyncssh keeps every `env` request of a session, unbounded; drop once it has a bound.

An SSH client may send any number of `env` requests on a session channel, each as large as a
packet, and asyncssh keeps them all in the channel's environment before the session is even
started. `limit_environment` bounds that for one channel: at most `MAX_ENV_REQUESTS` requests of at
most `MAX_ENV_SIZE` bytes each are taken (the game uses only a few: its language and colours);
a larger one is refused, and past the count the channel is closed, with one line in the log.

Private parts of asyncssh relied on (pinned by `tests/unit/test_adapters_contract.py`): the
handler `SSHServerChannel._process_env_request`, which asyncssh looks up by name on the channel
for each `env` request, and `SSHPacket.get_remaining_payload`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import asyncssh
from asyncssh.packet import SSHPacket

__all__ = ["MAX_ENV_REQUESTS", "MAX_ENV_SIZE", "limit_environment"]

MAX_ENV_REQUESTS: Final = 32
"""`env` requests one session may send; more close it."""

MAX_ENV_SIZE: Final = 1024
"""Bytes one `env` request may hold (its name and value); a larger one is refused."""


def limit_environment(
    channel: asyncssh.SSHServerChannel[Any], flooded: Callable[[str], None]
) -> None:
    """Bound the `env` requests `channel` takes; `flooded` is told why when it is closed."""
    take = channel._process_env_request
    count = 0

    def bounded(packet: SSHPacket) -> bool:
        nonlocal count
        count += 1
        if count > MAX_ENV_REQUESTS:
            if count == MAX_ENV_REQUESTS + 1:
                flooded(f"more than {MAX_ENV_REQUESTS} env requests")
                channel.close()
            return False
        if len(packet.get_remaining_payload()) > MAX_ENV_SIZE:
            return False
        return take(packet)

    channel._process_env_request = bounded  # type: ignore[method-assign]
