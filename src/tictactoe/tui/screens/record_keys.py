"""The record screen's keys: what each one does on which tab, and the bindings that say so.

All are priority bindings, acted on in the order typed (see `RecordScreen`): a tab's key, Enter
and Escape change what takes the keys, so ↓ left to a table would be overtaken by the Enter
after it. A key the footer leaves out somewhere answers there through a hidden twin.
"""

from __future__ import annotations

from typing import Final

from textual.binding import Binding, BindingType

from tictactoe.tui.screens.record_rows import PLAYER_COLUMNS

__all__ = ["BINDINGS", "REPLAY_KEYS", "TABLE_KEYS", "TAB_KEYS", "TAB_TARGETS"]

TABLE_KEYS: Final = {
    "up": "cursor_up",
    "down": "cursor_down",
    "pageup": "page_up",
    "pagedown": "page_down",
    "home": "scroll_home",
    "end": "scroll_end",
}
"""The keys that move through a table, and the table's action for each."""

REPLAY_KEYS: Final = {"left": "step(-1)", "right": "step(1)", "home": "first", "end": "last"}
"""The keys that step through a replay, and the replay's action for each."""

TAB_KEYS: Final = {
    "p": ("players", "Players"),
    "h": ("head-to-head", "Head to head"),
    "m": ("recent", "Recent"),
    "r": ("replay", "Replay"),
}
"""The key that shows each tab, and its name in the footer."""

TAB_TARGETS: Final = {
    "players": "players-table",
    "head-to-head": "h2h-table",
    "recent": "recent-table",
    "replay": "replay",
}
"""What takes the keys on each tab."""

BINDINGS: Final[list[BindingType]] = [
    # Shown while a replay is on; otherwise they give way to the ones below.
    Binding("left", "step(-1)", "Back", key_display="←", priority=True),
    Binding("right", "step(1)", "Next", key_display="→", priority=True),
    Binding("escape", "back_to_list", "List", priority=True),
    # q and s close from anywhere, Escape from a list (on a replay it goes back to the
    # list). The footer shows q: the game's q quits, so this one says it closes.
    Binding("q,s", "close", "Close", priority=True),
    Binding("escape", "close", "Close", show=False, priority=True),
    # g shows the record of the next game (the title names the one on show), once the
    # record has more than classic's to show.
    Binding("g", "next_game", "Game", priority=True),
    # The footer offers the keys of the other lists (a replay is opened with Enter);
    # each key answers on every tab, through its hidden twin where it is not offered.
    *(
        Binding(key, f"show_tab('{tab}')", label, priority=True)
        for key, (tab, label) in TAB_KEYS.items()
    ),
    *(
        Binding(key, f"show_tab('{tab}', False)", label, show=False, priority=True)
        for key, (tab, label) in TAB_KEYS.items()
    ),
    *(
        Binding(str(column), f"sort({column})", f"Sort by {heading}", show=False, priority=True)
        for column, (_, heading) in enumerate(PLAYER_COLUMNS, start=1)
    ),
    *(
        Binding(key, f"move('{key}')", f"Move {key}", show=False, priority=True)
        for key in TABLE_KEYS
    ),
    Binding("i", "details", "Details", priority=True),
    Binding("enter", "open_selected", "Open", show=False, priority=True),
]
"""Every key of the record screen, in the footer's order."""
