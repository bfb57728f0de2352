"""What every game's state shares, whatever the game: a value fixed by the mark that moved
first and the moves since, that never changes once made; and the marks themselves.

`GameState` (classic) and `UltimateState` keep their boards as masks of their own; both keep
the state before the last move and that move, so that `moves` follows pointers, and both are
compared, hashed and pickled by their first mark and their moves. That part lives here once.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Self

__all__ = ["IllegalMove", "Mark", "Position"]


class Mark(StrEnum):
    """A player's mark. `Mark.X == "X"`; `Mark.X.other is Mark.O`."""

    X = "X"
    O = "O"  # noqa: E741 - the mark is called O

    @property
    def other(self) -> Mark:
        """The opponent's mark."""
        return Mark.O if self is Mark.X else Mark.X


class IllegalMove(ValueError):
    """A move the rules do not allow; the message says why in plain words."""


class Position:
    """A game's state as a value: immutable, hashable and compared by its moves.

    A subclass fills its slots in `new` and `play` (through `object.__setattr__` or a draft
    class that allows writes) and never after; `new` is the only way to start one.
    """

    __slots__ = ("_last", "_parent", "_to_move")

    _to_move: Mark
    """The mark that plays next."""
    _parent: Self | None
    """The state before the last move; None at the start."""
    _last: int
    """The last move; -1 at the start."""

    if TYPE_CHECKING:
        is_over: bool

        @classmethod
        def new(cls, first: Mark = ...) -> Self: ...

        def play(self, move: int, /) -> Self: ...

        @property
        def first(self) -> Mark: ...

    def __new__(cls, *args: object, **kwargs: object) -> Self:
        """Refused: a state made any other way would have no fields."""
        raise TypeError(f"start a game with {cls.__name__}.new()")

    def _numbered(self, move: object, kind: str, last: int) -> int:
        """`move` as a plain int if it is a whole number from 0 to `last` and the game goes on;
        else IllegalMove, in words that call it a `kind` ("cell", "move")."""
        if isinstance(move, bool) or not isinstance(move, int):
            raise IllegalMove(f"a {kind} is a whole number from 0 to {last}, not {move!r}")
        if not 0 <= move <= last:
            raise IllegalMove(f"there is no {kind} {move}: {kind}s are numbered 0 to {last}")
        if self.is_over:
            raise IllegalMove("the game is over")
        return int(move)  # an IntEnum or the like: its value is the number

    def undo(self) -> Self:
        """The state before the last move. Raises IllegalMove at the start."""
        if self._parent is None:
            raise IllegalMove("there is no move to take back")
        return self._parent

    @property
    def to_move(self) -> Mark:
        """The mark that plays next (after the game ends: the mark that would have)."""
        return self._to_move

    @property
    def moves(self) -> tuple[int, ...]:
        """The moves played so far, in order."""
        moves = []
        state = self
        while state._parent is not None:
            moves.append(state._last)
            state = state._parent
        return tuple(reversed(moves))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position) or type(other) is not type(self):
            return NotImplemented
        # The mark to move and the moves fix the first mark, hence the whole state.
        return self._to_move is other._to_move and self.moves == other.moves

    def __hash__(self) -> int:
        return hash((self._to_move, self.moves))

    def __setattr__(self, name: str, value: object, /) -> None:
        raise AttributeError(f"{type(self).__name__} values never change: {name!r} cannot be set")

    def __delattr__(self, name: str, /) -> None:
        raise AttributeError(
            f"{type(self).__name__} values never change: {name!r} cannot be deleted"
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (_replay, (type(self), self.first, self.moves))


def _replay(kind: type[Position], first: Mark, moves: tuple[int, ...]) -> Position:
    """The state of `kind` after `moves` from the start with `first` to move: how states
    pickle."""
    state = kind.new(first)
    for move in moves:
        state = state.play(move)
    return state
