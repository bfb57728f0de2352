"""Every test keeps its files in a temporary folder: the player's own are never touched.

The user data and config folders (the game record, the settings) are pointed at a
fresh temporary folder for each test, in this process through platformdirs and in
any child process through HOME and the XDG variables.
"""

from __future__ import annotations

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
