"""The line mode as a blind player meets it: the questions before the series, what `?` says at
each of them, the record and replays in words, one wording for each thing, and the score said
after every match. Each session runs in this process, its lines typed ahead from a script."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import pytest

from tictactoe.config import GameConfig
from tictactoe.core.ai import Level
from tictactoe.core.narration import LINE
from tictactoe.core.series import Series
from tictactoe.lines.play import LineSession, play_lines
from tictactoe.record import GameRecord

ADA_WINS = "x\n7\n4\n8\n5\n9\n"
"""Ada takes X and wins along the top row (keypad keys), Bob holding 4 and 5."""


def session(typed: str, config: GameConfig | None = None) -> list[str]:
    """The lines the line mode says for `typed` (the final score is printed apart)."""
    out = io.StringIO()
    config = config or GameConfig(save=False, computer_delay=0)
    play_lines(config, io.StringIO(typed), out)
    lines = out.getvalue().splitlines()
    assert all(len(line) <= LINE for line in lines), [line for line in lines if len(line) > LINE]
    assert not any("\x1b" in line for line in lines)
    return lines


def test_both_names_are_asked_then_the_opponent_as_on_the_new_game_screen() -> None:
    lines = session("Ada\nBob\np\nq\n")
    asked = [line for line in lines if line.endswith(":")]
    assert asked[0].startswith("Player 1's name")
    assert asked[1].startswith("Player 2's name")
    assert asked[2].startswith("Against whom?")
    assert "Tic-tac-toe: Ada against Bob." in lines


def test_against_the_computer_player_2_s_name_goes_unused() -> None:
    lines = session("Ada\n\nh\nq\n")
    assert "Tic-tac-toe: Ada against Computer, at the hard level." in lines


def test_a_wrong_answer_at_a_question_is_told_what_is_expected_in_one_sentence() -> None:
    lines = session("Ada\nBob\nBob\np\nq\n")
    at = lines.index("Tic-tac-toe: Ada against Bob.")
    between = lines[:at]
    whom = [index for index, line in enumerate(between) if line.startswith("Against whom?")]
    assert len(whom) == 2, lines  # asked again after the wrong answer
    told = between[whom[0] + 1 : whom[1]]
    assert told == ["Bob is no answer here: type p, e, m or h and Enter."], told


def test_the_same_name_twice_is_told_and_player_2_s_name_asked_again() -> None:
    lines = session("Ada\nada\np\nBob\nq\n")
    assert any("look the same" in line or "same" in line for line in lines), lines
    assert sum(line.startswith("Player 2's name") for line in lines) == 2
    assert "Tic-tac-toe: Ada against Bob." in lines


def test_question_mark_answers_every_question() -> None:
    typed = "?\nAda\n?\nBob\n?\np\n?\nx\n?\n7\n4\n8\n5\n9\n?\nq\n"
    lines = session(typed)
    assert "Tic-tac-toe: Ada against Bob." in lines  # `?` was no name
    said = "\n".join(lines)
    assert said.count("Enter alone: Player 1") >= 1
    assert said.count("Enter alone: Player 2") >= 1
    assert "p: Player 2 plays here" in said
    assert said.count("q: quit") >= 3  # the mark, a move, after the match


def test_the_keys_fit_a_line_and_name_the_record_the_replay_and_ctrl_c() -> None:
    lines = session("Ada\nBob\np\n?\nq\n")
    said = "\n".join(lines)
    assert "r: the record" in said and "p: replay" in said
    assert "s: the score" in said
    assert "Ctrl-C" in said


def test_the_computer_has_one_name_and_its_mark_is_said_once() -> None:
    config = GameConfig(player1="Ada", level=Level.HARD, computer_delay=0, save=False, seed=3)
    lines = session("x\n5\nn\ns\nq\n", config)
    game = lines[1:]  # past the first line, which says the level
    assert not any("Computer (hard)" in line for line in game), game
    assert any(line.startswith("Computer (O) takes the ") for line in game), game
    marks = [line for line in game if "Computer" in line and " O" in line and "takes O" in line]
    chose = [line for line in game if "chose" in line]
    assert len(marks) + len(chose) <= 1, game  # the computer's mark is said once


def test_no_sentence_is_said_twice_in_a_row() -> None:
    lines = session("Ada\nBob\np\nx\n7\n4\n8\n5\n9\nn\nq\n")
    assert "Ada (X) to move." not in lines  # the prompt says it: "Ada (X), your move:"
    assert "Bob chooses a mark." not in lines  # "Bob, choose X or O:" says it
    assert all(first != second for first, second in itertools.pairwise(lines))


def test_cells_are_named_one_way_everywhere() -> None:
    lines = session("Ada\nBob\np\n" + ADA_WINS + "q\n")
    assert "Ada (X) takes the top-left, 7." in lines
    assert "Ada (X) takes the top-right, 9." in lines
    assert not any("top left" in line or "top right" in line for line in lines)


def test_a_digit_outside_the_board_is_told_the_cells_are_1_to_9() -> None:
    lines = session("Ada\nBob\np\nx\n0\n12\nq\n")
    assert lines.count("0 is no cell: the cells are 1 to 9.") == 1
    assert lines.count("12 is no cell: the cells are 1 to 9.") == 1


def test_a_word_that_is_no_key_says_what_is_expected_now() -> None:
    lines = session("Ada\nBob\np\nzz\nx\nzz\nq\n")
    assert "That is no key here: x or o and Enter chooses a mark; ? lists the keys." in lines
    assert "That is no key here: a digit and Enter takes a cell; ? lists the keys." in lines


def test_the_score_is_said_after_every_match_without_asking() -> None:
    lines = session("Ada\nBob\np\n" + ADA_WINS + "n\no\n5\n1\n9\n3\n2\n8\n4\n6\n7\nq\n")
    won = lines.index("Ada (X) wins: 7, 8, 9, the top row.")
    assert lines[won + 1] == "Ada (X) 1, Bob (O) 0, draws 0; 1 match played."
    drawn = lines.index("A draw: the board is full.")
    assert lines[drawn + 1].endswith("draws 1; 2 matches played."), lines[drawn:]


def test_the_record_in_words_totals_head_to_head_and_recent_matches(tmp_path: Path) -> None:
    config = GameConfig(save=True, record_file=tmp_path / "record.sqlite3", computer_delay=0)
    session("Ada\nBob\np\n" + ADA_WINS + "q\n", config)  # an earlier session
    lines = session("Ada\nBob\np\n" + ADA_WINS + "r\nq\n", config)
    said = lines[lines.index("Ada (X) wins: 7, 8, 9, the top row.") :]
    assert "Ada: 2 wins, 0 losses, 0 draws." in said, said
    assert "Bob: 0 wins, 2 losses, 0 draws." in said
    assert "Ada against Bob: Ada 2 wins, Bob 0, draws 0." in said
    recent = [line for line in said if line.startswith(("1. ", "2. "))]
    assert len(recent) == 2 and all("Ada (X) against Bob (O): Ada won" in r for r in recent)


def test_a_replay_says_a_recorded_match_move_by_move(tmp_path: Path) -> None:
    config = GameConfig(save=True, record_file=tmp_path / "record.sqlite3", computer_delay=0)
    lines = session("Ada\nBob\np\n" + ADA_WINS + "p\np 1\np 7\nq\n", config)
    heads = [
        index
        for index, line in enumerate(lines)
        if line.startswith("Recent match 1, ") and line.endswith(": Ada (X) against Bob (O).")
    ]
    assert len(heads) == 2, lines  # p, and p 1: the last match
    start = heads[0]
    assert lines[start + 1 : start + 7] == [
        "1. Ada (X) takes the top-left, 7.",
        "2. Bob (O) takes the left, 4.",
        "3. Ada (X) takes the top, 8.",
        "4. Bob (O) takes the centre, 5.",
        "5. Ada (X) takes the top-right, 9.",
        "Ada (X) wins: 7, 8, 9, the top row.",
    ]
    assert lines[heads[1] + 1 : heads[1] + 7] == lines[start + 1 : start + 7]
    assert "The record has 1 match: p replays it." in lines


def test_with_no_save_the_record_says_so() -> None:
    lines = session("Ada\nBob\np\nr\nq\n")
    assert any("not saved" in line.lower() for line in lines), lines


@pytest.mark.parametrize("name", ["W" * 60, "山" * 40])
def test_no_line_is_longer_than_80_characters_with_long_names(tmp_path: Path, name: str) -> None:
    config = GameConfig(save=True, record_file=tmp_path / "record.sqlite3", computer_delay=0)
    lines = session(f"{name}\nZ{name}\np\n?\n" + ADA_WINS + "?\nb\ns\nr\np\nq\n", config)
    assert any(line.startswith("Recent match 1, ") for line in lines), lines


def test_a_sentence_past_a_line_is_said_on_more_lines_and_lines_keep_their_shape() -> None:
    out = io.StringIO()
    session = LineSession(io.StringIO(""), out)
    session.say("To join, paste one of these lines:\n  ssh -p 2222 CODE@192.0.2.10")
    session.say("The game record " + "/folder" * 12 + "/record.sqlite3 could not be written.")
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["To join, paste one of these lines:", "  ssh -p 2222 CODE@192.0.2.10"]
    assert lines[2] == "The game record"  # the path, too long for a line, stays whole
    assert lines[3] == "/folder" * 12 + "/record.sqlite3"


def test_a_series_the_record_does_not_keep_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the full-screen game: a series whose matches the record does not keep (a game it
    does not keep yet, the computer against itself) leaves the record as it was."""
    monkeypatch.setattr(Series, "recorded", property(lambda series: False))
    path = tmp_path / "record.sqlite3"
    config = GameConfig(save=True, record_file=path, computer_delay=0)
    lines = session("Ada\nBob\np\n" + ADA_WINS + "q\n", config)
    assert "Ada (X) wins: 7, 8, 9, the top row." in lines
    record = GameRecord(path)
    assert record.match_count() == 0
    record.close()
