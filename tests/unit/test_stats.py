"""The lifetime statistics: the model, and the promise that nothing on disk is ever lost."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import platformdirs
import pytest

from tictactoe.ai import Level
from tictactoe.series import Player
from tictactoe.stats import (
    STATS_VERSION,
    LeaveAlone,
    Record,
    Stats,
    StatsStore,
    atomic_write_json,
    default_stats_path,
    read_json_file,
    stats_name,
)

CORRUPT_COPY = re.compile(r"stats\.json\.corrupt-\d{8}-\d{6}(-\d+)?")


def files_in(directory: Path) -> set[str]:
    """Every file name in `directory` except the lock, which is meant to stay."""
    return {path.name for path in directory.iterdir()} - {"stats.json.lock"}


def write_stats(path: Path, players: dict[str, dict[str, int]]) -> None:
    path.write_text(json.dumps({"version": 1, "players": players}), encoding="utf-8")


ADA_BOB = {"Ada": {"wins": 2, "losses": 0, "draws": 1}, "Bob": {"wins": 0, "losses": 2, "draws": 1}}


# The model.


def test_record_counts_matches() -> None:
    assert Record(wins=3, losses=2, draws=1).matches == 6
    assert Record().matches == 0


def test_with_result_counts_win_loss_and_draw_for_both_players() -> None:
    empty = Stats()
    stats = empty.with_result("Ada", ("Ada", "Bob")).with_result(None, ("Bob", "Ada"))
    assert stats == {"Ada": Record(1, 0, 1), "Bob": Record(0, 1, 1)}
    assert len(empty) == 0, "the original is unchanged"


def test_with_result_refuses_a_winner_who_did_not_play_and_a_player_twice() -> None:
    with pytest.raises(ValueError, match="did not play"):
        Stats().with_result("Eve", ("Ada", "Bob"))
    with pytest.raises(ValueError, match="two different players"):
        Stats().with_result(None, ("Ada", "Ada"))


def test_ranked_by_wins_then_fewer_losses_then_name() -> None:
    stats = Stats(
        {
            "cy": Record(wins=1, losses=5),
            "Bea": Record(wins=1, losses=1),
            "Al": Record(wins=1, losses=1),
            "Dee": Record(wins=4, losses=9),
            "Eve": Record(draws=7),
        }
    )
    assert [name for name, _ in stats.ranked()] == ["Dee", "Al", "Bea", "cy", "Eve"]


def test_computers_are_kept_per_level() -> None:
    assert stats_name(Player("Ada")) == "Ada"
    assert stats_name(Player("Computer", Level.HARD)) == "Computer (hard)"
    assert stats_name(Player("Computer", Level.EASY)) == "Computer (easy)"


def test_default_path_is_in_the_user_data_directory() -> None:
    assert default_stats_path() == platformdirs.user_data_path("tictactoe") / "stats.json"


# The file.


def test_round_trip_across_runs(tmp_path: Path) -> None:
    path = tmp_path / "deeper" / "stats.json"
    first_run = StatsStore(path)
    assert first_run.load().stats == {}
    assert first_run.record("Ada", "Computer (hard)", "Computer (hard)") == []
    assert first_run.record("Ada", "Bob", None) == []

    second_run = StatsStore(path)
    loaded = second_run.load()
    assert loaded.warnings == []
    assert loaded.stats == {
        "Ada": Record(losses=1, draws=1),
        "Bob": Record(draws=1),
        "Computer (hard)": Record(wins=1),
    }
    assert loaded.stats == first_run.stats


def test_file_carries_the_version_and_the_documented_shape(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    StatsStore(path).record("Bob", "Ada", "Ada")
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "version": STATS_VERSION,
        "players": {
            "Ada": {"wins": 1, "losses": 0, "draws": 0},
            "Bob": {"wins": 0, "losses": 1, "draws": 0},
        },
    }
    assert STATS_VERSION == 1


def test_names_are_stored_literally(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    StatsStore(path).record("[bold]Eve[/]", "Zoë 🎲", "Zoë 🎲")
    assert set(StatsStore(path).load().stats) == {"[bold]Eve[/]", "Zoë 🎲"}


def ada_with_wins(wins: bytes) -> bytes:
    return b'{"version": 1, "players": {"Ada": {"wins": %s, "losses": 0, "draws": 0}}}' % wins


DAMAGED = {
    "garbage bytes": b"\x00\xff\xfe\x9c garbage \x81",
    "empty file": b"",
    "not UTF-8": b'{"version": 1, "players": {"\xc0\xaf": {}}}',
    "truncated JSON": b'{"version": 1, "players": {"Ada": {"wins": 1, "los',
    "a list": b"[1, 2, 3]",
    "a bare number": b"42",
    "no version": b'{"players": {}}',
    "version as text": b'{"version": "1", "players": {}}',
    "players as a list": b'{"version": 1, "players": ["Ada"]}',
    "a count as text": ada_with_wins(b'"one"'),
    "a count as float": ada_with_wins(b"1.5"),
    "a count as bool": ada_with_wins(b"true"),
    "a missing count": b'{"version": 1, "players": {"Ada": {"wins": 1, "losses": 0}}}',
    "a negative count": ada_with_wins(b"-3"),
    "deep nesting": b"[" * 100_000 + b"]" * 100_000,
}


@pytest.mark.parametrize("content", DAMAGED.values(), ids=DAMAGED.keys())
def test_damaged_file_is_moved_aside_and_play_goes_on(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "stats.json"
    path.write_bytes(content)
    store = StatsStore(path)

    loaded = store.load()

    assert loaded.stats == {}
    (copy,) = files_in(tmp_path)
    assert CORRUPT_COPY.fullmatch(copy)
    assert (tmp_path / copy).read_bytes() == content, "the damaged file is kept whole"
    (warning,) = loaded.warnings
    assert str(path) in warning
    assert copy in warning
    assert "fresh" in warning

    assert store.record("Ada", "Bob", "Ada") == []
    assert StatsStore(path).load().stats == {"Ada": Record(wins=1), "Bob": Record(losses=1)}
    assert (tmp_path / copy).read_bytes() == content


def test_file_damaged_between_matches_is_moved_aside_when_recording(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    store = StatsStore(path)
    store.record("Ada", "Bob", "Ada")
    path.write_bytes(b'{"version": 1, "pla')

    (warning,) = store.record("Ada", "Bob", "Bob")

    assert "kept as stats.json.corrupt-" in warning
    assert StatsStore(path).load().stats == {"Ada": Record(losses=1), "Bob": Record(wins=1)}


def test_second_damaged_copy_in_the_same_second_does_not_replace_the_first(
    tmp_path: Path,
) -> None:
    path = tmp_path / "stats.json"
    for content in (b"first", b"second", b"third"):
        path.write_bytes(content)
        StatsStore(path).load()
    kept = {(tmp_path / name).read_bytes() for name in files_in(tmp_path)}
    assert kept == {b"first", b"second", b"third"}
    assert all(CORRUPT_COPY.fullmatch(name) for name in files_in(tmp_path))


def test_unreadable_file_is_moved_aside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "stats.json"
    write_stats(path, ADA_BOB)
    path.chmod(0)
    try:
        path.read_bytes()
    except PermissionError:
        pass
    else:  # root reads anything: make the read fail the way it would for anyone else
        real_read_bytes = Path.read_bytes

        def read_bytes(self: Path) -> bytes:
            if self == path:
                raise PermissionError(13, "Permission denied", str(self))
            return real_read_bytes(self)

        monkeypatch.setattr(Path, "read_bytes", read_bytes)

    loaded = StatsStore(path).load()

    assert loaded.stats == {}
    (warning,) = loaded.warnings
    assert "could not be read (Permission denied)" in warning
    (copy,) = files_in(tmp_path)
    assert CORRUPT_COPY.fullmatch(copy)
    assert copy in warning


def test_damaged_file_that_cannot_be_moved_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "stats.json"
    path.write_bytes(b"not json")

    def refuse(self: Path, target: Path) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "rename", refuse)
    store = StatsStore(path)

    (warning,) = store.load().warnings
    assert "could not be moved aside" in warning
    assert store.record("Ada", "Bob", "Ada") == [], "reported once"
    assert path.read_bytes() == b"not json"
    assert store.stats == {"Ada": Record(wins=1), "Bob": Record(losses=1)}


def test_newer_version_is_left_alone_and_reported_once(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    future = b'{"version": 2, "players": {"Ada": {"wins": 1, "elo": 1500}}}'
    path.write_bytes(future)
    store = StatsStore(path)

    loaded = store.load()

    assert loaded.stats == {}
    (warning,) = loaded.warnings
    assert "newer version" in warning
    assert store.record("Ada", "Bob", "Ada") == []
    assert store.record("Ada", "Bob", None) == []
    assert path.read_bytes() == future
    assert files_in(tmp_path) == {"stats.json"}
    assert store.stats == {"Ada": Record(wins=1, draws=1), "Bob": Record(losses=1, draws=1)}


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_crash_mid_write_leaves_the_old_file_whole_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    path = tmp_path / "stats.json"
    write_stats(path, ADA_BOB)
    before = path.read_bytes()

    def crash(*args: object) -> None:
        raise KeyboardInterrupt("the power went out")

    monkeypatch.setattr(os, failing, crash)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_json(path, {"version": 1, "players": {}})

    assert path.read_bytes() == before
    assert files_in(tmp_path) == {"stats.json"}


def test_failed_write_through_the_store_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "stats.json"
    write_stats(path, ADA_BOB)
    before = path.read_bytes()
    store = StatsStore(path)
    store.load()

    def full_disk(*args: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", full_disk)
        (warning,) = store.record("Ada", "Bob", "Ada")
    assert "No space left on device" in warning
    assert path.read_bytes() == before
    assert files_in(tmp_path) == {"stats.json"}

    assert store.record("Ada", "Bob", "Bob") == []
    assert StatsStore(path).load().stats == {
        "Ada": Record(wins=3, losses=1, draws=1),
        "Bob": Record(wins=1, losses=3, draws=1),
    }


def test_read_only_location_is_reported_once_and_never_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "stats.json"
    store = StatsStore(path)

    def read_only(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", read_only)
    warnings = [store.record("Ada", "Bob", "Ada") for _ in range(3)]

    assert len(warnings[0]) == 1
    assert "could not be saved" in warnings[0][0]
    assert "Permission denied" in warnings[0][0]
    assert warnings[1:] == [[], []]
    assert store.stats == {"Ada": Record(wins=3), "Bob": Record(losses=3)}
    assert files_in(tmp_path) == set()


def test_read_only_directory_for_real(tmp_path: Path) -> None:
    directory = tmp_path / "locked"
    directory.mkdir()
    path = directory / "stats.json"
    write_stats(path, ADA_BOB)
    directory.chmod(0o555)
    try:
        if os.access(directory, os.W_OK):
            pytest.skip("running as root: a read-only directory is still writable")
        store = StatsStore(path)
        assert store.load().warnings == []
        (warning,) = store.record("Ada", "Bob", "Ada")
        assert "Permission denied" in warning
        assert store.record("Ada", "Bob", "Ada") == []
        assert store.stats["Ada"] == Record(wins=4, draws=1)
    finally:
        directory.chmod(0o755)


def test_no_save_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_writing(*args: object, **kwargs: object) -> None:
        raise AssertionError("--no-save wrote something")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "open", no_writing)
    monkeypatch.setattr(os, "replace", no_writing)
    monkeypatch.setattr(Path, "mkdir", no_writing)
    store = StatsStore(None)

    assert store.load().stats == {}
    assert store.record("Ada", "Bob", "Ada") == []
    assert store.stats == {"Ada": Record(wins=1), "Bob": Record(losses=1)}
    assert list(tmp_path.iterdir()) == []


WORKER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from tictactoe.stats import StatsStore

    path, name, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    store = StatsStore(path)
    while not go.exists():
        time.sleep(0.001)
    for _ in range(50):
        print(*store.record(name, "Rival", name))
    """
)


def test_two_processes_recording_at_once_are_both_counted(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    go = tmp_path / "go"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(path), name, str(go)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for name in ("Ada", "Bob")
    ]
    go.touch()
    outputs = [worker.communicate(timeout=60)[0] for worker in workers]

    assert [worker.returncode for worker in workers] == [0, 0]
    assert outputs == ["\n" * 50] * 2, "no warnings"
    assert StatsStore(path).load().stats == {
        "Ada": Record(wins=50),
        "Bob": Record(wins=50),
        "Rival": Record(losses=100),
    }


# The helpers, as another small file (the settings) would use them.


def test_helpers_round_trip_another_versioned_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    assert read_json_file(path, 1, dict) == (None, None)
    atomic_write_json(path, {"version": 1, "theme": "textual-light"})
    assert read_json_file(path, 1, dict) == ({"version": 1, "theme": "textual-light"}, None)


def test_helpers_move_aside_what_the_parser_rejects(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    atomic_write_json(path, {"version": 1, "keys": "qwerty"})

    def parse(data: dict[str, object]) -> str:
        if data.get("keys") not in ("keypad", "phone"):
            raise ValueError(f"unknown key layout {data.get('keys')!r}")
        return str(data["keys"])

    value, warning = read_json_file(path, 1, parse, "The settings file")

    assert value is None
    assert warning is not None
    assert warning.startswith(f"The settings file {path} is not in the expected shape")
    assert "unknown key layout 'qwerty'" in warning
    assert not path.exists()


def test_helpers_refuse_a_newer_version(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    atomic_write_json(path, {"version": 7})
    with pytest.raises(LeaveAlone, match="newer version"):
        read_json_file(path, 1, dict)
    assert path.exists()


def test_stats_does_not_import_textual() -> None:
    code = "import sys, tictactoe.stats; print('textual' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_a_folder_where_the_file_should_be_is_never_moved_or_written(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    path.mkdir()
    store = StatsStore(path)

    warnings = store.load().warnings

    assert len(warnings) == 1 and "not a regular file" in warnings[0]
    assert store.record("Ada", "Bob", "Ada") == []
    assert path.is_dir()
    assert not [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]
    assert store.stats["Ada"].wins == 1
