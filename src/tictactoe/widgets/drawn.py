"""Widgets that draw every cell of their lines themselves, and keep what they drew."""

from __future__ import annotations

from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["DrawnLines"]


class DrawnLines(Widget):
    """A widget whose `render_line` returns whole, finished lines that it keeps and reuses.

    Textual passes every line a widget renders through a styling step for its border,
    padding, tint and opacity, which copies the line each time, so that the terminal's
    colour filter must convert it again too. A subclass has none of those (it draws its
    own borders): its lines go out as drawn, and a line drawn before costs a dictionary
    lookup.
    """

    DEFAULT_CSS = """
    DrawnLines {
        border: none;
        padding: 0;
    }
    """

    def render_lines(self, crop: Region) -> list[Strip]:
        filters = self.get_line_filters()
        background = self.background_colors[1]
        lines = []
        for y in crop.line_range:
            line = self.render_line(y)
            for line_filter in filters:
                line = line.apply_filter(line_filter, background)
            lines.append(line)
        x1, x2 = crop.column_span
        if (x1, x2) != (0, self.size.width):
            lines = [line.crop(x1, x2) for line in lines]
        return lines
