"""Textual's footer, made with less work: every screen here shows its keys with it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import widgets
from textual.reactive import Reactive

from tictactoe.widgets.drawn import KeptLines

if TYPE_CHECKING:
    from textual.app import ComposeResult

__all__ = ["Footer"]


class Footer(widgets.Footer, KeptLines):
    """The same footer, drawn the same; it skips three kinds of work that show nothing.

    - Textual makes each key compact, then binds it to the footer's own (not compact)
      style, and each of the two steps restyles the key: a dozen restyles a footer,
      on every screen and every time its keys change. Here each key starts with the
      footer's style, so neither step changes anything.
    - A screen under another one (the game under its mark dialog or the record) hears
      that its keys changed as it is covered, and Textual rebuilds its footer there,
      out of sight. Here a footer that shows keys keeps them until its screen is on
      top again, when Textual asks for them anew anyway.
    - Textual asks it for its lines on every frame of its screen, wherever the change
      was: it keeps them (`KeptLines`) until it changes.
    """

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            # A key: Textual keeps its class private, so it is known by its reactive. The
            # palette's key is not bound to the footer's style and keeps its own.
            compact = getattr(type(widget), "compact", None)
            if isinstance(compact, Reactive) and not widget.has_class("-command-palette"):
                widget.set_reactive(compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    async def recompose(self) -> None:
        if self.children and self.app.screen is not self.screen:
            return  # covered: its keys are shown again, as they are then, when it is on top
        await super().recompose()
