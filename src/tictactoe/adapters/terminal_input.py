"""Textual's drivers end their input on one bad byte and queue input unbounded; drop when fixed.

Textual's Linux and web drivers decode what the terminal sends as strict UTF-8 and feed it to
`XTermParser`, whose generator dies on a sequence it cannot turn into a key (a code point past
Unicode in `ESC [ 1114112 u`, a number past any integer in `ESC [ 99999999999999999999 A`):
one invalid byte (a Latin-1 terminal's "é") or one malformed sequence ends the input thread,
and with it the game. And the input thread posts every event at once to the app's queue, so a
flood of input grows the game's memory without bound.

`KeyReader` turns bytes into Textual's events as those drivers do, except that:

- invalid UTF-8 becomes U+FFFD (a character no key is bound to);
- a sequence the parser fails on is dropped, and parsing starts afresh with the next character;
- `keep_up` holds the input thread back while the app is behind: once many events wait, the
  thread stops reading until the app has handled them (a key goes from the app to the focused
  widget and up through its parents, so the wait follows that same path). What is not read stays
  in the terminal, and the sender is slowed by the terminal's own flow control: nothing typed is
  lost, and nothing grows without bound.

Private parts of Textual relied on (pinned by `tests/unit/test_adapters_contract.py`):
`textual._xterm_parser.XTermParser` and its `feed` and `tick`.
"""

from __future__ import annotations

import threading
from codecs import getincrementaldecoder
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

from textual._xterm_parser import XTermParser
from textual.message import Message

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode

__all__ = ["MAX_BEHIND", "KeyReader"]

MAX_BEHIND: Final = 256
"""Input events the app may have waiting before the input thread waits for it."""

_WAIT_STEP: Final = 0.1
"""Seconds between looks at whether the app is ending, while the input thread waits."""


class KeyReader:
    """Bytes in, Textual events out: any byte is survived, and a flood is held back."""

    def __init__(self, debug: bool = False) -> None:
        self._debug = debug
        self._decode = getincrementaldecoder("utf-8")(errors="replace").decode
        self._parser = XTermParser(debug)
        self.behind = 0
        """Events handed out since the app last caught up."""
        self.dropped = 0
        """Malformed sequences dropped so far."""

    def feed(self, data: bytes) -> Iterator[Message]:
        """The events in `data` (the start of a sequence may wait for the next bytes)."""
        for character in self._decode(data):
            try:
                events_ = list(self._parser.feed(character))
            except Exception:  # the parser died on a sequence: start afresh after it
                self.dropped += 1
                self._parser = XTermParser(self._debug)
                continue
            self.behind += len(events_)
            yield from events_

    def tick(self) -> Iterator[Message]:
        """Events that a pause completes (a lone Escape)."""
        try:
            found = list(self._parser.tick())
        except Exception:
            self.dropped += 1
            self._parser = XTermParser(self._debug)
            return
        self.behind += len(found)
        yield from found

    def keep_up(self, app: App[Any], ending: threading.Event) -> None:
        """In the input thread: when many events wait, wait until `app` has handled them (or
        `ending` is set)."""
        if self.behind < MAX_BEHIND:
            return
        caught_up = threading.Event()
        if not app.call_later(_after_input, app, caught_up.set):
            return  # the app is closing: nothing to wait for
        while not caught_up.wait(_WAIT_STEP):
            if ending.is_set():
                return
        self.behind = 0


def _after_input(app: App[Any], done: Callable[[], None]) -> None:
    """Call `done` once the widgets a key goes to have handled what they were sent before."""
    target: DOMNode = app.focused or app.screen
    path = [target, *(node for node in target.ancestors if node is not app)]
    _hop(path, done)


def _hop(path: list[DOMNode], done: Callable[[], None]) -> None:
    if not path:
        done()
        return
    if not path[0].call_later(_hop, path[1:], done):
        done()  # that widget has gone: nothing waits there
