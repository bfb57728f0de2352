"""The club's lobby: where a player lands, sees what is open and in play, and the ladders.

It shows the last `Snapshot` the club sent (`snapshot`), and turns keys and choices into what the
player asks (`LobbyScreen.Asked`, sent on by the app): open a table (`o`: a dialog, which game,
rated or not, how many matches), sit at an open one (Enter on it), quick pair, watch a table in
play (Enter on it), take one's own open table back, offer or take a rematch (`r`), add a key
(`k`: the club gives a one-time word, which the app shows in a dialog).

Every list says each table's game. One game is in focus (`game`): its ladder is shown, quick pair
(`p`) pairs in it and the open dialog starts on it; it is the game of the player's last match
until `g` switches it, and the lists' headings say which it is. The player's rating in each game
is on the line about them.
Enter on one of the player's recent matches replays it. Names are shown as the characters they
are (`rich.text.Text`, never markup); an open table shows its opener's rating in its game when
it is rated, "unrated" when it is not, and "guest" for a guest's (a guest has no rating, and
plays unrated). The line about the player wraps rather than being cut on a narrow terminal.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Label, Static

from tictactoe.core.club import is_guest
from tictactoe.core.finished import CLASSIC_NAME
from tictactoe.core.rules import VARIANTS
from tictactoe.online.lobby import (
    AddKey,
    CloseTable,
    LadderLine,
    LobbyAsk,
    OpenTable,
    PastMatch,
    QuickPair,
    Rematch,
    SitAt,
    Snapshot,
    TableRow,
    WatchTable,
)
from tictactoe.tui.screens.club_open import OpenTableScreen
from tictactoe.tui.screens.club_replay import PastMatchScreen
from tictactoe.tui.widgets.too_small import MinimumSize, TooSmall

__all__ = ["LobbyScreen"]


def _title(name: str) -> str:
    """How a person names the game `name` ("Classic", "Ultimate")."""
    return VARIANTS[name].title


def _kind(row: TableRow) -> str:
    """ "Ultimate · 5" (a series of five Ultimate matches), "Classic · open" (open-ended);
    "rematch · …" for a rematch offered to this player."""
    length = "open" if row.matches is None else str(row.matches)
    kind = f"{_title(row.variant)} · {length}"
    return f"rematch · {kind}" if row.rematch else kind


def _result(past: PastMatch, handle: str) -> str:
    winner = past.match.winner
    if winner is None:
        return "draw"
    return "won" if past.match.players[winner].name == handle else "lost"


def _opponent(past: PastMatch, handle: str) -> str:
    first, second = (player.name for player in past.match.players)
    return second if first == handle else first


def _in_place(before: list[tuple[str, list[str]]], after: list[tuple[str, list[str]]]) -> bool:
    """Whether a list showing `before` becomes `after` by rows taken out, cells changed and rows
    added at its end: the rows in both are in the same order, before any new one."""
    staying = {key for key, _cells in after}
    kept = [key for key, _cells in before if key in staying]
    return kept == [key for key, _cells in after[: len(kept)]]


def _tally(line: LadderLine) -> tuple[str, str, str]:
    return str(line.wins), str(line.draws), str(line.losses)


COLUMNS: Final = {
    "open": ("Player", "Rating", "Series"),
    "playing": ("Players", "Game", "Score", "D", "Watch"),
    "ladder": ("#", "Handle", "Rating", "W", "D", "L"),
    "recent": ("Against", "Result", "Rated"),
}
"""The lobby's lists and their columns' headings."""


class LobbyScreen(MinimumSize, Screen[None]):
    """The lobby of the club, as the club last described it."""

    TITLE = "Tic-tac-toe club"
    # Priority for the keys that open a dialog: they act as they come off the app's queue, so
    # the keys typed right after them (`o` then Enter) find the dialog on top.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "open(True)", "Open", priority=True),
        Binding("u", "open(False)", "Open unrated", show=False, priority=True),
        Binding("p", "pair", "Pair"),
        Binding("g", "switch_game", "Game", show=False),
        Binding("r", "rematch", "Rematch"),
        Binding("c", "close_table", "Take back"),
        Binding("question_mark,f1", "app.help", "Help", key_display="?", priority=True),
        Binding("k", "add_key", "Add key", priority=True),
        Binding("q", "app.quit", "Quit"),
    ]

    snapshot: var[Snapshot | None] = var(None, init=False)
    """What the club last said the lobby is."""
    chosen: var[str | None] = var(None, init=False)
    """The game `g` put in focus; None until it is pressed (the game of the last match)."""

    class Asked(Message):
        """The player asked the club for something."""

        def __init__(self, ask: LobbyAsk) -> None:
            super().__init__()
            self.ask = ask

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Coming into the club…", id="you", markup=False)
        with Horizontal(id="lobby"):
            with Vertical(id="tables"):
                yield Label("Open tables · Enter sits", id="open-heading", classes="heading")
                yield DataTable(id="open", cursor_type="row", zebra_stripes=True)
                yield Label("In play · Enter watches", classes="heading")
                yield DataTable(id="playing", cursor_type="row", zebra_stripes=True)
            with Vertical(id="standing"):
                yield Label("Ladder", id="ladder-heading", classes="heading")
                yield DataTable(id="ladder", cursor_type="row", zebra_stripes=True)
                yield Label("Your recent matches", classes="heading")
                yield DataTable(id="recent", cursor_type="row", zebra_stripes=True)
        yield Footer()
        yield TooSmall()

    def __init__(self) -> None:
        super().__init__()
        self._ready = False
        """Whether the tables have their columns: a snapshot before that waits for them."""
        self._you = ""
        """The line about the player as shown: unchanged, it is not put again."""
        self._game = ""
        """The game in focus as the headings show it."""
        self._rows: dict[str, list[tuple[str, list[str]]]] = {}
        """What each list shows, as text, by its id: a row's key and its cells."""
        self._widths: dict[str, list[int]] = {}
        """The widths each list's columns were made with."""

    def on_mount(self) -> None:
        for table_id, labels in COLUMNS.items():
            self.query_one(f"#{table_id}", DataTable).add_columns(*labels)
        self.query_one("#open", DataTable).focus()
        self._ready = True
        if self.snapshot is not None:
            self.watch_snapshot(self.snapshot)

    def watch_snapshot(self, snapshot: Snapshot | None) -> None:
        if snapshot is None or not self._ready:
            return
        you = snapshot.you
        ratings = " · ".join(f"{_title(game)} {shown}" for game, shown in you.ratings)
        line = f"{you.handle} · guest, unrated" if you.guest else f"{you.handle} · {ratings}"
        if you.waiting_at is not None and you.waiting_for is not None:
            line += f" · offering {you.waiting_for} a rematch (c takes it back)"
        elif you.waiting_at is not None:
            line += " · waiting for someone to sit (c takes it back)"
        if you.offered_by is not None:
            line += f" · {you.offered_by} offers you a rematch: r takes it"
        if line != self._you:
            self._you = line
            self.query_one("#you", Static).update(Text(line))
        self._fill("open", [(row.id, self._open_row(row)) for row in snapshot.open])
        self._fill("playing", [(row.id, self._playing_row(row)) for row in snapshot.playing])
        self._fill(
            "recent",
            [
                (
                    str(index),
                    (
                        Text(_opponent(past, you.handle)),
                        _result(past, you.handle),
                        "rated" if past.rated else "unrated",
                    ),
                )
                for index, past in enumerate(snapshot.recent)
            ],
        )
        self._show_game()

    @property
    def game(self) -> str:
        """The game in focus: the one `g` chose, else the game of the player's last match."""
        if self.chosen is not None:
            return self.chosen
        recent = () if self.snapshot is None else self.snapshot.recent
        return recent[0].match.variant if recent else CLASSIC_NAME

    def watch_chosen(self) -> None:
        if self._ready:
            self._show_game()

    def _show_game(self) -> None:
        """The ladder of the game in focus, and the headings that say which it is."""
        snapshot, game = self.snapshot, self.game
        if snapshot is None:
            return
        if game != self._game:
            self._game = game
            title = _title(game)
            self.query_one("#open-heading", Label).update(
                f"Open tables · Enter sits · p pairs in {title}"
            )
            self.query_one("#ladder-heading", Label).update(f"{title} ladder · g switches")
        self._fill(
            "ladder",
            [
                (
                    line.handle,
                    (str(line.rank), Text(line.handle), line.rating, *_tally(line)),
                )
                for line in snapshot.ladder
                if line.variant == game
            ],
        )

    @staticmethod
    def _open_row(row: TableRow) -> tuple[object, ...]:
        opener = row.players[0]
        rating = "guest" if is_guest(opener) else row.rating if row.rated else "unrated"
        return (Text(opener), rating, _kind(row))

    @staticmethod
    def _playing_row(row: TableRow) -> tuple[object, ...]:
        wins0, wins1, draws = row.score
        players = Text(" v ".join(row.players))
        return (players, _title(row.variant), f"{wins0}–{wins1}", str(draws), str(row.watchers))

    def _fill(self, table_id: str, rows: list[tuple[str, tuple[object, ...]]]) -> None:
        """Put `rows` in the table, the cursor staying on the row it was on when it still is.

        A table whose rows are as shown already is left as it is (a change elsewhere in the
        club redraws only the list it changed, on every lobby). Each lobby draws every change in
        the club, so a change is made as the table's own: a changed cell is put in its place (a
        score: nothing moves, no layout), rows gone are taken out and new ones added at the end
        (a table opened, or sat at), as long as the rows that stay keep their order and every
        column keeps its width; otherwise the table is filled again."""
        texts = [(key, [str(cell) for cell in cells]) for key, cells in rows]
        before = self._rows.get(table_id)
        if texts == before:
            return
        self._rows[table_id] = texts
        table = self.query_one(f"#{table_id}", DataTable)
        kept: str | None = None
        if table.row_count:
            kept = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        # Each column as wide as its widest cell, said when it is made: a DataTable measures
        # its new rows later, when idle, and a row drawn before that stayed drawn as wide as its
        # heading ("1658 ±": its cells' drawings are kept by a key without the width).
        labels = COLUMNS[table_id]
        widths = [
            max([cell_len(label), *(cell_len(cells[index]) for _key, cells in texts)])
            for index, label in enumerate(labels)
        ]
        if before is None or widths != self._widths.get(table_id) or not _in_place(before, texts):
            self._widths[table_id] = widths
            table.clear(columns=True)
            for index, (label, width) in enumerate(zip(labels, widths, strict=True)):
                table.add_column(label, width=width, key=str(index))
            for key, cells in rows:
                table.add_row(*cells, key=key)
        else:
            now = dict(texts)
            was = dict(before)
            for key in was.keys() - now.keys():
                table.remove_row(key)
            for key, cells in rows:
                if key not in was:
                    table.add_row(*cells, key=key)
                    continue
                for index, (old, new) in enumerate(zip(was[key], now[key], strict=True)):
                    if old != new:
                        table.update_cell(key, str(index), cells[index])
        keys = [key for key, _cells in rows]
        if kept in keys:
            table.move_cursor(row=keys.index(kept), animate=False)

    @on(DataTable.RowSelected, "#open")
    def _sit(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.post_message(self.Asked(SitAt(event.row_key.value)))

    @on(DataTable.RowSelected, "#recent")
    async def _replay(self, event: DataTable.RowSelected) -> None:
        snapshot, key = self.snapshot, event.row_key.value
        if snapshot is not None and key is not None and int(key) < len(snapshot.recent):
            await self.app.push_screen(PastMatchScreen(snapshot.recent[int(key)]))

    @on(DataTable.RowSelected, "#playing")
    def _watch(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.post_message(self.Asked(WatchTable(event.row_key.value)))

    async def action_open(self, rated: bool) -> None:
        """The dialog that says how the table is played; awaited, so that the keys typed after
        `o` (Enter: open as it shows) find it on top."""
        guest = self.snapshot is not None and self.snapshot.you.guest
        dialog = OpenTableScreen(rated=rated, guest=guest, variant=self.game)
        await self.app.push_screen(dialog, self._opened)

    def _opened(self, ask: OpenTable | None) -> None:
        if ask is not None:
            self.post_message(self.Asked(ask))

    def action_rematch(self) -> None:
        self.post_message(self.Asked(Rematch()))

    def action_add_key(self) -> None:
        you = None if self.snapshot is None else self.snapshot.you
        if you is None or you.guest:
            self.notify(
                "A guest has no handle to add a key to: come in with a key first.", markup=False
            )
            return
        self.post_message(self.Asked(AddKey()))

    def action_pair(self) -> None:
        self.post_message(self.Asked(QuickPair(self.game)))

    def action_switch_game(self) -> None:
        """The next game in focus: its ladder, and quick pair in it."""
        games = list(VARIANTS)
        self.chosen = games[(games.index(self.game) + 1) % len(games)]

    def action_close_table(self) -> None:
        self.post_message(self.Asked(CloseTable()))
