"""What installing by name gives: a distribution name of its own, the `tictactoe` command, one
version, and the license with it.

These read the metadata of the installed distribution (in development, the editable install
that `uv run` makes); CI (`.ci/run`) also builds the wheel and plays a match with it.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import distribution
from pathlib import Path

import tictactoe

ROOT = Path(__file__).parents[2]
DISTRIBUTION = "tictactoe-tui"
"""The name to install by: "tictactoe" on the package index is another project's."""


def test_the_distribution_of_its_own_name_installs_the_tictactoe_command() -> None:
    installed = distribution(DISTRIBUTION)
    scripts = installed.entry_points.select(group="console_scripts")
    assert [(script.name, script.value) for script in scripts] == [
        ("tictactoe", "tictactoe.__main__:main")
    ]


def test_the_version_is_written_in_one_place() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert distribution(DISTRIBUTION).version == tictactoe.__version__


def test_the_license_file_goes_with_the_distribution_and_says_what_pyproject_says() -> None:
    installed = distribution(DISTRIBUTION)
    assert installed.metadata["License-Expression"] == "MIT"
    assert installed.metadata.get_all("License-File") == ["LICENSE"]
    shipped = installed.read_text("licenses/LICENSE")
    assert shipped == (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert shipped.startswith("MIT License\n")
