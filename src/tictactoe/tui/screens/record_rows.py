"""The record's rows as the record screen shows them: the columns of its tables, the
cells of a player's or a match's row, and a row in full for the details dialog.

Every name comes from the file and becomes plain text (`Text`, never markup); the
record has already cleaned it. The tables shorten names so that every column fits;
the details show them whole.
"""

from __future__ import annotations

from typing import Final

from rich.text import Text

from tictactoe.core.engine import Mark
from tictactoe.core.labels import display_name, result_text
from tictactoe.core.names import NAME_WIDTH, short
from tictactoe.core.series import Player
from tictactoe.record import MatchRecord, PlayerSort, PlayerTotals
from tictactoe.tui.screens.replay import local_time

__all__ = [
    "MATCH_COLUMNS",
    "PLAYER_COLUMNS",
    "RESULT_NAME_WIDTH",
    "match_details",
    "match_row",
    "number",
    "player_columns",
    "player_details",
    "player_label",
    "player_row",
]

PLAYER_COLUMNS: Final = (
    (PlayerSort.NAME, "Player"),
    (PlayerSort.MATCHES, "Matches"),
    (PlayerSort.WINS, "Wins"),
    (PlayerSort.LOSSES, "Losses"),
    (PlayerSort.DRAWS, "Draws"),
    (PlayerSort.WIN_RATE, "Win rate"),
)
"""The Players table's columns, in order; key `1`–`6` sorts by each."""

SHORT_HEADINGS: Final = {
    PlayerSort.MATCHES: "M",
    PlayerSort.WINS: "W",
    PlayerSort.LOSSES: "L",
    PlayerSort.DRAWS: "D",
    PlayerSort.WIN_RATE: "Win%",
}
"""The Players table's headings where the whole ones leave a name too little room."""

SHORTEST_NAME: Final = len("Computer (medium)")
"""The fewest cells a name is shortened to in the Players table before its headings are:
the computer's words whole."""


def player_columns(
    width: int | None, arrow: PlayerSort, mark: str, widest: int
) -> tuple[list[str], int | None]:
    """The Players table's headings (`mark`, the sort's arrow, on `arrow`'s), and the cells a
    name may take (None: any), for a table `width` cells wide (None: not laid out yet) whose
    widest name takes `widest` cells. The counts are whole and every column shows: a long
    name is shortened first, then the headings are."""
    widths = {PlayerSort.WIN_RATE: len("100%")}
    for brief in (False, True):
        headings = [
            (SHORT_HEADINGS[sort] if brief and sort in SHORT_HEADINGS else heading)
            + (mark if sort is arrow else "")
            for sort, heading in PLAYER_COLUMNS
        ]
        if width is None:
            return headings, None
        numbers = sum(
            max(len(heading), widths.get(sort, 3)) + 2
            for (sort, _), heading in zip(PLAYER_COLUMNS[1:], headings[1:], strict=True)
        )
        room = width - numbers - 2
        if room >= min(widest, SHORTEST_NAME):
            return headings, room
    return headings, max(room, len(headings[0]))


MATCH_COLUMNS: Final = ("When", "X", "O", "First", "Result", "Moves")
"""The columns of a list of matches (Head to head, Recent matches)."""

RESULT_NAME_WIDTH: Final = 12
"""Cells the winner's name may take in a Result column ("Ada won"): with the When, X, O,
First and Moves columns, a row of the longest names fits the record's width."""


def player_label(player: Player, width: int = NAME_WIDTH) -> Text:
    """A player's name for a table (see `display_name`), a person's shortened to `width`
    cells: the computer in italics, and a person's "(person)" mark dimmed."""
    name = display_name(player, width)
    label = Text(name, no_wrap=True, overflow="ellipsis")
    if player.is_computer:
        label.stylize("italic")
    elif name != (shown := short(player.name, width)):
        label.stylize("dim", len(shown))
    return label


def number(value: int) -> Text:
    """A count, right-aligned, with thousands separated."""
    return Text(f"{value:,}", justify="right")


def _rate(totals: PlayerTotals) -> Text:
    rate = totals.win_rate
    return Text("—" if rate is None else f"{rate:.0%}", justify="right")


def player_row(totals: PlayerTotals, width: int | None = None) -> list[Text]:
    """A player's cells in the Players table, in the order of `PLAYER_COLUMNS`; the name
    within `width` cells, if given (the words that tell players apart last)."""
    label = player_label(totals.player)
    if width is not None:
        cut = NAME_WIDTH
        while label.cell_len > width and cut > 1:  # a person's name, before "(person)"
            cut -= 1
            label = player_label(totals.player, cut)
        label.truncate(width, overflow="ellipsis")  # the computer's words, at the last
    return [
        label,
        number(totals.matches),
        number(totals.wins),
        number(totals.losses),
        number(totals.draws),
        _rate(totals),
    ]


def match_row(match: MatchRecord) -> list[Text]:
    """A match's cells in a list of matches, in the order of `MATCH_COLUMNS`."""
    by_mark = {mark: match.players[index] for index, mark in enumerate(match.marks)}
    return [
        Text(local_time(match.finished_at), no_wrap=True),
        player_label(by_mark[Mark.X]),
        player_label(by_mark[Mark.O]),
        Text(str(match.marks[match.first_mover]), justify="center"),
        Text(result_text(match.players, match.winner, RESULT_NAME_WIDTH), no_wrap=True),
        number(len(match.moves)),
    ]


def match_details(match: MatchRecord) -> list[tuple[str, str]]:
    """A match's row in full, for the details dialog."""
    by_mark = {mark: match.players[index] for index, mark in enumerate(match.marks)}
    return [
        ("When", local_time(match.finished_at)),
        ("X", display_name(by_mark[Mark.X])),
        ("O", display_name(by_mark[Mark.O])),
        ("First", str(match.marks[match.first_mover])),
        ("Result", match.result()),
        ("Moves", f"{len(match.moves):,}"),
    ]


def player_details(totals: PlayerTotals) -> list[tuple[str, str]]:
    """A player's row in full, for the details dialog."""
    return [
        ("Player", display_name(totals.player)),
        ("Matches", f"{totals.matches:,}"),
        ("Wins", f"{totals.wins:,}"),
        ("Losses", f"{totals.losses:,}"),
        ("Draws", f"{totals.draws:,}"),
        ("Win rate", _rate(totals).plain),
    ]
