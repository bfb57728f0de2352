"""The first screen: the game, both names and the opponent, then Start.

Typed ahead as fast as a person likes, every key lands where it was aimed: Tab and
Enter act the moment they arrive (priority bindings), each field acts on the keys
that reached it even if the focus has moved on since, and Start waits until every
field has handled every key sent to it before it reads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final, NamedTuple

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Footer, Input, Label, RadioSet, Static

from tictactoe.config import GameConfig
from tictactoe.core.ai import Level
from tictactoe.core.names import DEFAULT_NAMES, clean_name
from tictactoe.core.rules import CLASSIC, VARIANTS, variant
from tictactoe.core.series import COMPUTER_NAME, FirstMove, NameClash, Player, Series
from tictactoe.doors.relay_target import parse_relay
from tictactoe.tui.widgets import choice
from tictactoe.tui.widgets.drained import drained
from tictactoe.tui.widgets.too_small import MinimumSize, TooSmall

__all__ = ["FriendOnline", "NewGameScreen"]

if TYPE_CHECKING:
    _WidgetMixin = Widget
else:
    _WidgetMixin = object  # a mixin: the widget class it joins supplies the rest

_OPPONENTS: Final[dict[str, tuple[Level | None, str]]] = {
    "vs-person": (None, "Another person (hot seat)"),
    "vs-easy": (Level.EASY, "Computer: easy"),
    "vs-medium": (Level.MEDIUM, "Computer: medium"),
    "vs-hard": (Level.HARD, "Computer: hard"),
}
"""Each opponent's radio button: its id, the computer's level (None: a person), its label."""

ONLINE: Final = "vs-online"
"""The option that hosts a series for a friend on another machine (`tictactoe host`)."""
COMPUTERS: Final = "vs-computers"
"""The option that seats the computer in both places, each at its level, to watch it play."""
_SEAT_LEVELS: Final = (Level.MEDIUM, Level.HARD)
"""Each seat's level when the computer plays itself and the command line named none."""


class FriendOnline(NamedTuple):
    """The answer of the new-game screen when player 1 hosts a series for a friend online."""

    name: str
    relay: str = ""
    """The relay (`tictactoe host --relay`), `USER@HOST[:PORT]`; empty for none."""
    variant: str = CLASSIC.name
    """The game of the series, by name."""


class OwnKeys(_WidgetMixin):
    """A widget whose own key bindings act on itself, for every key that reached it.

    Textual resolves a widget's bindings against whatever has the focus when the key is
    handled, which, for keys typed ahead of a Tab, is already the next field: without this,
    ctrl+u typed before Tab empties the next field (test_names_typed_ahead_across_both_fields).
    """

    async def on_key(self, event: events.Key) -> None:
        for binding in Binding.make_bindings(self.BINDINGS):
            if event.key in binding.key.split(",") and not binding.priority:
                event.stop()
                event.prevent_default()
                await self.run_action(binding.action)
                return


class NameField(OwnKeys, Input):
    """A name: its editing keys (ctrl+u, backspace, arrows...) act on this field."""


class Choice(OwnKeys, RadioSet):
    """Options, one of them chosen: its arrow keys move through them, wherever the focus is
    now, and the highlight starts on the option chosen."""

    def on_mount(self) -> None:
        # RadioSet's own mount handler, which runs after this one, highlights the first option.
        self.call_later(self._highlight_pressed)

    def _highlight_pressed(self) -> None:
        """Start the highlight on the option chosen (the command line may have chosen one)."""
        for _ in range(max(0, self.pressed_index)):
            self.action_next_button()


class OpponentChoice(Choice):
    """The opponent (or the computer against itself, or a friend online)."""


class ChoiceRow(Choice):
    """A choice on one line: the game, a computer's level."""


class NewGameScreen(MinimumSize, Screen[Series | FriendOnline]):
    """Collects the game and the players; dismisses with a new `Series` once the names are
    valid, or with `FriendOnline` to host a series for a friend on another machine."""

    AUTO_FOCUS = "#level-1, #name-1"
    """The first name has the keys at once (the game's choice above it keeps its default); the
    first computer's level, when the command line seated the computer there."""

    # Priority: each moves the focus or leaves the screen as it arrives, so the keys typed
    # after it reach the next field, or the game (test_bursts, test_new_game).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", "Start", priority=True),
        # Enter typed before the game took the terminal over arrives as a newline: Ctrl+J.
        Binding("enter,ctrl+j", "enter", show=False, priority=True),
        Binding("tab", "app.focus_next", show=False, priority=True),
        Binding("shift+tab", "app.focus_previous", show=False, priority=True),
    ]

    def __init__(
        self,
        config: GameConfig | None = None,
        *,
        online: bool = True,
        relay: str = "",
        variant: str | None = None,
    ) -> None:
        super().__init__()
        self.config = config or GameConfig()
        """What the command line already said: the fields start from it."""
        self.online = online
        """Whether "A friend online" is offered (not to a browser tab: its doors would open
        on the server's machine)."""
        self.relay = relay
        """The relay field's first value (the one used last time)."""
        self.game = self.config.variant or variant or CLASSIC.name
        """The game chosen first: the command line's, else the one chosen last time."""
        self._levels = [
            self.config.player1_level or _SEAT_LEVELS[0],
            self.config.level or _SEAT_LEVELS[1],
        ]
        """Each seat's level when the computer plays itself, as last chosen."""

    @property
    def first_move(self) -> FirstMove:
        """The first-move rule the series will use."""
        return self.config.first_move

    FULL_HEIGHT: ClassVar[int] = 24
    """The least terminal height that shows the whole form with bordered fields: below it,
    the fields, the opponents and Start take Textual's compact style (one line each)."""
    TALL_START: ClassVar[int] = 28
    """The least terminal height that shows Start as a tall button; below it, one line."""
    ROOMY_HEIGHT: ClassVar[int] = 18
    """The least terminal height that keeps the subtitle; below it, its line goes to the rest."""

    def compose(self) -> ComposeResult:
        config = self.config
        against = config.level
        computers = config.player1_level is not None
        with Vertical(id="new-game", classes="dialog"):
            yield Static("Tic-tac-toe", id="new-title")
            yield Static("Three in a row wins. Who is playing?", id="new-subtitle")
            with Horizontal(classes="field choice", id="game-field"):
                yield Label("Game", classes="field-label")
                with ChoiceRow(id="game", compact=True):
                    for name, game in VARIANTS.items():
                        yield choice.Choice(game.title, id=f"game-{name}", value=name == self.game)
            if computers:
                yield self._computer_seat(1)
            first, second = (Horizontal(classes="field", id=f"player-{seat}") for seat in (1, 2))
            first.display = second.display = not computers  # each seat's level in its place
            with first:
                yield Label("Player 1", classes="field-label")
                yield NameField(
                    clean_name(config.player1 or "", ""),
                    placeholder=DEFAULT_NAMES[0],
                    id="name-1",
                    select_on_focus=False,
                )
            with second:
                yield Label("Player 2", classes="field-label")
                yield NameField(
                    clean_name(config.player2 or "", "") if against is None else "",
                    placeholder=DEFAULT_NAMES[1] if against is None else COMPUTER_NAME,
                    id="name-2",
                    select_on_focus=False,
                    disabled=against is not None,
                )
            if computers:
                yield self._computer_seat(2)
            relay = Horizontal(classes="field", id="relay-field")
            relay.display = False  # in player 2's place, for a friend online
            with relay:
                yield Label("Relay", classes="field-label")
                yield NameField(
                    self.relay,
                    placeholder="optional: USER@HOST[:PORT]",
                    id="relay",
                    select_on_focus=False,
                )
            yield Label("Opponent", id="opponent-label")
            with OpponentChoice(id="opponent"):
                for option, (level, label) in _OPPONENTS.items():
                    yield choice.Choice(label, id=option, value=level is against and not computers)
                if self.online:
                    yield choice.Choice("A friend online (ssh or a browser)", id=ONLINE)
                yield choice.Choice("Computer against computer", id=COMPUTERS, value=computers)
            yield Static("", id="new-error")
            yield Button("Start", id="start", variant="primary")
        yield Footer()
        yield TooSmall()

    def _computer_seat(self, seat: int) -> Horizontal:
        """The level of the computer in `seat` (1 or 2), in place of that seat's name when the
        computer plays itself (there only then: every option on the form is one to take)."""
        level = self._levels[seat - 1]
        buttons = (
            choice.Choice(str(each), id=f"level-{seat}-{each}", value=each is level)
            for each in Level
        )
        return Horizontal(
            Label(f"Player {seat}", classes="field-label"),
            ChoiceRow(*buttons, id=f"level-{seat}", compact=True),
            classes="field choice",
            id=f"computer-{seat}",
        )

    def on_resize(self) -> None:
        height = self.app.size.height
        compact = height < self.FULL_HEIGHT
        form = self.query_one("#new-game")
        form.set_class(height < self.ROOMY_HEIGHT, "-cramped")
        self.query_one("#start", Button).compact = height < self.TALL_START
        if form.has_class("-compact") == compact:
            return
        form.set_class(compact, "-compact")
        for widget in form.query("Input, RadioSet"):
            if isinstance(widget, ChoiceRow):
                continue  # one line at every size
            if isinstance(widget, Input | RadioSet):
                widget.compact = compact

    @property
    def level(self) -> Level | None:
        """The computer's level chosen, or None for a person."""
        pressed = self.query_one("#opponent", RadioSet).pressed_button
        if pressed is None or pressed.id not in _OPPONENTS:
            return None
        return _OPPONENTS[pressed.id][0]

    @property
    def variant(self) -> str:
        """The name of the game chosen."""
        pressed = self.query_one("#game", RadioSet).pressed_button
        return (pressed.id or "").removeprefix("game-") if pressed else CLASSIC.name

    @property
    def computers(self) -> bool:
        """Whether the computer plays itself, a person watching."""
        pressed = self.query_one("#opponent", RadioSet).pressed_button
        return pressed is not None and pressed.id == COMPUTERS

    def seat_level(self, seat: int) -> Level:
        """The level chosen for the computer in `seat` (1 or 2) when it plays itself."""
        for row in self.query(f"#level-{seat}").results(RadioSet):
            pressed = row.pressed_button
            chosen = (pressed.id or "").removeprefix(f"level-{seat}-") if pressed else ""
            if chosen in set(Level):
                self._levels[seat - 1] = Level(chosen)
        return self._levels[seat - 1]

    @property
    def friend_online(self) -> bool:
        """Whether player 1 hosts a series for a friend on another machine."""
        pressed = self.query_one("#opponent", RadioSet).pressed_button
        return pressed is not None and pressed.id == ONLINE

    @on(RadioSet.Changed, "#opponent")
    async def opponent_changed(self) -> None:
        computers = self.computers
        shown = bool(self.query("#computer-1"))
        if computers and not shown:
            form = self.query_one("#new-game")
            await form.mount(self._computer_seat(1), before="#player-1")
            await form.mount(self._computer_seat(2), after="#player-2")
        elif shown and not computers:
            for seat in (1, 2):
                self.seat_level(seat)  # kept, for the next time they are shown
            await self.query("#computer-1, #computer-2").remove()
        self.query_one("#player-1").display = not computers
        self.query_one("#player-2").display = not self.friend_online and not computers
        self.query_one("#relay-field").display = self.friend_online
        second = self.query_one("#name-2", Input)
        second.disabled = self.level is not None or self.friend_online
        second.placeholder = (
            COMPUTER_NAME
            if self.level
            else "Your friend types their name"
            if self.friend_online
            else DEFAULT_NAMES[1]
        )

    async def action_enter(self) -> None:
        """Enter: choose the highlighted opponent in the list, start from anywhere else."""
        focused = self.focused
        if isinstance(focused, RadioSet):
            await drained(focused)
            focused.action_toggle_button()
        else:
            await self.action_start()

    @on(Button.Pressed, "#start")
    async def action_start(self, *_: Any) -> None:
        """Start, once every key typed before this has reached its field."""
        for field in (*self.query(NameField), *self.query(OpponentChoice)):
            await drained(field)
        level = self.level
        first = self.query_one("#name-1", Input).value
        if self.friend_online:
            relay = self.query_one("#relay", Input).value
            try:
                relay = str(parse_relay(relay)) if relay.strip() else ""
            except ValueError as problem:
                self._refuse(str(problem), "#relay")
                return
            self.dismiss(FriendOnline(clean_name(first, DEFAULT_NAMES[0]), relay, self.variant))
            return
        first_player: Player | str = first
        second: Player | str = self.query_one("#name-2", Input).value
        if level is not None:
            second = Player.computer(level)
        if self.computers:
            first_player, second = (Player.computer(self.seat_level(seat)) for seat in (1, 2))
        try:
            game = variant(self.variant)
            series = Series.new(first_player, second, first_move=self.first_move, variant=game)
        except NameClash as clash:
            self._refuse(str(clash), "#name-2" if level is None else "#name-1")
            return
        self.dismiss(series)

    def _refuse(self, text: str, field: str) -> None:
        """Say why Start cannot start, and put the focus on the field to mend."""
        self.query_one("#new-error", Static).update(Content(text))
        self.query_one("#new-game").add_class("-refused")  # on a short screen, in its place
        self.query_one(field, Input).focus()
