"""The club's files are its owner's alone, and the owner's commands refuse in one sentence.

The club's record (`club.sqlite3`, its `-wal` and `-shm`) is read and written by its owner only
(0600), as its log and host key are, whatever the umask, and also when an earlier version left
it readable by others. Each owner's command is the real one (`python -m tictactoe club …`):
a bad argument is one sentence on stderr and status 2, never argparse's usage block.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from tictactoe.record.club import ClubRecord

WAIT = 60.0

KEY = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().strip()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """Files made meanwhile would be readable and writable by everyone, but for the club."""
    before = os.umask(0)
    try:
        yield
    finally:
        os.umask(before)


def made_club(folder: Path) -> None:
    """A club's file in `folder`, with a player (Ada) in it."""
    record = ClubRecord(folder / "club.sqlite3")
    try:
        entry = record.enter("ada", KEY, "127.0.0.1", 1_000_000.0)
        assert entry.refusal is None, entry.refusal
    finally:
        record.close()


@pytest.mark.usefixtures("open_umask")
def test_the_club_file_and_its_companions_are_the_owner_s_alone(tmp_path: Path) -> None:
    path = tmp_path / "club.sqlite3"
    record = ClubRecord(path)
    try:
        assert record.enter("ada", KEY, "127.0.0.1", 1_000_000.0).refusal is None
        files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
        assert all(file.exists() for file in files), sorted(p.name for p in tmp_path.iterdir())
        assert {file.name: oct(mode(file)) for file in files} == {
            file.name: oct(0o600) for file in files
        }
    finally:
        record.close()


@pytest.mark.usefixtures("open_umask")
def test_a_club_file_readable_by_others_is_made_private_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "club.sqlite3"
    ClubRecord(path).close()
    for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        file.touch()
        file.chmod(0o644)  # as an earlier version left them
    record = ClubRecord(path)
    try:
        assert record.enter("ada", KEY, "127.0.0.1", 1_000_000.0).refusal is None
        for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            assert mode(file) == 0o600, file.name
    finally:
        record.close()


def owner(folder: Path, *command: str) -> subprocess.CompletedProcess[str]:
    """`tictactoe club COMMAND … --data FOLDER`, as the owner types it."""
    argv = [sys.executable, "-m", "tictactoe", "club", *command, "--data", str(folder)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=WAIT, check=False)


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (("ban",), "tictactoe club ban: give the handle, as in"),
        (("ban", "ada", "--for", "-1h"), "'-1h' is not a length of time"),
        (("ban", "ada", "--for", "3x"), "'3x' is not a length of time"),
        (("ban", "ada", "--for"), "after --for, give a length of time"),
        (("unban",), "tictactoe club unban: give the handle, as in"),
        (("ladder", "--jsn"), "--jsn is not one of"),
        (("players", "extra"), "extra is not one of"),
    ],
)
def test_an_owner_s_bad_argument_is_one_sentence_and_status_2(
    tmp_path: Path, command: tuple[str, ...], said: str
) -> None:
    made_club(tmp_path)
    done = owner(tmp_path, *command)
    assert done.returncode == 2, done
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr  # no usage block
    assert said in lines[0]
    assert "usage" not in done.stderr
    assert lines[0].endswith("."), lines[0]
    assert lines[0].count(". ") == 0, lines[0]  # one sentence


def test_a_good_ban_still_bans(tmp_path: Path) -> None:
    made_club(tmp_path)
    done = owner(tmp_path, "ban", "ada", "--for", "2d")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ada is banned until ")
    assert owner(tmp_path, "unban", "ada").stdout == "ada may come in again.\n"
