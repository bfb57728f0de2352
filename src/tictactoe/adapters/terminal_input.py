"""Textual's input parser dies on one bad byte and types out what it cannot read; drop when fixed.

Textual's Linux and web drivers decode what the terminal sends as strict UTF-8 and feed it to
`XTermParser`, whose generator dies on a sequence it cannot turn into a key (a code point past
Unicode in `ESC [ 1114112 u`, a number past any integer in `ESC [ 99999999999999999999 A`):
one invalid byte (a Latin-1 terminal's "é") or one malformed sequence ends the input thread,
and with it the game. The parser types out as keys what it does not know: a DCS string's `q`
(`ESC P q ESC \\`, or a terminal's own DECRQSS reply) quits the game, an OSC left open plays its
digits. A bracketed paste that never ends takes every key after it, `ctrl+q` included, and a
long paste is read one character at a time.

`KeyReader` turns bytes into Textual's events as those drivers do, except that:

- invalid UTF-8 becomes U+FFFD (a character no key is bound to), one for a run of such bytes;
- a sequence the parser fails on is dropped, and parsing starts afresh with the next character;
- a control sequence the parser does not know, or one that is malformed or too long, is dropped
  through its final byte, as a terminal does: Textual would type out its characters as keys
  (a `;`, a `5`, which is a move). A sequence left open takes what follows at once as its
  parameters (digits too) until a character that ends it, as in any terminal;
- a string (DCS `ESC P`, OSC `ESC ]`, APC `ESC _`, PM `ESC ^`, SOS `ESC X`) is dropped whole,
  through its end: ST (`ESC \\`) or BEL. Nothing of it is kept, so its length costs nothing. A
  control key (Enter, `ctrl+q`) or another Escape ends one left open, and counts; so does a key
  typed after it (a read of a few plain characters: a terminal writes a string at once, and the
  rest of one comes with its end);
- Escape followed at once by a character that begins no sequence (a burst from a slow link:
  Escape then `1`) is Escape, then that key, as typed: Textual would read it as one Alt key
  (`alt+q`, or `¡` for Alt+1). The game binds no Alt key, so nothing is lost. An Escape that
  ends a read is Escape once the terminal's pause (`ESCAPE_DELAY`) passes with nothing after it;
- a sequence or a string cut short by such a pause (a slow link, or garbage) is dropped, the rest
  of it too if it comes before a second pause: what comes after that is typed;
- a bracketed paste is one `Paste` event, its first `LONGEST_PASTE` characters; no terminal
  pastes Escape or a control character other than a line end or a tab, so such a key (`ctrl+q`,
  an arrow) ends a paste that lost its end: the paste is dropped, the key counts, and so does a
  key typed after it, as after a string. A paste that stops arriving without its end is dropped
  once `PASTE_PAUSE` passes;
- a flood of input and the terminal's stream of reports are held back and paced by
  `InputPace` (see `input_flood`): nothing grows without bound, and a key typed after a flood
  counts at once. A sequence's parameters are read a run at a time, and a sequence found to be a
  key, a report or unknown to the parser is not asked of it again (a flood repeats the same few).

Private parts of Textual relied on (pinned by `tests/unit/test_adapters_contract.py`):
`textual._xterm_parser.XTermParser`, its `feed` and `tick`, and what it learns of the terminal
(`mouse_pixels`, `terminal_size`, `terminal_pixel_size`), handed on to a parser that starts afresh.
"""

from __future__ import annotations

import re
import threading
import time
from codecs import getincrementaldecoder
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from textual import events
from textual._xterm_parser import XTermParser
from textual.constants import ESCAPE_DELAY
from textual.message import Message

from tictactoe.adapters.input_flood import (
    FLOOD_RATE,
    MAX_BEHIND,
    MOST_TYPED_AT_ONCE,
    REPORT_GAP,
    InputPace,
    Kept,
    kind_of_report,
)

if TYPE_CHECKING:
    from textual.app import App

__all__ = [
    "FLOOD_RATE",
    "LONGEST_PASTE",
    "MAX_BEHIND",
    "MOST_TYPED_AT_ONCE",
    "PASTE_PAUSE",
    "REPORT_GAP",
    "KeyReader",
]

LONGEST_PASTE: Final = 65536
"""Characters of a paste kept (far more than any field of the game takes); the rest is dropped."""

PASTE_PAUSE: Final = 1.0
"""Seconds a paste may stop arriving before it counts as one that lost its end."""

ESC: Final = "\x1b"
BEL: Final = "\x07"
PASTE_START: Final = "\x1b[200~"
PASTE_END: Final = "\x1b[201~"
REPLACEMENT: Final = "\ufffd"

_STRINGS: Final = frozenset("P]_^X")
"""What follows Escape to begin a string: DCS, OSC, APC, PM, SOS."""

_PASTED_CONTROLS: Final = frozenset("\t\n\r")
"""The control characters a terminal pastes: any other comes from the keyboard."""

_LONGEST_SEQUENCE: Final = 32
"""Characters a control sequence may have, Escape and its final byte included (Textual's
parser types out a longer one)."""

_PLAIN: Final = re.compile(r"[^\x00-\x1f\x7f]+")
"""A run of characters that are no control character: read a run at a time."""

_FINAL_BYTE: Final = re.compile(r"[\x40-\x7e]")
_PARAMETERS: Final = re.compile(r"[\x20-\x3f]+")
"""A control sequence's parameter and intermediate bytes: read a run at a time."""
_SEEN_KEPT: Final = 256
"""Sequences found to be a key, a report of the terminal or unknown to the parser, kept so as not
to ask it again (a flood repeats the same few): at most this many, then forgotten all at once."""
_KEY, _UNKNOWN = "key", "unknown"
"""What a sequence was found to be."""
_POINTER: Final = "\x1b[<"
"""How a report of the pointer begins (SGR mouse reporting, the one Textual asks for)."""
_POINTER_REPORTS: Final = re.compile(r"\x1b\[<[0-9;]*[Mm]")
"""Whole reports of the pointer: many come at once when the mouse moves while the game is busy."""
_REPLACEMENTS: Final = re.compile(REPLACEMENT + "{2,}")

_TEXT, _ESCAPE, _CSI, _SS3, _CUT = "text", "escape", "csi", "ss3", "cut"
_STRING, _STRING_CUT, _STRING_ESCAPE, _PASTE = "string", "string cut", "string escape", "paste"
"""Where the reader is: in plain input; just after an Escape; inside a control sequence (CSI,
or SS3: `ESC O` and one character); in the rest of one that a pause cut short; inside a string,
in the rest of one that a pause cut short, or just after an Escape inside one (ST, or the next
sequence); or inside a bracketed paste."""

_LEFT_OPEN: Final = frozenset((_STRING, _STRING_CUT, _PASTE))
"""Where a key typed ends what is left open: a string or a paste that lost its end."""
_KEY_READ: Final = 3
"""Characters a read may have and be keys typed (one a read, two or three pressed together)."""


class KeyReader:
    """Bytes in, Textual events out: any byte is survived, and a flood is held back."""

    def __init__(self, debug: bool = False) -> None:
        self._debug = debug
        self._decode = getincrementaldecoder("utf-8")(errors="replace").decode
        self._parser = XTermParser(debug)
        self._state = _TEXT
        self._csi = ""
        """The sequence read so far (in a paste: what may be the start of its end)."""
        self._paste: list[str] = []
        self._pasted = 0
        """Characters of the paste kept so far."""
        self._last = ""
        """The last character read."""
        self._since = 0.0
        """When the reader last took a character, or last changed state on a pause."""
        self._pace = InputPace()
        """How far the app is behind, whether the input is a flood, and what is kept back."""
        self._seen: dict[tuple[str, bool], object] = {}
        """Sequences found to be a key, a report of the terminal (of which kind) or unknown to
        the parser, with its mouse reporting in pixels or not then (the one thing it learns that
        changes how it reads a sequence)."""

    @property
    def behind(self) -> int:
        """Events handed out since the app last caught up."""
        return self._pace.behind

    @property
    def _flooding(self) -> bool:
        return self._pace.flooding

    @property
    def pasting(self) -> bool:
        """Whether the reader is inside a bracketed paste."""
        return self._state == _PASTE

    def feed(self, data: bytes) -> Iterator[Message]:
        """The events in `data` (the start of a sequence may wait for the next bytes)."""
        text = _REPLACEMENTS.sub(REPLACEMENT, self._decode(data))
        if text[:1] == REPLACEMENT and self._last == REPLACEMENT:
            text = text[1:]  # a run of bytes that are no UTF-8 is one U+FFFD
        if not text:
            return
        self._last = text[-1]
        if self._state in _LEFT_OPEN and not self._csi and _typed_key(text):
            self._state = _TEXT  # a paste or a string that lost its end: dropped; the key counts
            self._paste, self._pasted = [], 0
        if len(text) > MOST_TYPED_AT_ONCE and self._typed_length(text) > MOST_TYPED_AT_ONCE:
            self._pace.flooding = True
        position, end = 0, len(text)
        while position < end:
            if self._state == _CSI and (parameters := _PARAMETERS.match(text, position)):
                # As `_read` takes them one by one: a sequence past its longest is dropped.
                room = _LONGEST_SEQUENCE - 1 - len(self._csi)
                taken = parameters.group()[:room]
                self._csi += taken
                position += len(taken)
                if len(taken) < len(parameters.group()):
                    self._csi = ""
                    self._state = _CUT
                continue
            run = None if self._csi else _PLAIN.match(text, position)
            if run is not None and self._state in (_TEXT, _CUT, _STRING, _STRING_CUT, _PASTE):
                yield from self._read_run(run.group())
                position = run.end()
            else:
                yield from self._read(text[position])
                position += 1
        self._since = time.monotonic()

    def _typed_length(self, text: str) -> int:
        """The characters of `text` that were typed: outside a bracketed paste, and no report of
        the pointer."""
        typed: list[str] = []
        position, pasting = 0, self._state == _PASTE
        while position < len(text):
            if pasting:
                end = text.find(PASTE_END, position)
                if end < 0:
                    break
                position, pasting = end + len(PASTE_END), False
            else:
                start = text.find(PASTE_START, position)
                typed.append(text[position : len(text) if start < 0 else start])
                if start < 0:
                    break
                position, pasting = start + len(PASTE_START), True
        return len(_POINTER_REPORTS.sub("", "".join(typed)))

    def _read_run(self, run: str) -> Iterator[Message]:
        """A run of characters that are no control character, in one of the states that take
        such runs whole."""
        state = self._state
        if state == _TEXT:
            yield from self._typed_run(run)
        elif state == _CUT:  # the rest of a sequence that is dropped, through its final byte
            final = _FINAL_BYTE.search(run)
            if final is not None:
                self._state = _TEXT
                if final.end() < len(run):
                    yield from self._typed_run(run[final.end() :])
        elif state == _PASTE:
            self._keep(run)
        # A string's characters are dropped.

    def _typed_run(self, run: str) -> Iterator[Message]:
        """Characters typed, each a key: in a flood, only the last is kept."""
        if self._flooding:
            self._pace.held = run[-1]
            return
        for character in run:
            yield from self._parse(character)

    def _keep(self, text: str) -> None:
        """Keep `text` as pasted, up to `LONGEST_PASTE` characters in all."""
        room = LONGEST_PASTE - self._pasted
        if room > 0:
            self._paste.append(text[:room])
            self._pasted += min(room, len(text))

    def _read(self, character: str) -> Iterator[Message]:
        """One character, with Escape held back until the next one says what it starts."""
        state = self._state
        if state == _TEXT:
            if character == ESC:
                self._state = _ESCAPE
            elif self._flooding:
                self._pace.held = character
            else:
                yield from self._parse(character)
        elif state == _ESCAPE:
            self._state = _TEXT
            if character in "[O":
                self._state = _CSI if character == "[" else _SS3
                self._csi = ESC + character
            elif character in _STRINGS:
                self._state = _STRING
            elif character == "\\":
                pass  # a string's end with no string: nothing
            elif character == ESC:
                self._state = _ESCAPE
                yield from self._key(events.Key("escape", ESC))
            else:
                yield from self._key(events.Key("escape", ESC))
                yield from self._read(character)
        elif state == _CUT:  # the rest of a sequence that is dropped, through its final byte
            if character < "\x20" or character == "\x7f":  # a control key ends it, and counts
                self._state = _TEXT
                yield from self._read(character)
            elif "\x40" <= character <= "\x7e":
                self._state = _TEXT
        elif state == _SS3:
            yield from self._sequence(self._csi + character, character)
        elif state == _CSI:
            if "\x40" <= character <= "\x7e":  # the final byte: the parser reads it whole
                yield from self._sequence(self._csi + character, character)
            elif "\x20" <= character <= "\x3f" and len(self._csi) + 1 < _LONGEST_SEQUENCE:
                self._csi += character  # a parameter
            else:  # no sequence this parser reads: dropped, whatever follows of it too
                self._csi = ""
                self._state = _CUT
                yield from self._read(character)
        elif state in (_STRING, _STRING_CUT):
            if character == ESC:
                self._state = _STRING_ESCAPE
            elif character == BEL:
                self._state = _TEXT
            elif character < "\x20" or character == "\x7f":  # a key: the string had no end
                self._state = _TEXT
                yield from self._read(character)
        elif state == _STRING_ESCAPE:
            self._state = _TEXT
            if character != "\\":  # not ST: the string had no end, and a sequence begins
                self._state = _ESCAPE
                yield from self._read(character)
        elif state == _PASTE:
            yield from self._read_pasted(character)

    def _sequence(self, sequence: str, final: str) -> Iterator[Message]:
        """A whole control sequence: the parser's events, or nothing if it does not know it."""
        self._csi = ""
        self._state = _TEXT
        if sequence == PASTE_START:
            self._state = _PASTE
            self._paste, self._pasted = [], 0
            return
        if final < "\x20" or final == "\x7f":  # SS3 and a control key: no sequence, the key
            yield from self._read(final)
            return
        if self._flooding and sequence.startswith(_POINTER):
            return  # a flood's reports of the pointer: dropped
        known = (sequence, bool(self._parser.mouse_pixels))
        kind = self._seen.get(known)
        if kind == _UNKNOWN:
            return
        if kind is not None and self._flooding:  # kept to be read once the flood pauses
            if kind == _KEY:
                self._pace.held = sequence
            else:
                self._pace.reports[kind] = sequence
            return
        found = [event for part in sequence for event in self._parse(part)]
        if not found:  # unknown to the parser, which would type it out later: dropped
            self._parser = self._fresh_parser()
            self._see(known, _UNKNOWN)
            return
        if all(isinstance(event, events.Key) for event in found):
            self._see(known, _KEY)
        elif len(found) == 1 and not isinstance(found[0], events.MouseEvent):
            self._see(known, kind_of_report(found[0]))
        if not self._flooding:
            yield from self._pace.paced(found, time.monotonic())
            return
        for event in found:  # a flood's keys: the last is kept; the pointer's: dropped
            if isinstance(event, events.Key):
                self._pace.held = event
            elif not isinstance(event, events.MouseEvent):
                self._pace.reports[kind_of_report(event)] = event

    def _see(self, known: tuple[str, bool], kind: object) -> None:
        if len(self._seen) >= _SEEN_KEPT:
            self._seen.clear()
        self._seen[known] = kind

    def _read_pasted(self, character: str) -> Iterator[Message]:
        """A control character or Escape inside a paste: its end, or a key that ends it."""
        candidate = self._csi + character
        if PASTE_END.startswith(candidate):
            self._csi = candidate
            if candidate == PASTE_END:
                self._csi = ""
                self._state = _TEXT
                yield from self._key(events.Paste("".join(self._paste).replace("\x00", "")))
                self._paste, self._pasted = [], 0
            return
        if not self._csi and character in _PASTED_CONTROLS:
            self._keep(character)
            return
        # A key from the keyboard: the paste has lost its end. It is dropped; the key counts.
        self._csi = ""
        self._state = _TEXT
        self._paste, self._pasted = [], 0
        for part in candidate:
            yield from self._read(part)

    def _fresh_parser(self) -> XTermParser:
        """A parser that starts afresh, knowing what the last one learnt of the terminal."""
        parser = XTermParser(self._debug)
        parser.mouse_pixels = self._parser.mouse_pixels
        parser.terminal_size = self._parser.terminal_size
        parser.terminal_pixel_size = self._parser.terminal_pixel_size
        return parser

    def _typed(self, event: Message) -> Iterator[Message]:
        self._pace.behind += 1
        yield event

    def _key(self, key: events.Key | events.Paste) -> Iterator[Message]:
        """A key or a paste the reader made itself: handed out, or in a flood kept as its last
        key."""
        if self._flooding:
            self._pace.held = key
        else:
            yield from self._typed(key)

    def _hand_out(self, kept: Iterator[Kept]) -> Iterator[Message]:
        """What was kept back: a sequence's characters, read now, or an event."""
        for each in kept:
            if isinstance(each, str):
                for part in each:
                    yield from self._parse(part)
            else:
                yield from self._typed(each)

    def _parse(self, character: str) -> Iterator[Message]:
        try:
            events_ = list(self._parser.feed(character))
        except Exception:  # the parser died on a sequence: start afresh after it
            self._parser = self._fresh_parser()
            self._state = _TEXT
            return
        self._pace.behind += len(events_)
        yield from events_

    def tick(self) -> Iterator[Message]:
        """Events that a pause completes (a lone Escape); a sequence a pause cuts is dropped, a
        paste that stopped arriving too, and a flood that paused is over."""
        now = time.monotonic()
        quiet = now - self._since
        if not self._flooding:
            yield from self._hand_out(self._pace.due(now))
        if quiet >= ESCAPE_DELAY:
            yield from self._hand_out(self._pace.release(now))
            state = self._state
            if state == _ESCAPE:
                self._state = _TEXT
                yield from self._typed(events.Key("escape", ESC))
                return
            if state in (_CSI, _SS3, _STRING):  # cut: its rest, if it comes at once, is dropped
                self._csi = ""
                self._state = _CUT if state != _STRING else _STRING_CUT
                self._since = now
                return
            if state in (_CUT, _STRING_CUT, _STRING_ESCAPE):  # what comes now is typed
                self._state = _TEXT
            if state == _PASTE and quiet >= PASTE_PAUSE:  # the paste lost its end: dropped
                self._state = _TEXT
                self._csi = ""
                self._paste, self._pasted = [], 0
        try:
            found = list(self._parser.tick())
        except Exception:
            self._parser = self._fresh_parser()
            return
        self._pace.behind += len(found)
        yield from found

    def keep_up(self, app: App[Any], ending: threading.Event) -> None:
        """In the input thread: wait for `app` while it is behind (`InputPace.keep_up`)."""
        self._pace.keep_up(app, ending)


def _typed_key(text: str) -> bool:
    """Whether the read `text` is keys typed: a few characters and no control character (a
    terminal writes a string, or a paste, at once, and the rest of one comes with its end)."""
    return len(text) <= _KEY_READ and _PLAIN.fullmatch(text) is not None
