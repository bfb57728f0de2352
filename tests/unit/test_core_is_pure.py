"""The pure core imports nothing from Textual, proven in a fresh interpreter.

A check inside this process would prove nothing: pytest plugins and other tests
may have imported Textual long before this test runs.
"""

from __future__ import annotations

import subprocess
import sys

CORE = (
    "tictactoe.engine",
    "tictactoe.series",
    "tictactoe.ai",
    "tictactoe.seats",
    "tictactoe.reachable",
    "tictactoe.notices",
)

PROBE = f"""
import sys
for name in {CORE!r}:
    __import__(name)
    assert name in sys.modules, name
leaked = sorted(
    m for m in sys.modules if m.split(".")[0] == "textual" or m.startswith("tictactoe.online")
)
print(",".join(leaked) or "clean")
"""


def test_the_core_imports_no_textual() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "clean"


def test_the_probe_would_see_textual_if_it_were_imported() -> None:
    result = subprocess.run(
        [sys.executable, "-c", "import textual.app\n" + PROBE],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "textual" in result.stdout.split(",")
    assert "textual.app" in result.stdout.strip().split(",")
