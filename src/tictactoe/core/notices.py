"""A notice as data: what the game says about the last thing done, in phrases that are
never broken, each with its wordings longest first.

The status line lays a notice out for the width it has: it breaks lines only between
phrases and takes a shorter wording of a phrase that does not fit. So the parts of a
sentence are given here, by whoever words it (a refusal of the core, a hint, the
authority's news), and nobody reads them back out of the sentence.

A sentence that names a key leaves a slot for it: the phrase names the action (`SLOTS`)
and its wordings say where the keys go, `{keys}` for all of them ("n or Enter") and
`{key}` for the first ("n"). The view, which reads the keys, fills the slot (`with_keys`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from tictactoe.core.ai import Analysis
from tictactoe.core.ultimate_ai import Estimate

__all__ = ["JOINERS", "SLOTS", "Notice", "Phrase", "best_keys", "hint_notice"]

JOINERS: Final = (" ", "\n", " · ")
"""What may join a phrase to the one before: a space, a new line, or the dot between key hints."""

SLOTS: Final = ("next_match", "quit")
"""The actions whose keys a phrase may leave a slot for."""


@dataclass(frozen=True, slots=True)
class Phrase:
    """A piece of a notice that is never broken: its wordings, longest first, and what
    joins it to the phrase before on one line ("\\n": it always starts a line)."""

    wordings: tuple[str, ...]
    joiner: str = " "
    slot: str = ""
    """The action (one of `SLOTS`) whose keys fill `{keys}` and `{key}` in the wordings;
    "" for a phrase that names no key."""

    def __post_init__(self) -> None:
        if not self.wordings:
            raise ValueError("a phrase has at least one wording")
        if self.joiner not in JOINERS:
            raise ValueError(f"a phrase is joined by one of {JOINERS!r}, not {self.joiner!r}")
        if self.slot and self.slot not in SLOTS:
            raise ValueError(f"a phrase's slot is one of {SLOTS!r}, not {self.slot!r}")

    def with_keys(self, keys: Sequence[str]) -> Phrase:
        """The phrase with its slot filled by `keys`, the keys of its action, first first."""
        if not self.slot:
            return self
        shown = " or ".join(keys)
        filled = (
            wording.replace("{keys}", shown).replace("{key}", keys[0]) for wording in self.wordings
        )
        return Phrase(tuple(dict.fromkeys(filled)), self.joiner)


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

    @classmethod
    def keyed(cls, slot: str, *wordings: str, joiner: str = " ") -> Notice:
        """A notice of one phrase that leaves `slot` for the keys of an action (see `SLOTS`)."""
        return cls((Phrase(wordings, joiner, slot),))

    def with_keys(self, keys: Mapping[str, Sequence[str]]) -> Notice:
        """This notice with every slot filled: `keys` gives each action's keys, as the view
        that reads them shows them."""
        return Notice(
            tuple(
                phrase.with_keys(keys[phrase.slot]) if phrase.slot else phrase
                for phrase in self.phrases
            )
        )

    def __add__(self, other: Notice) -> Notice:
        """This notice, then `other`'s phrases (each joined as it says)."""
        return Notice(self.phrases + other.phrases)

    def __bool__(self) -> bool:
        return bool(self.phrases)

    def __str__(self) -> str:
        """The notice in full: every phrase in its longest wording (a slot not yet filled
        shows its action's name in angle brackets)."""
        return "".join(
            (phrase.joiner if index else "")
            + (phrase.with_keys((f"<{phrase.slot}>",)) if phrase.slot else phrase).wordings[0]
            for index, phrase in enumerate(self.phrases)
        )


def best_keys(keys: Sequence[str], *, every_free: bool) -> str:
    """The best cells of a hint, by the `keys` that take them ("5", "1, 3 or 7"), or "any free
    cell" when they are `every_free` cell."""
    if every_free:
        return "any free cell"
    return keys[0] if len(keys) == 1 else f"{', '.join(keys[:-1])} or {keys[-1]}"


def hint_notice(best: str, analysis: Analysis | Estimate) -> Notice:
    """A hint: `best`, where best play goes (the keys of the cells, or "any free cell"),
    and where `analysis` says it leads (for Ultimate, the search's estimate: "X is favoured")."""
    if isinstance(analysis, Estimate):
        short = f"{analysis.summary.capitalize()}."
    elif analysis.outcome is None:
        short = "Best play: a draw."
    else:
        short = f"Best play: {analysis.outcome} wins."
    return Notice.of("Hint:", f"{best}.", (f"{analysis.summary.capitalize()}.", short))
