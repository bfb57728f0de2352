"""A series of matches between two players, as one immutable value that owns the flow.

A *match* is one game on the board (a position of the series' variant: a `GameState` for
classic, an `UltimateState` for Ultimate); a *series* is the run of matches
between the two players of a session. `Series` holds everything the scoreboard shows
and knows who may act now: every transition returns a new `Series` or raises
`SeriesError` with the reason in words a player understands. The Textual shell turns
input into these calls, keeps the latest value and renders it; it decides nothing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Final, NamedTuple

from tictactoe.core.ai import Analysis, choose_mark
from tictactoe.core.engine import IllegalMove, Mark
from tictactoe.core.finished import FinishedMatch
from tictactoe.core.names import DEFAULT_NAMES, clean_name, name_key, short
from tictactoe.core.notices import Notice
from tictactoe.core.players import COMPUTER_NAME, Player
from tictactoe.core.refusals import (
    BoardClosed,
    CellTaken,
    MatchOver,
    NameClash,
    NotYourTurn,
    SeriesError,
)
from tictactoe.core.rules import CLASSIC, Position, Variant
from tictactoe.core.ultimate_ai import Estimate

__all__ = [
    "BETWEEN_MATCHES",
    "CHOOSING",
    "COMPUTER_NAME",
    "DEFAULT_NAMES",
    "THINKING",
    "TO_MOVE",
    "BoardClosed",
    "CellTaken",
    "ChooseMark",
    "ComputerStep",
    "Confirm",
    "FinishedMatch",
    "FirstMove",
    "Intent",
    "MatchOver",
    "NameClash",
    "NextMatch",
    "NotYourTurn",
    "Phase",
    "Play",
    "Player",
    "Series",
    "SeriesError",
    "Undo",
    "movers",
]

CHOOSING: Final = "{} is choosing a mark"
"""The chooser (its name in the braces) is to pick a mark: the state, and why others wait."""
THINKING: Final = "{} is thinking"
"""The computer (its name in the braces) is to move: the state, and why others wait."""
TO_MOVE: Final = "{} to move"
"""A person (named in the braces, with the mark) is to move."""
_NO_UNDO_YET: Final = ("There is no move to take back:", "Nothing to undo:")
BETWEEN_MATCHES: Final = 5
"""How many of the computer's pauses a finished match stays on show before the next one
begins, when nobody but the computer plays (`Series.pause_beats`)."""


class FirstMove(StrEnum):
    """Who moves first in each match."""

    CHOOSER = "chooser"
    """The player who chose the mark."""
    X = "x"
    """Whoever holds X."""
    RANDOM = "random"
    """A coin toss each match."""

    def firsts(self, chosen: Mark) -> tuple[Mark, ...]:
        """The marks that may move first in a match whose chooser took `chosen`."""
        if self is FirstMove.CHOOSER:
            return (Mark(chosen),)
        if self is FirstMove.X:
            return (Mark.X,)
        return (Mark.X, Mark.O)


class Phase(StrEnum):
    """Where the current match stands."""

    CHOOSING = "choosing"
    """Waiting for the chooser to pick X or O."""
    PLAYING = "playing"
    OVER = "over"


class ComputerStep(NamedTuple):
    """What the computer did in one step: the new series, and its mark or its cell."""

    series: Series
    mark: Mark | None = None
    """The mark it chose, when it was the chooser."""
    cell: int | None = None
    """The cell it took, when it moved."""

    @property
    def notice(self) -> Notice:
        """What the step says: the mark the computer chose; nothing for a move (the board
        shows it)."""
        if self.mark is None:
            return Notice()
        chooser = self.series.players[self.series.chooser]
        return Notice.of(f"{short(chooser.name)} chose {self.mark}.")


class Play(NamedTuple):
    """The person to move takes `cell` (0 = top-left)."""

    cell: int


class ChooseMark(NamedTuple):
    """The choosing person takes `mark`; the other player gets the other one."""

    mark: Mark


class Confirm(NamedTuple):
    """Enter on the board: a move on `cell`, or the next match once this one is over."""

    cell: int


class Undo(NamedTuple):
    """Take back the last move (against the computer: its reply and the person's move)."""


class NextMatch(NamedTuple):
    """After a finished match: the next one, chosen by the other player."""


Intent = Play | ChooseMark | Confirm | Undo | NextMatch
"""What a person asks of the series: the same value from a key, a click or a dialog."""


@dataclass(frozen=True, slots=True)
class Series:
    """Two players, the match in progress and the score so far."""

    players: tuple[Player, Player]
    first_move: FirstMove = FirstMove.CHOOSER
    chooser: int = 0
    """Index (0 or 1) of the player who picks the mark this match."""
    opens: int = 0
    """Index of the player who picked the mark in the first match: the chooser takes turns
    from there (a rematch is opened by the one who did not choose first last time)."""
    marks: tuple[Mark, Mark] | None = None
    """The mark each player holds this match; None until the chooser has picked."""
    match: Position | None = None
    """The match in progress, a position of `variant`; None until the marks are chosen."""
    wins: tuple[int, int] = (0, 0)
    draws: int = 0
    finished: tuple[FinishedMatch, ...] = field(default=(), repr=False)
    """The finished matches of this series, oldest first."""
    variant: Variant = field(default=CLASSIC, repr=False)
    """The game every match of the series is of."""

    @classmethod
    def new(
        cls,
        player1: Player | str = DEFAULT_NAMES[0],
        player2: Player | str = DEFAULT_NAMES[1],
        first_move: FirstMove = FirstMove.CHOOSER,
        opens: int = 0,
        variant: Variant = CLASSIC,
    ) -> Series:
        """A series with no match played, the player `opens` choosing the first mark; names are
        cleaned, and two people's must differ."""
        first, second = _as_player(player1, 0), _as_player(player2, 1)
        if first.is_computer and second.is_computer:  # told apart by their seats on screen
            first = first._replace(name=f"{COMPUTER_NAME} 1")
            second = second._replace(name=f"{COMPUTER_NAME} 2")
        players = (first, second)
        people = not first.is_computer and not second.is_computer
        if people and name_key(first.name) == name_key(second.name):
            raise NameClash(
                "The two names must differ:", f"{first.name!r} and {second.name!r} look the same."
            )
        if opens not in (0, 1):
            raise SeriesError(f"The first chooser is player 1 or 2, not {opens + 1}.")
        return cls(
            players=players,
            first_move=FirstMove(first_move),
            chooser=opens,
            opens=opens,
            variant=variant,
        )

    # What the scoreboard reads.

    @property
    def phase(self) -> Phase:
        if self.match is None:
            return Phase.CHOOSING
        return Phase.OVER if self.match.is_over else Phase.PLAYING

    @property
    def played(self) -> int:
        """Matches finished in this series."""
        return self.wins[0] + self.wins[1] + self.draws

    def player_with(self, mark: Mark) -> int:
        """Index of the player holding `mark` this match."""
        if self.marks is None:
            raise SeriesError(("No marks are chosen yet.", "No marks yet."))
        return self.marks.index(mark)

    @property
    def to_move(self) -> int | None:
        """Index of the player whose move it is, or None outside play."""
        if self.match is None or self.match.is_over:
            return None
        return self.player_with(self.match.to_move)

    @property
    def winner(self) -> int | None:
        """Index of the player who won the current match, or None."""
        if self.match is None or self.match.winner is None:
            return None
        return self.player_with(self.match.winner)

    @property
    def actor(self) -> int | None:
        """Index of the player who acts next: the chooser, then the mover; None once over."""
        if self.match is None:
            return self.chooser
        return self.to_move

    @property
    def computers_only(self) -> bool:
        """Whether the computer holds both seats: nobody plays, a person only watches."""
        return all(player.is_computer for player in self.players)

    @property
    def recorded(self) -> bool:
        """Whether the game record keeps the matches of this series: those with a person
        playing (the computer against itself is a show, not a result)."""
        return not self.computers_only

    @property
    def awaits_computer(self) -> bool:
        """True when the next step is the computer's (its mark, its move, or, when it holds
        both seats, the next match): see `computer_step`."""
        actor = self.actor
        if actor is None:
            return self.computers_only and self.phase is Phase.OVER
        return self.players[actor].is_computer

    @property
    def pause_beats(self) -> int:
        """How many of the computer's pauses come before its due step: one, and a few more
        for the next match (the finished one stays on show for a while)."""
        return BETWEEN_MATCHES if self.phase is Phase.OVER else 1

    @property
    def person_choosing(self) -> Player | None:
        """The person who must pick a mark now (the dialog asks them), or None."""
        chooser = self.players[self.chooser]
        if self.match is None and not chooser.is_computer:
            return chooser
        return None

    def history(self) -> tuple[tuple[int, Mark, int], ...]:
        """The moves of the match on show, in order: (player index, mark, cell) each."""
        if self.match is None:
            return ()
        return tuple(
            (self.player_with(mark), mark, cell)
            for mark, cell in zip(movers(self.match), self.match.moves, strict=True)
        )

    # Transitions. Each refuses with a SeriesError when it is not allowed now.

    def apply(self, intent: Intent, rng: random.Random | None = None) -> Series:
        """The series after `intent`, or a `SeriesError` saying why it is refused now.

        `rng` is used only to toss for the first move (`FirstMove.RANDOM`).
        """
        match intent:
            case Play(cell):
                return self.play(cell)
            case ChooseMark(mark):
                return self.choose_mark(mark, rng)
            case Confirm(cell):
                return self.confirm(cell)
            case Undo():
                return self.undo()
            case NextMatch():
                return self.next_match()
        raise SeriesError(f"Nothing can be done with {intent!r}.")

    def apply_as(self, player: int, intent: Intent, rng: random.Random | None = None) -> Series:
        """`apply`, given by `player` (0 or 1): refused with `NotYourTurn` when that
        player may not give `intent` now.

        A move (`Play`, or `Confirm` during play) is the mover's; the mark is the
        chooser's; taking a move back is for whoever made it (against the computer, the
        person); the next match (`NextMatch`, or `Confirm` once a match is over) is
        either player's. When the player may give it, `apply` decides as always.
        """
        if player not in (0, 1) or isinstance(player, bool):
            raise SeriesError(f"There is no player {player!r}:", "the players are 0 and 1.")
        entitled = self._entitled(intent)
        if entitled is not None and entitled != player:
            name = short(self.players[entitled].name)
            if isinstance(intent, ChooseMark):
                raise NotYourTurn((f"{name} chooses the mark this match.", f"{name} chooses."))
            if isinstance(intent, Undo):
                raise NotYourTurn(f"Only {name} may take back the last move.")
            raise NotYourTurn(f"It is {name}'s turn.")
        return self.apply(intent, rng)

    def _entitled(self, intent: Intent) -> int | None:
        """The one player who may give `intent` now, or None when either may (or
        neither: then `apply` says why)."""
        match intent:
            case Play() | Confirm():
                return self.to_move
            case ChooseMark():
                return self.chooser if self.match is None else None
            case Undo():
                if self.match is None or self.match.is_over or not self.match.moves:
                    return None
                last = self.history()[-1][0]
                return 1 - last if self.players[last].is_computer else last
        return None

    def choose_mark(self, mark: Mark, rng: random.Random | None = None) -> Series:
        """The chooser (a person) takes `mark`; the other player gets the other one; play starts.

        `rng` is used only by the random first-move rule.
        """
        if self.match is not None:
            raise SeriesError(
                ("The marks are already chosen for this match.", "The marks are chosen.")
            )
        chooser = self.players[self.chooser]
        if chooser.is_computer:
            raise SeriesError(
                "Wait:", (f"{chooser.name} chooses its own mark.", f"{chooser.name} chooses.")
            )
        return self._start(Mark(mark), rng)

    def play(self, cell: int) -> Series:
        """The person to move takes `cell`; a finished match is scored once, here."""
        self._refuse_unless_a_person_may_move()
        return self._move(cell)

    def confirm(self, cell: int) -> Series:
        """Enter on the board: the next match once this one is over, else a move on `cell`."""
        if self.phase is Phase.OVER:
            return self.next_match()
        return self.play(cell)

    def undo(self) -> Series:
        """Take back the last move of the match in progress.

        Against the computer, its reply goes too, so that the person is to move again;
        while it is still thinking, the person's own move goes.
        """
        match = self.match
        if match is None:
            raise SeriesError(_NO_UNDO_YET, ("no match is in progress.", "no match is on."))
        if match.is_over:
            raise SeriesError(
                "This match is over:",
                ("its moves can no longer be taken back.", "moves are final."),
            )
        people_moved = [
            not self.players[self.player_with(mark)].is_computer for mark in movers(match)
        ]
        if True not in people_moved:
            raise SeriesError(("There is no move to take back.", "Nothing to undo."))
        while True:
            match = match.undo()
            if not self.players[self.player_with(match.to_move)].is_computer:
                return replace(self, match=match)

    def hint(self, rng: random.Random | None = None) -> Analysis | Estimate:
        """Where best play goes for the person to move: the solver's answer for classic, the
        hard search's for Ultimate (which takes a while: ask it off the screen's thread)."""
        self._refuse_unless_a_person_may_move(what="A hint")
        assert self.match is not None
        return self.variant.analyse(self.match, rng)

    def next_match(self) -> Series:
        """After a finished match: the other player chooses the mark for the next one."""
        if self.phase is not Phase.OVER:
            raise SeriesError(("Finish this match first.", "Finish this match."))
        return replace(self, chooser=1 - self.chooser, marks=None, match=None)

    def computer_step(self, rng: random.Random | None = None) -> ComputerStep:
        """The computer's due step: its mark when it is the chooser, else its move; once a
        match is over, when it holds both seats, the next match."""
        if not self.awaits_computer:
            raise SeriesError("It is not the computer's turn.")
        rng = rng or random.Random()
        actor = self.actor
        if actor is None:
            return ComputerStep(self.next_match())
        if self.match is None:
            mark = choose_mark(rng)
            return ComputerStep(self._start(mark, rng), mark=mark)
        level = self.players[actor].level
        assert level is not None
        cell = self.variant.choose_move(self.match, level, rng)
        return ComputerStep(self._move(cell), cell=cell)

    # The steps behind the transitions.

    def _refuse_unless_a_person_may_move(self, what: str = "") -> None:
        if self.match is None:
            chooser = self.players[self.chooser]
            raise SeriesError(
                f"{what or 'Moving'} has to wait:", CHOOSING.format(short(chooser.name)) + "."
            )
        if self.match.is_over:
            if what:
                raise SeriesError((f"{what} needs a match in progress.", f"{what} needs a match."))
            raise MatchOver
        actor = self.players[self.player_with(self.match.to_move)]
        if actor.is_computer:
            raise SeriesError("Wait:", THINKING.format(short(actor.name)) + "…")

    def _start(self, mark: Mark, rng: random.Random | None) -> Series:
        marks = (mark, mark.other) if self.chooser == 0 else (mark.other, mark)
        firsts = self.first_move.firsts(mark)
        first = firsts[0] if len(firsts) == 1 else (rng or random.Random()).choice(firsts)
        return replace(self, marks=marks, match=self.variant.new(first))

    def _move(self, cell: int) -> Series:
        assert self.match is not None
        try:
            match = self.match.play(cell)
        except IllegalMove:
            if not 0 <= cell < self.variant.cells:
                raise SeriesError(f"There is no cell {cell}.") from None
            holder = self.match.board[cell]
            if holder is not None:
                raise CellTaken(cell, holder, self.variant) from None
            boards = self.variant.open_boards(self.match)
            if boards:
                raise BoardClosed(boards) from None
            raise SeriesError(f"There is no cell {cell}.") from None
        if not match.is_over:
            return replace(self, match=match)
        wins, draws = self.wins, self.draws
        if match.winner is None:
            draws += 1
        elif self.player_with(match.winner) == 0:
            wins = (wins[0] + 1, wins[1])
        else:
            wins = (wins[0], wins[1] + 1)
        assert self.marks is not None
        done = FinishedMatch.of(self.players, match, self.marks, variant=self.variant.name)
        return replace(self, match=match, wins=wins, draws=draws, finished=(*self.finished, done))


def movers(match: Position) -> tuple[Mark, ...]:
    """The mark that made each move of `match`, in order."""
    first = match.first
    return tuple(first if turn % 2 == 0 else first.other for turn in range(len(match.moves)))


def _as_player(player: Player | str, index: int) -> Player:
    if isinstance(player, Player):
        if player.is_computer:
            return player._replace(name=clean_name(player.name, COMPUTER_NAME))
        return player._replace(name=clean_name(player.name, DEFAULT_NAMES[index]))
    return Player(clean_name(player, DEFAULT_NAMES[index]))
