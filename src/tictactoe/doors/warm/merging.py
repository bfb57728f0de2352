"""The kernel's same-page merging (KSM) for the warm parent and its games: asked for where the
kernel has it, and whether the machine's owner has left it off (the club then says what turning
it on would save).
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
from pathlib import Path
from typing import Final

__all__ = ["KSM_RUN", "PR_SET_MEMORY_MERGE", "mergeable", "merging_off"]

PR_SET_MEMORY_MERGE: Final = 67
"""prctl(2): the process's pages may be merged by the kernel's same-page merging (Linux 6.4)."""

KSM_RUN: Final[Path] = Path("/sys/kernel/mm/ksm/run")
"""Whether the kernel's same-page merging runs: 1 when it does (the machine owner's setting)."""


def merging_off(run: Path = KSM_RUN) -> bool:
    """Whether this kernel could merge the games' pages (KSM) and does not, its owner not having
    turned it on: the club then says what turning it on would save."""
    try:
        return run.read_text().strip() == "0"
    except (OSError, UnicodeDecodeError):
        return False


def mergeable() -> None:
    """Let the kernel merge this process's pages, and its games', with identical ones (KSM,
    `PR_SET_MEMORY_MERGE`, which a fork keeps): the pages a game copied from the warm parent
    and wrote back as they were, and the pages games have alike. Once the machine's owner has
    turned KSM on, a game's own memory shrinks (benchmarks/README.md, "Memory per player"); with
    KSM off, or on a kernel older than 6.4 (which refuses it), nothing changes."""
    if sys.platform == "linux":
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0)
