"""The move-history panel: the moves of the current match, in order."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from textual.content import Content
from textual.reactive import var
from textual.widgets import Static

from tictactoe.core.labels import side_by_side
from tictactoe.core.names import short
from tictactoe.core.series import Series

__all__ = ["MoveHistory", "history_lines"]


def history_lines(series: Series, width: int | None = None) -> list[str]:
    """One entry a move: "3. Ada X top-left" (against the computer, a person called like it
    is "Computer (person)", see `side_by_side`). Within `width` cells the move stays whole:
    a move whose words come in pieces (Ultimate's "centre board," then "top-left") goes on
    to the next lines of its entry, its player named whole; a move of one piece keeps its
    line, the name shortened to fit (the computer's level left out first: the person's mark
    tells them apart), and left out ("3. X top-left") where not even that fits."""
    entries = []
    names = side_by_side(series.players)
    for number, (player, mark, cell) in enumerate(series.history(), start=1):
        head, phrases = f"{number}. ", series.variant.move_phrases(cell)
        whole = f"{head}{names[player]} {mark} {' '.join(phrases)}"
        if width is None or cell_len(whole) <= width:
            entries.append(whole)
            continue
        room = width - len(head)
        if len(phrases) > 1:
            name = side_by_side(series.players, room)[player]
            entries.append(_wrapped(f"{head}{name}", (str(mark), *phrases), width, len(head)))
            continue
        move = f"{mark} {phrases[0]}"
        room -= len(move) + 1
        plain = short(series.players[player].name, room)
        fitting = [
            cut
            for cut in (side_by_side(series.players, room)[player], plain)
            if cell_len(cut) <= room and (cut != "…" or names[player] == cut)
        ]
        entries.append(f"{head}{fitting[0]} {move}" if fitting else f"{head}{move}")
    return entries


def _wrapped(first: str, words: Sequence[str], width: int, indent: int) -> str:
    """`first`, then `words` after it, on as many lines of `width` cells as they take, each
    line after the first indented by `indent` (less where a word would not fit beside it)."""
    longest = max(cell_len(word) for word in words)
    margin = " " * max(0, min(indent, width - longest))
    lines = [first]
    for word in words:
        if cell_len(f"{lines[-1]} {word}") <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(margin + word)
    return "\n".join(lines)


class MoveHistory(Static):
    """Lists the moves of the match on show, the latest always in view: when the panel is
    too short for every move, the first line says how many earlier ones are hidden."""

    series: var[Series | None] = var(None)
    """The series whose current match is listed."""

    def on_mount(self) -> None:
        self.border_title = "Moves"

    def watch_series(self) -> None:
        self._list()

    def on_resize(self) -> None:
        self._list()

    def _list(self) -> None:
        width, room = self.content_size
        entries = history_lines(self.series, width or None) if self.series else []
        self.set_class(not entries, "-empty")
        if not entries:
            entries = ["No moves yet"]
        elif room and sum(_height(entry) for entry in entries) > room:
            shown = _latest(entries, room - 1)
            hidden = len(entries) - len(shown)
            entries = [f"… {hidden} earlier", *shown] if room > 1 and shown else entries[-1:]
        self.update(Content("\n".join(entries)), layout=False)  # it fills the room it is given


def _height(entry: str) -> int:
    """How many lines a move's entry takes."""
    return entry.count("\n") + 1


def _latest(entries: list[str], room: int) -> list[str]:
    """The latest `entries` that fit in `room` lines together."""
    shown: list[str] = []
    for entry in reversed(entries):
        room -= _height(entry)
        if room < 0:
            break
        shown.insert(0, entry)
    return shown
