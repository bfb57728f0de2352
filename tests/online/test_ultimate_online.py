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

from online.test_end_to_end import Series, Terminal, begin, host
from online.test_plain_online import bob_in_words, said
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from online.test_ultimate_link import X_WINS
from tictactoe.core.engine import CELL_NAMES
from tictactoe.core.keys import KeyLayout
from tictactoe.core.narration import LINE
from tictactoe.core.rules import ULTIMATE
from tictactoe.core.ultimate import BOARD_NAMES, UltimateState
from tictactoe.record import GameRecord

pytestmark = [pytest.mark.usefixtures("ssh"), pytest.mark.slow]


def record_of(tmp_path: Path) -> Path:
    """The host's game record in the test's folder."""
    return tmp_path / "record.sqlite3"


@pytest.fixture
def hosted(tmp_path: Path) -> Iterator[Series]:
    """Alice hosts an Ultimate series, keeping her record in the test's folder."""
    series = host(tmp_path, "--variant", "ultimate", "--no-web", record=record_of(tmp_path))
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


def drawn(number: int) -> str:
    """The first line of the moves list's entry for the `number`th move (its board and cell may
    go on to the next lines)."""
    return rf"\b{number}\. (?:\S+ )?[XO]\b"


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
            terminal.expect(drawn(number))
        state = state.play(move)


def test_a_hosted_ultimate_series_is_played_to_a_win_on_both_screens(
    hosted: Series, tmp_path: Path
) -> None:
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
    (kept,) = GameRecord(record_of(tmp_path)).recent()  # the host's record, as in classic
    assert (kept.variant, kept.moves, kept.winner) == ("ultimate", X_WINS, 0)
    assert [player.name for player in kept.players] == ["Alice", "Bob"]


def test_a_watcher_sees_the_ultimate_board(hosted: Series) -> None:
    alice = hosted.host
    bob = begin(hosted)
    play(X_WINS[:2], (alice, bob))
    carol = hosted.ssh("Carol")
    carol.expect("Tic-tac-toe — watching")
    carol.expect(drawn(2))
    carol.expect("top-left board")  # the moves in Ultimate's words
    carol.expect(r"Alice \(X\) to move")
    state = ULTIMATE.replay(X_WINS[:2])
    assert isinstance(state, UltimateState)
    for terminal in (alice, bob, carol):
        terminal.from_now()
    alice.send(keys(state, X_WINS[2]))
    for terminal in (alice, bob, carol):
        terminal.expect(drawn(3))


def test_a_dropped_friend_takes_his_seat_back_mid_match(hosted: Series) -> None:
    alice = hosted.host
    bob = begin(hosted)
    play(X_WINS[:4], (alice, bob))

    alice.from_now()
    os.kill(bob.pid, signal.SIGKILL)  # his ssh, gone without a word
    alice.expect(r"Bob's connection dropped\.")
    assert bob.finish() == -signal.SIGKILL

    again = hosted.ssh("Bob")
    again.expect(drawn(4))  # his screen as it was
    again.expect(r"Alice \(X\) to move")
    alice.expect("Bob is back.")
    state = ULTIMATE.replay(X_WINS[:4])
    assert isinstance(state, UltimateState)
    for terminal in (alice, again):
        terminal.from_now()
    alice.send(keys(state, X_WINS[4]))
    for terminal in (alice, again):
        terminal.expect(drawn(5))


def test_a_seat_in_words_plays_ultimate_to_the_end(hosted: Series) -> None:
    """Bob joins with `plain` after the line: the line view says each move by its board and cell,
    takes his two digits (one when his board is forced), and says the end by its boards."""
    alice = hosted.host
    bob = bob_in_words(hosted)
    state = ULTIMATE.new()
    assert isinstance(state, UltimateState)
    for number, move in enumerate(X_WINS, start=1):
        alice.from_now()
        bob.from_now()
        if number % 2:
            alice.send(keys(state, move))
        else:
            bob.send(keys(state, move) + b"\r")
        alice.expect(drawn(number))
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


def test_the_host_hosts_ultimate_in_words_and_keeps_it_in_the_record(tmp_path: Path) -> None:
    """`host --plain --variant ultimate`: the invitation names the game, Alice plays her moves as
    lines against Bob's full screen, and her record keeps the match."""
    record = record_of(tmp_path)
    series = host(tmp_path, "--plain", "--variant", "ultimate", "--no-web", record=record)
    alice = series.host
    try:
        alice.expect(r"Ultimate tic-tac-toe\. To join from any terminal")
        bob = series.ssh("Bob")
        alice.expect(re.escape("Alice, choose X or O:"))
        alice.send(b"x\r")
        bob.expect(r"Alice \(X\) to move")
        state = ULTIMATE.new()
        assert isinstance(state, UltimateState)
        for number, move in enumerate(X_WINS, start=1):
            alice.from_now()
            bob.from_now()
            if number % 2:
                alice.send(keys(state, move) + b"\r")
            else:
                bob.send(keys(state, move))
            bob.expect(drawn(number))
            board, cell = BOARD_NAMES[move // 9], CELL_NAMES[move % 9]
            alice.expect(re.escape(f"takes the {cell} of the {board}"))
            state = state.play(move)
        alice.expect(re.escape("Alice (X) wins: boards 7, 8, 9, the top row."))
        bob.expect("Alice wins!")
        alice.send(b"q\r")
        assert alice.finish() == 0
        bob.expect("Alice ended the series")
        assert bob.finish() == 0
    finally:
        series.close()
    assert series.left_behind() == []
    (kept,) = GameRecord(record).recent()
    assert (kept.variant, kept.moves, kept.winner) == ("ultimate", X_WINS, 0)
