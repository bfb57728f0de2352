"""The dimmed game under a dialog, as Textual draws it, with less work."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.renderables.background_screen import BackgroundScreen

__all__ = ["dimmed"]


class _Backdrop(BackgroundScreen):
    """Textual's tint of the screen below, worked out once for each style, not each piece.

    Textual blends the colours of every piece of text of the screen below with the
    dialog's background, anew for each: some 600 pieces for the game at 100x32, in a few
    dozen styles. Each style is tinted here once, by Textual's own code, and reused.
    """

    @classmethod
    def process_segments(cls, segments: Iterable[Segment], color: Color) -> Iterator[Segment]:
        tint = super().process_segments
        tinted: dict[Style | None, Style | None] = {}
        for segment in segments:
            text, style, control = segment
            if control:
                yield segment
                continue
            if style not in tinted:
                tinted[style] = next(iter(tint([Segment(" ", style)], color))).style
            yield Segment(text, tinted[style])


def dimmed(rendered: RenderableType) -> RenderableType:
    """What a dialog's `render` returns: Textual's own (`rendered`, from `super().render()`),
    with the screen below it drawn through `_Backdrop` when it is shown dimmed."""
    if isinstance(rendered, BackgroundScreen):
        return _Backdrop(rendered.screen, rendered.color)
    return rendered
