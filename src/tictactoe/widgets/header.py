"""The title bar: Textual's header, drawn by one widget instead of four."""

from __future__ import annotations

from typing import ClassVar, Final

from textual import events
from textual.color import WHITE
from textual.content import Content
from textual.style import Style

from tictactoe.widgets.drawn import KeptLines, look_colours

__all__ = ["ICON_WIDTH", "Header"]

ICON: Final = "⭘"
ICON_WIDTH: Final = 8
"""Cells of the icon at the left, which opens the command palette."""
CLOCK_WIDTH: Final = 10
"""Cells kept blank at the right, where Textual's header would show a clock."""


class Header(KeptLines):
    """Textual's `Header` (without its clock), the same to see and to use.

    Textual makes it of four widgets: the bar, the icon, the title and the clock's
    room, each styled, laid out and drawn on its own, and the first frame waits for
    all of them. This one draws the same line itself: the icon (tinted under the
    mouse; a click opens the command palette), the title centred between the icon and
    the clock's room, and a click elsewhere makes it three lines tall, or one again.
    """

    DEFAULT_CSS = """
    Header {
        dock: top;
        width: 100%;
        background: $panel;
        color: $foreground;
        height: 1;
        text-wrap: nowrap;

        &.-tall {
            height: 3;
        }
        & > .header--icon-hover {
            background: $foreground 10%;
        }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"header--icon-hover"}
    """The icon's look under the mouse."""

    def __init__(self) -> None:
        super().__init__()
        self._icon_hovered = False

    def on_mount(self) -> None:
        for owner in (self.app, self.screen):
            self.watch(owner, "title", self._retitle, init=False)
            self.watch(owner, "sub_title", self._retitle, init=False)

    def _retitle(self) -> None:
        self.refresh()

    @property
    def title_shown(self) -> Content:
        """The title as Textual's header shows it: the screen's, else the app's."""
        screen, app = self.screen, self.app
        title = app.title if screen.title is None else screen.title
        sub_title = app.sub_title if screen.sub_title is None else screen.sub_title
        return app.format_title(title, sub_title)

    @staticmethod
    def is_icon_cell(x: int) -> bool:
        """Whether the cell `x` cells from the header's left edge is the icon's."""
        return 0 <= x < ICON_WIDTH

    def render(self) -> Content:
        width, height = self.size
        room = max(0, width - ICON_WIDTH - CLOCK_WIDTH)
        title = self.title_shown.truncate(room, ellipsis=True)
        left = (room - title.cell_length) // 2
        title = title.pad(left, room - left - title.cell_length)

        icon_style: Style | str = ""
        if self._icon_hovered:
            styles = self.get_component_styles("header--icon-hover")
            under = self.background_colors[1]
            background, _ = look_colours(styles, under, self.visual_style.foreground or WHITE)
            icon_style = Style(background=background)

        # As Textual's: the icon is centred in the header's height, the title on top.
        middle = (height - 1) // 2
        lines = []
        for row in range(height):
            icon = f" {ICON}" if row == middle else ""
            lines.append(
                Content.assemble(
                    (icon.ljust(ICON_WIDTH), icon_style),
                    title if row == 0 else " " * room,
                    " " * CLOCK_WIDTH,
                )
            )
        return Content("\n").join(lines)

    # The mouse.

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover_icon(self.is_icon_cell(event.x))

    def on_leave(self) -> None:
        self._hover_icon(False)

    def _hover_icon(self, hovered: bool) -> None:
        if hovered != self._icon_hovered:
            self._icon_hovered = hovered
            self.tooltip = "Open the command palette" if hovered else None
            self.refresh()

    async def on_click(self, event: events.Click) -> None:
        if self.is_icon_cell(event.x):
            event.stop()
            await self.run_action("app.command_palette")
        else:
            self.toggle_class("-tall")
