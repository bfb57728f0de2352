"""The game's button keeps only some of Textual's style rules: it must look the same."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual import widgets
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets.button import ButtonVariant

from tictactoe.widgets.button import Button

VARIANTS: tuple[ButtonVariant, ...] = ("default", "primary", "error")
"""The variants the game shows."""


class OneButton(App[None]):
    """One button of `kind` in `variant`: the two kinds never share an app, where the
    rules of each (both of CSS type `Button`) would style the other too."""

    AUTO_FOCUS = None

    def __init__(self, kind: type[widgets.Button], variant: ButtonVariant) -> None:
        super().__init__()
        self.kind = kind
        self.variant: ButtonVariant = variant

    def compose(self) -> ComposeResult:
        yield self.kind("Quit", variant=self.variant)


def lines(button: widgets.Button) -> list[list[tuple[str, str]]]:
    """Each of the button's lines as (text, style) runs, merged where the style is one."""
    drawn = button.render_lines(Region(0, 0, *button.outer_size))
    result = []
    for strip in drawn:
        runs: list[tuple[str, str]] = []
        for segment in strip:
            style = str(segment.style)
            if runs and runs[-1][1] == style:
                runs[-1] = (runs[-1][0] + segment.text, style)
            else:
                runs.append((segment.text, style))
        result.append(runs)
    return result


async def focus(pilot: Pilot[None], button: widgets.Button) -> None:
    button.focus()


async def hover(pilot: Pilot[None], button: widgets.Button) -> None:
    assert await pilot.hover(button)


async def press(pilot: Pilot[None], button: widgets.Button) -> None:
    button.add_class("-active")  # as a click does, for a moment


async def hover_and_press(pilot: Pilot[None], button: widgets.Button) -> None:
    await hover(pilot, button)
    await press(pilot, button)


STATES: dict[str, Callable[[Pilot[None], widgets.Button], Awaitable[None]] | None] = {
    "plain": None,
    "focus": focus,
    "hover": hover,
    "pressed": press,
    "hovered and pressed": hover_and_press,
}


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light", "ansi-dark"])
@pytest.mark.parametrize("state", list(STATES))
@pytest.mark.parametrize("variant", VARIANTS)
async def test_the_game_button_looks_like_textuals(
    theme: str, state: str, variant: ButtonVariant
) -> None:
    change = STATES[state]
    drawn = []
    for kind in (widgets.Button, Button):
        app = OneButton(kind, variant)
        app.theme = theme
        async with app.run_test(size=(30, 5)) as pilot:
            button = app.query_one(kind)
            assert type(button) is kind
            if change is not None:
                await change(pilot, button)
                await pilot.pause()
            drawn.append((button.outer_size, lines(button)))
    theirs, ours = drawn
    assert ours == theirs
    assert theirs[0].width >= 16
    assert len(theirs[1]) == 3
