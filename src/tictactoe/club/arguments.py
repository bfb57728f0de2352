"""The owner's commands' arguments, read by argparse and refused in one sentence.

argparse answers a bad argument with its usage block and a terse line ("error: the following
arguments are required: HANDLE"); an owner's command says instead one sentence naming the
command and what to type (`BadArguments`), and its caller exits with status 2. A value that
begins with `-` is taken as the value of the option before it (`--for -1h` is read as
`--for=-1h`, and refused for what it is, not for a missing value).
"""

from __future__ import annotations

import argparse
import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NoReturn

__all__ = ["BadArguments", "OwnerParser", "unknown"]

_ARGUMENT: re.Pattern[str] = re.compile(r"argument ([^:]+): (.*)", re.S)
_REQUIRED: re.Pattern[str] = re.compile(r"the following arguments are required: (.*)", re.S)
_UNRECOGNISED: re.Pattern[str] = re.compile(r"unrecognized arguments: (\S+).*", re.S)
_CHOICE: re.Pattern[str] = re.compile(r"invalid choice: '([^']*)'", re.S)


class BadArguments(Exception):
    """Arguments a command cannot take; the message is one sentence, the command's name first."""


class OwnerParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are `BadArguments`, each one sentence.

    `words` says in words what each metavar stands for ("LENGTH": "a length of time, such as
    30m, 1h or 2d"): the sentence for a missing value or argument uses them. Subparsers made by
    `add_subparsers` are of this class too, with the same words.
    """

    def __init__(
        self,
        *,
        words: Mapping[str, str] | None = None,
        parents: Sequence[argparse.ArgumentParser] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(parents=list(parents), **kwargs)
        self.words: dict[str, str] = dict(words or {})
        """Each metavar, in words."""
        self.valued: dict[str, str] = {}
        """Each option that takes a value, and its metavar."""
        for parent in parents:
            if isinstance(parent, OwnerParser):
                self.valued.update(parent.valued)
                self.words = {**parent.words, **self.words}

    def add_argument(self, *names: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*names, **kwargs)
        if action.option_strings and action.nargs is None:
            metavar = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
            self.valued.update(dict.fromkeys(action.option_strings, metavar))
        return action

    def add_subparsers(self, **kwargs: Any) -> Any:
        kwargs.setdefault("parser_class", functools.partial(OwnerParser, words=self.words))
        return super().add_subparsers(**kwargs)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        joined = None if args is None else list(self._joined(args))
        return super().parse_known_args(joined, namespace)

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
        raise BadArguments(f"{self.prog}: {self._sentence(message)}")

    def _sentence(self, message: str) -> str:
        required = _REQUIRED.fullmatch(message)
        if required is not None:
            names = [name.strip() for name in required[1].split(",")]
            what = " and ".join(self.words.get(name, name) for name in names)
            return f"give {what}, as in {self.prog} {' '.join(names)}."
        unrecognised = _UNRECOGNISED.fullmatch(message)
        if unrecognised is not None:
            return _not_one(self.prog, unrecognised[1])
        argument = _ARGUMENT.fullmatch(message)
        if argument is None:
            return _ended(message)
        name, said = argument[1], argument[2]
        if said.startswith("expected one argument"):
            metavar = self.valued.get(name, name)
            return f"after {name}, give {self.words.get(metavar, 'a value')}."
        choice = _CHOICE.match(said)
        if choice is not None:
            return f"{choice[1]} is not one of its commands ({self.prog} --help lists them)."
        return _ended(said)


def unknown(prog: str, extras: Sequence[str]) -> BadArguments:
    """The refusal of `extras`, arguments that none of the command `prog`'s take."""
    return BadArguments(f"{prog}: {_not_one(prog, extras[0])}")


def _not_one(prog: str, extra: str) -> str:
    return f"{extra} is not one of its arguments ({prog} --help lists them)."


def _ended(text: str) -> str:
    """`text` as a sentence's end: one line, with its full stop."""
    text = " ".join(text.split())
    return text if text.endswith(".") else f"{text}."
