"""Writing matches: one match's row in one transaction, and the thread that writes them.

A game hands its matches to the record, and the record's `Writer`, a thread of its
own, writes them in order whenever it is asked, so a slow disk or a lock held by
another program delays the saving, never the game. While something could not be
written, it tries again every `retry_after` seconds.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import Final

from tictactoe.record.database import now, player_id, transaction
from tictactoe.record.match import MatchRecord, match_row

__all__ = ["Writer", "insert_match"]


def insert_match(db: sqlite3.Connection, match: MatchRecord, *, recheck: bool = False) -> None:
    """Write `match`; with `recheck`, not when the file holds the very same match."""
    with transaction(db):
        first, second = (player_id(db, player) for player in match.players)
        if match.finished_at is None:
            match = match.at(now())
        row = match_row(match, first, second)
        if (
            recheck
            and db.execute(
                "SELECT 1 FROM matches WHERE finished_at = ? AND player1 = ? AND player2 = ?"
                " AND mark1 = ? AND first_mover = ? AND moves = ? AND winner IS ? AND variant = ?",
                row,
            ).fetchone()
        ):
            return
        db.execute(
            "INSERT INTO matches (finished_at, player1, player2, mark1, first_mover, moves,"
            " winner, variant) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            row,
        )


class Writer:
    """The record's writer thread: each time it is asked, it calls `save` once; while
    `waiting()` says something could not be written, it calls it again every
    `retry_after` seconds. The thread starts when first asked."""

    def __init__(self, save: Callable[[], None], waiting: Callable[[], bool], retry_after: float):
        self._save: Final = save
        self._waiting: Final = waiting
        self.retry_after: Final = retry_after
        """Seconds to wait before trying again what could not be written."""
        self._thread: threading.Thread | None = None
        self._turns = threading.Condition()
        """Guards `_asked`, `_answered` and `_stopping`, and wakes the thread."""
        self._asked = 0
        """Attempts to write asked of the thread so far."""
        self._answered = 0
        """Attempts the thread has finished, counted as the asking they answered."""
        self._stopping = False

    @property
    def started(self) -> bool:
        """Whether the thread was ever asked to write (and so started)."""
        return self._thread is not None

    @property
    def busy(self) -> bool:
        """Whether the thread has been asked and has not answered yet, or has something
        to try again."""
        with self._turns:
            asked = self._answered < self._asked
        return asked or self._waiting()

    def ask(self) -> None:
        """Ask for one more attempt to write, starting the thread if it is not running."""
        with self._turns:
            self._asked += 1
            self._stopping = False
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="record-writer", daemon=True)
                self._thread.start()
            self._turns.notify_all()

    def flush(self, timeout: float | None = None) -> None:
        """When the thread was started: ask once more and wait until it has answered (or
        for `timeout` seconds)."""
        with self._turns:
            if self._thread is None:
                return
            self.ask()
            asked = self._asked
            self._turns.wait_for(lambda: self._answered >= asked, timeout)

    def stop(self) -> None:
        """Let the thread end once the attempt under way (if any) is over."""
        with self._turns:
            self._stopping = True
            self._turns.notify_all()

    def _run(self) -> None:
        while True:
            with self._turns:
                self._turns.wait_for(
                    lambda: self._stopping or self._answered < self._asked,
                    self.retry_after if self.busy else None,
                )
                if self._stopping:
                    return
                asked = self._asked
            self._save()
            with self._turns:
                self._answered = asked
                self._turns.notify_all()
