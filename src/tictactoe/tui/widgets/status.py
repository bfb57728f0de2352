"""The status line under the board: whose turn it is, the result, or a short notice.

It is laid out for the width it has: its lines break between phrases (a notice comes in
its phrases, `tictactoe.core.notices`; the state of the series too, `tictactoe.core.sayings`),
never inside one; where a phrase would not fit, a shorter wording of it stands in (a name cut
shorter, fewer words), so nothing is cut mid-phrase at any size the game supports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.cells import cell_len
from textual.content import Content
from textual.widgets import Static

from tictactoe.core.notices import Notice, Phrase
from tictactoe.core.sayings import status_notice
from tictactoe.core.series import Series

__all__ = ["Phrase", "StatusLine", "lay_out"]


def _pack(words: Sequence[tuple[str, str]], width: int) -> list[str]:
    lines: list[str] = []
    for joiner, wording in words:
        if lines and joiner != "\n" and cell_len(lines[-1] + joiner + wording) <= width:
            lines[-1] += joiner + wording
        else:
            lines.append(wording)
    return lines


def lay_out(phrases: Sequence[Phrase], width: int, height: int) -> str:
    """`phrases` in at most `height` lines of `width` cells, broken only between phrases;
    the longest phrase that has a shorter wording takes it until they fit (if they never
    do, the shortest wordings, which Textual then wraps)."""
    chosen = [0] * len(phrases)

    def current() -> list[tuple[str, str]]:
        return [(p.joiner, p.wordings[i]) for p, i in zip(phrases, chosen, strict=True)]

    while True:
        lines = _pack(current(), width)
        if len(lines) <= height and all(cell_len(line) <= width for line in lines):
            return "\n".join(lines)
        shorter = [
            (cell_len(phrase.wordings[index]), number)
            for number, (phrase, index) in enumerate(zip(phrases, chosen, strict=True))
            if index + 1 < len(phrase.wordings)
        ]
        if not shorter:
            return "\n".join(lines)
        chosen[max(shorter)[1]] += 1


class StatusLine(Static):
    """A notice about the last input when there is one (class `-notice`), else the state of
    the series; laid out again for its width whenever that changes."""

    def __init__(self, keys: Mapping[str, Sequence[str]], *, id: str | None = None) -> None:
        """`keys`: the keys of each action a notice may leave a slot for, as the screen
        reads them."""
        super().__init__(id=id)
        self._keys = keys
        self._phrases: list[Phrase] = []

    def show(self, series: Series, notice: Notice) -> None:
        """Show `notice`, or the state of `series` when there is none."""
        self.set_class(bool(notice), "-notice")
        shown = status_notice(series, notice)
        self._phrases = list(shown.with_keys(self._keys).phrases)
        self._lay_out()

    def on_resize(self) -> None:
        self._lay_out()

    def _lay_out(self) -> None:
        width, height = self.content_size
        if width <= 0:  # not laid out yet: the resize that follows lays it out again
            width, height = 1000, 2
        # Its size is set in app.tcss: new words need no layout.
        self.update(Content(lay_out(self._phrases, width, max(1, height))), layout=False)
