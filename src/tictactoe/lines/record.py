"""The game record in words, for the line view: `r` says the totals, the head to head of the
series' players and the recent matches; `p` and a number replays one of them move by move.
Matches of every game are there, each said as its game says it (an Ultimate match names its
game, its moves two digits each); totals are kept for each game apart.

It reads the record through its queries (`tictactoe.record.queries`), as the full-screen record
screen does; the players are named as the record names them (`tictactoe.core.labels`), so the
computer at each level is a player of its own there ("Computer (hard)"). Every line fits `LINE`.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Final

from tictactoe.core.finished import CLASSIC_NAME, FinishedMatch
from tictactoe.core.labels import display_name, result_text
from tictactoe.core.narration import LINE, KeyFor, replay
from tictactoe.core.rules import VARIANTS, variant
from tictactoe.core.series import Player

if TYPE_CHECKING:
    from tictactoe.record import GameRecord

__all__ = ["RecordWords", "replay_number"]

TOTALS: Final = 5
"""Players said by `r`, most wins first."""
RECENT: Final = 5
"""Recent matches said by `r`, newest first."""
NAME_ROOM: Final = 12
"""Characters of a person's name in a line of the record, so that two fit on one line."""
WAITED: Final = 1.0
"""Seconds `r` or `p` waits for the matches being written before it reads the record."""


def replay_number(command: str) -> int | None:
    """The recent match a `p` command names (`p` alone: 1, the last); None for no number, or
    0 for a `p` followed by no number."""
    if not command.startswith("p"):
        return None
    rest = command[1:].strip()
    if not rest:
        return 1
    return int(rest) if rest.isdigit() else 0


class RecordWords:
    """The record of `record` in lines of words."""

    def __init__(self, record: GameRecord) -> None:
        self.record = record

    def ready(self) -> None:
        """Open the file (an earlier version's brought up to date) and let the matches handed
        to the record be written first (for a while at most): the record said shows every
        match finished before it was asked for."""
        self.record.ready(WAITED)

    def summary(self, players: tuple[Player, Player], playing: str = CLASSIC_NAME) -> list[str]:
        """Totals and the head to head of `players` for each game played, the game `playing`
        (the session's) first, then the recent matches.

        A record of classic matches alone is said as it always was; once it holds another
        game's, each game's totals and head to head are said under its name, and each recent
        match names its game.
        """
        record = self.record
        games = [game for game in VARIANTS.values() if record.has_played(game.name)]
        games.sort(key=lambda game: game.name != playing)
        named = [game.name for game in games] not in ([], [CLASSIC_NAME])
        lines = []
        for game in games or [VARIANTS[CLASSIC_NAME]]:
            at = f" at {game.title}" if named else ""
            lines.append(f"The record{at}: players' totals, most wins first.")
            for totals in record.players(limit=TOTALS, variant=game.name):
                lines.append(
                    f"{display_name(totals.player, NAME_ROOM)}: {_count(totals.wins, 'win')},"
                    f" {_count(totals.losses, 'loss')}, {_count(totals.draws, 'draw')}."
                )
            if not games:
                lines.append("No match is recorded yet.")
            head = record.head_to_head(players, variant=game.name if named else None)
            first, second = (display_name(player, NAME_ROOM) for player in players)
            lines.append(
                f"{first} against {second}{at}: {first} {_count(head.wins[0], 'win')},"
                f" {second} {head.wins[1]}, draws {head.draws}."
            )
        recent = record.recent(limit=RECENT)
        if recent:
            lines.append("Recent matches, newest first; p and a number replays one.")
        for number, match in enumerate(recent, 1):
            title = f"{variant(match.variant).title}, " if named else ""
            said = f"{number}. {title}{_who_against_whom(match)}: {_result(match)}."
            lines += textwrap.wrap(said, LINE)
        return lines + self._trouble()

    def replay(self, number: int, key_for: KeyFor) -> list[str]:
        """The `number`th most recent match, move by move."""
        count = self.record.match_count()
        if count == 0:
            return ["No match is recorded yet.", *self._trouble()]
        if not 1 <= number <= count:
            if count == 1:
                return ["The record has 1 match: p replays it."]
            return [f"The record has {count} matches: p and a number from 1 to {count}."]
        found = self.record.recent(limit=number)
        if len(found) < number:
            return ["That match cannot be read now.", *self._trouble()]
        match = found[-1]
        when = (
            match.finished_at.astimezone().strftime("%Y-%m-%d %H:%M") if match.finished_at else ""
        )
        title = "" if match.variant == CLASSIC_NAME else f", {variant(match.variant).title}"
        when = f", {when}" if when else ""
        head = f"Recent match {number}{title}{when}: {_who_against_whom(match)}."
        return [
            *textwrap.wrap(head, LINE),
            *replay(match.players, match.marks, match.positions(), key_for),
        ]

    def _trouble(self) -> list[str]:
        """Why the record could not be read, or what is not saved in it, if anything."""
        record = self.record
        if record.path is not None and not record.unreadable and not record.unsaved:
            return []
        return textwrap.wrap(f"{record.where()}.".replace("..", "."), LINE)


def _who_against_whom(match: FinishedMatch) -> str:
    first, second = (display_name(player, NAME_ROOM) for player in match.players)
    return f"{first} ({match.marks[0]}) against {second} ({match.marks[1]})"


def _result(match: FinishedMatch) -> str:
    moves = len(match.moves)
    return f"{result_text(match.players, match.winner, NAME_ROOM)} in {_count(moves, 'move')}"


def _count(number: int, thing: str) -> str:
    """ "1 win", "2 losses"."""
    if number == 1:
        return f"1 {thing}"
    return f"{number} {thing}es" if thing.endswith("s") else f"{number} {thing}s"
