"""The dialog that opens a table at the club (`o` in the lobby): which game (classic or
Ultimate, `g` switches; the lobby's game in focus first), rated or not, and a series of 1, 3 or 5
matches or an open-ended one. Enter opens the table as the dialog shows it, so `o` then Enter
opens one with the defaults. A guest's tables are unrated: a guest is not offered the
choice. The choices show ● chosen and ○ not (`Choice`), readable without colour.
"""

from __future__ import annotations

from typing import ClassVar, Final

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Label, RadioButton, RadioSet, Static

from tictactoe.core.finished import CLASSIC_NAME
from tictactoe.core.rules import VARIANTS
from tictactoe.online.lobby import OpenTable
from tictactoe.tui.widgets.choice import Choice
from tictactoe.tui.widgets.too_small import MinimumSize, TooSmall

__all__ = ["LENGTHS", "OpenTableScreen"]

LENGTHS: Final[tuple[int | None, ...]] = (None, 1, 3, 5)
"""The series a table may be opened for, as the dialog offers them (None: open-ended)."""


def _length_label(matches: int | None) -> str:
    if matches is None:
        return "Open-ended"
    return "1 match" if matches == 1 else f"{matches} matches"


class OpenTableScreen(MinimumSize, ModalScreen[OpenTable | None]):
    """Asks how the table is to be played. Dismisses with the `OpenTable` to ask the club for,
    or None (Escape, Cancel).

    Its keys are priority bindings, as the mark dialog's: they act as they come off the app's
    queue, so `o` and Enter typed together open a table. It answers once.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", priority=True),
        Binding("escape", "cancel", "Cancel", priority=True),
        Binding("g", "switch_game", "Game", priority=True),
        Binding("r", "rated(True)", "Rated", priority=True),
        Binding("u", "rated(False)", "Unrated", priority=True),
        Binding("e", "length(0)", "Open-ended", priority=True),
        *(
            Binding(
                str(matches), f"length({index})", _length_label(matches), priority=True, show=False
            )
            for index, matches in enumerate(LENGTHS)
            if matches is not None
        ),
    ]

    def __init__(
        self, *, rated: bool = True, guest: bool = False, variant: str = CLASSIC_NAME
    ) -> None:
        super().__init__()
        self.games: tuple[str, ...] = tuple(VARIANTS)
        """The games a table may be of, as the dialog offers them."""
        self.game = self.games.index(variant)
        """The game, as the dialog shows it: its index in `games`."""
        self.guest = guest
        """A guest's tables are unrated: the choice is not offered."""
        self.rated = rated and not guest
        """Whether the table is to be rated, as the dialog shows it."""
        self.length = 0
        """The series, as the dialog shows it: its index in `LENGTHS`."""
        self.answered = False

    def compose(self) -> ComposeResult:
        with Vertical(id="open-dialog", classes="dialog"):
            yield Static("Open a table", id="open-title")
            yield Label("Game", classes="open-label")
            with RadioSet(id="open-game"):
                for index, game in enumerate(self.games):
                    yield Choice(VARIANTS[game].title, value=index == self.game)
            if not self.guest:
                yield Label("Rating", classes="open-label")
                with RadioSet(id="open-rated"):
                    yield Choice("Rated", value=self.rated, id="rated")
                    yield Choice("Unrated", value=not self.rated, id="unrated")
            yield Label("Matches in the series", classes="open-label")
            with RadioSet(id="open-length"):
                for index, matches in enumerate(LENGTHS):
                    yield Choice(
                        "Open-ended" if matches is None else str(matches),
                        value=index == self.length,
                    )
            if self.guest:
                yield Static(
                    "A guest's tables are unrated: come in with a key to play rated.",
                    id="open-note",
                    markup=False,
                )
            with Horizontal(id="open-buttons"):
                yield Button("Open", id="open", variant="primary")
                yield Button("Cancel", id="cancel")
        yield Footer()
        yield TooSmall()

    def on_mount(self) -> None:
        self.query_one("#open", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A guest is offered no rating to choose: `r` and `u` are neither shown nor done."""
        return not (self.guest and action == "rated")

    def choice(self) -> OpenTable:
        """The table as the dialog shows it now."""
        return OpenTable(
            rated=self.rated and not self.guest,
            matches=LENGTHS[self.length],
            variant=self.games[self.game],
        )

    # A key sets the choice at once (Enter may follow it in the same burst); the radio button
    # shows it once the set has heard of it.

    def action_rated(self, rated: bool) -> None:
        if not self.guest:
            self.rated = rated
            self.query_one("#rated" if rated else "#unrated", RadioButton).value = True

    def action_switch_game(self) -> None:
        self.game = (self.game + 1) % len(self.games)
        list(self.query_one("#open-game", RadioSet).query(RadioButton))[self.game].value = True

    @on(RadioSet.Changed, "#open-game")
    def _game_chosen(self, event: RadioSet.Changed) -> None:
        self.game = event.index

    def action_length(self, index: int) -> None:
        self.length = index
        list(self.query_one("#open-length", RadioSet).query(RadioButton))[index].value = True

    @on(RadioSet.Changed, "#open-rated")
    def _rated_chosen(self, event: RadioSet.Changed) -> None:
        self.rated = event.index == 0

    @on(RadioSet.Changed, "#open-length")
    def _length_chosen(self, event: RadioSet.Changed) -> None:
        self.length = event.index

    def action_open(self) -> None:
        self._answer(self.choice())

    def action_cancel(self) -> None:
        self._answer(None)

    @on(Button.Pressed, "#open")
    def _open_pressed(self) -> None:
        self.action_open()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def _answer(self, answer: OpenTable | None) -> None:
        if not self.answered:
            self.answered = True
            self.dismiss(answer)
