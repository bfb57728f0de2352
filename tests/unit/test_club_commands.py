"""The club owner's commands, through the `tictactoe` command's own entry: `tictactoe club
ladder | ban | unban | players`."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import pytest

from tictactoe.cli import main
from tictactoe.core.engine import Mark
from tictactoe.core.series import Player
from tictactoe.record.club import ClubRecord, club_path
from tictactoe.record.match import MatchRecord

NOW = time.time()


def key(number: int) -> str:
    blob = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + number.to_bytes(32, "big")
    return f"ssh-ed25519 {base64.b64encode(blob).decode()} owner@club"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A club folder where ada beat bob once and cy never played."""
    club = ClubRecord(club_path(tmp_path))
    for number, handle in enumerate(("ada", "bob", "cy"), 1):
        assert club.enter(handle, key(number), "10.0.0.1", NOW).refusal is None
    word = club.key_word("ada", NOW)
    assert club.enter(f"ada+{word}", key(9), "10.0.0.1", NOW).refusal is None
    match = MatchRecord((Player("ada"), Player("bob")), (Mark.X, Mark.O), 0, (0, 3, 1, 4, 2), 0)
    club.finish("t1", ("ada", "bob"), True, match, NOW)
    club.close()
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = main(["club", *argv])
    except SystemExit as leaving:  # argparse
        status = int(leaving.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_the_ladder_in_aligned_columns(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "ladder", "--data", str(data))
    assert status == 0 and err == ""
    heading, first, second = out.splitlines()
    assert heading.split() == ["Rank", "Handle", "Rating", "Matches", "Wins", "Draws", "Losses"]
    assert first.split()[:2] == ["1", "ada"] and first.split()[-4:] == ["1", "1", "0", "0"]
    assert second.split()[:2] == ["2", "bob"] and second.split()[-4:] == ["1", "0", "0", "1"]
    assert "±" in first and len({len(heading), len(first), len(second)}) == 1, "aligned"


def test_the_ladder_as_json(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "ladder", "--json", "--data", str(data))
    rows = json.loads(out)
    assert status == 0 and [row["handle"] for row in rows] == ["ada", "bob"]
    assert rows[0]["wins"] == 1 and rows[1]["losses"] == 1 and rows[0]["rank"] == 1
    assert rows[0]["points"] > rows[1]["points"] and " ± " in rows[0]["rating"]


def test_an_empty_ladder_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ClubRecord(club_path(tmp_path)).close()
    assert run(capsys, "ladder", "--data", str(tmp_path))[1] == (
        "Nobody has played a rated Classic match yet.\n"
    )
    assert json.loads(run(capsys, "ladder", "--json", "--data", str(tmp_path))[1]) == []


def test_players_with_every_key_and_when_last_seen(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "players", "--data", str(data))
    lines = out.splitlines()
    assert status == 0 and lines[0].split() == ["Handle", "Last", "seen", "Keys"]
    second_key = lines[2].split()
    assert len(second_key) == 1 and second_key[0].startswith("SHA256:")
    assert [lines[1].split()[0], lines[3].split()[0], lines[4].split()[0]] == ["ada", "bob", "cy"]
    assert lines[1].index("SHA256:") == lines[2].index("SHA256:"), "a second key under the first"
    assert "UTC" in lines[1]
    (ada, *_) = json.loads(run(capsys, "players", "--json", "--data", str(data))[1])
    assert ada["handle"] == "ada" and len(ada["fingerprints"]) == 2


def test_ban_for_a_while_then_unban(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "ban", "BOB", "--for", "2h", "--data", str(data))
    assert status == 0 and out.startswith("bob is banned until ") and out.endswith(" UTC.\n")
    club = ClubRecord(club_path(data))
    until = club.banned_until("bob", time.time())
    assert until is not None and 2 * 3600 - 60 < until - time.time() <= 2 * 3600
    refusal = club.enter("bob", key(2), "10.0.0.2", time.time()).refusal
    assert refusal is not None and refusal == out.strip()
    club.close()

    assert run(capsys, "unban", "bob", "--data", str(data))[:2] == (0, "bob may come in again.\n")
    assert run(capsys, "unban", "bob", "--data", str(data))[:2] == (0, "bob was not banned.\n")


def test_ban_for_ever(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "ban", "cy", "--data", str(data))[:2] == (0, "cy is banned for ever.\n")
    club = ClubRecord(club_path(data))
    assert club.enter("cy", key(3), "10.0.0.3", time.time() + 10**8).refusal == (
        "cy is banned for ever."
    )
    club.close()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("ban", "zed"), "No player is called zed."),
        (("unban", "zed"), "No player is called zed."),
        (("ban", "ada", "--for", "soon"), "is not a length of time"),
        (("ban",), "tictactoe club ban: give the handle, as in tictactoe club ban HANDLE."),
        (("ladder", "--bogus"), "--bogus is not one of its arguments"),
        (("bogus",), "bogus is not one of its commands (tictactoe club --help lists them)."),
    ],
)
def test_bad_arguments_say_so_in_one_sentence_with_status_2(
    data: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], said: str
) -> None:
    status, out, err = run(capsys, *argv, "--data", str(data))
    assert status == 2 and out == "" and said in err and "Traceback" not in err
    assert err.count("\n") == 1 and "usage" not in err  # one sentence, never argparse's usage


def test_the_club_s_options_before_a_command_s_name_are_refused_in_one_sentence(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "--data", str(data), "ladder")
    assert status == 2 and out == ""
    assert err == (
        "tictactoe club: the options of club ladder go after its name"
        " (tictactoe club ladder --help).\n"
    )


def test_a_folder_without_a_club_is_said_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, "players", "--data", str(tmp_path / "nowhere"))
    assert status == 2 and "there is no club in" in err and err.count("\n") == 1
    assert not (tmp_path / "nowhere").exists()


def test_a_damaged_club_file_is_kept_aside_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    club_path(tmp_path).write_text("x" * 100)  # not a database
    status, out, err = run(capsys, "ladder", "--data", str(tmp_path))
    assert status == 0 and "was damaged" in err and "kept as" in err
    assert out == "Nobody has played a rated Classic match yet.\n"
