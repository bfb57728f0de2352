"""The remembered preferences (theme, digit layout, relay): SettingsStore and Settings on their
own."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import tictactoe.settings
from tictactoe.core.keys import KeyLayout
from tictactoe.settings import SETTINGS_VERSION, Settings, SettingsStore


def write(path: Path, data: object) -> None:
    path.write_text(json.dumps(data), encoding="utf-8")


def files_in(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


def test_settings_round_trip_through_the_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    store = SettingsStore(path)
    assert store.load() == []
    assert store.settings == Settings()
    assert not path.exists()  # reading a missing file creates nothing

    assert store.update(theme="textual-light") == []
    assert store.update(keys=KeyLayout.PHONE) == []
    assert store.settings == Settings(theme="textual-light", keys=KeyLayout.PHONE)
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "version": SETTINGS_VERSION,
        "theme": "textual-light",
        "keys": "phone",
        "relay": None,
        "plain": False,
        "cursor": False,
    }

    again = SettingsStore(path)
    assert again.load() == []
    assert again.settings == Settings(theme="textual-light", keys=KeyLayout.PHONE)
    assert files_in(tmp_path) == ["settings.json"]  # no temporary files left behind


def test_settings_to_json_and_back() -> None:
    for settings in (
        Settings(),
        Settings(theme="nord"),
        Settings(keys=KeyLayout.NUMPAD),
        Settings(theme="gruvbox", keys=KeyLayout.PHONE),
        Settings(relay="me@relay.example.org:2200"),
    ):
        assert Settings.from_json(settings.to_json()) == settings


def test_an_update_keeps_what_it_does_not_mention_and_skips_no_change(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    store = SettingsStore(path)
    store.update(theme="nord", keys=KeyLayout.PHONE)
    store.update(keys=KeyLayout.NUMPAD)
    assert store.settings == Settings(theme="nord", keys=KeyLayout.NUMPAD)

    path.unlink()
    assert store.update(theme="nord") == []
    assert not path.exists()  # nothing changed, so nothing was written


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        pytest.param("{not json", "not valid JSON", id="not-json"),
        pytest.param(b"\xff\xfe\x00", "not valid text", id="not-text"),
        pytest.param('["version", 1]', "not in the expected shape", id="not-an-object"),
        pytest.param('{"theme": "nord"}', "not in the expected shape", id="no-version"),
    ],
)
def test_a_damaged_file_is_moved_aside_with_a_warning(
    tmp_path: Path, text: str | bytes, problem: str
) -> None:
    path = tmp_path / "settings.json"
    raw = text if isinstance(text, bytes) else text.encode()
    path.write_bytes(raw)

    store = SettingsStore(path)
    warnings = store.load()
    assert len(warnings) == 1
    assert warnings[0].startswith(f"The settings file {path}")
    assert problem in warnings[0]
    assert store.settings == Settings()

    kept = list(tmp_path.glob("settings.json.corrupt-*"))
    assert len(kept) == 1
    assert kept[0].name in warnings[0]
    assert kept[0].read_bytes() == raw
    assert not path.exists()

    assert store.update(theme="nord") == []  # a fresh file is started
    assert json.loads(path.read_text(encoding="utf-8"))["theme"] == "nord"
    assert kept[0].read_bytes() == raw


BAD_VALUES = {
    "an unknown layout": (
        {"theme": "nord", "keys": "qwerty"},
        Settings(theme="nord"),
        "has a digit layout the game does not know (“qwerty”; it knows numpad and phone),"
        " so the default is used.",
    ),
    "a layout that is no name": (
        {"theme": "nord", "keys": 7},
        Settings(theme="nord"),
        "has a digit layout that is not a name, so the default is used.",
    ),
    "a theme that is no name": (
        {"theme": 5, "keys": "phone"},
        Settings(keys=KeyLayout.PHONE),
        "has a theme that is not a name, so the default is used.",
    ),
    "escape sequences": (
        {"theme": "nord", "keys": "\x1b]2;PWNED\x07"},
        Settings(theme="nord"),
        "has a digit layout the game does not know (“\\x1b]2;PWNED\\x07”; it knows numpad and"
        " phone), so the default is used.",
    ),
    "a relay that is no relay": (
        {"theme": "nord", "relay": "-oProxyCommand=touch /tmp/x"},
        Settings(theme="nord"),
        "has a relay that is not USER@HOST[:PORT], so the default is used.",
    ),
    "a cursor that is neither true nor false": (
        {"theme": "nord", "cursor": "yes"},
        Settings(theme="nord"),
        "says whether to show the cursor in a way that is not true or false, so the default is"
        " used.",
    ),
    "both": (
        {"theme": ["nord"], "keys": "dvorak"},
        Settings(),
        "has a theme that is not a name, so the default is used.",
    ),
}


@pytest.mark.parametrize(("values", "kept", "said"), BAD_VALUES.values(), ids=BAD_VALUES.keys())
def test_a_bad_value_is_dropped_in_plain_words_and_the_good_ones_are_kept(
    tmp_path: Path, values: dict[str, object], kept: Settings, said: str
) -> None:
    path = tmp_path / "settings.json"
    write(path, {"version": SETTINGS_VERSION, **values})
    before = path.read_bytes()

    store = SettingsStore(path)
    warnings = store.load()

    assert warnings[0] == f"The settings file {path} {said}"
    assert all("KeyLayout" not in warning and "\x1b" not in warning for warning in warnings)
    assert store.settings == kept
    assert path.read_bytes() == before, "nothing is written or moved aside for a bad value"
    assert files_in(tmp_path) == ["settings.json"]

    assert store.update(keys=KeyLayout.PHONE) == []  # the next save drops the bad value
    assert Settings.from_json(json.loads(path.read_text(encoding="utf-8"))) == Settings(
        theme=kept.theme, keys=KeyLayout.PHONE
    )


def test_a_newer_file_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    write(path, {"version": SETTINGS_VERSION + 1, "theme": "nord", "colours": "many"})
    before = path.read_bytes()

    store = SettingsStore(path)
    warnings = store.load()
    assert len(warnings) == 1
    assert "newer version" in warnings[0]
    assert str(path) in warnings[0]

    assert store.update(theme="textual-light", keys=KeyLayout.PHONE) == []
    assert store.settings == Settings(theme="textual-light", keys=KeyLayout.PHONE)  # in memory
    assert path.read_bytes() == before
    assert files_in(tmp_path) == ["settings.json"]


def test_no_path_keeps_settings_in_memory_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = SettingsStore(None)
    assert store.load() == []
    assert store.update(theme="textual-light", keys=KeyLayout.PHONE) == []
    assert store.settings == Settings(theme="textual-light", keys=KeyLayout.PHONE)
    assert files_in(tmp_path) == []


def test_a_failing_write_is_reported_once_and_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[Path] = []

    def refuse(path: Path, data: object) -> None:
        calls.append(path)
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(tictactoe.settings, "atomic_write_json", refuse)
    path = tmp_path / "settings.json"
    store = SettingsStore(path)

    warnings = store.update(theme="textual-light")
    assert len(warnings) == 1
    assert str(path) in warnings[0]
    assert "Permission denied" in warnings[0]
    assert store.settings.theme == "textual-light"

    assert store.update(keys=KeyLayout.PHONE) == []
    assert store.update(theme="nord") == []
    assert store.settings == Settings(theme="nord", keys=KeyLayout.PHONE)
    assert len(calls) == 1  # it stops trying rather than failing on every change


def test_a_failing_rename_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "settings.json"
    write(path, {"version": 1, "theme": "nord", "keys": None})
    before = path.read_bytes()
    store = SettingsStore(path)
    assert store.load() == []

    def refuse(source: object, target: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    warnings = store.update(keys=KeyLayout.PHONE)
    monkeypatch.undo()

    assert len(warnings) == 1
    assert "could not be saved" in warnings[0]
    assert path.read_bytes() == before  # the old file survives whole
    assert files_in(tmp_path) == ["settings.json"]
    assert store.update(theme="gruvbox") == []


def test_the_relay_is_remembered_until_it_is_emptied(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    store = SettingsStore(path)
    assert store.update(theme="nord", relay="me@relay.example.org") == []
    again = SettingsStore(path)
    assert again.load() == []
    assert again.settings == Settings(theme="nord", relay="me@relay.example.org")
    again.update(keys=KeyLayout.PHONE)  # other choices leave it
    assert again.settings.relay == "me@relay.example.org"
    again.update(relay="")
    assert again.settings == Settings(theme="nord", keys=KeyLayout.PHONE)
