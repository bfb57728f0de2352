"""The game's header is one widget where Textual's is four: it must look and act the same."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual import widgets
from textual.app import App, ComposeResult
from textual.command import CommandPalette
from textual.pilot import Pilot

from tictactoe.widgets.header import Header


class WithHeader(App[None]):
    """A header of `kind` over an empty screen."""

    TITLE = "Tic-tac-toe"

    def __init__(self, kind: type[widgets.Header] | type[Header], sub_title: str = "") -> None:
        super().__init__()
        self.kind = kind
        self.sub_title = sub_title

    def compose(self) -> ComposeResult:
        yield self.kind()


def top_rows(app: App[None], rows: int = 3) -> list[list[tuple[str, str]]]:
    """The screen's top rows, cell by cell: (character, style). A blank shows only its
    background, so that is all that is kept of its style."""
    result = []
    for strip in app.screen._compositor.render_strips()[:rows]:
        cells = []
        for text, style, _control in strip:
            for character in text:
                if character == " ":
                    shown = f"on {style.bgcolor.name}" if style and style.bgcolor else ""
                else:
                    shown = str(style)
                cells.append((character, shown))
        result.append(cells)
    return result


def text_of(row: list[tuple[str, str]]) -> str:
    return "".join(character for character, _ in row)


async def nothing(pilot: Pilot[None]) -> None:
    pass


async def hover_icon(pilot: Pilot[None]) -> None:
    await pilot.hover(offset=(3, 0))


async def hover_title(pilot: Pilot[None]) -> None:
    await pilot.hover(offset=(3, 0))
    await pilot.hover(offset=(pilot.app.size.width // 2, 0))


async def click_title(pilot: Pilot[None]) -> None:
    width, height = pilot.app.size
    await pilot.click(offset=(width // 2, 0))
    await pilot.hover(offset=(width - 1, height - 1))


async def tall_and_hover_icon(pilot: Pilot[None]) -> None:
    await click_title(pilot)
    await pilot.hover(offset=(3, 1))


async def click_title_twice(pilot: Pilot[None]) -> None:
    await click_title(pilot)
    await click_title(pilot)


STATES: dict[str, Callable[[Pilot[None]], Awaitable[None]]] = {
    "plain": nothing,
    "icon hovered": hover_icon,
    "icon hovered, then the title": hover_title,
    "tall": click_title,
    "tall, icon hovered": tall_and_hover_icon,
    "tall, then short again": click_title_twice,
}


@pytest.mark.parametrize("size", [(100, 32), (30, 10)], ids=str)
@pytest.mark.parametrize("sub_title", ["", "a subtitle"])
@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("state", list(STATES))
async def test_the_game_header_looks_like_textuals(
    state: str, theme: str, sub_title: str, size: tuple[int, int]
) -> None:
    drawn = []
    for kind in (widgets.Header, Header):
        app = WithHeader(kind, sub_title)
        app.theme = theme
        async with app.run_test(size=size) as pilot:
            await STATES[state](pilot)
            await pilot.pause()
            drawn.append(top_rows(app))
    theirs, ours = drawn
    assert ours == theirs
    assert "Tic-tac-toe"[: size[0] - 19] in text_of(theirs[0]) + text_of(theirs[1])


async def test_a_click_on_the_icon_opens_the_command_palette() -> None:
    app = WithHeader(Header)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.click(offset=(2, 0))
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        assert not app.query_one(Header).has_class("-tall")


async def test_the_icon_tells_what_it_does() -> None:
    app = WithHeader(Header)
    async with app.run_test(size=(80, 24)) as pilot:
        header = app.query_one(Header)
        await pilot.hover(offset=(3, 0))
        assert header.tooltip == "Open the command palette"
        await pilot.hover(offset=(30, 0))
        assert header.tooltip is None


async def test_a_new_title_is_shown() -> None:
    app = WithHeader(Header)
    async with app.run_test(size=(80, 24)) as pilot:
        app.title = "Noughts and crosses"
        await pilot.pause()
        assert "Noughts and crosses" in text_of(top_rows(app, 1)[0])
        app.screen.sub_title = "round two"
        await pilot.pause()
        assert "Noughts and crosses — round two" in text_of(top_rows(app, 1)[0])
