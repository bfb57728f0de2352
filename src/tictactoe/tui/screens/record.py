"""The record screen (`s`): players' totals, head to head, recent matches and replay.

The screen: its tabs, what each table loads, and what its keys do (`record_keys` binds them).
It shows the record of one game at a time: the one being played when it opened (classic
without a series), and `g` shows the next game's once the record holds more than classic's
matches (the title then names the game). Each table is a `PagedTable`, which holds one page
of rows at a time, so a record of a million matches opens as fast as an empty one; how a row
reads is `record_rows`. The tables shorten names, so that every column fits; `i` (or Enter on
a player) shows the row in full (`DetailsScreen`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ClassVar, Final

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Static, TabbedContent, TabPane, Tabs

from tictactoe.core.finished import CLASSIC_NAME
from tictactoe.core.rules import VARIANTS
from tictactoe.core.series import Player, Series
from tictactoe.record import GameRecord, PlayerSort, PlayerTotals
from tictactoe.tui.screens.details import DetailsScreen
from tictactoe.tui.screens.info import InfoScreen
from tictactoe.tui.screens.record_keys import BINDINGS, REPLAY_KEYS, TAB_TARGETS, TABLE_KEYS
from tictactoe.tui.screens.record_rows import (
    MATCH_COLUMNS,
    PLAYER_COLUMNS,
    match_details,
    match_row,
    number,
    player_columns,
    player_details,
    player_label,
    player_row,
)
from tictactoe.tui.screens.replay import ReplayPane, local_time
from tictactoe.tui.widgets.drained import drained
from tictactoe.tui.widgets.paged_table import PAGE, PagedTable, Row
from tictactoe.tui.widgets.too_small import TooSmall, too_small

__all__ = ["RecordScreen"]

UNREADABLE: Final = "The record could not be read"
"""Instead of an empty table, when it could not (the line below the tabs says why)."""


class RecordScreen(InfoScreen):
    """The game record in four tabs; Escape, q or s closes it (Escape leaves a replay first).

    Like the game's, its keys are taken in arrival order: each is queued and acted on
    when its turn comes, against the tab the keys before it have left on show. So
    Escape, Escape from a replay goes back to the list and then closes, and Enter, →
    typed together opens a replay and steps it.
    """

    WHAT = "the record"
    AUTO_FOCUS = "#players-table"
    """Focused as the screen is made, so the table is drawn once, focused, not twice."""
    BINDINGS: ClassVar[list[BindingType]] = BINDINGS

    def __init__(
        self,
        record: GameRecord,
        series: Series | None,
        *,
        warn: Callable[[Iterable[str]], None] | None = None,
    ) -> None:
        super().__init__()
        self.record = record
        """Where the rows come from."""
        self.players = series.players if series else None
        """The two players of this session, for Head to head."""
        self.variant = series.variant.name if series else CLASSIC_NAME
        """The name of the game whose record is on show."""
        self._played = self.variant
        """The name of the game being played when the screen opened."""
        self._offered: bool | None = None
        """Whether the record has a choice of game to show (None: not read yet)."""
        self._warn = warn
        self.sort = PlayerSort.WINS
        """The Players table's order: the column, and `descending`."""
        self.descending = True
        self._replay_from = "recent"
        """The tab Escape returns to from a replay."""
        self._filled = {"players", "replay"}
        """Tabs whose tables are made (the others are made when first shown)."""
        self._player_rows: dict[str, PlayerTotals] = {}
        """The Players table's rows loaded so far, by row key, for their details."""
        self._players_width: int | None = None
        """The width the Players table was laid out for (None: before its first layout)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="record", classes="dialog"):
            yield Static(self._title(), id="record-title", markup=False)
            with TabbedContent(initial="players"):
                with TabPane("Players", id="players"):
                    yield Static(
                        "Sort: click a heading or press 1–6; again to reverse.",
                        classes="record-hint",
                    )
                    yield PagedTable(id="players-table")
                yield TabPane("Head to head", id="head-to-head")
                yield TabPane("Recent matches", id="recent")
                yield ReplayPane()
            yield Static(self.record.where(), id="record-where", markup=False)
        yield Footer()
        yield TooSmall()

    @property
    def tabs(self) -> TabbedContent:
        return self.query_one(TabbedContent)

    def on_mount(self) -> None:
        if not self.query("#players-table"):
            return  # the session ended (a quit typed right after s) before the screen was made
        self._load_players()
        self._tell()

    @property
    def games_offered(self) -> bool:
        """Whether `g` is offered: the record has matches of a game other than classic, or
        another is being played (read once, and again with the tables)."""
        if self._offered is None:
            self._offered = self._played != CLASSIC_NAME or any(
                self.record.has_played(name) for name in VARIANTS if name != CLASSIC_NAME
            )
        return self._offered

    def _title(self) -> str:
        """ "Game record", and the game's name once there is a choice of game."""
        if not self.games_offered:
            return "Game record"
        return f"Game record · {VARIANTS[self.variant].title}"

    def action_next_game(self) -> None:
        """Show the record of the next game: every table made so far reads it again."""
        names = list(VARIANTS)
        self.variant = names[(names.index(self.variant) + 1) % len(names)]
        self.reload()

    def reload(self) -> None:
        """Read the record again, for matches saved since the screen opened: every table
        made so far, and where the record is kept."""
        if not self.query("#players-table"):
            return
        self._offered = None
        self.query_one("#record-title", Static).update(self._title())
        self.refresh_bindings()
        self._load_players()
        if "head-to-head" in self._filled:
            self.query_one("#h2h-summary", DataTable).clear(columns=True)
            self.query_one("#h2h-table", PagedTable).clear(columns=True)
            self._load_head_to_head()
        if "recent" in self._filled:
            recent = self.query_one("#recent-table", PagedTable)
            recent.clear(columns=True)
            self._match_columns(recent)
            recent.load(self._matches_page(recent, None))
        self._tell()

    async def _fill(self, tab: str) -> None:
        """Make and load a tab's tables the first time it is shown: opening stays quick."""
        if tab in self._filled:
            return
        self._filled.add(tab)
        pane = self.query_one(f"#{tab}", TabPane)
        if tab == "head-to-head":
            await pane.mount(
                DataTable(id="h2h-summary", cursor_type="none", show_cursor=False),
                Static(classes="record-hint", id="h2h-hint", markup=False),
                PagedTable(id="h2h-table"),
            )
            self._load_head_to_head()
        elif tab == "recent":
            hint = "Newest first. Enter replays a match."
            recent = PagedTable(id="recent-table")
            await pane.mount(Static(hint, classes="record-hint", markup=False), recent)
            self._match_columns(recent)
            recent.load(self._matches_page(recent, None))
            if self.record.unreadable:
                self.query_one("#recent .record-hint", Static).update(f"{UNREADABLE}.")
        self._tell()

    def _tell(self) -> None:
        """Pass on what the record had to say, and show where it is kept (or why it could
        not be read) as of the last reading."""
        self.query_one("#record-where", Static).update(self.record.where())
        if self._warn is not None:
            self._warn(self.record.take_notices())

    # Players.

    def _load_players(self) -> None:
        table = self.query_one("#players-table", PagedTable)
        table.clear(columns=True)
        sort, descending = self.sort, self.descending
        game = self.variant
        first = self.record.players(sort, descending=descending, limit=PAGE, variant=game)
        widest = max((player_label(totals.player).cell_len for totals in first), default=0)
        width = table.scrollable_content_region.width or None
        arrow = " ▼" if descending else " ▲"
        headings, name_width = player_columns(width, sort, arrow, widest)
        self._players_width = width
        for (column, _), heading in zip(PLAYER_COLUMNS, headings, strict=True):
            table.add_column(
                Text(heading, justify="left" if column is PlayerSort.NAME else "right"),
                key=column.value,
            )
        kept: dict[str, PlayerTotals] = {}
        self._player_rows = kept

        def page(loaded: int) -> list[Row]:
            rows = (
                first
                if not loaded
                else self.record.players(
                    sort, descending=descending, offset=loaded, limit=PAGE, variant=game
                )
            )
            kept.update((f"player-{loaded + index}", totals) for index, totals in enumerate(rows))
            return [
                (f"player-{loaded + index}", player_row(totals, name_width))
                for index, totals in enumerate(rows)
            ]

        table.load(page)
        if not table.row_count:
            empty = "No matches recorded yet"
            if self.games_offered:
                empty = f"No {VARIANTS[game].title} matches recorded yet"
            if self.record.unreadable:
                empty = UNREADABLE
            table.add_row(Text(empty, style="dim"), *[Text("")] * 5)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_players)

    def _fit_players(self) -> None:
        """Lay the Players table out again for a new width (names and headings fitted)."""
        tables = self.query("#players-table").results(PagedTable)
        table = next(tables, None)
        width = table.scrollable_content_region.width if table else 0
        if table is not None and width and width != self._players_width:
            row = table.cursor_row
            self._load_players()
            table.move_cursor(row=row)

    def _sort(self, sort: PlayerSort) -> None:
        if sort is self.sort:
            self.descending = not self.descending
        else:
            self.sort, self.descending = sort, sort is not PlayerSort.NAME
        self._load_players()
        self.tabs.active = "players"
        self._focus_tab("players")

    @on(DataTable.HeaderSelected, "#players-table")
    def _sort_by_heading(self, event: DataTable.HeaderSelected) -> None:
        self._sort(PlayerSort(str(event.column_key.value)))

    # Head to head, and the lists of matches.

    def _load_head_to_head(self) -> None:
        summary = self.query_one("#h2h-summary", DataTable)
        table = self.query_one("#h2h-table", PagedTable)
        hint = self.query_one("#h2h-hint", Static)
        for heading in ("Player", "Wins", "Losses", "Draws"):
            summary.add_column(heading, key=heading.lower())
        if self.players is None:
            hint.update("No series in progress.")
            return
        head = self.record.head_to_head(self.players, variant=self.variant)
        for index, player in enumerate(self.players):
            summary.add_row(
                player_label(player),
                number(head.wins[index]),
                number(head.wins[1 - index]),
                number(head.draws),
            )
        if self.record.unreadable:
            hint.update(f"{UNREADABLE}.")
        elif head.matches:
            first, last = local_time(head.first), local_time(head.last)
            when = first if first == last else f"{first} to {last}"
            if head.matches == 1:
                hint.update(f"1 match, {when}. Enter replays it.")
            else:
                hint.update(f"{head.matches:,} matches, {when}. Enter replays one.")
        else:
            hint.update("They have not played each other before this series.")
        self._match_columns(table)
        table.load(self._matches_page(table, self.players))

    @staticmethod
    def _match_columns(table: DataTable[Text]) -> None:
        for heading in MATCH_COLUMNS:
            table.add_column(heading, key=heading.lower())

    def _matches_page(
        self, table: PagedTable, between: tuple[Player, Player] | None
    ) -> Callable[[int], list[Row]]:
        oldest: list[int] = []
        game = self.variant

        def page(loaded: int) -> list[Row]:
            before = oldest[-1] if loaded and oldest else None
            matches = self.record.recent(before=before, limit=PAGE, between=between, variant=game)
            if matches and matches[-1].id is not None:
                oldest.append(matches[-1].id)
            return [(f"match-{match.id}", match_row(match)) for match in matches]

        return page

    @on(DataTable.RowSelected, "#recent-table, #h2h-table")
    async def _replay_clicked(self, event: DataTable.RowSelected) -> None:
        """A click on the chosen row (Enter is the screen's own key, below)."""
        await self._replay(event.data_table, event.row_key.value or "")

    @on(DataTable.RowSelected, "#players-table")
    async def _player_clicked(self, event: DataTable.RowSelected) -> None:
        await self._details(event.row_key.value or "")

    async def _details(self, key: str) -> None:
        """Show a row in full (the names the tables shorten): a player's, or a match's."""
        if key in self._player_rows:
            await self.app.push_screen(
                DetailsScreen("Player", player_details(self._player_rows[key]))
            )
        elif key.startswith("match-"):
            match = self.record.match(int(key.removeprefix("match-")))
            self._tell()
            if match is not None:
                await self.app.push_screen(DetailsScreen("Match", match_details(match)))

    async def _replay(self, table: DataTable[Text], key: str) -> None:
        if not key.startswith("match-"):
            return
        match = self.record.match(int(key.removeprefix("match-")))
        self._tell()
        if match is None:
            return
        self._replay_from = "head-to-head" if table.id == "h2h-table" else "recent"
        await self.query_one(ReplayPane).show(match, from_start=True)  # as it was played
        await self._show_tab("replay")

    # Keys: priority bindings, acted on as each comes off the app's queue, in order.

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The replay's keys work while a replay is on; the tabs' names keep their arrows.
        The footer offers the keys of the other lists only: all fit at 50 columns."""
        if too_small(self):
            return False
        tabs = self.query(TabbedContent)
        active = tabs.first().active if tabs else "players"
        on_replay = active == "replay"
        if action == "next_game":
            return self.games_offered
        if action == "show_tab" and parameters[1:] != (False,):
            return not on_replay and parameters[0] not in (active, "replay")
        if action in ("step", "back_to_list"):
            return on_replay and not isinstance(self.focused, Tabs)
        if action == "open_selected":
            return not on_replay and not isinstance(self.focused, Tabs)
        return True

    def action_close(self) -> None:
        self.dismiss(None)

    async def action_back_to_list(self) -> None:
        await self._show_tab(self._replay_from)

    async def action_show_tab(self, tab: str, offered: bool = True) -> None:
        """Show `tab` (`offered` is False for its key where the footer leaves it out)."""
        await self._show_tab(tab)

    def action_sort(self, column: int) -> None:
        self._sort(PLAYER_COLUMNS[column - 1][0])

    async def action_step(self, moves: int) -> None:
        await self.query_one(ReplayPane).run_action(f"step({moves})")

    async def action_move(self, key: str) -> None:
        """A key that moves through the table on show (or the replay, for Home and End)."""
        tab = self.tabs.active
        if tab == "replay":
            if key in REPLAY_KEYS:
                await self.query_one(ReplayPane).run_action(REPLAY_KEYS[key])
            return
        table = next(self.query(f"#{TAB_TARGETS[tab]}").results(PagedTable), None)
        if table is not None:
            await table.run_action(TABLE_KEYS[key])

    def _selected(self) -> tuple[PagedTable, str] | None:
        """The table on show and the key of its row under the cursor, if it has rows."""
        table = next(self.query(f"#{TAB_TARGETS[self.tabs.active]}").results(PagedTable), None)
        if table is None or not table.row_count:
            return None
        return table, table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value or ""

    async def action_open_selected(self) -> None:
        """Enter: replay the match under the cursor, or show the player's details."""
        selected = self._selected()
        if selected is not None:
            table, key = selected
            if table.id == "players-table":
                await self._details(key)
            else:
                await self._replay(table, key)

    async def action_details(self) -> None:
        """The row under the cursor in full, or the match on show in a replay."""
        if self.tabs.active == "replay":
            match = self.query_one(ReplayPane).match
            if match is not None:
                await self.app.push_screen(DetailsScreen("Match", match_details(match)))
            return
        selected = self._selected()
        if selected is not None:
            await self._details(selected[1])

    async def _show_tab(self, tab: str) -> None:
        await self._fill(tab)
        self.tabs.active = tab
        replaying = self.query_one(ReplayPane).match if tab == "replay" else None
        for name in VARIANTS:  # for the stylesheet: a small screen gives the board more room
            self.set_class(
                replaying is not None and replaying.variant == name, f"-replaying-{name}"
            )
        target = self._focus_tab(tab)
        # Focusing a widget in a pane tells the TabbedContent to show that pane, by messages
        # passed up from the widget; were a later key to switch tabs before they arrived,
        # they would switch back. Wait for them.
        for node in (target, *target.ancestors):
            if isinstance(node, Widget):
                await drained(node)
            if node is self.tabs:
                break

    @on(TabbedContent.TabActivated)
    async def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """A tab shown by a click on its name, or by the tabs' own keys."""
        tab = event.pane.id
        if tab and self.tabs.active == tab:
            await self._show_tab(tab)

    def _focus_tab(self, tab: str) -> Widget:
        """Give the tab's table (or the replay) the keys now, not after the next frame."""
        widget = self.query_one(f"#{TAB_TARGETS[tab]}")
        self.refresh_bindings()  # the replay's keys show on its tab only
        if self.focused is not widget:
            self.set_focus(widget)
        return widget
