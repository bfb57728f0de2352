"""The dimmed game under a dialog (`screens/backdrop.py`) must look as Textual dims it."""

from __future__ import annotations

import pytest
from rich.style import Style
from textual.screen import ModalScreen
from textual.strip import Strip

from app.conftest import HOT_SEAT, Start
from tictactoe.screens.mark_choice import MarkChoiceScreen


def cells(lines: list[Strip]) -> list[list[tuple[str, str]]]:
    """Each row, cell by cell: (character, style); a blank shows only its background
    (and what would make a blank visible), so that is all that is kept of its style."""
    rows = []
    for line in lines:
        row = []
        for text, style, _control in line:
            style = style or Style()
            for character in text:
                if character == " ":
                    shown = Style(
                        bgcolor=style.bgcolor,
                        reverse=style.reverse,
                        underline=style.underline,
                        strike=style.strike,
                    )
                    if style.reverse or style.underline or style.strike:
                        shown += Style(color=style.color)
                    row.append((character, str(shown)))
                else:
                    row.append((character, str(Style(color=style.color) + style)))
        rows.append(row)
    return rows


@pytest.mark.parametrize("size", [(100, 32), (60, 18)])
@pytest.mark.parametrize("theme", ["textual-dark", "textual-light", "ansi-dark", "nord"])
async def test_the_dimmed_game_looks_as_textual_dims_it(
    start: Start, size: tuple[int, int], theme: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with start(size=size, **HOT_SEAT) as ui:
        ui.app.theme = theme
        await ui.pilot.pause()
        screen = ui.app.screen
        assert isinstance(screen, MarkChoiceScreen)
        ours = cells(screen._compositor.render_strips())

        # Textual's own: the modal screen's render, `BackgroundScreen` drawing the game.
        monkeypatch.setattr(MarkChoiceScreen, "render", ModalScreen.render)
        screen.refresh()
        await ui.pilot.pause()
        textuals = cells(screen._compositor.render_strips())

        assert len(ours) == len(textuals) == size[1]
        for y, (our_row, textual_row) in enumerate(zip(ours, textuals, strict=True)):
            assert our_row == textual_row, f"row {y}"
        # The game is really under it, dimmed: its board's borders are on those rows (an
        # ANSI theme cannot blend colours: there Textual leaves the screen below blank).
        board_shown = any("╭" in "".join(character for character, _ in row) for row in ours)
        assert board_shown == (not theme.startswith("ansi"))
