"""The status line under the board: whose turn it is, the result, or a short notice.

It is laid out for the width it has: its lines break between sentences, clauses and
the "·"-separated key hints, never inside one; where a phrase would not fit, a
shorter wording of it stands in (a name cut shorter, fewer words), so nothing is cut
mid-phrase at any size the game supports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rich.cells import cell_len
from textual.content import Content
from textual.widgets import Static

from tictactoe.names import NAME_WIDTH, short
from tictactoe.series import Series

__all__ = ["Phrase", "StatusLine", "describe", "lay_out", "notice_phrases"]

NAME_WIDTHS: Final = (NAME_WIDTH, 12, 8)
"""The widths a name on the status line is cut to, widest first, as the line narrows."""


@dataclass(frozen=True)
class Phrase:
    """A piece of the status line that is never broken: its wordings, longest first, and
    what joins it to the phrase before on one line ("\\n": it always starts a line)."""

    wordings: tuple[str, ...]
    joiner: str = " "


_SENTENCE_END: Final = re.compile(r"(?<=[.!?…:])\s+")
"""Where a notice may break: after a sentence or a clause (a colon)."""

_SHORTER: Final[tuple[tuple[re.Pattern[str], str], ...]] = (
    (re.compile(r"^press n or Enter for the next one\.$"), "n or Enter: next match."),
    (re.compile(r"^n or Enter: next match\.$"), "n: next match."),
    (re.compile(r"^its moves can no longer be taken back\.$"), "moves are final."),
    (re.compile(r"^There is no move to take back([:.])$"), r"Nothing to undo\1"),
    (re.compile(r"^no match is in progress\.$"), "no match is on."),
    (re.compile(r"^The marks are already chosen for this match\.$"), "The marks are chosen."),
    (re.compile(r"^(.+) needs a match in progress\.$"), r"\1 needs a match."),
    (re.compile(r"^No marks are chosen yet\.$"), "No marks yet."),
    (re.compile(r"^Finish this match first\.$"), "Finish this match."),
    (re.compile(r"^(.+) chooses (the|its own) mark( this match)?\.$"), r"\1 chooses."),
    (re.compile(r"^([XO]) wins with best play\.$"), r"Best play: \1 wins."),
    (re.compile(r"^Draw with best play\.$"), "Best play: a draw."),
    (re.compile(r" \([^()]*\)"), ""),  # an aside in brackets: "Cell 7 (top-left) is taken…"
)
"""Shorter wordings of what the game says, tried in turn on a phrase too long for its line."""


def _wordings(phrase: str) -> tuple[str, ...]:
    wordings = [phrase]
    for pattern, shorter in _SHORTER:
        shortened = pattern.sub(shorter, wordings[-1])
        if shortened != wordings[-1]:
            wordings.append(shortened)
    return tuple(wordings)


def notice_phrases(notice: str) -> list[Phrase]:
    """A notice cut into its sentences and clauses, each with its shorter wordings."""
    phrases = []
    for number, line in enumerate(notice.split("\n")):
        for index, part in enumerate(_SENTENCE_END.split(line.strip())):
            joiner = "\n" if number and not index else " "
            phrases.append(Phrase(_wordings(part), joiner))
    return phrases


def _named(template: str, name: str) -> tuple[str, ...]:
    """`template` with `name` cut to each of `NAME_WIDTHS`."""
    return tuple(dict.fromkeys(template.format(short(name, width)) for width in NAME_WIDTHS))


_NEXT: Final = (
    Phrase(("n or Enter: next match", "n: next match", "n: next"), "\n"),
    Phrase(("q: quit",), " · "),
)
"""The keys after a match."""


def describe(series: Series) -> list[Phrase]:
    """The status line for a series as it stands, in phrases."""
    match, actor = series.match, series.actor
    if match is None:
        chooser = series.players[series.chooser].name
        wordings = _named("{} is choosing a mark…", chooser) + _named("{} chooses…", chooser)
        return [Phrase(wordings)]
    winner = series.winner
    if winner is not None:
        return [Phrase(_named("{} wins!", series.players[winner].name)), *_NEXT]
    if actor is None:
        return [Phrase(("It's a draw.",)), *_NEXT]
    player = series.players[actor]
    if player.is_computer:
        return [Phrase(_named("{} is thinking…", player.name))]
    return [Phrase(_named(f"{{}} ({match.to_move}) to move", player.name))]


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
    """A notice about the last input when there is one (class `-notice`), else `describe`;
    laid out again for its width whenever that changes."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._phrases: list[Phrase] = []

    def show(self, series: Series, notice: str) -> None:
        """Show `notice`, or the state of `series` when there is none."""
        self.set_class(bool(notice), "-notice")
        self._phrases = notice_phrases(notice) if notice else describe(series)
        self._lay_out()

    def on_resize(self) -> None:
        self._lay_out()

    def _lay_out(self) -> None:
        width, height = self.content_size
        if width <= 0:  # not laid out yet: the resize that follows lays it out again
            width, height = 1000, 2
        # Its size is set in app.tcss: new words need no layout.
        self.update(Content(lay_out(self._phrases, width, max(1, height))), layout=False)
