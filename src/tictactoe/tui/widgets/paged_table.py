"""`PagedTable`: a `DataTable` that holds one page of rows at a time and asks for the
next page as the cursor or the scroll nears its end, so a table over a million rows
opens as fast as an empty one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, Self

from rich.text import Text
from textual.coordinate import Coordinate
from textual.widgets import DataTable

__all__ = ["PAGE", "PagedTable", "Row"]

Row = tuple[str, Sequence[Text]]
"""A table row: its key and its cells."""

PAGE: Final = 50
"""Rows fetched at a time: two screenfuls, so scrolling always finds the next rows ready."""


class PagedTable(DataTable[Text]):
    """A table that fetches its rows a page at a time, as the cursor or scroll nears the end."""

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._fetch: Callable[[int], list[Row]] | None = None
        self.exhausted = True
        """True once the last page has been fetched."""

    def clear(self, columns: bool = False) -> Self:
        """Clear the table; it fetches nothing more until `load` (the cursor going back to
        the top as it clears would otherwise fetch rows from what it held)."""
        self._fetch = None
        self.exhausted = True
        return super().clear(columns)

    def load(self, fetch: Callable[[int], list[Row]]) -> None:
        """Show the first page of `fetch` (given the rows loaded so far, it returns the next)."""
        self.clear()
        self._fetch = fetch
        self.exhausted = False
        self.fetch_more()

    def fetch_more(self) -> None:
        if self._fetch is None or self.exhausted:
            return
        rows = self._fetch(self.row_count)
        self.exhausted = True  # adding rows moves the cursor, which must not fetch again
        for key, cells in rows:
            self.add_row(*cells, key=key)
        self.exhausted = len(rows) < PAGE

    def watch_cursor_coordinate(self, old: Coordinate, new: Coordinate) -> None:
        super().watch_cursor_coordinate(old, new)
        if new.row >= self.row_count - PAGE // 4:
            self.fetch_more()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if new >= self.max_scroll_y - PAGE // 4:
            self.fetch_more()
