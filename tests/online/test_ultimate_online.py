"""The real thing for Ultimate: `tictactoe host --variant ultimate` in a terminal, friends with the
real `ssh` in theirs, every program in a pseudo-terminal of its own on 127.0.0.1 (the helpers of
`test_end_to_end`)."""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from online.test_end_to_end import Series, Terminal, host
from online.test_plain_online import in_words, said
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from online.test_ultimate_link import X_WINS
from tictactoe.core.engine import CELL_NAMES
from tictactoe.core.keys import KeyLayout
from tictactoe.core.narration import LINE
from tictactoe.core.rules import ULTIMATE
from tictactoe.core.ultimate import BOARD_NAMES, UltimateState

pytestmark = [pytest.mark.usefixtures("ssh"), pytest.mark.slow]


@pytest.fixture
def hosted(tmp_path: Path) -> Iterator[Series]:
    series = host(tmp_path, "--variant", "ultimate", "--no-web")
    try:
        yield series
    finally:
        series.close()
        assert series.left_behind() == []


def keys(state: UltimateState, move: int) -> bytes:
    """What a person presses for `move`: the board's digit, unless the board is forced, then the
    cell's, in the keypad layout."""
    board, cell = divmod(move, 9)
    digits = "" if state.forced_board == board else KeyLayout.NUMPAD.key_for(board)
    return (digits + KeyLayout.NUMPAD.key_for(cell)).encode()


def drawn(number: int, move: int) -> str:
    """The moves list's line for the `number`th move, as far as a narrow list shows it whole."""
    return rf"\b{number}\. (?:\S+ )?[XO] {re.escape(BOARD_NAMES[move // 9])}"


def play(moves: tuple[int, ...], players: tuple[Terminal, Terminal], *watching: Terminal) -> None:
    """`moves` from the start of a match, X's by the first of `players`, O's by the second; each
    shows on every screen before the next."""
    state = ULTIMATE.new()
    assert isinstance(state, UltimateState)
    for number, move in enumerate(moves, start=1):
        mover = players[(number - 1) % 2]
        for terminal in (*players, *watching):
            terminal.from_now()
        mover.send(keys(state, move))
        for terminal in (*players, *watching):
            terminal.expect(drawn(number, move))
        state = state.play(move)


def begin(series: Series) -> Terminal:
    """Bob comes in by ssh and gives his name; Alice takes X. Bob's terminal."""
    bob = series.ssh("Bob")
    series.host.expect("Alice, choose your mark")
    bob.expect("Alice is choosing a mark")
    series.host.from_now().send(b"x")
    bob.expect(r"Alice \(X\) to move")
    return bob


def test_a_hosted_ultimate_series_is_played_to_a_win_on_both_screens(hosted: Series) -> None:
    alice = hosted.host
    alice.expect(r"Ultimate tic-tac-toe\. To join from any terminal")
    bob = begin(hosted)
    bob.from_now().send(b"75")  # not his turn: refused on his own screen
    bob.expect("It is Alice's turn.")
    play(X_WINS, (alice, bob))
    alice.expect("Alice wins!")
    bob.expect("Alice wins!")

    alice.from_now()
    bob.from_now().send(b"q")
    assert bob.finish() == 0
    assert alice.finish() == 0
    for terminal in (alice, bob):
        assert re.search(r"Final score\s+Alice\s+1\s+Bob\s+0\s+Draws\s+0", terminal.text)


def test_a_watcher_sees_the_ultimate_board(hosted: Series) -> None:
    alice = hosted.host
    bob = begin(hosted)
    play(X_WINS[:2], (alice, bob))
    carol = hosted.ssh("Carol")
    carol.expect("Tic-tac-toe — watching")
    carol.expect(drawn(2, X_WINS[1]))
    carol.expect(r"Alice \(X\) to move")
    state = ULTIMATE.replay(X_WINS[:2])
    assert isinstance(state, UltimateState)
    for terminal in (alice, bob, carol):
        terminal.from_now()
    alice.send(keys(state, X_WINS[2]))
    for terminal in (alice, bob, carol):
        terminal.expect(drawn(3, X_WINS[2]))


def test_a_dropped_friend_takes_his_seat_back_mid_match(hosted: Series) -> None:
    alice = hosted.host
    bob = begin(hosted)
    play(X_WINS[:4], (alice, bob))

    alice.from_now()
    os.kill(bob.pid, signal.SIGKILL)  # his ssh, gone without a word
    alice.expect(r"Bob's connection dropped\.")
    assert bob.finish() == -signal.SIGKILL

    again = hosted.ssh("Bob")
    again.expect(drawn(4, X_WINS[3]))  # his screen as it was
    again.expect(r"Alice \(X\) to move")
    alice.expect("Bob is back.")
    state = ULTIMATE.replay(X_WINS[:4])
    assert isinstance(state, UltimateState)
    for terminal in (alice, again):
        terminal.from_now()
    alice.send(keys(state, X_WINS[4]))
    for terminal in (alice, again):
        terminal.expect(drawn(5, X_WINS[4]))


def test_a_seat_in_words_plays_ultimate_to_the_end(hosted: Series) -> None:
    """Bob joins with `plain` after the line: the line view says each move by its board and cell,
    takes his two digits (one when his board is forced), and says the end by its boards."""
    alice = hosted.host
    bob = in_words(hosted, "-tt")
    bob.expect(re.escape("Your name (Enter: Player 2):"))
    bob.send(b"Bob\r")
    alice.expect("Alice, choose your mark")
    alice.send(b"x")
    state = ULTIMATE.new()
    assert isinstance(state, UltimateState)
    for number, move in enumerate(X_WINS, start=1):
        alice.from_now()
        bob.from_now()
        if number % 2:
            alice.send(keys(state, move))
        else:
            bob.send(keys(state, move) + b"\r")
        alice.expect(drawn(number, move))
        board, cell = BOARD_NAMES[move // 9], CELL_NAMES[move % 9]
        bob.expect(re.escape(f"takes the {cell} of the {board}"))
        state = state.play(move)
    bob.expect(re.escape("Alice (X) wins: boards 7, 8, 9, the top row."))
    alice.expect("Alice wins!")
    bob.send(b"q\r")
    assert bob.finish() == 0
    assert b"\x1b" not in bob.raw
    assert all(len(line) <= LINE for line in said(bob))
    alice.expect("Bob left the series.")
