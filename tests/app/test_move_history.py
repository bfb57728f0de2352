"""The move history shows every move whole, however narrow the panel: a name is shortened
to fit, and left out where not even its first character would fit."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from app.conftest import Start, inside
from tictactoe.core.engine import CELL_NAMES
from tictactoe.tui.widgets.history import MoveHistory

DRAW = ("7", "8", "9", "5", "4", "6", "2", "1", "3")
"""A drawn match in the keypad layout: nine moves, bottom-left and bottom-right among them."""


@pytest.mark.parametrize(
    ("size", "names"),
    [
        pytest.param((79, 30), ("Ada", "Bob"), id="79x30"),  # the narrowest panel: 21 cells
        pytest.param((60, 40), ("A name far too long to fit", "李雷"), id="60x40-long-wide"),
        pytest.param((70, 24), ("Ada", "Bob"), id="70x24"),
        pytest.param((100, 40), ("A name far too long to fit", "Bo"), id="100x40-long"),
    ],
)
async def test_every_move_is_shown_whole(
    start: Start, size: tuple[int, int], names: tuple[str, str]
) -> None:
    async with start(size=size, player1=names[0], player2=names[1]) as ui:
        await ui.press("x", *DRAW)
        history = ui.game.query_one(MoveHistory)
        width = history.content_size.width
        lines = [line.strip() for line in inside(history) if line.strip()]
        moves = ui.series.history()
        if lines[0].startswith("… "):  # the earliest moves, hidden for want of height
            lines = lines[1:]
        assert len(lines) <= len(moves)
        for number, line in enumerate(lines, start=len(moves) - len(lines) + 1):
            player, mark, cell = moves[number - 1]
            head, tail = f"{number}. ", f"{mark} {CELL_NAMES[cell]}"
            assert line.startswith(head) and line.endswith(tail), (width, line)
            name = line[len(head) : -len(tail)].strip()
            whole = ui.series.players[player].name
            if not name:  # left out only where the least of it would not fit
                least = whole if len(whole) == 1 else f"{whole[0]}…"
                assert cell_len(f"{head}{least} {tail}") > width, (width, line)
            else:
                assert name == whole or (name.endswith("…") and whole.startswith(name[:-1]))


@pytest.mark.parametrize(
    "size", [(79, 30), (60, 20), (60, 16), (50, 16)], ids=lambda s: f"{s[0]}x{s[1]}"
)
async def test_a_three_letter_name_stays_whole_in_a_narrow_terminal(
    start: Start, size: tuple[int, int]
) -> None:
    async with start(size=size, player1="Ada", player2="Bob") as ui:
        await ui.press("x", "5", "8", "9", "1", "3")  # the last two: bottom-left, bottom-right
        lines = [line.strip() for line in inside(ui.game.query_one(MoveHistory)) if line.strip()]
        named = [line for line in lines if "bottom-right" in line or "bottom-left" in line]
        assert named, lines
        for line in named:
            assert line.split()[1] in ("Ada", "Bob"), (size, lines)


ULTIMATE_OPENING = (0, 3, 28, 9, 1, 13, 38, 18, 2)
"""Nine Ultimate moves, each named by its board and its cell: longer than a panel's line."""


@pytest.mark.parametrize(
    ("size", "names"),
    [
        pytest.param((80, 24), ("Ada", "Grace"), id="80x24"),
        pytest.param((100, 40), ("Ada", "Grace"), id="100x40"),
        pytest.param((50, 16), ("Ada", "Bob"), id="50x16"),
    ],
)
async def test_an_ultimate_move_reads_whole_with_its_player(
    start: Start, size: tuple[int, int], names: tuple[str, str]
) -> None:
    async with start(size=size, variant="ultimate", player1=names[0], player2=names[1]) as ui:
        await ui.press("x")
        board = ui.game.board
        for move in ULTIMATE_OPENING:
            await ui.press(*board.key_for(move))
        history = ui.game.query_one(MoveHistory)
        width = history.content_size.width
        lines = [line.strip() for line in inside(history) if line.strip()]
        assert all(cell_len(line) <= width for line in lines), lines
        hidden = int(lines[0].split()[1]) if lines[0].startswith("… ") else 0
        said = " ".join(" ".join(lines[1 if hidden else 0 :]).split())
        shown = ui.series.history()[hidden:]
        assert shown, lines
        for number, (player, mark, cell) in enumerate(shown, start=hidden + 1):
            whole = f"{number}. {names[player]} {mark} {ui.series.variant.short_move_words(cell)}"
            assert whole in said, (whole, lines)
