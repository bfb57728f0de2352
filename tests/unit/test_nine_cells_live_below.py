"""Nothing above the core counts to nine cells: the classic board widget and the Ultimate
board widget (each its variant's own) are the only places above `core/` that may."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

SOURCE: Final = Path(__file__).resolve().parents[2] / "src" / "tictactoe"
ASSUMPTIONS: Final = re.compile(r"range\(9\)|\bLINES\b|\bCELL_NAMES\b|grid-size: 3 3")
"""What assumes one board of nine cells."""
VARIANTS_OWN: Final = {
    "tui/widgets/board.py",  # the classic board widget
    "tui/widgets/ultimate_board.py",  # the Ultimate board widget
}


def test_only_the_core_and_the_board_widgets_count_to_nine() -> None:
    found = []
    for path in sorted(SOURCE.rglob("*")):
        if path.suffix not in (".py", ".tcss"):
            continue
        name = path.relative_to(SOURCE).as_posix()
        if name.startswith("core/") or name in VARIANTS_OWN:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0] if path.suffix == ".py" else line
            code = code.replace('"LINES"', "")  # the terminal's own variable, not the lines
            if ASSUMPTIONS.search(code) and "COLUMNS and LINES" not in line:
                found.append(f"{name}:{number}: {line.strip()}")
    assert found == []
