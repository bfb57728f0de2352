"""The doors' log: one line for each refusal, bounded so that no flood can write it away.

The doors and the authority say each refusal, closed link and exhausted limit in one line of the
`tictactoe` loggers, with the address it concerns as the record's `peer` (`extra={"peer": ...}`).
`DoorLog` writes them to a rotating file that only its owner may read (a wrong code is never in
it, only its length), at most `per_address` lines a minute about one address and `in_all` a
minute in all; what is left out is counted, and said in one line when the minute is over. At
those rates the four files of `LOG_SIZE` take hours of flood to fill, so the lines from before
a flood are still there after it.

aiohttp's own complaints about a request it could not read (`aiohttp.server`, with a traceback)
come here too, as one line each, and asyncio's (an `accept` that found no free descriptor), never
on the terminal the game is drawn on.
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter
from collections.abc import Callable
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Final

from tictactoe.doors.bounds import printable

__all__ = ["LOG_KEPT", "LOG_SIZE", "DoorLog", "log_to_file"]

LOG_SIZE: Final = 1024 * 1024
"""Bytes of the log before it is rotated; `LOG_KEPT` older ones are kept."""
LOG_KEPT: Final = 3

PER_ADDRESS: Final = 20
"""Lines a minute about one address, at most."""
IN_ALL: Final = 120
"""Lines a minute in all, at most."""
WINDOW: Final = 60.0

_NAMED: Final = 10
"""Addresses named one by one in the line that counts what was left out; the rest are summed."""


class DoorLog(RotatingFileHandler):
    """A rotating log file of mode 0600 that writes a bounded number of lines a minute."""

    def __init__(
        self,
        path: Path,
        *,
        per_address: int = PER_ADDRESS,
        in_all: int = IN_ALL,
        window: float = WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
        path.chmod(0o600)  # one made by an earlier version may be readable by others
        super().__init__(path, maxBytes=LOG_SIZE, backupCount=LOG_KEPT, encoding="utf-8")
        self.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s"))
        self.per_address = per_address
        self.in_all = in_all
        self.window = window
        self.clock = clock
        self._window_ends = clock() + window
        self._written: Counter[str] = Counter()
        self._left_out: Counter[str] = Counter()

    def doRollover(self) -> None:
        super().doRollover()
        Path(self.baseFilename).chmod(0o600)

    def emit(self, record: logging.LogRecord) -> None:
        if self.clock() >= self._window_ends:
            self._new_window(record)
        if record.name.startswith("aiohttp"):
            record = _one_line(record)
        elif record.name.startswith("asyncio"):
            record = _asyncio_line(record)
        peer = str(getattr(record, "peer", None) or "")
        if self._written.total() >= self.in_all or (
            peer and self._written[peer] >= self.per_address
        ):
            self._left_out[peer or "?"] += 1
            return
        self._written[peer] += 1
        super().emit(record)

    def _new_window(self, record: logging.LogRecord) -> None:
        self._window_ends = self.clock() + self.window
        self._written.clear()
        if not self._left_out:
            return
        named = self._left_out.most_common(_NAMED)
        parts = [f"{count} about {peer}" for peer, count in named]
        rest = self._left_out.total() - sum(count for _, count in named)
        if rest:
            parts.append(f"{rest} about {len(self._left_out) - len(named)} other addresses")
        self._left_out.clear()
        summary = logging.LogRecord(
            "tictactoe",
            logging.WARNING,
            "",
            0,
            "lines left out since the last written: %s",
            None,
            None,
        )
        summary.args = ("; ".join(parts),)
        summary.created = record.created
        super().emit(summary)

    def close(self) -> None:
        if self._left_out:
            self._window_ends = self.clock()
            self._new_window(logging.makeLogRecord({}))
        super().close()


def _one_line(record: logging.LogRecord) -> logging.LogRecord:
    """aiohttp's record of a request it could not read, as one line with its address."""
    error = record.exc_info[1] if record.exc_info else None
    peer = record.args[0] if isinstance(record.args, tuple) and record.args else None
    reason = printable(str(error), 120) if error is not None else record.getMessage()
    line = logging.makeLogRecord(
        {
            "name": "tictactoe.web",
            "levelno": logging.WARNING,
            "levelname": "WARNING",
            "msg": "refused a request from %s: %s",
            "args": (peer or "?", reason or type(error).__name__),
            "created": record.created,
            "peer": peer,
        }
    )
    return line


def _asyncio_line(record: logging.LogRecord) -> logging.LogRecord:
    """asyncio's record (a failed `accept`, an error in a callback), as one line."""
    error = record.exc_info[1] if record.exc_info else None
    said = record.getMessage().splitlines()[0] if record.getMessage() else ""
    why = f"{said}: {error}" if error is not None else said
    return logging.makeLogRecord(
        {
            "name": "tictactoe.asyncio",
            "levelno": record.levelno,
            "levelname": record.levelname,
            "msg": "%s",
            "args": (printable(why, 200),),
            "created": record.created,
        }
    )


def log_to_file(path: Path) -> Path | None:
    """Send the doors' and the authority's lines (and aiohttp's and asyncio's) to a `DoorLog` at
    `path`, never to the terminal the game is drawn on; `path`, or None when it cannot be opened
    (the lines are then dropped)."""
    ours = logging.getLogger("tictactoe")
    ours.setLevel(logging.INFO)
    ours.propagate = False
    theirs = [logging.getLogger(name) for name in ("aiohttp", "asyncio")]
    for logger in theirs:  # asyncio's: a full table of open files, an error in a callback
        logger.propagate = False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = DoorLog(path)
    except OSError:
        handler = logging.NullHandler()
    ours.addHandler(handler)
    for logger in theirs:
        logger.addHandler(handler)
    return None if isinstance(handler, logging.NullHandler) else path
