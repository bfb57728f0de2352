"""The line mode's record (`r`, `p`) over a record of both games: an Ultimate match played in the
line mode is written with its moves, each game's totals are said under its name, a recent match
names its game, and `p` replays an Ultimate match move by move. A record of classic alone is
said as before (tests/unit/test_line_mode.py)."""

from __future__ import annotations

import io
import random
from pathlib import Path

from tictactoe.config import GameConfig
from tictactoe.core.engine import Mark
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.keys import KeyLayout
from tictactoe.core.narration import LINE
from tictactoe.core.rules import ULTIMATE
from tictactoe.core.series import Player
from tictactoe.lines.play import play_lines
from tictactoe.lines.record import RecordWords
from tictactoe.record import GameRecord

ADA, BOB = Player("Ada"), Player("Bob")


def an_ultimate_game(seed: int) -> tuple[int, ...]:
    rng = random.Random(seed)
    state = ULTIMATE.new(Mark.X)
    while not state.is_over:
        state = state.play(rng.choice(state.legal_moves()))
    return state.moves


def typed(move: int) -> str:
    """The keys of `move` as the line mode reads them: the board's digit, then the cell's."""
    return ULTIMATE.move_keys(move, KeyLayout.NUMPAD.key_for).replace(" ", "")


def session(script: str, config: GameConfig) -> list[str]:
    out = io.StringIO()
    play_lines(config, io.StringIO(script), out)
    lines = out.getvalue().splitlines()
    assert all(len(line) <= LINE for line in lines), [line for line in lines if len(line) > LINE]
    return lines


def test_an_ultimate_match_of_the_line_mode_is_recorded_and_said_by_its_game(
    tmp_path: Path,
) -> None:
    path = tmp_path / "record.sqlite3"
    classic = GameConfig(save=True, record_file=path, computer_delay=0)
    session("Ada\nBob\np\nx\n7\n4\n8\n5\n9\nq\n", classic)  # Ada wins a classic match
    moves = an_ultimate_game(11)
    ultimate = GameConfig(save=True, record_file=path, computer_delay=0, variant="ultimate")
    script = "Ada\nBob\np\nx\n" + "".join(f"{typed(move)}\n" for move in moves) + "r\np\nq\n"
    lines = session(script, ultimate)

    record = GameRecord(path)
    (match,) = record.recent(variant="ultimate")
    assert match.moves == moves and match.players == (ADA, BOB)
    assert record.match_count() == 2
    record.close()

    # the session's game (Ultimate) first, then the others
    said = lines[lines.index("The record at Ultimate: players' totals, most wins first.") :]
    classic_at = said.index("The record at Classic: players' totals, most wins first.")
    assert said[3].startswith("Ada against Bob at Ultimate: "), said
    assert said[classic_at + 1 : classic_at + 3] == [
        "Ada: 1 win, 0 losses, 0 draws.",
        "Bob: 0 wins, 1 loss, 0 draws.",
    ]
    assert said[classic_at + 3] == "Ada against Bob at Classic: Ada 1 win, Bob 0, draws 0."
    assert any(line.startswith("1. Ultimate, Ada (X) against Bob (O): ") for line in said)
    assert any(line.startswith("2. Classic, Ada (X) against Bob (O): Ada won") for line in said)
    head = next(line for line in said if line.startswith("Recent match 1, Ultimate, "))
    first = said.index(head) + 1
    assert said[first].startswith("1. Ada (X) takes "), said[first]
    assert len(moves) + 1 <= len(said) - first


def test_a_record_of_ultimate_matches_alone_names_the_game(tmp_path: Path) -> None:
    record = GameRecord(tmp_path / "record.sqlite3")
    final = ULTIMATE.replay(an_ultimate_game(4))
    record.add(FinishedMatch.of((ADA, BOB), final, (Mark.X, Mark.O), variant="ultimate"))
    words = RecordWords(record)
    lines = words.summary((ADA, BOB))
    assert lines[0] == "The record at Ultimate: players' totals, most wins first."
    assert "Classic" not in " ".join(lines)
    assert lines[-1].startswith("1. Ultimate, Ada (X) against Bob (O): ")
    replayed = words.replay(1, KeyLayout.NUMPAD.key_for)
    assert replayed[0].startswith("Recent match 1, Ultimate, ")
    assert sum(line.split(". ")[0].isdigit() for line in replayed) == len(final.moves)
