"""Textual's input threads post every event at once to the app's queue, unbounded; drop when fixed.

A flood of input (a paste into a terminal without bracketed paste, garbage, a storm of the
pointer's reports) would grow the game's memory without bound, and each event in it costs the app
its work. `InputPace` is the part of the game's `KeyReader` that holds such input back:

- `keep_up` holds the input thread back while the app is behind: once many events wait, the
  thread stops reading until the app has handled them (a key goes from the app to the focused
  widget and up through its parents, so the wait follows that same path). What is not read stays
  in the terminal, and the sender is slowed by the terminal's own flow control: nothing typed is
  lost, and nothing grows without bound;
- input that had to be held back so, having come faster than `FLOOD_RATE`, is a flood: no person
  types so fast, and a held key or the mouse moved about is no flood however long it goes on. So
  is a read of more characters than a person types ahead (`MOST_TYPED_AT_ONCE`), from its first.
  Until the input pauses, of the keys in a flood (and its bracketed pastes) only the last counts,
  once it pauses (it may be the key the person pressed after the paste, which came in behind
  it); of the terminal's other reports (focus, size) only the last of each; the pointer's
  reports are dropped. So a flood costs the app a few events however long it is, and a move
  typed after it counts at once (what that saves is measured in benchmarks/README.md);
- the terminal's reports of the pointer's moves, of focus and of its size are paced
  (`REPORT_GAP`): the latest of those that come within the gap is handed out once it is over, a
  click dropping a move kept from before it. Each can be a redraw (a hover, the focused look), and
  a stream of them under the flood's pace kept the game busy.

No private part of Textual is used here; the parser's are in `terminal_input`.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

from textual import events
from textual.message import Message

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode

__all__ = ["FLOOD_RATE", "MAX_BEHIND", "MOST_TYPED_AT_ONCE", "REPORT_GAP", "InputPace", "Kept"]

MAX_BEHIND: Final = 256
"""Input events the app may have waiting before the input thread waits for it."""

FLOOD_RATE: Final = 512
"""Input events a second past which the input is a flood: a held key repeats at 30 a second, a
mouse moved about reports at most a few hundred a second, and only for a moment."""

MOST_TYPED_AT_ONCE: Final = 256
"""Characters that come in one read as typed ahead (a person's keys while the game was busy, a
sequence or two): more is a paste or garbage, a flood from its first character."""

FOCUS: Final = "focus"
"""The kind of a report of focus, gained or lost (of which a flood keeps the last)."""

REPORT_GAP: Final[dict[object, float]] = {events.MouseMove: 1 / 60, FOCUS: 0.1, events.Resize: 0.1}
"""Seconds between two reports of the pointer's moves, of focus or of the size handed to the app,
at least: the latest of those that come between is handed out once the gap is over."""

_LONGEST_WAIT: Final = 10.0
"""Seconds the input thread waits for the app at most: a wait never becomes a hang."""

_SEND_AGAIN: Final = 1.0
"""Seconds the input thread waits for the app's answer before asking again."""

_WAIT_STEP: Final = 0.1
"""Seconds between looks at whether the app is ending, while the input thread waits."""

Kept = str | Message
"""What is kept back for later: a sequence's characters, to be read then, or an event."""


class InputPace:
    """How far the app is behind the input, whether the input is a flood, and what is kept back
    for when it pauses (or for when a report's gap is over)."""

    def __init__(self) -> None:
        self.behind = 0
        """Events handed out since the app last caught up."""
        self._caught_up_at = time.monotonic()
        """When the app last caught up (or the reading began)."""
        self.flooding = False
        """Whether the input is a flood (the app fell behind it, coming faster than a person
        types, or a read held more than a person types ahead), and it has not paused since."""
        self._told_at: dict[object, float] = {}
        """When a report of each kind was last handed out."""
        self.reports: dict[object, Kept] = {}
        """The last of each kind of the terminal's reports kept back (in a flood: focus gained or
        lost, its size, its answers; else a report within its gap), each a redraw at most."""
        self.held: Kept | None = None
        """The last key of a flood (its characters, or its event; a paste counts as a key),
        handed out once it pauses."""

    def paced(self, found: list[Message], now: float) -> Iterator[Message]:
        """`found`, except a report of the pointer's moves, of focus or of the size that comes
        within `REPORT_GAP` of the last of its kind: kept, the latest, for when the gap is over."""
        for event in found:
            kind = kind_of_report(event)
            if kind not in REPORT_GAP:
                if isinstance(event, events.MouseEvent):  # the pointer is where this one says
                    self.reports.pop(events.MouseMove, None)
                yield event
            elif now - self._told_at.get(kind, -math.inf) < REPORT_GAP[kind]:
                self.reports[kind] = event
            else:
                self._told_at[kind] = now
                yield event

    def due(self, now: float) -> Iterator[Kept]:
        """The reports kept whose gap is over."""
        for kind, report in list(self.reports.items()):
            if now - self._told_at.get(kind, -math.inf) >= REPORT_GAP.get(kind, 0):
                del self.reports[kind]
                self._told_at[kind] = now
                yield report

    def release(self, now: float) -> Iterator[Kept]:
        """The input has paused: the flood is over; the last of each of its reports, then its
        last key."""
        self.flooding = False
        reports, self.reports = self.reports, {}
        self._told_at.update(dict.fromkeys(reports, now))
        held, self.held = self.held, None
        yield from reports.values()
        if held is not None:
            yield held

    def keep_up(self, app: App[Any], ending: threading.Event) -> None:
        """In the input thread: when many events wait, wait until `app` has handled them (or
        `ending` is set). If they came faster than `FLOOD_RATE`, the input is a flood, until it
        pauses."""
        if self.behind < MAX_BEHIND:
            return
        fast = self.behind > FLOOD_RATE * (time.monotonic() - self._caught_up_at)
        give_up = time.monotonic() + _LONGEST_WAIT
        while time.monotonic() < give_up:
            caught_up = threading.Event()
            if not app.call_later(_after_input, app, caught_up.set):
                return  # the app is closing: nothing to wait for
            # A widget removed before it handles the call (a dialog closing) loses it: after a
            # while, the call is sent again, along the path a key would take now.
            again = time.monotonic() + _SEND_AGAIN
            while not caught_up.wait(_WAIT_STEP):
                if ending.is_set():
                    return
                if time.monotonic() >= again:
                    break
            else:
                self.flooding = self.flooding or fast
                break
        self.behind = 0  # caught up, or the app is stuck elsewhere: the reading goes on
        self._caught_up_at = time.monotonic()


def kind_of_report(event: Message) -> object:
    """What a report of the terminal tells of (of which a flood keeps the last): focus gained or
    lost is one thing, each other report its own."""
    return FOCUS if isinstance(event, events.AppFocus | events.AppBlur) else type(event)


def _after_input(app: App[Any], done: Callable[[], None]) -> None:
    """Call `done` once the widgets a key goes to have handled what they were sent before."""
    target: DOMNode = app.focused or app.screen
    _hop([target, *(node for node in target.ancestors if node is not app)], done)


def _hop(path: list[DOMNode], done: Callable[[], None]) -> None:
    if not path:
        done()
        return
    if not path[0].call_later(_hop, path[1:], done):
        done()  # that widget has gone: nothing waits there
