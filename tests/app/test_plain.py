"""`tictactoe --plain` as a person at a screen reader uses it: the real command, a line at a time.

Lines typed all at once are type-ahead; the output is read whole. Nothing here is drawn: the
output must hold no escape sequence at all, and every line must be short enough for one line of
a braille display.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.test_process import Terminal
from app.test_stray_bytes import play, rss_of_tree, shown
from tictactoe.core.narration import LINE
from tictactoe.record import GameRecord

pytestmark = pytest.mark.slow  # the game as a real process

HOT_SEAT = ("--player1", "Ada", "--player2", "Bob", "--no-save")


def plain(
    *args: str, typed: str, env: dict[str, str] | None = None, flag: bool = True
) -> tuple[str, int]:
    """Run `tictactoe --plain ARGS` (without `flag`, no --plain: the setting chooses) with
    `typed` as its input: its output and exit status."""
    done = subprocess.run(
        [sys.executable, "-m", "tictactoe", *(["--plain"] if flag else []), *args],
        input=typed,
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    assert done.stderr == "", done.stderr
    return done.stdout, done.returncode


def test_a_match_in_sentences_typed_ahead_in_one_go() -> None:
    said, status = plain(*HOT_SEAT, typed="x\n7\n4\n8\n5\n9\nb\ns\nq\n")
    lines = said.splitlines()
    assert "Ada, choose X or O:" in lines
    assert "Ada (X) takes the top-left, 7." in lines
    assert "Bob (O) takes the left, 4." in lines
    assert "Ada (X) wins: 7, 8, 9, the top row." in lines
    assert "Ada (X) 1, Bob (O) 0, draws 0; 1 match played." in lines
    assert "Final score" in lines and status == 0
    assert "\x1b" not in said and all(len(line) <= LINE for line in lines)


def test_wrong_input_gets_one_sentence_and_the_question_again() -> None:
    said, _ = plain(*HOT_SEAT, typed="5\nzz\n\xe9\x1b[31m\nx\n5\n5\nq\n")
    lines = said.splitlines()
    assert "Moving has to wait: Ada is choosing a mark." in lines
    wrong = "That is no key here: x or o and Enter chooses a mark; ? lists the keys."
    assert lines.count(wrong) == 2
    assert "Ada (X) takes the centre, 5." in lines
    assert any("is taken" in line for line in lines)  # the second 5: said, not played
    assert "\x1b" not in said


def test_the_computer_s_move_is_announced_the_moment_it_lands() -> None:
    command = ["--plain", "--player1", "Ada", "--level", "hard", "--delay", "0", "--no-save"]
    process = subprocess.Popen(
        [sys.executable, "-m", "tictactoe", *command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("x\n5\n")
    process.stdin.flush()
    said: list[str] = []
    while not (line := process.stdout.readline()).startswith("Computer (O) takes the "):
        assert line, said  # the computer's move is said without another line typed
        said.append(line)
    process.stdin.write("q\n")
    process.stdin.close()
    assert process.wait(20) == 0
    assert "Computer (O) is thinking.\n" in said


def test_a_finished_match_is_in_the_record(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    _, status = plain(
        *("--player1", "Ada", "--player2", "Bob", "--record", str(path)),
        typed="x\n7\n4\n8\n5\n9\nq\n",
    )
    assert status == 0
    record = GameRecord(path)
    totals = {row.player.name: (row.wins, row.losses) for row in record.players(limit=5)}
    record.close()
    assert totals == {"Ada": (1, 0), "Bob": (0, 1)}


def in_a_terminal(args: list[str], typed: bytes, until: bytes, env: dict[str, str]) -> bytes:
    """Run `tictactoe ARGS` in a pseudo-terminal, `typed` sent at once (type-ahead, Enter as
    a terminal sends it); `q` once `until` is written; all it wrote. It leaves with status 0."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "tictactoe", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    seen = b""
    try:
        os.write(master, typed)
        deadline = time.monotonic() + 20
        while until not in seen and time.monotonic() < deadline:
            if select.select([master], [], [], 0.1)[0]:
                seen += os.read(master, 65536)
        os.write(master, b"q\r")
        assert process.wait(20) == 0
        while select.select([master], [], [], 0.2)[0]:
            try:
                seen += os.read(master, 65536)
            except OSError:
                break
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    return seen


def test_a_dumb_terminal_gets_the_line_view_and_never_an_escape_sequence() -> None:
    environment = dict(os.environ, TERM="dumb")
    burst = b"x\r7\r4\r8\r5\r9\r"  # a whole match typed ahead, as one write: the score follows
    seen = in_a_terminal([*HOT_SEAT], burst, b"match played.", environment)
    lines = [line.strip() for line in seen.decode().splitlines()]
    said = [
        "Ada (X) takes the top-left, 7.",
        "Bob (O) takes the left, 4.",
        "Ada (X) takes the top, 8.",
        "Bob (O) takes the centre, 5.",
        "Ada (X) takes the top-right, 9.",
        "Ada (X) wins: 7, 8, 9, the top row.",
        "Ada (X) 1, Bob (O) 0, draws 0; 1 match played.",
        "Final score",
    ]
    assert [line for line in lines if line in said] == said  # in the order typed
    assert b"\x1b" not in seen, seen
    assert all(len(line) <= LINE for line in lines)


def test_a_whole_match_against_hard_in_a_terminal_says_how_it_ended() -> None:
    args = ["--plain", "--player1", "Ada", "--level", "hard", "--delay", "0", "--no-save"]
    typed = b"x\r5\r1\r3\r4\r6\r8\r2\r7\r9\r"  # every cell: those taken are refused
    seen = in_a_terminal(args, typed, b"n and Enter: next match", dict(os.environ))
    lines = [line.strip() for line in seen.decode().splitlines()]
    assert "Ada (X) takes the centre, 5." in lines
    assert any(line.startswith("Computer (O) takes the ") for line in lines)
    ended = [line for line in lines if " wins: " in line or "draw" in line.lower()]
    assert ended and not any(line.startswith("Ada (X) wins") for line in lines)  # hard loses not
    assert "Final score" in lines
    assert b"\x1b" not in seen, seen


def test_the_line_mode_is_a_setting_kept_until_f_turns_it_off(tmp_path: Path) -> None:
    settings = tmp_path / "config" / "tictactoe" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"version": 1, "plain": True}))
    environment = dict(
        os.environ,
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        TERM="xterm-256color",
    )
    args = ("--player1", "Ada", "--player2", "Bob")  # no --plain: the setting chooses it
    said, status = plain(*args, typed="?\nf\nq\n", env=environment, flag=False)
    assert status == 0 and "\x1b" not in said
    assert "f: the full screen from the next start." in said.splitlines()
    assert "The next game starts on the full screen." in said.splitlines()
    assert json.loads(settings.read_text())["plain"] is False


def test_a_flood_of_lines_is_held_back_in_the_terminal_not_queued_in_the_game() -> None:
    """Lines pasted faster than the game answers them, its answers not read (as a client that
    floods and never reads): the game reads no more than it can answer soon, the rest waits in
    the terminal (19 MiB of lines used to be read and queued as they came: the game grew from 26
    to 577 MiB). Then the move typed counts."""
    game = Terminal("--plain", *HOT_SEAT)
    shown(game, "Ada, choose X or O:")
    play(game, b"x\r", then="Ada (X), your move:")
    time.sleep(0.3)
    before = rss_of_tree(game.pid)
    os.set_blocking(game.fd, False)  # as fast as the terminal takes them, for 4 s
    deadline = time.monotonic() + 4
    while time.monotonic() < deadline:
        with contextlib.suppress(BlockingIOError):
            os.write(game.fd, b"hello there\r" * 5000)
        time.sleep(0.001)
    os.set_blocking(game.fd, True)
    grown = rss_of_tree(game.pid) - before
    assert game.status(block=False) is None, "the game ended"
    assert grown < 30 * 1024 * 1024, f"the game grew by {grown / 2**20:.0f} MiB"
    os.write(game.fd, b"\r")  # the end of the line the flood stopped in
    game.drain()
    play(game, b"5\r", then="Ada (X) takes the centre, 5.")
    os.write(game.fd, b"q\r")
    assert game.finish() == 0


@contextlib.contextmanager
def ended_on_failure(game: Terminal) -> Iterator[Terminal]:
    """`game`, killed if the test fails while it runs (nobody would type its `q`)."""
    try:
        yield game
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.kill(game.pid, signal.SIGKILL)
        raise


def said_lines(game: Terminal) -> list[str]:
    """What the game wrote to its terminal (the typed lines echoed too), line by line."""
    return [line.rstrip("\r") for line in game.output.decode(errors="replace").split("\n")]


def play_through(game: Terminal, steps: tuple[tuple[bytes, str], ...]) -> None:
    """Type each step's lines at once, then wait for what the step is answered with; all the
    game said is kept in `game.output`."""
    said = b""
    for typed, then in steps:
        game.output = b""
        os.write(game.fd, typed)
        shown(game, then)
        said += game.output
    game.output = said


def test_ctrl_c_leaves_the_line_mode_with_status_130_and_the_final_score() -> None:
    with ended_on_failure(Terminal("--plain", *HOT_SEAT)) as game:
        shown(game, "Ada, choose X or O:")
        os.write(game.fd, b"?\r")
        shown(game, "Ctrl-C quits too, with status 130")  # `?` says so
        os.write(game.fd, b"x\r5\r")
        shown(game, "Ada (X) takes the centre, 5.")
        os.write(game.fd, b"\x03")
    assert game.finish() == 130
    assert b"Final score" in game.output and b"\x1b" not in game.output


def test_a_record_that_cannot_be_written_is_said_when_it_happens(tmp_path: Path) -> None:
    """Another program holds the record's write lock: the game says so once the match it could
    not write has ended, not only at quit; once the lock is let go, the match is written."""
    import sqlite3

    path = tmp_path / "record.sqlite3"
    GameRecord(path).finish()  # the file made, as a game before this one left it
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    game = Terminal("--plain", "--player1", "Ada", "--player2", "Bob", "--record", str(path))
    try:
        shown(game, "Ada, choose X or O:")
        os.write(game.fd, b"x\r7\r4\r8\r5\r9\r")
        shown(game, "1 finished match is kept")
        assert "Final score" not in game.output.decode(errors="replace")  # while playing
    except BaseException:
        os.kill(game.pid, signal.SIGKILL)
        raise
    finally:
        holder.rollback()
        holder.close()
    os.write(game.fd, b"q\r")
    assert game.finish() == 0
    record = GameRecord(path)
    assert record.match_count() == 1
    record.close()


def test_a_whole_blind_session_names_a_match_the_score_the_record_and_a_replay(
    tmp_path: Path,
) -> None:
    """As the README's transcript: everything asked and said in words, in the order typed."""
    path = tmp_path / "record.sqlite3"
    game = Terminal("--plain", "--record", str(path), "--delay", "0")
    with ended_on_failure(game):
        play_through(
            game,
            (
                (b"Ada\r", "Player 2's name (Enter: Player 2):"),
                (b"Bob\r", "Against whom?"),
                (b"Bob\r", "Bob is no answer here: type p, e, m or h and Enter."),
                (b"p\r", "Ada, choose X or O:"),
                (b"x\r7\r4\r8\r5\r9\r", "Ada (X) 1, Bob (O) 0, draws 0; 1 match played."),
                (b"r\r", "1. Ada (X) against Bob (O): Ada won in 5 moves."),
                (b"p\r", "Ada (X) wins: 7, 8, 9, the top row."),
            ),
        )
    os.write(game.fd, b"q\r")
    assert game.finish() == 0
    lines = said_lines(game)
    replay = lines[lines.index("5. Ada (X) takes the top-right, 9.") - 5 :]
    assert replay[0].startswith("Recent match 1, "), replay
    assert replay[1] == "1. Ada (X) takes the top-left, 7."
    assert b"\x1b" not in game.output
    assert all(len(line) <= LINE for line in lines), [line for line in lines if len(line) > LINE]


def test_ultimate_against_hard_the_hint_its_move_and_q_during_its_search() -> None:
    """Ultimate in a terminal against the hard computer: two digits a move, the hint's estimate,
    the computer's move said as it lands, the hinted move typed; `q` typed as the computer
    starts its next search leaves, with the final score and status 0, and never an escape."""
    args = ("--plain", "--variant", "ultimate", "--player1", "Ada", "--level", "hard")
    with ended_on_failure(Terminal(*args, "--delay", "0", "--no-save")) as game:
        shown(game, "Ada, choose X or O:")
        play_through(
            game,
            (
                (b"x\r", "Ada (X), your move:"),
                (b"55\r", "Ada (X), your move:"),  # asked again after the computer's move
                (b"h\r", "Hint: "),
            ),
        )
        lines = said_lines(game)
        assert "Ada (X) takes the centre of the centre board, 5 5." in lines
        assert any(line.startswith("Computer (O) takes the ") for line in lines), lines
        hint = next(line for line in lines if line.startswith("Hint: "))
        keys = hint.removeprefix("Hint: ").split(".")[0]
        assert re.fullmatch(r"[1-9] [1-9]", keys), hint
        assert hint.endswith(("favoured.", "Even.", "best play.")), hint
        play_through(game, ((keys.encode() + b"\r", "Computer (O) is thinking."),))
        os.write(game.fd, b"q\r")
    assert game.finish() == 0
    assert b"Final score" in game.output and b"\x1b" not in game.output
