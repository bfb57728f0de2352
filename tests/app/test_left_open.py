"""A paste or a string left open does not take the keys typed after it.

The game runs in a pseudo-terminal (`Terminal` from `test_process`), and the keys are typed as
a person types them: one read each, a moment apart.
"""

from __future__ import annotations

import os
import time

import pytest

from app.test_process import Terminal
from app.test_stray_bytes import keys_after_pauses, play, shown

LEFT_OPEN = {
    "a paste that never ends": b"\x1b[200~",
    "a paste that never ends, with text": b"\x1b[200~Ada",
    "an OSC string": b"\x1b]0;x",
    "a DCS string": b"\x1bPq",
}


def type_slowly(game: Terminal, keys: bytes, gap: float) -> None:
    for key in keys:
        os.write(game.fd, bytes([key]))
        time.sleep(gap)
        game.drain()


@pytest.mark.slow  # a real game in a pseudo-terminal
@pytest.mark.parametrize("opened", LEFT_OPEN.values(), ids=LEFT_OPEN.keys())
def test_keys_typed_steadily_after_something_left_open_all_act(opened: bytes) -> None:
    """Each move typed 0.3 s after the last: a paste left open took them all (it was over only
    once the input paused for a second), an OSC or DCS string the first."""
    game = Terminal("--player1", "Ada", "--player2", "Bob", "--no-save")
    shown(game, "choose your mark")
    play(game, b"x", then="Ada (X) to move")
    game.output = b""
    os.write(game.fd, opened)
    time.sleep(0.05)
    type_slowly(game, b"74859", gap=0.3)
    shown(game, "Ada wins!", timeout=10)
    os.write(game.fd, b"q")
    assert game.finish() == 0


@pytest.mark.slow  # a real game in a pseudo-terminal
@pytest.mark.parametrize("opened", [b"\x1b]0;x", b"\x1bPq"], ids=["OSC", "DCS"])
def test_a_key_typed_just_after_a_string_left_open_acts(opened: bytes) -> None:
    """`ESC ] 0 ; x`, then `5` within 0.1 s: the 5 was taken as the string's and lost."""
    game = Terminal("--player1", "Ada", "--player2", "Bob", "--no-save")
    shown(game, "choose your mark")
    play(game, b"x", then="Ada (X) to move")
    game.output = b""
    os.write(game.fd, opened)
    time.sleep(0.05)
    os.write(game.fd, b"5")
    shown(game, "1. Ada X centre", timeout=10)
    os.write(game.fd, b"q")
    assert game.finish() == 0


def test_the_reader_ends_what_was_left_open_at_the_first_key_typed() -> None:
    assert keys_after_pauses(b"\x1b]9;", b"5", b"7") == ["5", "7"]
    assert keys_after_pauses(b"\x1b[200~Ada", b"u", b"u") == ["u", "u"]
    assert keys_after_pauses(b"\x1bP1$r", b"2 q\x1b\\", b"7") == ["7"]  # its rest, then a key


def test_a_paste_or_a_string_in_pieces_is_still_one() -> None:
    """The rest of a string or a paste comes with its end: it is no key."""
    assert keys_after_pauses(b"\x1b]2;x 5", b"5 q\x07", b"7") == ["7"]
    found = keys_after_pauses(b"\x1b[200~Ada and ", b"Bob\x1b[201~", b"7")
    assert found == [None, "7"]
