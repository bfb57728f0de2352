"""Every test keeps its files in a temporary folder: the player's own are never touched.

A contributor's `uv run pytest` leaves out the slow end-to-end tests (marked `slow`: real `ssh`,
Chromium, a stranger at the doors), which CI always runs: `CI` set, a `-m` or `-k`, or a path
named on the command line runs them as asked.

The user data and config folders (the game record, the settings) are pointed at a
fresh temporary folder for each test, in this process through platformdirs and in
any child process through HOME and the XDG variables.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
import pytest


@pytest.fixture(autouse=True)
def user_folders_in_tmp(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A home of the test's own; returns it, for tests that look inside."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))

    def data(appname: str | None = None, *args: object, **kwargs: object) -> Path:
        return home / "data" / (appname or "")

    def config(appname: str | None = None, *args: object, **kwargs: object) -> Path:
        return home / "config" / (appname or "")

    monkeypatch.setattr(platformdirs, "user_data_path", data)
    monkeypatch.setattr(platformdirs, "user_config_path", config)
    return home


def _slow_left_out(config: pytest.Config) -> bool:
    """Whether this run leaves out the slow tests: the whole suite, asked for by a person."""
    asked = config.option.markexpr or config.option.keyword or config.option.file_or_dir
    return not (os.environ.get("CI") or asked)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: a worker more than the machine has cores. Many tests spend their time waiting
    on real processes (a club, `ssh`, a terminal's game), so one more worker keeps the cores
    busy while another waits."""
    return (os.cpu_count() or 1) + 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _slow_left_out(config):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _slow_left_out(terminalreporter.config):
        terminalreporter.write_line(
            "The slow end-to-end tests were left out: CI runs them (`CI=true uv run pytest`),"
            " and `uv run pytest -m slow` runs them alone."
        )
