"""The record and its files as a player meets them: the real game, in a pseudo-terminal.

Each failure of the old statistics file has a test here that plays the game the way
a person would, through the deprecated `--stats-file` where the old game could be
run the same way, and reads what reached the terminal and the disk.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import tictactoe.cli as cli
import tictactoe.tui.app
from limits import EVENT_LIMIT
from online.test_end_to_end import words
from tictactoe import options, report
from tictactoe.config import GameConfig
from tictactoe.core.engine import Mark
from tictactoe.core.series import Player, Series
from tictactoe.record import SCHEMA_VERSION, GameRecord, MatchRecord
from tictactoe.tui.app import TicTacToeApp

pty = pytest.importorskip("pty")
resource = pytest.importorskip("resource")

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"
ADA_WINS = (b"x", b"7", b"4", b"8", b"5", b"9")
"""Ada takes X and the top row (numpad digits) while Bob takes two of the middle row."""


class Game:
    """`python -m tictactoe` in a pseudo-terminal; `prepare` runs in the child before it starts."""

    def __init__(self, *args: str, prepare: Callable[[], None] | None = None) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the game
            os.environ["TERM"] = "xterm-256color"
            if prepare is not None:
                prepare()
            os.execv(sys.executable, [sys.executable, "-m", "tictactoe", *args])
        self.output = b""

    def read_until(self, *texts: bytes, timeout: float = EVENT_LIMIT) -> None:
        """Read until any of `texts` has appeared."""
        self.until(lambda: any(text in self.output for text in texts), f"any of {texts!r}", timeout)

    def until(self, condition: Callable[[], bool], what: str, timeout: float = EVENT_LIMIT) -> None:
        """Read until `condition` holds; past `timeout`, say what the screen showed."""
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, (
                f"{what} did not appear; the end of the screen: {words(self.output)[-1500:]!r}"
            )
            if select.select([self.fd], [], [], 0.05)[0]:
                try:
                    self.output += os.read(self.fd, 65536)
                except OSError:
                    raise AssertionError(
                        f"the game ended before {what}; the end of the screen:"
                        f" {words(self.output)[-1500:]!r}"
                    ) from None

    def type(self, *keys: bytes) -> None:
        for key in keys:
            os.write(self.fd, key)
            time.sleep(0.15)

    def settle(self, seconds: float = 1.0) -> None:
        """Read whatever arrives for a while: to see what must not be drawn, once what must be
        drawn has been."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if select.select([self.fd], [], [], 0.05)[0]:
                self.output += os.read(self.fd, 65536)

    def finish(self, timeout: float = EVENT_LIMIT) -> int:
        """Read to the end; the exit status (a test failure if the game is still running)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not select.select([self.fd], [], [], 0.1)[0]:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            self.output += chunk
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        if not pid:  # its terminal still open: give the game the rest of the limit to leave
            while not pid and time.monotonic() < deadline:
                time.sleep(0.05)
                pid, status = os.waitpid(self.pid, os.WNOHANG)
        if not pid:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            raise AssertionError(
                f"still running {timeout:.0f} s later, and killed; the end of the screen:"
                f" {words(self.output)[-1500:]!r}"
            )
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)

    @property
    def after_the_screen(self) -> bytes:
        """What was printed once the full-screen display had closed."""
        return self.output.rsplit(LEAVE_ALTERNATE_SCREEN, 1)[-1]


def old_stats(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def record_screen_over(stats: Path, *, showing: bytes) -> Game:
    """A game started on `stats`: `s` opens the record until it shows `showing`, then
    Escape closes it and `q` quits (with status 0). The terminal's bytes are in `output`."""
    game = Game("--player1", "Ada", "--player2", "Bob", "--stats-file", str(stats))
    game.read_until(b"choose your mark")
    game.type(b"x", b"s")
    game.read_until(showing)
    game.settle()
    game.type(b"\x1b", b"q")
    assert game.finish() == 0
    return game


ENTRY = '{"wins": 1, "losses": 0, "draws": 0}'


# Start-up refuses a path that can never hold the record.


def refusal(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tictactoe", "--player1", "Ada", "--player2", "Bob", *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


@pytest.mark.parametrize(
    ("where", "said"),
    [
        ("/", "/ is a folder; the record needs the path of a file."),
        ("", "--record needs the path of a file, not an empty string."),
        ("{tmp}", "{tmp} is a folder; the record needs the path of a file."),
        ("{tmp}/notes.txt/record.sqlite3", "{tmp}/notes.txt/record.sqlite3 cannot be made"),
        ("{tmp}/notes.txt/deeper/r.sqlite3", "{tmp}/notes.txt is a file, not a folder."),
    ],
    ids=["root", "empty", "a folder", "inside a file", "deeper inside a file"],
)
def test_a_record_path_that_can_never_work_is_refused_in_one_sentence(
    tmp_path: Path, where: str, said: str
) -> None:
    (tmp_path / "notes.txt").write_text("not a folder", encoding="utf-8")
    result = refusal("--record", where.format(tmp=tmp_path))

    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("tictactoe: error: ")
    assert said.format(tmp=tmp_path) in line
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "not a folder"


def a_device(path: Path) -> Path:
    """A character device node at `path` (the same device as /dev/null), where that is allowed."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except OSError as error:  # not root, or a file system without devices
        pytest.skip(f"no device node can be made here ({error.strerror})")
    return path


def a_pipe(path: Path) -> Path:
    os.mkfifo(path)
    return path


def a_link_to_a_device(path: Path) -> Path:
    path.symlink_to(a_device(path.with_name("node")))
    return path


@pytest.mark.parametrize(
    "make",
    [
        a_device,
        a_pipe,
        a_link_to_a_device,
        lambda path: Path("/dev/null"),
        lambda path: Path("/dev/zero"),
    ],
    ids=["a device node", "a named pipe", "a link to a device", "/dev/null", "/dev/zero"],
)
def test_a_record_path_that_is_not_a_regular_file_is_refused_in_one_sentence(
    tmp_path: Path, make: Callable[[Path], Path]
) -> None:
    path = make(tmp_path / "record.sqlite3")
    result = refusal("--record", str(path))

    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line == (
        f"tictactoe: error: {path} is not a regular file;"
        " the record needs the path of a file (or of a link to one)."
    )
    assert {entry.name for entry in tmp_path.iterdir()} <= {"record.sqlite3", "node"}


def a_loop(path: Path) -> Path:
    """`ln -s b a; ln -s a b`: links that lead to each other."""
    other = path.with_name("b")
    path.symlink_to(other)
    other.symlink_to(path)
    return path


def a_link_to_a_missing_folder(path: Path) -> Path:
    path.symlink_to(path.with_name("gone") / "record.sqlite3")
    return path


def in_a_link_to_a_missing_folder(path: Path) -> Path:
    folder = path.with_name("linked")
    folder.symlink_to(path.with_name("gone"))
    return folder / "record.sqlite3"


def in_a_loop(path: Path) -> Path:
    return a_loop(path.with_name("a")) / "record.sqlite3"


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (a_loop, "{path} is a loop of symbolic links; the record needs the path of a file."),
        (in_a_loop, "{path} is a loop of symbolic links; the record needs the path of a file."),
        (
            a_link_to_a_missing_folder,
            "{path} leads through a symbolic link to {tmp}/gone, a folder that does not exist.",
        ),
        (
            in_a_link_to_a_missing_folder,
            "{path} leads through a symbolic link to {tmp}/gone, a folder that does not exist.",
        ),
    ],
    ids=["a loop", "inside a loop", "a link to a missing folder", "in a link to a missing folder"],
)
def test_a_record_path_through_a_broken_link_is_refused_in_one_sentence(
    tmp_path: Path, make: Callable[[Path], Path], said: str
) -> None:
    path = make(tmp_path / "record.sqlite3")
    before = sorted(entry.name for entry in tmp_path.iterdir())
    result = refusal("--record", str(path))

    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line == f"tictactoe: error: {said.format(path=path, tmp=tmp_path)}"
    assert sorted(entry.name for entry in tmp_path.iterdir()) == before


def keep_a_match(path: Path) -> None:
    record = GameRecord(path)
    record.add(MatchRecord((Player("Ada"), Player("Bob")), (Mark.X, Mark.O), 0, (0, 3, 1, 4, 2), 0))
    record.finish()


def another_programs_database(path: Path, *, version: int = 0, wal: bool = False) -> Path:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    db.execute("INSERT INTO notes (body) VALUES ('buy milk')")
    db.execute(f"PRAGMA user_version = {version}")
    if wal:
        db.execute("PRAGMA journal_mode = WAL")
    db.commit()
    db.close()
    return path


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (another_programs_database, "is a database of some other program"),
        (lambda path: another_programs_database(path, wal=True), "some other program"),
        (
            lambda path: another_programs_database(path, version=-1),
            "some other program",
        ),
    ],
    ids=["another program's", "another program's in WAL mode", "another program's, version -1"],
)
def test_a_database_that_is_not_the_games_is_refused_at_start_in_one_sentence(
    tmp_path: Path, make: Callable[[Path], Path], said: str
) -> None:
    path = make(tmp_path / "notes.db")
    before = path.read_bytes()
    result = refusal("--record", str(path))

    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"tictactoe: error: {path} ") and said in line, line
    assert line.endswith(".") and line.count(". ") == 0, line
    assert path.read_bytes() == before
    assert [file.name for file in tmp_path.iterdir()] == ["notes.db"]  # no journal, -wal, -shm


def test_a_newer_versions_record_is_refused_at_start_in_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    keep_a_match(path)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    result = refusal("--record", str(path))

    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"tictactoe: error: {path} was written by a newer version"), line


def test_the_games_own_record_and_a_new_file_are_taken_at_start(tmp_path: Path) -> None:
    ours = tmp_path / "record.sqlite3"
    keep_a_match(ours)
    for path in (ours, tmp_path / "new.sqlite3", tmp_path / "empty.sqlite3"):
        if path.name == "empty.sqlite3":
            path.touch()
        config = options.parse_config(["--record", str(path), "--player1", "Ada"])
        assert config.record_file == path


def test_the_old_option_is_checked_the_same_way(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a folder", encoding="utf-8")
    result = refusal("--stats-file", str(tmp_path / "notes.txt" / "stats.json"))
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert "is a file, not a folder" in line


def test_the_record_option_is_in_the_help_and_the_old_one_is_not() -> None:
    text = options.build_parser().format_help()
    assert "--record PATH" in text
    assert "--stats-file" not in text


def test_the_options_choose_where_things_are_kept(tmp_path: Path) -> None:
    chosen = options.parse_config(["--record", str(tmp_path / "r.sqlite3")])
    assert chosen.record_path() == tmp_path / "r.sqlite3"
    assert chosen.legacy_path() is None, "--record touches no other file in its folder"
    old = options.parse_config(["--stats-file", str(tmp_path / "scores.json")])
    assert old.record_path() == tmp_path / "record.sqlite3"
    assert old.legacy_path() == tmp_path / "scores.json"
    nothing = options.parse_config(["--no-save", "--record", str(tmp_path / "r.sqlite3")])
    assert (nothing.record_path(), nothing.legacy_path(), nothing.settings_path()) == (None,) * 3
    default = options.parse_config([])
    record, settings = default.record_path(), default.settings_path()
    assert record is not None and settings is not None
    assert record.name == "record.sqlite3" and settings.name == "settings.json"
    assert settings.parent != record.parent, "configuration is not kept with the record"


# The failures of the old statistics file, one by one.


def test_escape_sequences_in_a_stored_name_never_reach_the_terminal(tmp_path: Path) -> None:
    hostile = "Eve\\u001b[41mRED\\u001b[0m\\u001b]2;PWNED\\u0007x"
    stats = old_stats(
        tmp_path / "stats.json",
        '{"version": 1, "players": {"' + hostile + '": ' + ENTRY + ', "Zed": ' + ENTRY + "}}",
    )
    game = record_screen_over(stats, showing=b"Zed")
    assert b"\x1b]2;PWNED" not in game.output, "the terminal's title was changed"
    assert b"\x1b[41mRED" not in game.output, "a colour leaked"
    assert b"\x07x" not in game.output


def test_settings_never_go_beside_the_record(tmp_path: Path) -> None:
    someone_elses = b'{"editor": "vim", "fontsize": 12}\n'
    (tmp_path / "settings.json").write_bytes(someone_elses)
    stats = tmp_path / "scores.json"
    game = Game("--player1", "Ada", "--player2", "Bob", "--stats-file", str(stats))
    game.read_until(b"choose your mark")
    game.type(*ADA_WINS)
    game.read_until(b"Ada wins!")
    game.type(b"q")
    assert game.finish() == 0

    assert (tmp_path / "settings.json").read_bytes() == someone_elses
    assert not list(tmp_path.glob("settings.json.*"))
    kept = {path.name for path in tmp_path.iterdir()}
    assert "record.sqlite3" in kept
    assert kept <= {"settings.json", "record.sqlite3", "record.sqlite3-wal", "record.sqlite3-shm"}


@pytest.mark.parametrize(
    "entry",
    ['"\\ud800": ' + ENTRY, '"Ada": {"wins": ' + "9" * 4300 + ', "losses": 1, "draws": 0}'],
    ids=["a lone surrogate", "a 4,300-digit count"],
)
def test_hostile_content_in_the_old_file_never_crashes_a_match_end(
    tmp_path: Path, entry: str
) -> None:
    stats = old_stats(tmp_path / "stats.json", '{"version": 1, "players": {' + entry + "}}")
    game = Game("--player1", "Ada", "--player2", "Bob", "--stats-file", str(stats))
    game.read_until(b"choose your mark")
    game.type(*ADA_WINS)
    game.read_until(b"Ada wins!")
    game.type(b"n", b"o")
    game.read_until(b"Bob (O) to move")
    game.type(b"s")
    game.read_until(b"Game record")
    game.type(b"\x1b", b"q")

    assert game.finish() == 0
    assert b"unexpected error" not in game.output
    assert b"Final score" in game.after_the_screen


def test_a_duplicate_players_key_drops_no_records(tmp_path: Path) -> None:
    stats = old_stats(
        tmp_path / "stats.json",
        '{"version": 1, "players": {"Zed": ' + ENTRY + '}, "players": {"Yul": ' + ENTRY + "}}",
    )
    game = record_screen_over(stats, showing=b"Yul")
    assert b"Zed" in game.output


def test_a_symlinked_record_is_followed_and_stays_a_link(tmp_path: Path) -> None:
    target = tmp_path / "synced" / "record.sqlite3"
    target.parent.mkdir()
    link = tmp_path / "record.sqlite3"
    link.symlink_to(target)
    game = Game("--player1", "Ada", "--player2", "Bob", "--record", str(link))
    game.read_until(b"choose your mark")
    game.type(*ADA_WINS)
    game.read_until(b"Ada wins!")
    game.type(b"q")
    assert game.finish() == 0

    assert link.is_symlink() and link.resolve() == target.resolve()
    assert {path.name for path in tmp_path.iterdir()} == {"synced", "record.sqlite3"}
    assert [(row.player.name, row.wins) for row in GameRecord(target).players()] == [
        ("Ada", 1),
        ("Bob", 0),
    ]


def no_room_for_files() -> None:
    """In the child: every write to a file fails, as on a full disk."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))


def test_results_that_could_not_be_saved_are_counted_at_quit(tmp_path: Path) -> None:
    stats = tmp_path / "stats.json"
    game = Game(
        "--player1",
        "Ada",
        "--player2",
        "Bob",
        "--stats-file",
        str(stats),
        prepare=no_room_for_files,
    )
    game.read_until(b"choose your mark")
    game.type(*ADA_WINS)
    game.read_until(b"Ada wins!")
    game.type(b"n", b"o", b"5", b"7", b"4", b"8", b"6")
    game.read_until(b"Bob wins!")
    game.type(b"q")

    assert game.finish() == 3  # finished matches lost: a script can tell
    said = game.after_the_screen.decode()
    assert "Final score" in said
    assert "2 finished matches could not be saved" in said
    assert str(tmp_path / "record.sqlite3") in said


def test_a_lock_still_held_at_quit_leaves_status_3(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    keep_a_match(path)  # the game's own record, with a match in it
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another program's write lock, held throughout
    try:
        game = Game("--player1", "Ada", "--player2", "Bob", "--record", str(path))
        game.read_until(b"choose your mark")
        game.type(*ADA_WINS)
        game.read_until(b"Ada wins!")
        game.type(b"q")
        status = game.finish()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    said = game.after_the_screen.decode()
    assert "1 finished match could not be saved" in said, said
    assert status == 3


def test_every_match_saved_leaves_status_0(tmp_path: Path) -> None:
    game = Game("--player1", "Ada", "--player2", "Bob", "--record", str(tmp_path / "r.sqlite3"))
    game.read_until(b"choose your mark")
    game.type(*ADA_WINS)
    game.read_until(b"Ada wins!")
    game.type(b"q")
    assert game.finish() == 0
    assert "could not be saved" not in game.after_the_screen.decode()


# Unsaved matches in the last words.


@pytest.mark.parametrize(
    ("unsaved", "said"),
    [(1, "1 finished match could not be saved"), (2, "2 finished matches could not be saved")],
)
def test_main_says_how_many_matches_could_not_be_saved_after_the_score(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    unsaved: int,
    said: str,
) -> None:
    ended = Series.new("Ada", "Bob")
    path = tmp_path / "r"

    def run(self: TicTacToeApp) -> Series:
        path.mkdir()  # a folder where the record should be: nothing can be saved there
        for _ in range(unsaved):
            self.record.add(
                MatchRecord((Player("Ada"), Player("Bob")), (Mark.X, Mark.O), 0, (0, 3, 1, 4, 2), 0)
            )
        return ended

    monkeypatch.setattr(TicTacToeApp, "run", run)
    monkeypatch.setattr(cli, "terminal_problem", lambda: None)  # pytest's stdin may be no terminal
    assert cli.main(["--player1", "Ada", "--player2", "Bob", "--record", str(path)]) == 3
    printed = capsys.readouterr()
    assert printed.out == report.final_score(ended) + "\n"
    lost = "it is lost" if unsaved == 1 else "they are lost"
    assert printed.err == f"{said} to the game record {path}; {lost}.\n"


class BrokenApp(TicTacToeApp):
    """Fails as soon as the game is on screen."""

    CSS_PATH = str(Path(tictactoe.tui.app.__file__).with_name("app.tcss"))

    def on_ready(self) -> None:
        raise RuntimeError("a bug the player should not have to read about")


@pytest.mark.parametrize(
    ("unsaved", "said"),
    [(0, "finished matches are saved"), (2, "2 finished matches could not be saved")],
)
def test_the_crash_message_says_finished_matches_are_saved_only_when_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], unsaved: int, said: str
) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("", encoding="utf-8")
    app = BrokenApp(GameConfig(player1="Ada", player2="Bob", record_file=blocked / "r.sqlite3"))
    for _ in range(unsaved):
        app.record.add(
            MatchRecord((Player("Ada"), Player("Bob")), (Mark.X, Mark.O), 0, (0, 3, 1, 4, 2), 0)
        )
    assert app.unsaved_matches == unsaved

    app.run(headless=True)

    err = capsys.readouterr().err
    assert f"stopped after an unexpected error; {said}." in err
    assert "finished games" not in err


def test_an_imported_file_is_reported_once_on_screen(tmp_path: Path) -> None:
    stats = old_stats(
        tmp_path / "stats.json",
        json.dumps({"version": 1, "players": {"Zed": {"wins": 1, "losses": 0, "draws": 0}}}),
    )
    record_screen_over(stats, showing=b"Zed")
    assert (tmp_path / "stats.json.imported").exists()
    assert not stats.exists()


def test_a_record_that_cannot_be_read_is_never_shown_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    record = GameRecord(path)
    for _ in range(4):
        record.add(
            MatchRecord((Player("Ada"), Player("Bob")), (Mark.X, Mark.O), 0, (0, 3, 1, 4, 2), 0)
        )
    record.close()
    game = Game(
        "--player1", "Ada", "--player2", "Bob", "--record", str(path), prepare=no_room_for_files
    )
    game.read_until(b"choose your mark")
    game.type(b"x", b"s")
    game.read_until(b"The record could not be read")  # Players
    game.type(b"h")
    unread = b"The record could not be read"
    game.until(lambda: game.output.count(unread) >= 2, "Head to head unread too")
    game.settle()  # anything else drawn meanwhile
    game.type(b"\x1b", b"q")
    assert game.finish() == 0
    assert b"No matches recorded yet" not in game.output
    assert b"have not played each other" not in game.output
    assert game.output.count(b"The record could not be read") >= 2  # Players, Head to head
    assert b"Kept in" not in game.output
