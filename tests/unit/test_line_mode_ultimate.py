"""The line mode at Ultimate, as a blind player meets it: a move typed as two digits (one when
the board is forced), said by its board and cell and the board it sends to; a refusal naming the
boards one may play in; `b` the whole position; the hint's estimate; the computer at each level,
whose search never stops the lines being read (`q` leaves at once). Each session runs in this
process: its lines typed ahead from a script, or answered as the game speaks through a pipe."""

from __future__ import annotations

import io
import json
import os
import queue
import random
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from limits import EVENT_LIMIT
from tictactoe.config import GameConfig
from tictactoe.core.ai import Level
from tictactoe.core.keys import KeyLayout
from tictactoe.core.narration import LINE
from tictactoe.core.rules import ULTIMATE, Position, Variant
from tictactoe.core.ultimate import UltimateState
from tictactoe.lines.play import play_lines

X_WINS: tuple[int, ...] = (28, 9, 2, 22, 43, 68, 49, 39, 29, 26, 80, 73, 10, 12, 27)
X_WINS += (3, 40, 41, 50, 45, 0, 8, 78, 58, 37, 13, 16, 66, 48)
"""A whole match X wins with the left, centre and right boards (a random game, seed 2423)."""

CENTRE_TOP_ROW = "x\n57\n7 5\n58\n5\n59\n"
"""Ada (X) takes the centre board's top row (keypad keys): Bob is then sent to the top-right
board; Bob's second move is one digit, his board being forced."""


def hot_seat(keys: KeyLayout | None = None) -> GameConfig:
    """Ultimate between Ada and Bob at one keyboard, in the layout `keys` (the keypad's)."""
    return GameConfig(player1="Ada", player2="Bob", variant="ultimate", keys=keys, save=False)


def against(level: Level) -> GameConfig:
    """Ultimate between Ada and the computer at `level`, which moves at once."""
    return GameConfig(player1="Ada", level=level, variant="ultimate", save=False, computer_delay=0)


def session(typed: str, config: GameConfig | None = None) -> list[str]:
    """The lines the line mode says for `typed` (the final score is printed apart): each one
    short, none with an escape sequence."""
    out = io.StringIO()
    play_lines(config or hot_seat(), io.StringIO(typed), out)
    lines = out.getvalue().splitlines()
    assert all(len(line) <= LINE for line in lines), [line for line in lines if len(line) > LINE]
    assert "\x1b" not in out.getvalue()
    return lines


def typed(moves: tuple[int, ...], layout: KeyLayout = KeyLayout.NUMPAD) -> str:
    """`moves` as a person types them: one digit while the board is forced, else two (with a
    space between them every other time)."""
    state = UltimateState.new()
    lines = []
    for number, move in enumerate(moves):
        keys = ULTIMATE.move_keys(move, layout.key_for)
        if state.forced_board == move // 9:
            keys = keys.split()[-1]
        lines.append(keys if number % 2 else keys.replace(" ", ""))
        state = state.play(move)
    return "".join(f"{line}\n" for line in lines)


def test_a_whole_match_typed_to_a_win_one_digit_when_the_board_is_forced() -> None:
    moves = typed(X_WINS)
    assert any(len(line) == 1 for line in moves.split()), moves  # some forced, one digit
    lines = session("x\n" + moves + "s\n")
    assert lines[0] == "Ultimate tic-tac-toe: Ada against Bob."
    assert "Ada (X) takes the top of the left board, 4 8." in lines
    assert "Bob must play in the top board." in lines
    assert "Ada (X) wins the right board, 6." in lines
    end = lines.index("Ada (X) wins: boards 4, 5, 6, the middle row.")
    assert lines[end + 1] == "Ada (X) 1, Bob (O) 0, draws 0; 1 match played."
    assert sum(" takes the " in line for line in lines) == len(X_WINS)
    refused = [line for line in lines if line.startswith(("Play in", "Cell ", "Type two"))]
    assert refused == [] and not any("no move" in line for line in lines)


def test_digits_follow_the_phone_layout() -> None:
    lines = session("x\n55\n1\n", hot_seat(KeyLayout.PHONE))
    assert "Ada (X) takes the centre of the centre board, 5 5." in lines
    assert "Bob must play in the centre board." in lines
    assert "Bob (O) takes the top-left of the centre board, 5 1." in lines
    assert "Ada must play in the top-left board." in lines


def test_a_move_outside_the_allowed_boards_is_refused_in_one_sentence_naming_them() -> None:
    lines = session("x\n55\n17\n5\n7\n")
    assert "Play in the centre board, 5." in lines  # Bob is sent to the centre board
    assert "Cell 5 5 (centre board, centre) is taken by X." in lines
    assert "Bob (O) takes the top-left of the centre board, 5 7." in lines
    lines = session(CENTRE_TOP_ROW + "95\n55\n5\n0\n123\n")
    assert "Ada (X) wins the centre board, 5." in lines
    assert "Bob (O) takes the centre of the top-right board, 9 5." in lines
    assert "Ada may play in any open board." in lines  # sent to the centre board, won
    assert "Play in an open board: 7, 8, 9, 4, 6, 1, 2 or 3." in lines
    assert "Type two digits, the board's then the cell's: any open board will do." in lines
    assert "0 is no move: type a board's digit, then a cell's, 1 to 9 each." in lines
    assert "123 is no move: type a board's digit, then a cell's, 1 to 9 each." in lines


def test_b_says_the_position_and_b_with_a_digit_one_board() -> None:
    lines = session(CENTRE_TOP_ROW + "b\n95\nb\nb 9\n")
    at = lines.index("X has won: centre 5.")
    assert lines[at : at + 3] == [
        "X has won: centre 5.",
        "Bob must play in the top-right board.",
        "The top-right board, 9: free 1, 2, 3, 4, 5, 6, 7, 8, 9.",
    ]
    assert "Ada may play in any open board: 7, 8, 9, 4, 6, 1, 2, 3." in lines
    assert "The top-right board, 9: O on 5; free 1, 2, 3, 4, 6, 7, 8, 9." in lines


def test_the_keys_and_what_is_expected_are_said_for_two_digits() -> None:
    lines = session("x\n?\nzz\n")
    assert "Type a key and Enter. Two digits take a cell: the board's, then the cell's." in lines
    assert "One digit takes a cell of the board you are sent to (numpad: 789 456 123)." in lines
    assert "That is no key here: two digits and Enter take a cell; ? lists the keys." in lines


def test_the_hint_says_the_search_s_estimate_and_lines_typed_meanwhile_wait_their_turn() -> None:
    lines = session("x\n55\nh\nb\nu\n")
    looking = lines.index("Looking for the best move.")
    hint = lines[looking + 1]
    assert re.fullmatch(r"Hint: 5 [1-9]\. (Even|[XO] is favoured|[XO] wins with best play)\.", hint)
    assert lines[looking + 2] == "Bob (O), your move:"
    assert lines[looking + 3] == "No small board is finished yet."  # b, after the hint
    assert "Taken back: the centre of the centre board, 5 5." in lines[looking:]


@pytest.fixture
def held_search(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The computer's search, held until the event is set (or the limit passes): a search that
    is still under way when the test wants it to be."""
    release = threading.Event()
    choose = Variant.choose_move

    def held(self: Variant, state: Position, level: Level, rng: random.Random | None = None) -> int:
        release.wait(EVENT_LIMIT)
        return choose(self, state, level, rng)

    monkeypatch.setattr(Variant, "choose_move", held)
    yield release
    release.set()


def test_q_leaves_at_once_while_the_computer_searches(held_search: threading.Event) -> None:
    lines = session("x\n55\nb\nq\n", against(Level.HARD))
    assert not held_search.is_set()  # the search was still under way when the session ended
    assert lines[-1] == "Computer (O) is thinking."
    assert not any(line.startswith("Computer (O) takes") for line in lines)


class Spoken(io.StringIO):
    """The game's output, each line also handed to `heard` as it is written."""

    def __init__(self) -> None:
        super().__init__()
        self.heard: queue.Queue[str] = queue.Queue()
        self._part = ""

    def write(self, text: str) -> int:
        self._part += text
        *lines, self._part = self._part.split("\n")
        for line in lines:
            self.heard.put(line)
        return super().write(text)


def converse(config: GameConfig, answer: Callable[[str], str | None]) -> list[str]:
    """A session whose input is a pipe: `answer` is given each line the game says, as it is
    said, and what it returns is typed (None: nothing). The game is left with `q` when its
    first match is over, or when the test fails."""
    read, write = os.pipe()
    source = os.fdopen(read, "r")
    out = Spoken()
    said: list[str] = []
    failed: list[BaseException] = []

    def player() -> None:
        with os.fdopen(write, "w") as typing:
            try:
                while True:
                    line = out.heard.get(timeout=EVENT_LIMIT)
                    said.append(line)
                    reply = "q" if line.startswith("n and Enter: next match") else answer(line)
                    if reply is not None:
                        typing.write(reply + "\n")
                        typing.flush()
                    if reply == "q":
                        return
            except BaseException as failure:  # said by the test, after the game has left
                failed.append(failure)

    thread = threading.Thread(target=player, daemon=True)
    thread.start()
    try:
        assert play_lines(config, source, out) == 0
    finally:
        thread.join(EVENT_LIMIT)
        source.close()
    if failed:
        raise AssertionError(f"the player failed after {said[-5:]!r}") from failed[0]
    assert all(len(line) <= LINE for line in said) and "\x1b" not in out.getvalue()
    return said


_TAKES = re.compile(r".* \(([XO])\) takes .*, ([1-9]) ([1-9])\.")


@pytest.mark.parametrize("level", [Level.EASY, Level.MEDIUM])
def test_a_whole_match_against_the_computer_each_move_typed_as_the_game_asks(
    level: Level,
) -> None:
    """Ada answers each of her turns with a legal move of the position as she has heard it:
    each move said (hers and the computer's) is played on her own copy of the match."""
    layout = KeyLayout.NUMPAD
    rng = random.Random(level.value)
    state = [UltimateState.new()]

    def answer(line: str) -> str | None:
        if line == "Ada, choose X or O:":
            return "x"
        if taken := _TAKES.fullmatch(line):
            move = layout.cell_for(taken[2]) * 9 + layout.cell_for(taken[3])
            state[0] = state[0].play(move)
        if line == "Ada (X), your move:":
            move = rng.choice(state[0].legal_moves())
            keys = ULTIMATE.move_keys(move, layout.key_for)
            return keys.split()[-1] if state[0].forced_board is not None else keys
        return None

    said = converse(against(level), answer)
    assert said[0] == f"Ultimate tic-tac-toe: Ada against Computer, at the {level.value} level."
    assert any(line.startswith("Computer (O) takes the ") for line in said)
    assert state[0].is_over
    assert any(line.endswith("1 match played.") for line in said)
    assert not any(line.startswith(("Play in", "Cell ", "Type two")) for line in said), said


def test_names_asked_the_game_is_the_command_line_s_else_the_one_last_chosen(
    tmp_path: Path,
) -> None:
    """`--variant ultimate` plays Ultimate when the names are asked too; without it, the game
    last chosen on the new-game screen (a setting), as the full-screen game starts it."""
    config = GameConfig(variant="ultimate", save=False, computer_delay=0)
    lines = session("Ada\nBob\np\nx\n55\n", config)
    assert "Ultimate tic-tac-toe: Ada against Bob." in lines
    assert "Ada (X) takes the centre of the centre board, 5 5." in lines
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"version": 1, "variant": "ultimate"}))
    config = GameConfig(
        settings_file=settings, record_file=tmp_path / "record.sqlite3", computer_delay=0
    )
    assert "Ultimate tic-tac-toe: Ada against Computer, at the easy level." in session(
        "Ada\n\ne\nq\n", config
    )
    chosen = GameConfig(player1="Ada", player2="Bob", variant="classic", settings_file=settings)
    assert session("q\n", replace(chosen, save=True, record_file=config.record_file))[0] == (
        "Tic-tac-toe: Ada against Bob."
    )
