"""The helpers for small precious files: atomic writes, damaged files moved aside, links kept."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tictactoe.safe_files import LeaveAlone, atomic_write_json, move_aside, read_json_file

CORRUPT_COPY = re.compile(r"settings\.json\.corrupt-\d{8}-\d{6}(-\d+)?")


def test_helpers_round_trip_a_versioned_file(tmp_path: Path) -> None:
    path = tmp_path / "deeper" / "settings.json"
    assert read_json_file(path, 1, dict) == (None, None)
    atomic_write_json(path, {"version": 1, "theme": "textual-light"})
    assert read_json_file(path, 1, dict) == ({"version": 1, "theme": "textual-light"}, None)
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]


DAMAGED = {
    "garbage bytes": b"\x00\xff\xfe\x9c garbage \x81",
    "empty file": b"",
    "truncated JSON": b'{"version": 1, "theme": "no',
    "a list": b"[1, 2, 3]",
    "no version": b'{"theme": "nord"}',
    "version as text": b'{"version": "1"}',
    "deep nesting": b"[" * 100_000 + b"]" * 100_000,
}


@pytest.mark.parametrize("content", DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_file_is_moved_aside_whole(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(content)

    value, warning = read_json_file(path, 1, dict, "The settings file")

    assert value is None
    (copy,) = (p.name for p in tmp_path.iterdir())
    assert CORRUPT_COPY.fullmatch(copy)
    assert (tmp_path / copy).read_bytes() == content
    assert warning is not None and copy in warning and str(path) in warning


def test_the_parser_can_refuse_a_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    atomic_write_json(path, {"version": 1, "keys": "qwerty"})

    def parse(data: dict[str, object]) -> str:
        raise ValueError(f"unknown key layout {data.get('keys')!r}")

    value, warning = read_json_file(path, 1, parse, "The settings file")

    assert value is None
    assert warning is not None
    assert warning.startswith(f"The settings file {path} is not in the expected shape")
    assert "unknown key layout 'qwerty'" in warning
    assert not path.exists()


def test_a_newer_version_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    atomic_write_json(path, {"version": 7})
    with pytest.raises(LeaveAlone, match="newer version"):
        read_json_file(path, 1, dict)
    assert path.exists()


def test_a_folder_where_the_file_should_be_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.mkdir()
    with pytest.raises(LeaveAlone, match="not a regular file"):
        read_json_file(path, 1, dict)
    assert path.is_dir()


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_a_crash_mid_write_leaves_the_old_file_whole_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    path = tmp_path / "settings.json"
    atomic_write_json(path, {"version": 1, "theme": "nord"})
    before = path.read_bytes()

    def crash(*args: object) -> None:
        raise KeyboardInterrupt("the power went out")

    monkeypatch.setattr(os, failing, crash)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_json(path, {"version": 1, "theme": "gruvbox"})

    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]


def test_a_symlinked_file_is_written_through_and_the_link_stays(tmp_path: Path) -> None:
    elsewhere = tmp_path / "dotfiles" / "settings.json"
    elsewhere.parent.mkdir()
    elsewhere.write_text("{}", encoding="utf-8")
    link = tmp_path / "config" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(elsewhere)

    atomic_write_json(link, {"version": 1, "theme": "nord"})

    assert link.is_symlink()
    assert link.resolve() == elsewhere.resolve()
    assert '"nord"' in elsewhere.read_text(encoding="utf-8")
    assert [p.name for p in link.parent.iterdir()] == ["settings.json"]


def test_move_aside_keeps_companions_together_and_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    copies = []
    for content in (b"first", b"second"):
        path.write_bytes(content)
        Path(f"{path}-wal").write_bytes(content + b" wal")
        copies.append(move_aside(path, ("-wal", "-shm")))
    assert copies[0] != copies[1]
    for kept, content in zip(copies, (b"first", b"second"), strict=True):
        assert kept.read_bytes() == content
        assert Path(f"{kept}-wal").read_bytes() == content + b" wal"
    assert not path.exists()
    assert not Path(f"{path}-wal").exists()


def test_move_aside_follows_a_symlink_and_leaves_the_link(tmp_path: Path) -> None:
    target = tmp_path / "real" / "record.sqlite3"
    target.parent.mkdir()
    target.write_bytes(b"damaged")
    link = tmp_path / "record.sqlite3"
    link.symlink_to(target)

    kept = move_aside(link)

    assert kept.parent == target.parent.resolve()
    assert kept.read_bytes() == b"damaged"
    assert link.is_symlink() and not target.exists()
