"""What a view plays at: a table takes a person's intents and tells the view what to show.

- `LocalTable`: the series lives here, in this process (hot seat, against the computer): it
  applies each intent, and gives the computer its pause before it acts;
- `SeatTable` (`tictactoe.play.seat_table`): one seat of a series that lives in the host's
  authority (online).

One `GameScreen` (`tictactoe.tui`), or one `LineView` (`tictactoe.lines`), plays at either: it
turns keys, clicks or typed lines into intents and shows what its table tells. A table decides
nothing the core does not (`Series`, `tictactoe.core.seats`).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Protocol, TypeVar

from tictactoe.core.ai import Analysis
from tictactoe.core.notices import Notice, best_keys, hint_notice
from tictactoe.core.series import ComputerStep, Intent, Series, SeriesError
from tictactoe.core.ultimate_ai import Estimate

__all__ = ["Hint", "Leaving", "LocalTable", "Table", "View"]

Done = TypeVar("Done")


class View(Protocol):
    """The screen a table tells what to show."""

    def show(self, series: Series, notice: Notice) -> None:
        """Show `series`, with `notice` said alongside."""

    def say(self, notice: Notice) -> None:
        """Say `notice` (the empty one: nothing) about the series on show."""

    def want_mark(self) -> None:
        """A person at this screen is to choose a mark: ask them."""

    def explain(self, refusal: SeriesError) -> Notice:
        """The notice that says why `refusal`, in this screen's words (a cell by its key)."""

    def after(self, delay: float, then: Callable[[], None]) -> Callable[[], None]:
        """Call `then` in `delay` seconds; the function returned cancels that."""

    def work(self, job: Callable[[], Done], then: Callable[[Done], None]) -> None:
        """Run `job` (a search) where it does not hold this view, then call `then` with its
        result, back where the view runs."""

    def set_subtitle(self, text: str) -> None:
        """Say under the title how this screen takes part ("online", "watching")."""


@dataclass(frozen=True, slots=True)
class Leaving:
    """What the app prints when the person at a table leaves it."""

    series: Series
    """The series whose score is printed: the one on show."""
    farewell: str = ""
    """A sentence said before the score (online: who ended the series)."""


@dataclass(frozen=True, slots=True)
class Hint:
    """A hint for the person to move."""

    cells: tuple[int, ...]
    """The best cells, to mark on a board."""
    notice: Notice
    """What the hint says: the best cells by their keys, and where best play leads."""


class Table(ABC):
    """The seam between a game screen and wherever the series lives."""

    watching: bool = False
    """Whether the person at this screen only watches: no key of theirs acts."""
    can_invite: bool = False
    """Whether this screen may show the invitation (the host's, online)."""

    def __init__(self, series: Series) -> None:
        self._series = series
        self._view: View | None = None

    @property
    def series(self) -> Series:
        """The series this table plays: the one its screen shows."""
        return self._series

    @property
    def view(self) -> View:
        assert self._view is not None, "the table is not yet at a screen"
        return self._view

    def attach(self, view: View) -> None:
        """Play at `view` from now on: what the table has to show goes there."""
        self._view = view

    def show(self, series: Series, notice: Notice) -> None:
        """Play `series` from now on, and have the screen show it, with `notice` said."""
        self._series = series
        self.view.show(series, notice)

    @abstractmethod
    def act(self, intent: Intent) -> SeriesError | None:
        """Give `intent`: why not, when it is refused at once (the screen words it)."""

    def refused(self, notice: Notice) -> None:
        """Say why an intent was refused."""
        self.view.say(notice)

    def hint(
        self, key_for: Callable[[int], str], analysis: Analysis | Estimate | None = None
    ) -> Hint:
        """A hint for the person to move, each cell named by the key that takes it at the
        screen (`key_for`); the others at the series are told (`hinted`). Raises
        `SeriesError` saying why there is none now. `analysis`: the series' own, when the
        screen has worked it out already (a search, off its thread)."""
        refusal = self.check_hint()
        if refusal is not None:
            raise refusal
        if analysis is None:
            analysis = self.series.hint()
        match = self.series.match
        assert match is not None
        keys = [key_for(cell) for cell in analysis.best_moves]
        best = best_keys(keys, every_free=len(keys) == len(match.legal_moves()))
        if analysis.best_moves:
            self.hinted()
        return Hint(analysis.best_moves, hint_notice(best, analysis))

    def check_hint(self) -> SeriesError | None:
        """Why no hint may be asked for now, beyond what the series says itself."""
        return None

    @abstractmethod
    def hinted(self) -> None:
        """A hint is on show at this screen."""

    def acts_for(self, seat: int) -> bool:
        """Whether the person at this screen acts for `seat` (both seats, at a hot seat)."""
        return not self.watching

    def next_step(self) -> None:
        """The series on show has changed: ask for a mark, or let the computer act."""
        if self.series.person_choosing is not None:
            self.view.want_mark()

    async def leave(self) -> Leaving:
        """The person leaves (`q`, the mark dialog's Quit, ctrl+q): what the app prints."""
        return Leaving(self.series)

    @abstractmethod
    def invite(self) -> None:
        """Show the invitation (only where `can_invite`)."""


class LocalTable(Table):
    """The series in this process: each intent applied as it comes; the computer's pause.

    An intent the series refuses while the computer is due (a move while it thinks) is kept,
    as type-ahead is, and so is every intent after it: once the computer has acted, they are
    applied in order, each against the series the one before it left (and the computer's
    reply to it), and a refusal then is said.
    """

    def __init__(
        self, series: Series, *, computer_delay: float = 0.4, rng: random.Random | None = None
    ) -> None:
        super().__init__(series)
        self.computer_delay = computer_delay
        """Seconds the computer seems to think before it acts."""
        self.rng = rng or random.Random()
        """Every random choice of the session comes from here, so a seed replays it."""
        self._ending: Callable[[], bool] = lambda: False
        self._cancel_computer: Callable[[], None] | None = None
        self._kept: deque[Intent] = deque()
        """Intents given while the computer is due, in order, for once it has acted."""

    def ends_with(self, ending: Callable[[], bool]) -> None:
        """`ending` says whether the session is ending: the computer then acts no more."""
        self._ending = ending

    def act(self, intent: Intent) -> SeriesError | None:
        if self._kept:  # after intents that wait for the computer: this one waits too
            self._kept.append(intent)
            return None
        refusal = self._apply(intent)
        if refusal is not None and self.series.awaits_computer:
            self._kept.append(intent)
            return None
        return refusal

    def _apply(self, intent: Intent) -> SeriesError | None:
        try:
            series = self.series.apply(intent, self.rng)
        except SeriesError as refusal:
            return refusal
        self.show(series, Notice())
        return None

    def _play_kept(self) -> None:
        """The intents kept while the computer was due, until it is due again."""
        while self._kept and not self.series.awaits_computer:
            refusal = self._apply(self._kept.popleft())
            if refusal is not None:
                self.view.say(self.view.explain(refusal))

    def next_step(self) -> None:
        """Give the computer its pause when it is to act; else ask for a mark if one is due."""
        if self.series.awaits_computer:
            if self._cancel_computer is None:
                # (Textual's timer divides by its interval when it fires late: never zero.)
                delay = max(self.computer_delay * self.series.pause_beats, 0.001)
                self._cancel_computer = self.view.after(delay, self._computer_due)
            return
        if self._cancel_computer is not None:
            self._cancel_computer()
            self._cancel_computer = None
        super().next_step()

    def _computer_due(self) -> None:
        if self._ending():
            self._cancel_computer = None
            return  # the session is ending: the score printed stays the score
        series = self.series
        if not series.variant.searches:
            self._cancel_computer = None
            self._computer_worked(series, _step(series, self.rng))
            return
        self._cancel_computer = _busy  # (thinking: no second search is started meanwhile)
        self.view.work(partial(_step, series, self.rng), partial(self._searched, series))

    def _searched(self, asked: Series, step: ComputerStep | None) -> None:
        self._cancel_computer = None
        if self._ending():
            return
        self._computer_worked(asked, step)
        self.next_step()

    def _computer_worked(self, asked: Series, step: ComputerStep | None) -> None:
        """Show the computer's step, taken in `asked`, if the series is still there."""
        if step is None or self.series is not asked:
            return  # an undo got there first: nothing is due any more
        self.show(step.series, step.notice)
        self._play_kept()

    def hinted(self) -> None:
        """Nobody else is at this series to be told."""

    def invite(self) -> None:
        """A series in this process has no invitation."""


def _step(series: Series, rng: random.Random) -> ComputerStep | None:
    """The computer's step in `series`, or None when none is due."""
    try:
        return series.computer_step(rng)
    except SeriesError:
        return None


def _busy() -> None:
    """Stands for the computer's search under way, which cannot be called off: its answer
    is dropped if the series has moved on meanwhile."""
