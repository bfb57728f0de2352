"""The `tictactoe` command: options, refusals, the setup they produce, the final score."""

from __future__ import annotations

import gc
import io
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.cells import cell_len

from limits import EVENT_LIMIT
from tictactoe import __version__, cli, options, process, report
from tictactoe.config import GameConfig
from tictactoe.core.ai import Level
from tictactoe.core.engine import Mark
from tictactoe.core.keys import KeyLayout
from tictactoe.core.names import NAME_WIDTH, short
from tictactoe.core.series import FirstMove, NameClash, Player, Series
from tictactoe.record.paths import default_record_path
from tictactoe.serve import ServeConfig
from tictactoe.tui.app import TicTacToeApp


def exit_code(argv: list[str]) -> int | str | None:
    with pytest.raises(SystemExit) as exit_info:
        options.parse_config(argv)
    return exit_info.value.code


def test_version_prints_the_version_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"tictactoe {__version__}"


def test_help_lists_the_options_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code(["--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--player1", "--player2", "--vs", "--level", "--first", "--keys", "--version"):
        assert option in out


def test_help_lists_every_command_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code(["--help"]) == 0
    lines = capsys.readouterr().out.splitlines()
    serve = [line for line in lines if line.split()[:1] == ["serve"]]
    assert len(serve) == 1, lines
    assert "browser" in serve[0]


def test_the_in_app_help_tells_of_tictactoe_serve() -> None:
    help_text = Path(cli.__file__).with_name("tui").joinpath("screens", "help.md").read_text()
    assert "`tictactoe serve`" in help_text


def test_a_bad_option_of_serve_shows_the_usage_of_serve() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tictactoe", "serve", "--delay", "nan"],
        capture_output=True,
        text=True,
        timeout=EVENT_LIMIT,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("usage: tictactoe serve "), result.stderr
    last = result.stderr.splitlines()[-1]
    assert last.startswith("tictactoe serve: error: ") and "delay" in last, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--player1", "Ada", "--player2=-Bob"],
        ["--vs", "computer", "--level", "hard", "--player1", "Ada", "--first", "random"],
        ["--keys", "phone", "--delay", "0", "--seed", "7", "--no-save"],
        ["--record", "RECORD"],
        ["--stats-file", "STATS"],
    ],
)
def test_the_game_options_of_a_setup_make_it_again(argv: list[str], tmp_path: Path) -> None:
    argv = [arg.replace("RECORD", str(tmp_path / "r.sqlite3")) for arg in argv]
    argv = [arg.replace("STATS", str(tmp_path / "stats.json")) for arg in argv]
    config = options.parse_config(argv)
    assert options.parse_config(options.game_options(config)) == config


def test_serve_takes_its_own_options_and_every_game_option() -> None:
    config = options.parse_serve(
        ["--port", "0", "--host", "::1", "--delay", "0", "--keys", "phone"]
    )
    assert (config.host, config.port) == ("::1", 0)
    assert options.parse_config(config.game_args) == options.parse_config(
        ["--delay=0", "--keys=phone"]
    )


def test_python_dash_m_prints_the_version() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tictactoe", "--version"],
        capture_output=True,
        text=True,
        timeout=EVENT_LIMIT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"tictactoe {__version__}"


def test_the_defaults_ask_for_players_on_the_new_game_screen() -> None:
    config = options.parse_config([])
    assert config.level is None
    assert config.first_move is FirstMove.CHOOSER
    assert config.keys is None  # the remembered layout, else the keypad's
    assert config.save is True
    assert config.initial_series() is None


def test_both_names_skip_the_new_game_screen() -> None:
    match = options.parse_config(["--player1", "Ada", "--player2", "Bob"]).initial_series()
    assert match is not None
    assert match.players == (Player("Ada"), Player("Bob"))
    assert match.match is None and match.chooser == 0


def test_vs_computer_at_hard() -> None:
    config = options.parse_config(["--vs", "computer", "--level", "hard", "--player1", "Ada"])
    assert config.level is Level.HARD
    match = config.initial_series()
    assert match is not None
    assert match.players == (Player("Ada"), Player("Computer", Level.HARD))


def test_a_level_alone_means_the_computer_and_vs_computer_alone_means_medium() -> None:
    assert options.parse_config(["--level", "easy"]).level is Level.EASY
    assert options.parse_config(["--vs", "computer"]).level is Level.MEDIUM
    assert options.parse_config(["--vs", "computer"]).initial_series() is None  # names still asked


def test_help_names_the_default_record_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code(["--help"]) == 0
    out = "".join(capsys.readouterr().out.split())  # argparse breaks lines at / and -
    assert "".join(f"(default: {default_record_path()})".split()) in out, out


def test_help_and_readme_say_that_a_level_means_the_computer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert exit_code(["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "implies --vs computer" in out
    readme = Path(cli.__file__).parents[2].joinpath("README.md").read_text()
    assert "`--level` implies `--vs computer`" in " ".join(readme.split())


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--vs", "person", "--level", "hard"], ("--vs person", "--level")),
        (["--level", "hard", "--vs", "person"], ("--vs person", "--level")),
        (["--level", "hard", "--player1", "Ada", "--player2", "Bob"], ("--level", "--player2")),
        (["--level", "easy", "--player2", "Bob"], ("--level", "--player2")),
    ],
)
def test_a_level_with_a_second_person_is_refused_in_one_sentence_naming_both(
    argv: list[str], named: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_code(argv) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("tictactoe: error: ")
    sentence = last.removeprefix("tictactoe: error: ")
    assert all(option in sentence for option in named), sentence
    assert sentence.count(". ") == 0 and sentence.endswith("."), sentence


@pytest.mark.parametrize(
    ("argv", "rule"),
    [(["--first", "x"], FirstMove.X), (["--first", "random"], FirstMove.RANDOM)],
)
def test_first_move_rules(argv: list[str], rule: FirstMove) -> None:
    config = options.parse_config([*argv, "--player1", "Ada", "--player2", "Bob"])
    assert config.first_move is rule
    match = config.initial_series()
    assert match is not None and match.first_move is rule


def test_first_x_lets_x_start_even_when_the_chooser_takes_o() -> None:
    match = options.parse_config(["--first", "x", "--player1", "Ada", "--player2", "Bob"])
    started = match.initial_series()
    assert started is not None
    game = started.choose_mark(Mark.O).match
    assert game is not None and game.to_move is Mark.X


def test_keys_phone_delay_seed_and_no_save(tmp_path: Path) -> None:
    stats_file = tmp_path / "stats.json"
    config = options.parse_config(
        [
            "--keys",
            "phone",
            "--delay",
            "0",
            "--seed",
            "3",
            "--no-save",
            "--stats-file",
            str(stats_file),
        ]
    )
    assert config.keys is KeyLayout.PHONE
    assert config.computer_delay == 0
    assert config.seed == 3
    assert config.save is False
    assert config.stats_file == stats_file


@pytest.mark.parametrize(
    ("argv", "complaint"),
    [
        (["--vs", "robot"], "--vs"),
        (["--level", "impossible"], "--level"),
        (["--first", "o"], "--first"),
        (["--keys", "qwerty"], "--keys"),
        (["--delay", "soon"], "number of seconds"),
        (["--delay", "-1"], "between 0 and 10"),
        (["--delay", "11"], "between 0 and 10"),
        (["--vs", "person", "--level", "hard"], "--level"),
        (["--vs", "computer", "--player2", "Bob"], "--player2 does not apply"),
        (["--player1", "Ada", "--player2", " ADA "], "must differ"),
        (["--bogus"], "unknown option --bogus"),
    ],
)
def test_bad_values_exit_with_status_2_and_say_why(
    argv: list[str], complaint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_code(argv) == 2
    err = capsys.readouterr().err
    assert "tictactoe: error:" in err
    assert complaint in err


def test_initial_series_refuses_equal_names() -> None:
    with pytest.raises(NameClash):
        GameConfig(player1="Eve", player2="eve").initial_series()
    # A person may be called "Computer": players are told apart by kind.
    series = GameConfig(player1="Computer", level=Level.EASY).initial_series()
    assert series is not None and not series.players[0].is_computer


def test_initial_series_needs_the_second_name_for_hot_seat() -> None:
    assert GameConfig(player1="Ada").initial_series() is None
    assert GameConfig(player2="Bob").initial_series() is None
    assert GameConfig(level=Level.HARD).initial_series() is None


def test_final_score_lists_names_wins_draws_and_matches() -> None:
    match = Series.new("Ada", "Bartholomew").choose_mark(Mark.X)
    for cell in (0, 3, 1, 4, 2):
        match = match.play(cell)
    assert report.final_score(match) == (
        "Final score\n  Ada          1\n  Bartholomew  0\n  Draws        0\n  (1 match played)"
    )
    assert report.final_score(Series.new("A", "B")).endswith("(0 matches played)")


def test_the_verdict_names_the_winner_of_the_series() -> None:
    series = Series.new("Ada", "Bob").choose_mark(Mark.O)
    assert report.verdict(series) == "No match was finished."
    for cell in (0, 3, 1, 4, 2):  # O, the chooser, moves first: Ada wins the top row
        series = series.play(cell)
    assert report.verdict(series) == "Ada won the series."
    series = series.next_match().choose_mark(Mark.X)  # Bob chooses, and moves first
    for cell in (0, 3, 1, 4, 2):
        series = series.play(cell)
    assert report.verdict(series) == "The series ended level."


def score_columns(score: str) -> set[int]:
    """The terminal column where each count of the final score starts."""
    return {cell_len(line.rsplit(" ", 1)[0]) for line in score.splitlines()[1:4]}


def test_the_final_score_lines_up_by_terminal_cells() -> None:
    """山田 is two characters but four cells wide; the counts start in one column all the same."""
    score = report.final_score(Series.new("山田", "Bob"))
    assert len(score_columns(score)) == 1
    assert score.splitlines()[1] == "  山田   0"


def test_the_final_score_shortens_a_long_name_as_the_screen_does() -> None:
    score = report.final_score(Series.new("A" * 1000, "Bob"))
    first = score.splitlines()[1]
    assert first == f"  {short('A' * 1000)}  0" and first.endswith("…  0")
    assert len(score_columns(score)) == 1
    assert max(cell_len(line) for line in score.splitlines()) <= NAME_WIDTH + 6


def test_main_prints_the_final_score_after_the_app_returns(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[GameConfig] = []
    ended = Series.new("Ada", "Bob")

    def run(self: TicTacToeApp) -> Series:
        seen.append(self.config)
        return ended

    monkeypatch.setattr(TicTacToeApp, "run", run)
    monkeypatch.setattr(cli, "terminal_problem", lambda: None)
    assert cli.main(["--player1", "Ada", "--player2", "Bob", "--no-save"]) == 0
    assert seen[0].player1 == "Ada" and seen[0].save is False
    assert capsys.readouterr().out == report.final_score(ended) + "\n"


class Stream(io.StringIO):
    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


@pytest.mark.parametrize(
    ("stdin", "stdout", "stderr", "refused"),
    [
        (True, True, True, None),
        (True, False, True, None),  # tictactoe | cat: drawn on standard error
        (True, True, False, None),  # tictactoe 2>log: drawn on standard output
        (False, True, True, "standard input"),
        (True, False, False, "nowhere to draw"),
    ],
)
def test_the_game_needs_a_terminal_to_read_keys_from_and_one_to_draw_on(
    monkeypatch: pytest.MonkeyPatch, stdin: bool, stdout: bool, stderr: bool, refused: str | None
) -> None:
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    monkeypatch.delenv("TICTACTOE_SERVED", raising=False)
    for name, terminal in (("__stdin__", stdin), ("__stdout__", stdout), ("__stderr__", stderr)):
        monkeypatch.setattr(sys, name, Stream(terminal))

    problem = process.terminal_problem()
    if refused is None:
        assert problem is None
    else:
        assert problem is not None and problem.startswith("tictactoe needs a terminal: ")
        assert refused in problem and problem.count(".") == 1


@pytest.mark.parametrize(
    ("variable", "value"),
    [("TICTACTOE_SERVED", "1"), ("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")],
)
def test_a_game_served_to_a_browser_needs_no_terminal(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    for name in ("__stdin__", "__stdout__", "__stderr__"):
        monkeypatch.setattr(sys, name, Stream(False))
    monkeypatch.delenv("TICTACTOE_SERVED", raising=False)
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    assert process.terminal_problem() is not None
    monkeypatch.setenv(variable, value)
    assert process.terminal_problem() is None


def test_main_refuses_without_a_terminal_before_loading_the_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "terminal_problem", lambda: "tictactoe needs a terminal: none here.")
    monkeypatch.setattr(TicTacToeApp, "run", lambda self: pytest.fail("the game ran"))
    assert cli.main(["--player1", "Ada", "--player2", "Bob", "--no-save"]) == 2
    assert capsys.readouterr().err == "tictactoe needs a terminal: none here.\n"


# The collector: `python -m tictactoe` starts with it off, to start faster.


@pytest.fixture
def collector_off() -> Iterator[None]:
    """As `python -m tictactoe` leaves it before the command runs."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.usefixtures("collector_off")
async def test_the_collector_is_back_on_once_the_game_is_drawn() -> None:
    app = TicTacToeApp(GameConfig(player1="Ada", player2="Bob", save=False))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0  # what start-up made is kept out of its passes


@pytest.mark.usefixtures("collector_off")
def test_a_server_runs_with_the_collector_on(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []

    def serve(config: ServeConfig) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr("tictactoe.serve.serve", serve)
    assert cli.main(["serve", "--port", "0"]) == 0
    assert seen == [True]


# Windows: the local game and `serve` run there; hosting (ptys, process groups) does not.


@pytest.fixture
def on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """`sys.platform` says Windows, and what Windows lacks cannot be imported (nor anything
    of the online doors, which would need it)."""
    monkeypatch.setattr(sys, "platform", "win32")
    for name in ("fcntl", "termios", "pty", "tty"):
        monkeypatch.setitem(sys.modules, name, None)  # `import fcntl` raises ImportError
    for name in list(sys.modules):
        if name.startswith("tictactoe.doors.ssh") or name == "tictactoe.host.hosting":
            monkeypatch.delitem(sys.modules, name)


@pytest.mark.usefixtures("on_windows")
@pytest.mark.parametrize(
    "argv",
    [
        ["host"],
        ["host", "--player1", "Ada", "--ssh-port", "0"],
        ["host", "--help"],
        ["join", "--link", "ws://127.0.0.1:1/"],  # what the doors run, on the host's machine
    ],
)
def test_host_on_windows_says_in_one_sentence_that_hosting_needs_linux_or_macos(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"tictactoe {argv[0]}: hosting a series needs Linux or macOS")
    assert err.count(".") == 1 and err.endswith(".\n")


@pytest.mark.usefixtures("on_windows")
def test_serve_on_windows_refuses_only_the_ssh_door(capsys: pytest.CaptureFixture[str]) -> None:
    config = options.parse_serve(["--port", "0"])
    assert config.ssh_port is None
    with pytest.raises(SystemExit) as exit_info:
        options.parse_serve(["--port", "0", "--ssh-port", "0"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("tictactoe serve: ") and "SSH door" in err and "Linux or macOS" in err


# --help as a person reads it.


def help_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """What `tictactoe ARGV --help` prints (it exits with status 0)."""
    with pytest.raises(SystemExit) as exit_info:
        cli.main([*argv, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def test_join_what_the_doors_run_is_not_listed_but_still_works(
    capsys: pytest.CaptureFixture[str],
) -> None:
    commands = re.findall(r"^ {1,8}(\w+) ", help_of([], capsys), re.MULTILINE)
    assert "host" in commands and "join" not in commands  # a wrapped line is indented more
    _, setup, host = options.parse_online(["join", "--link", "ws://127.0.0.1:1/"])
    assert setup.link_url == "ws://127.0.0.1:1/" and host is None


@pytest.mark.parametrize("command", [[], ["serve"], ["host"]], ids=["tictactoe", "serve", "host"])
def test_every_port_option_is_shown_with_port(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    shown = re.findall(r"(--[\w-]*port)(?:[ =](\w+))?", help_of(command, capsys))
    assert all(metavar == "PORT" for _, metavar in shown), shown
    assert bool(shown) == bool(command)  # the game alone listens on nothing


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--levle", "hard"], "--levle"),
        (["--levle=hard"], "--levle"),
        (["--player1", "Ada", "--colour", "red", "--player2", "Bob"], "--colour"),
        (["--vs", "computer", "--levle", "serve"], "--levle"),
    ],
)
def test_an_unknown_option_is_named_in_one_sentence_not_taken_for_a_command(
    argv: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_code(argv) == 2
    error = capsys.readouterr().err.splitlines()[-1]
    assert error.startswith(f"tictactoe: error: unknown option {named}"), error
    assert "COMMAND" not in error and "choice" not in error
    assert error.count(".") <= 1


@pytest.mark.parametrize("argv", [["hard"], ["--player1", "Ada", "Bob"]])
def test_a_stray_word_is_named_and_no_unlisted_command_is_shown(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_code(argv) == 2
    error = capsys.readouterr().err.splitlines()[-1]
    assert error == (
        f"tictactoe: error: {argv[-1]!r} is neither an option nor a command"
        " (tictactoe --help lists both)"
    )


def test_a_near_miss_is_told_the_option_it_resembles(capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code(["--levle", "hard"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "tictactoe: error: unknown option --levle (did you mean --level?)"
    )


def test_the_help_ends_with_examples_that_all_work(capsys: pytest.CaptureFixture[str]) -> None:
    help_text = help_of([], capsys)
    _, found, examples = help_text.partition("\nexamples:\n")
    assert found, help_text
    commands = [shlex.split(line.split("  ")[1])[1:] for line in examples.strip().splitlines()]
    assert len(commands) >= 4 and {"serve", "host"} <= {argv[0] for argv in commands if argv}
    for argv in commands:
        if argv[:1] == ["serve"]:
            options.parse_serve(argv[1:])
        elif argv[:1] == ["host"]:
            options.parse_online(argv)
        else:
            options.parse_config(argv)


def test_host_takes_a_grace_of_minutes_and_a_count_of_watchers() -> None:
    from tictactoe.options import parse_online

    _, _, host = parse_online(["host", "--grace", "120", "--max-watchers", "3"])
    assert host is not None and host.grace == 120.0 and host.max_watchers == 3
    for wrong in (["--grace", "-1"], ["--grace", "7200"], ["--max-watchers", "33"]):
        with pytest.raises(SystemExit):
            parse_online(["host", *wrong])
