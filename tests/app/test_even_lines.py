"""Containers draw one line for all their alike rows (`EvenLines`): it must be the line
Textual draws, row for row, in every state a container is seen in."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget

from app.conftest import HOT_SEAT, Driver, Start
from tictactoe.widgets.drawn import EvenLines, KeptLines


def containers(screen: Screen[object]) -> list[EvenLines]:
    nodes: list[Widget] = [screen, *screen.walk_children(Widget)]
    return [node for node in nodes if isinstance(node, EvenLines) and node.outer_size.area]


def crops(widget: Widget) -> list[Region]:
    """The whole widget, and parts of it as the compositor may ask for them."""
    width, height = widget.outer_size
    return [
        Region(0, 0, width, height),
        Region(0, 1, width, max(1, height - 2)),
        Region(min(2, width - 1), height // 3, max(1, width - 4), max(1, height // 2)),
        Region(0, height - 1, width, 1),
    ]


def assert_as_textual_draws(ui: Driver) -> int:
    """Every container of every screen on the stack; how many were compared."""
    compared = 0
    for screen in ui.app.screen_stack:
        for widget in containers(screen):
            for crop in crops(widget):
                ours = widget.fresh_lines(crop)
                widget._styles_cache.clear()
                textuals = KeptLines.fresh_lines(widget, crop)  # Textual's own rendering
                assert ours == textuals, f"{widget!r} at {crop}"
                compared += 1
    return compared


@pytest.mark.parametrize("size", [(100, 32), (80, 24), (60, 18)])
@pytest.mark.parametrize("theme", ["textual-dark", "textual-light", "ansi-dark"])
async def test_containers_draw_the_lines_textual_draws(
    start: Start, size: tuple[int, int], theme: str
) -> None:
    async with start(size=size, **HOT_SEAT) as ui:
        ui.app.theme = theme
        await ui.pilot.pause()
        # The first screen: the mark dialog over the game (the dialog's own containers too).
        assert assert_as_textual_draws(ui) >= 6 * 4
        await ui.press("5")  # meant for the board: the dialog shows its notice, and grows
        assert ui.app.screen.query_one("#notice").is_on_screen
        assert_as_textual_draws(ui)
        await ui.press("x", "5", "1")
        assert ui.series.match is not None and len(ui.series.match.moves) == 2
        assert assert_as_textual_draws(ui) >= 5 * 4
        await ui.pilot.hover("#board", offset=(2, 2))  # the board's look under the mouse
        assert_as_textual_draws(ui)


async def test_rows_that_are_not_alike_are_drawn_one_by_one(start: Start) -> None:
    """The dialog has a border at its top and bottom: those rows are not its middle one."""
    async with start(**HOT_SEAT) as ui:
        dialog = ui.app.screen.query_one("#dialog")
        assert isinstance(dialog, EvenLines)
        lines = dialog.fresh_lines(Region(0, 0, *dialog.outer_size))
        assert lines[0] != lines[len(lines) // 2] != lines[-1]
        assert len({id(line) for line in lines[1:-1]}) < len(lines) - 2  # alike rows: one line
        assert_as_textual_draws(ui)
