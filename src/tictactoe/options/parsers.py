"""The parser of each command, and the two ways it may refuse arguments.

Most commands refuse as argparse does: their usage, then a line "error: ...". The club's say
instead one sentence naming the command and what to type (`BadArguments`; the caller exits
with status 2): a parser given `words`, what each metavar stands for, is of that kind. There a
value that begins with `-` is taken as the value of the option before it (`--for -1h` is read
as `--for=-1h`, and refused for what it is, not for a missing value). A command that `needs`
Linux or macOS refuses on Windows before reading anything, its `--help` too.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NoReturn

__all__ = ["BadArguments", "CommandParser"]

_ARGUMENT: re.Pattern[str] = re.compile(r"argument ([^:]+): (.*)", re.S)
_REQUIRED: re.Pattern[str] = re.compile(r"the following arguments are required: (.*)", re.S)
_UNRECOGNISED: re.Pattern[str] = re.compile(r"unrecognized arguments: (\S+).*", re.S)
_CHOICE: re.Pattern[str] = re.compile(r"invalid choice: '([^']*)'", re.S)


class BadArguments(Exception):
    """Arguments a command cannot take; the message is one sentence, the command's name first."""


class CommandParser(argparse.ArgumentParser):
    """An ArgumentParser that, given `words`, refuses in one sentence (`BadArguments`); given
    `needs`, refuses on Windows with that sentence.

    `words` says in words what each metavar stands for ("LENGTH": "a length of time, such as
    30m, 1h or 2d"): the sentence for a missing value or argument uses them. Subparsers made by
    `add_subparsers` are of this class too, with the same words.
    """

    def __init__(
        self,
        *,
        words: Mapping[str, str] | None = None,
        needs: str | None = None,
        parents: Sequence[argparse.ArgumentParser] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(parents=list(parents), **kwargs)
        self.words: dict[str, str] | None = None if words is None else dict(words)
        """Each metavar, in words; None: argparse's own refusals."""
        self.needs = needs
        """The sentence refusing this command on Windows; None: it runs there."""
        self.valued: dict[str, str] = {}
        """Each option that takes a value, and its metavar."""
        for parent in parents:
            if isinstance(parent, CommandParser):
                self.valued.update(parent.valued)
                if parent.words is not None:
                    self.words = {**parent.words, **(self.words or {})}

    def add_argument(self, *names: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*names, **kwargs)
        if action.option_strings and action.nargs is None:
            metavar = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
            self.valued.update(dict.fromkeys(action.option_strings, metavar))
        return action

    def add_subparsers(self, **kwargs: Any) -> Any:
        kwargs.setdefault("parser_class", functools.partial(CommandParser, words=self.words))
        return super().add_subparsers(**kwargs)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self.needs is not None and sys.platform == "win32":
            raise BadArguments(f"{self.prog}: {self.needs}")
        joined = None if args is None or self.words is None else list(self._joined(args))
        return super().parse_known_args(args if joined is None else joined, namespace)

    def _joined(self, args: Iterable[str]) -> Iterable[str]:
        """`args` with each value that begins with `-` joined to the option it follows."""
        waiting: str | None = None
        ended = False
        for arg in args:
            if waiting is not None and arg.startswith("-") and arg not in self.valued:
                yield f"{waiting}={arg}"
                waiting = None
                continue
            if waiting is not None:
                yield waiting
                waiting = None
            if not ended and arg in self.valued:
                waiting = arg
                continue
            ended = ended or arg == "--"
            yield arg
        if waiting is not None:
            yield waiting

    def error(self, message: str) -> NoReturn:
        if self.words is None:
            super().error(message)
        raise BadArguments(f"{self.prog}: {self._sentence(message, self.words)}")

    def _sentence(self, message: str, words: Mapping[str, str]) -> str:
        required = _REQUIRED.fullmatch(message)
        if required is not None:
            names = [name.strip() for name in required[1].split(",")]
            what = " and ".join(words.get(name, name) for name in names)
            return f"give {what}, as in {self.prog} {' '.join(names)}."
        unrecognised = _UNRECOGNISED.fullmatch(message)
        if unrecognised is not None:
            return f"{unrecognised[1]} is not one of its arguments ({self.prog} --help lists them)."
        argument = _ARGUMENT.fullmatch(message)
        if argument is None:
            return _ended(message)
        name, said = argument[1], argument[2]
        if said.startswith("expected one argument"):
            metavar = self.valued.get(name, name)
            return f"after {name}, give {words.get(metavar, 'a value')}."
        choice = _CHOICE.match(said)
        if choice is not None:
            return f"{choice[1]} is not one of its commands ({self.prog} --help lists them)."
        return _ended(f"{name}: {said}")


def _ended(text: str) -> str:
    """`text` as a sentence's end: one line, with its full stop."""
    text = " ".join(text.split())
    return text if text.endswith(".") else f"{text}."
