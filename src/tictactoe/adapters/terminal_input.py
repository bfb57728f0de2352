"""Textual's drivers end their input on one bad byte and queue input unbounded; drop when fixed.

Textual's Linux and web drivers decode what the terminal sends as strict UTF-8 and feed it to
`XTermParser`, whose generator dies on a sequence it cannot turn into a key (a code point past
Unicode in `ESC [ 1114112 u`, a number past any integer in `ESC [ 99999999999999999999 A`):
one invalid byte (a Latin-1 terminal's "é") or one malformed sequence ends the input thread,
and with it the game. And the input thread posts every event at once to the app's queue, so a
flood of input grows the game's memory without bound.

`KeyReader` turns bytes into Textual's events as those drivers do, except that:

- invalid UTF-8 becomes U+FFFD (a character no key is bound to), one for a run of such bytes;
- a sequence the parser fails on is dropped, and parsing starts afresh with the next character;
- a control sequence the parser does not know, or one that is malformed or too long, is dropped
  through its final byte, as a terminal does: Textual would type out its characters as keys
  (a `;`, a `5`, which is a move). A sequence left open takes what follows as its parameters
  (digits too) until a character that ends it, as in any terminal;
- Escape followed at once by a character that begins no sequence (a burst from a slow link:
  Escape then `1`) is Escape, then that key, as typed: Textual would read it as one Alt key
  (`alt+q`, or `¡` for Alt+1). The game binds no Alt key, so nothing is lost. An Escape that
  ends a read is Escape once the terminal's pause (`ESCAPE_DELAY`) passes with nothing after it;
- a control sequence cut short by such a pause (a slow link, or garbage) is dropped, the rest of
  it too when it comes: Textual would type out its characters, digits included, as keys;
- `keep_up` holds the input thread back while the app is behind: once many events wait, the
  thread stops reading until the app has handled them (a key goes from the app to the focused
  widget and up through its parents, so the wait follows that same path). What is not read stays
  in the terminal, and the sender is slowed by the terminal's own flow control: nothing typed is
  lost, and nothing grows without bound.

Private parts of Textual relied on (pinned by `tests/unit/test_adapters_contract.py`):
`textual._xterm_parser.XTermParser`, its `feed` and `tick`, and what it learns of the terminal
(`mouse_pixels`, `terminal_size`, `terminal_pixel_size`), handed on to a parser that starts afresh.
"""

from __future__ import annotations

import threading
import time
from codecs import getincrementaldecoder
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

from textual import events
from textual._xterm_parser import XTermParser
from textual.constants import ESCAPE_DELAY
from textual.message import Message

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode

__all__ = ["MAX_BEHIND", "KeyReader"]

MAX_BEHIND: Final = 256
"""Input events the app may have waiting before the input thread waits for it."""

ESC: Final = "\x1b"
PASTE_START: Final = "\x1b[200~"
PASTE_END: Final = "\x1b[201~"
REPLACEMENT: Final = "\ufffd"

_STARTS_SEQUENCE: Final = frozenset("[O]P_^X\\")
"""What may follow Escape to begin a sequence (CSI, SS3, and the string sequences)."""

_LONGEST_SEQUENCE: Final = 32
"""Characters a control sequence may have, Escape and its final byte included (Textual's
parser types out a longer one)."""

_TEXT, _ESCAPE, _CSI, _CUT, _PASTE = "text", "escape", "csi", "cut", "paste"
"""Where the reader is: in plain input, just after an Escape, inside a control sequence, in the
rest of one that a pause cut short, or inside a bracketed paste (where an Escape is text until
the paste ends)."""

_LONGEST_WAIT: Final = 10.0
"""Seconds the input thread waits for the app at most: a wait never becomes a hang."""

_SEND_AGAIN: Final = 1.0
"""Seconds the input thread waits for the app's answer before asking again."""

_WAIT_STEP: Final = 0.1
"""Seconds between looks at whether the app is ending, while the input thread waits."""


class KeyReader:
    """Bytes in, Textual events out: any byte is survived, and a flood is held back."""

    def __init__(self, debug: bool = False) -> None:
        self._debug = debug
        self._decode = getincrementaldecoder("utf-8")(errors="replace").decode
        self._parser = XTermParser(debug)
        self._state = _TEXT
        self._csi = ""
        self._last = ""
        """The last character read."""
        self._since = 0.0
        """When the reader last took a character inside an Escape or a control sequence."""
        self.behind = 0
        """Events handed out since the app last caught up."""

    def feed(self, data: bytes) -> Iterator[Message]:
        """The events in `data` (the start of a sequence may wait for the next bytes)."""
        for character in self._decode(data):
            if character == REPLACEMENT and self._last == REPLACEMENT:
                continue  # a run of bytes that are no UTF-8 is one U+FFFD
            self._last = character
            yield from self._read(character)
        if self._state in (_ESCAPE, _CSI):
            self._since = time.monotonic()

    def _read(self, character: str) -> Iterator[Message]:
        """One character, with Escape held back until the next one says what it starts."""
        state = self._state
        if state == _ESCAPE:
            if character == "[":
                self._state = _CSI
                self._csi = ESC + character
                return
            if character in _STARTS_SEQUENCE:
                self._state = _TEXT
                yield from self._parse(ESC)
            elif character != ESC:
                self._state = _TEXT
                yield from self._typed(events.Key("escape", ESC))
            else:
                yield from self._typed(events.Key("escape", ESC))
                return
        elif state == _TEXT and character == ESC:
            self._state = _ESCAPE
            return
        elif state == _CUT:  # the rest of a sequence that is dropped, through its final byte
            if character < "\x20":  # a control key (Escape, Enter) ends it, and counts
                self._state = _TEXT
                yield from self._read(character)
            elif "\x40" <= character <= "\x7e":
                self._state = _TEXT
            return
        elif state == _CSI:
            if "\x40" <= character <= "\x7e":  # the final byte: the parser reads it whole
                sequence = self._csi + character
                self._state = _PASTE if sequence == PASTE_START else _TEXT
                found = [event for part in sequence for event in self._parse(part)]
                if not found and self._state == _TEXT:  # unknown to the parser, which would
                    self._parser = self._fresh_parser()  # type it out later: dropped
                yield from found
            elif "\x20" <= character <= "\x3f" and len(self._csi) + 1 < _LONGEST_SEQUENCE:
                self._csi += character  # a parameter
            else:  # no sequence this parser reads: dropped, whatever follows of it too
                self._state = _CUT
                yield from self._read(character)
            return
        elif state == _PASTE:
            self._csi = (self._csi + character)[-len(PASTE_END) :]
            if self._csi == PASTE_END:
                self._state = _TEXT
        yield from self._parse(character)

    def _fresh_parser(self) -> XTermParser:
        """A parser that starts afresh, knowing what the last one learnt of the terminal."""
        parser = XTermParser(self._debug)
        parser.mouse_pixels = self._parser.mouse_pixels
        parser.terminal_size = self._parser.terminal_size
        parser.terminal_pixel_size = self._parser.terminal_pixel_size
        return parser

    def _typed(self, event: Message) -> Iterator[Message]:
        self.behind += 1
        yield event

    def _parse(self, character: str) -> Iterator[Message]:
        try:
            events_ = list(self._parser.feed(character))
        except Exception:  # the parser died on a sequence: start afresh after it
            self._parser = self._fresh_parser()
            self._state = _TEXT
            return
        self.behind += len(events_)
        yield from events_

    def tick(self) -> Iterator[Message]:
        """Events that a pause completes (a lone Escape); a sequence a pause cuts is dropped."""
        paused = time.monotonic() - self._since >= ESCAPE_DELAY
        if self._state == _ESCAPE and paused:
            self._state = _TEXT
            yield from self._typed(events.Key("escape", ESC))
            return
        if self._state == _CSI and paused:
            self._state = _CUT
            return
        try:
            found = list(self._parser.tick())
        except Exception:
            self._parser = self._fresh_parser()
            return
        self.behind += len(found)
        yield from found

    def keep_up(self, app: App[Any], ending: threading.Event) -> None:
        """In the input thread: when many events wait, wait until `app` has handled them (or
        `ending` is set)."""
        if self.behind < MAX_BEHIND:
            return
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
                break
        self.behind = 0  # caught up, or the app is stuck elsewhere: the reading goes on


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
