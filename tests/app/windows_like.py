"""An event loop that lacks what Windows' own loop lacks, for playing the game as there.

Windows' default loop (the proactor) has no `add_reader` and no `add_signal_handler`: both
raise NotImplementedError. `WindowsLikeLoop` is this system's loop with those two refused the
same way, and counts what was asked of it, so a test can tell the refusal was met.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVarTuple, Unpack

if TYPE_CHECKING:
    from _typeshed import FileDescriptorLike

Ts = TypeVarTuple("Ts")


class WindowsLikeLoop(asyncio.SelectorEventLoop):
    """A loop whose `add_reader` and `add_signal_handler` raise NotImplementedError."""

    def __init__(self) -> None:
        super().__init__()
        self.refused: list[str] = []
        """What was asked of this loop and refused, in order."""

    def add_reader(
        self, fd: FileDescriptorLike, callback: Callable[[Unpack[Ts]], Any], *args: *Ts
    ) -> None:
        self.refused.append("add_reader")
        raise NotImplementedError

    def add_signal_handler(
        self, sig: int, callback: Callable[[Unpack[Ts]], Any], *args: *Ts
    ) -> None:
        self.refused.append("add_signal_handler")
        raise NotImplementedError


class WindowsLikePolicy(asyncio.DefaultEventLoopPolicy):
    """Every new loop a `WindowsLikeLoop`, for code that makes its own (`App.run`)."""

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        return WindowsLikeLoop()
