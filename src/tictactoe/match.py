"""A series of games between two players, as one immutable value.

`Match` holds everything the scoreboard shows and the flow needs: the players,
who chooses the mark this game, which mark each holds, the current `GameState`
and the running score. Every transition returns a new `Match`; the Textual shell
keeps the latest one and renders it.
"""

from __future__ import annotations

import random
import unicodedata
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Final

from tictactoe.ai import Level
from tictactoe.engine import GameState, Mark

__all__ = [
    "COMPUTER_NAME",
    "DEFAULT_NAMES",
    "FirstMove",
    "Match",
    "MatchError",
    "NameClash",
    "Phase",
    "Player",
    "clean_name",
    "movers",
]

DEFAULT_NAMES: Final = ("Player 1", "Player 2")
COMPUTER_NAME: Final = "Computer"
MAX_NAME_LENGTH: Final = 1000
"""Longer names are cut here; the screen shortens further to fit its space."""


class MatchError(ValueError):
    """A transition the match does not allow now; the message says why."""


class NameClash(MatchError):
    """The two players were given the same name."""


class FirstMove(StrEnum):
    """Who moves first in each game."""

    CHOOSER = "chooser"
    """The player who chose the mark."""
    X = "x"
    """Whoever holds X."""
    RANDOM = "random"
    """A coin toss each game."""


class Phase(StrEnum):
    """Where the current game stands."""

    CHOOSING = "choosing"
    """Waiting for the chooser to pick X or O."""
    PLAYING = "playing"
    OVER = "over"


_JOINERS: Final = frozenset("\u200c\u200d")
"""Format characters that belong inside names (emoji sequences, some scripts)."""


def _is_control(char: str) -> bool:
    category = unicodedata.category(char)
    return category in {"Cc", "Cs", "Cn"} or (category == "Cf" and char not in _JOINERS)


def clean_name(raw: str, default: str) -> str:
    """A name as it will be shown: control characters gone, spaces tidied, never empty."""
    kept = "".join(
        " " if char.isspace() else char for char in raw if char.isspace() or not _is_control(char)
    )
    name = " ".join(kept.split())[:MAX_NAME_LENGTH].strip()
    return name or default


@dataclass(frozen=True, slots=True)
class Player:
    """One side of the match."""

    name: str
    level: Level | None = None
    """The computer's strength, or None for a person."""

    @property
    def is_computer(self) -> bool:
        return self.level is not None


@dataclass(frozen=True, slots=True)
class Match:
    """Two players, the game in progress and the score so far."""

    players: tuple[Player, Player]
    first_move: FirstMove = FirstMove.CHOOSER
    chooser: int = 0
    """Index (0 or 1) of the player who picks the mark this game."""
    marks: tuple[Mark, Mark] | None = None
    """The mark each player holds this game; None until the chooser has picked."""
    game: GameState | None = None
    """The game in progress; None until the marks are chosen."""
    wins: tuple[int, int] = (0, 0)
    draws: int = 0
    history: tuple[GameState, ...] = field(default=(), repr=False)
    """Finished games of this match, oldest first."""

    @classmethod
    def new(
        cls,
        player1: Player | str = DEFAULT_NAMES[0],
        player2: Player | str = DEFAULT_NAMES[1],
        first_move: FirstMove = FirstMove.CHOOSER,
    ) -> Match:
        """A match with no game played; names are cleaned and must differ."""
        players = (_as_player(player1, 0), _as_player(player2, 1))
        if players[0].name.casefold() == players[1].name.casefold():
            raise NameClash(f"The two names must differ (both are {players[0].name!r})")
        return cls(players=players, first_move=FirstMove(first_move))

    # What the scoreboard reads.

    @property
    def phase(self) -> Phase:
        if self.game is None:
            return Phase.CHOOSING
        return Phase.OVER if self.game.is_over else Phase.PLAYING

    @property
    def played(self) -> int:
        """Games finished in this match."""
        return self.wins[0] + self.wins[1] + self.draws

    def player_with(self, mark: Mark) -> int:
        """Index of the player holding `mark` this game."""
        if self.marks is None:
            raise MatchError("no marks are chosen yet")
        return self.marks.index(mark)

    @property
    def to_move(self) -> int | None:
        """Index of the player whose move it is, or None outside play."""
        if self.game is None or self.game.is_over:
            return None
        return self.player_with(self.game.to_move)

    @property
    def winner(self) -> int | None:
        """Index of the player who won the current game, or None."""
        if self.game is None or self.game.winner is None:
            return None
        return self.player_with(self.game.winner)

    @property
    def computer_to_move(self) -> bool:
        """True when the computer should play the next move."""
        index = self.to_move
        return index is not None and self.players[index].is_computer

    # Transitions.

    def choose_mark(self, mark: Mark, rng: random.Random | None = None) -> Match:
        """The chooser takes `mark`; the other player gets the other one; play starts.

        `rng` is used only by the random first-move rule.
        """
        if self.game is not None:
            raise MatchError("the marks are already chosen for this game")
        mark = Mark(mark)
        marks = (mark, mark.other) if self.chooser == 0 else (mark.other, mark)
        if self.first_move is FirstMove.CHOOSER:
            first = mark
        elif self.first_move is FirstMove.X:
            first = Mark.X
        else:
            first = (rng or random.Random()).choice((Mark.X, Mark.O))
        return replace(self, marks=marks, game=GameState.new(first=first))

    def play(self, cell: int) -> Match:
        """The player to move takes `cell`; a finished game is scored once, here."""
        if self.game is None:
            raise MatchError("the marks are not chosen yet")
        game = self.game.play(cell)
        if not game.is_over:
            return replace(self, game=game)
        wins, draws = self.wins, self.draws
        if game.winner is None:
            draws += 1
        elif self.player_with(game.winner) == 0:
            wins = (wins[0] + 1, wins[1])
        else:
            wins = (wins[0], wins[1] + 1)
        return replace(self, game=game, wins=wins, draws=draws, history=(*self.history, game))

    def undo(self) -> Match:
        """Take back the last move of the game in progress.

        Against the computer, its reply goes too, so that a person is to move again.
        """
        game = self.game
        if game is None:
            raise MatchError("there is no game in progress")
        if game.is_over:
            raise MatchError("the game is over: moves can no longer be taken back")
        assert self.marks is not None
        human_moved = [
            not self.players[self.player_with(mark)].is_computer for mark in movers(game)
        ]
        if True not in human_moved:
            raise MatchError("there is no move to take back")
        while True:
            game = game.undo()
            if not self.players[self.player_with(game.to_move)].is_computer:
                return replace(self, game=game)

    def next_game(self) -> Match:
        """After a finished game: the other player chooses the mark for the next one."""
        if self.game is None or not self.game.is_over:
            raise MatchError("the current game is not finished")
        return replace(self, chooser=1 - self.chooser, marks=None, game=None)


def movers(game: GameState) -> tuple[Mark, ...]:
    """The mark that made each move of `game`, in order."""
    first = game.to_move if len(game.moves) % 2 == 0 else game.to_move.other
    return tuple(first if turn % 2 == 0 else first.other for turn in range(len(game.moves)))


def _as_player(player: Player | str, index: int) -> Player:
    if isinstance(player, Player):
        return replace(player, name=clean_name(player.name, DEFAULT_NAMES[index]))
    return Player(clean_name(player, DEFAULT_NAMES[index]))
