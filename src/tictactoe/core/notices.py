"""A notice as data: what the game says about the last thing done, in phrases that are
never broken, each with its wordings longest first.

The status line lays a notice out for the width it has: it breaks lines only between
phrases and takes a shorter wording of a phrase that does not fit. So the parts of a
sentence are given here, by whoever words it (a refusal of the core, a hint, the
authority's news), and nobody reads them back out of the sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tictactoe.core.ai import Analysis

__all__ = ["JOINERS", "Notice", "Phrase", "hint_notice"]

JOINERS: Final = (" ", "\n", " · ")
"""What may join a phrase to the one before: a space, a new line, or the dot between key hints."""


@dataclass(frozen=True, slots=True)
class Phrase:
    """A piece of a notice that is never broken: its wordings, longest first, and what
    joins it to the phrase before on one line ("\\n": it always starts a line)."""

    wordings: tuple[str, ...]
    joiner: str = " "

    def __post_init__(self) -> None:
        if not self.wordings:
            raise ValueError("a phrase has at least one wording")
        if self.joiner not in JOINERS:
            raise ValueError(f"a phrase is joined by one of {JOINERS!r}, not {self.joiner!r}")


@dataclass(frozen=True, slots=True)
class Notice:
    """A notice: its phrases in order. The empty notice says nothing (and is false)."""

    phrases: tuple[Phrase, ...] = ()

    @classmethod
    def of(cls, *parts: str | tuple[str, ...]) -> Notice:
        """A notice of `parts` on one line: each a wording, or its wordings longest first."""
        return cls(tuple(Phrase((part,) if isinstance(part, str) else part) for part in parts))

    def then(self, *parts: str | tuple[str, ...]) -> Notice:
        """This notice, and `parts` after it on a line of their own."""
        more = Notice.of(*parts).phrases
        if not more or not self.phrases:
            return Notice(self.phrases + more)
        first = Phrase(more[0].wordings, "\n")
        return Notice((*self.phrases, first, *more[1:]))

    def __bool__(self) -> bool:
        return bool(self.phrases)

    def __str__(self) -> str:
        """The notice in full: every phrase in its longest wording."""
        return "".join(
            (phrase.joiner if index else "") + phrase.wordings[0]
            for index, phrase in enumerate(self.phrases)
        )


def hint_notice(best: str, analysis: Analysis) -> Notice:
    """A hint: `best`, where best play goes (the keys of the cells, or "any free cell"),
    and where `analysis` says it leads."""
    if analysis.outcome is None:
        short = "Best play: a draw."
    else:
        short = f"Best play: {analysis.outcome} wins."
    return Notice.of("Hint:", f"{best}.", (f"{analysis.summary.capitalize()}.", short))
