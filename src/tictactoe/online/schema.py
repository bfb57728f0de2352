"""A kit for reading JSON strictly: each helper takes a value of any shape and gives it back
as the one shape asked for, or raises `ProtocolError` saying briefly what is wrong.

Strict means: unknown or missing keys, wrong types, booleans for numbers, NaN, repeated keys,
deep nesting and oversized frames are all refused, and nothing but `ProtocolError` is raised.
`what` names the field in the error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import StrEnum
from typing import TypeVar

__all__ = [
    "ProtocolError",
    "choice",
    "dump",
    "fields",
    "items",
    "load",
    "only",
    "pair",
    "shown",
    "text",
    "whole",
]


class ProtocolError(ValueError):
    """A message that is not one of ours; the text says what is wrong, briefly."""


def dump(fields: dict[str, object]) -> str:
    """`fields` as one compact JSON text: no NaN, non-ASCII kept as it is."""
    return json.dumps(fields, separators=(",", ":"), allow_nan=False, ensure_ascii=False)


def load(text: object, limit: int) -> dict[str, object]:
    """The JSON object in `text`, a frame of at most `limit` bytes of UTF-8."""
    if not isinstance(text, str):
        raise ProtocolError("not a text frame")
    if len(text) > limit or len(text.encode("utf-8", "surrogatepass")) > limit:
        raise ProtocolError("message too long")
    try:
        value = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_repeats)
    except RecursionError:
        raise ProtocolError("nested too deeply") from None
    except ValueError as error:  # JSONDecodeError, and the hooks' ProtocolError
        if isinstance(error, ProtocolError):
            raise
        raise ProtocolError("not JSON") from None
    if not isinstance(value, dict):
        raise ProtocolError("not a JSON object")
    return value


def _no_constant(name: str) -> object:
    raise ProtocolError(f"{name} is not a number")


def _no_repeats(pairs: list[tuple[str, object]]) -> dict[str, object]:
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise ProtocolError("a key is repeated")
    return fields


def fields(
    obj: object, what: str, required: set[str], optional: set[str] | frozenset[str] = frozenset()
) -> dict[str, object]:
    """`obj`, a JSON object with the keys `only` allows."""
    if not isinstance(obj, dict):
        raise ProtocolError(f"{what}: not an object")
    only(obj, what, required, optional)
    return obj


def only(
    fields: dict[str, object],
    what: str,
    required: set[str],
    optional: set[str] | frozenset[str] = frozenset(),
) -> None:
    """`fields` has every key of `required`, and no key outside `required` and `optional`."""
    keys = set(fields)
    if missing := required - keys:
        raise ProtocolError(f"{what}: {sorted(missing)[0]} is missing")
    if unknown := keys - required - optional:
        raise ProtocolError(f"{what}: unknown field {shown(sorted(unknown)[0])}")


def whole(value: object, what: str, low: int, high: int | None) -> int:
    """`value`, a whole number (never a bool or a float) from `low` to `high` (None: any)."""
    if type(value) is not int:
        raise ProtocolError(f"{what}: not a whole number")
    if value < low or (high is not None and value > high):
        raise ProtocolError(f"{what}: out of range")
    return value


def text(value: object, what: str, limit: int) -> str:
    """`value`, a string of at most `limit` code points."""
    if not isinstance(value, str):
        raise ProtocolError(f"{what}: not a string")
    if len(value) > limit:
        raise ProtocolError(f"{what}: too long")
    return value


def items(value: object, what: str, low: int, high: int | None) -> list[object]:
    """`value`, a list of `low` to `high` (None: any number of) items."""
    if not isinstance(value, list):
        raise ProtocolError(f"{what}: not a list")
    if len(value) < low or (high is not None and len(value) > high):
        raise ProtocolError(f"{what}: wrong length")
    return value


_T = TypeVar("_T")
_E = TypeVar("_E", bound=StrEnum)


def pair(value: object, what: str, item: Callable[[object], _T]) -> tuple[_T, _T]:
    """`value`, a list of two, each read by `item`."""
    first, second = items(value, what, 2, 2)
    return item(first), item(second)


def choice(kind: type[_E], value: object, what: str) -> _E:
    """`value`, the text of one of the members of `kind`."""
    if not isinstance(value, str):
        raise ProtocolError(f"{what}: not a string")
    try:
        return kind(value)
    except ValueError:
        raise ProtocolError(f"{what}: no such value {shown(value)}") from None


def shown(value: object) -> str:
    """`value` for an error message: short, and nothing a terminal would act on."""
    return ascii(value)[:40]
