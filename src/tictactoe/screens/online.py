"""The screens of an online series: joining it, the host's invitation, and a seat's board.

The host's authority holds the series; a seat's game process renders the copy it is sent.
A key still becomes an intent as in hot seat, and the core says at once when it is not
this seat's to give ("It is Alice's turn."); otherwise the intent goes to the authority,
and the board changes when the new state comes back, on every screen at once.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Input, Label, Static

from tictactoe.engine import Mark
from tictactoe.keys import KeyLayout
from tictactoe.notices import Notice
from tictactoe.online.codes import CODE_LENGTH, normalise_code
from tictactoe.online.invitation import Invitation
from tictactoe.online.protocol import Act, AskHint, Away, ClientMessage, State
from tictactoe.screens.game import GameScreen
from tictactoe.screens.new_game import NameField
from tictactoe.seats import act, away_notice, check_hint, chooses_now
from tictactoe.series import Intent, Series, SeriesError
from tictactoe.widgets.drained import drained
from tictactoe.widgets.too_small import MinimumSize, TooSmall

__all__ = [
    "InvitationScreen",
    "JoinScreen",
    "OnlineGameScreen",
]

REFUSAL_SHOWN = 2.0
"""Seconds a refusal stays on the status line before the count of a dropped link's grace,
as the authority sends it, takes its place again."""


class InvitationScreen(MinimumSize, Screen[None]):
    """The host's screen until a friend joins (and on `i` later): the lines to pass on."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "app.quit", "Quit", priority=True),
        Binding("escape", "close", "Back to the board", show=False),
        Binding("c", "copy", "Copy the first line"),
        Binding("question_mark,f1", "app.help", "Help", key_display="?"),
    ]

    def __init__(self, invitation: Invitation, *, waiting: bool = True) -> None:
        super().__init__()
        self.invitation = invitation
        self.waiting = waiting
        """True while no friend has joined yet; False when opened from the board."""

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="invitation"):
            yield Static(Content(f"Your series' code: {self.invitation.code}"), id="code")
            yield Static(id="relay-notice")
            yield Static(id="invite-lines")
            if self.waiting:
                yield Static("Waiting for a friend to join…", id="waiting")
        yield Footer()
        yield TooSmall()

    def on_mount(self) -> None:
        self.sub_title = "hosting online"
        self.show(self.invitation)

    def show(self, invitation: Invitation) -> None:
        """Show `invitation` (the relay's line came, moved or went)."""
        self.invitation = invitation
        notice = self.query_one("#relay-notice", Static)
        notice.update(Content(invitation.relay_notice))
        notice.display = bool(invitation.relay_notice)
        self.query_one("#invite-lines", Static).update(Content(invitation.text()))

    def action_close(self) -> None:
        if not self.waiting:
            self.dismiss(None)

    def action_copy(self) -> None:
        """Put the first line on the clipboard (through the terminal: OSC 52)."""
        line = self.invitation.first_line
        self.app.copy_to_clipboard(line)
        self.notify(
            f"Copied {line} (if your terminal lets programs copy).",
            title="Clipboard",
            timeout=4,
            markup=False,
        )


Connect = Callable[[str, str], Awaitable[str | None]]
"""Joins with (code, name): None once joined, else why not, as a sentence to show."""


class JoinScreen(MinimumSize, Screen[bool]):
    """Asks a name (and the code when the door did not carry it), then joins the series.

    Dismisses with True once joined; Escape dismisses with False. Enter and Tab are the
    screen's priority bindings, as on the new-game screen: they move the focus as they
    arrive, so a code, Enter and a name typed in one burst each land in their own field.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,ctrl+j", "enter", "Join", key_display="enter", priority=True),
        Binding("tab", "app.focus_next", show=False, priority=True),
        Binding("shift+tab", "app.focus_previous", show=False, priority=True),
        Binding("escape", "leave", "Leave"),
    ]

    def __init__(
        self, connect: Connect, *, code: str | None, name: str | None, hosting: bool = False
    ) -> None:
        super().__init__()
        self.connect = connect
        self.code = code
        """The series' code when the door carried it (ssh's user name), else asked here."""
        self.given_name = name
        self.hosting = hosting

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="join", classes="dialog"):
            title = "Host a series online" if self.hosting else "Join a friend's series"
            yield Label(title, id="join-title")
            if self.code is None:
                yield Label("The series' code", classes="field-label")
                yield NameField(
                    placeholder="K7M4QX",
                    id="code",
                    max_length=CODE_LENGTH + 4,
                    restrict=r"[A-Za-z0-9 -]*",
                    select_on_focus=False,
                )
            yield Label("Your name", classes="field-label")
            yield NameField(
                value=self.given_name or "",
                placeholder="Your name",
                id="name",
                select_on_focus=False,
            )
            yield Button("Host" if self.hosting else "Join", id="go", variant="primary")
            yield Static(id="join-notice")
        yield Footer()
        yield TooSmall()

    def on_mount(self) -> None:
        self.sub_title = "online"
        self.query_one("#code" if self.code is None else "#name").focus()
        if self.code is not None and self.given_name:
            self.run_worker(self.action_go())

    async def action_enter(self) -> None:
        """Enter: from the code, on to the name; from anywhere else, join."""
        focused = self.focused
        if isinstance(focused, Input) and focused.id == "code":
            # At once (a widget's focus() waits its turn on the queue, after keys typed
            # ahead): the keys typed next are the name's.
            self.set_focus(self.query_one("#name"))
            await drained(focused)
            if self._code() is None:
                self._say(f"A code is {CODE_LENGTH} letters and digits, like K7M4QX.")
            return
        await self.action_go()

    def _code(self) -> str | None:
        if self.code is not None:
            return self.code
        return normalise_code(self.query_one("#code", Input).value)

    @on(Button.Pressed, "#go")
    async def action_go(self) -> None:
        """Join with what the fields hold once every key typed before this has reached them."""
        for field in self.query(NameField):
            await drained(field)
        code = self._code()
        if code is None:
            self._say(f"A code is {CODE_LENGTH} letters and digits, like K7M4QX.")
            self.query_one("#code").focus()
            return
        name = self.query_one("#name", Input).value
        if not name.strip():
            self._say("Your name, please: the other player sees it.")
            self.query_one("#name").focus()
            return
        self._say("Opening the doors…" if self.hosting else "Joining…")
        self.query_one("#go", Button).disabled = True
        self._join(code, name)

    @work(exclusive=True)
    async def _join(self, code: str, name: str) -> None:
        problem = await self.connect(code, name)
        if problem is None:
            self.dismiss(True)
            return
        self.query_one("#go", Button).disabled = False
        self._say(problem)
        self.query_one("#name").focus()

    def _say(self, text: str) -> None:
        self.query_one("#join-notice", Static).update(Content(text))

    def action_leave(self) -> None:
        self.dismiss(False)


class OnlineGameScreen(GameScreen):
    """The board of one seat (or of a watcher) in a series the host's authority holds."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("i", "app.invite", "Invite", priority=True),
    ]

    def __init__(
        self,
        series: Series,
        *,
        seat: int | None,
        send: Callable[[ClientMessage], None],
        layout: KeyLayout = KeyLayout.NUMPAD,
    ) -> None:
        super().__init__(series, layout=layout, computer_delay=0)
        self.seat = seat
        """This screen's seat (0 the host, 1 the guest), or None for a watcher."""
        self.version = 0
        """The version of the state shown: an intent says which state it was meant for."""
        self.away: Away | None = None
        """The seat whose link dropped, while the series waits for it."""
        self._refused_at = float("-inf")
        self._send = send
        self._said = Notice()
        """The last notice the authority gave with a state."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A watcher's footer offers none of the players' keys, and they do nothing (a digit
        or a mark still says that this screen is watching)."""
        if self.seat is None and action in ("undo", "hint", "next_match"):
            return False
        return super().check_action(action, parameters)

    def receive(self, state: State) -> None:
        """A new state from the authority: shown as it is."""
        self.version = state.version
        self.away = state.away
        self.sub_title = self._subtitle(state.watchers)
        if state.notice or self._said:
            self._said = state.notice
            self.notice = state.notice
        if state.series is not None and state.series != self.series:
            self.notice = state.notice
            self.series = state.series
        self._show_away()

    def _subtitle(self, watchers: int) -> str:
        if self.seat is None:
            return "watching"
        return f"online · {watchers} watching" if watchers else "online"

    def refuse(self, notice: Notice) -> None:
        """Say why an intent was refused; while a seat is away, the count of its grace
        that the authority sends takes its place after `REFUSAL_SHOWN` seconds."""
        self.notice = notice
        self._refused_at = time.monotonic()

    def _show_away(self) -> None:
        """While a seat's link is down, the notice is its grace as the authority counts it
        (the authority sends it anew as it counts: this screen keeps no clock of its own)."""
        away = self.away
        if away is None or time.monotonic() - self._refused_at < REFUSAL_SHOWN:
            return
        self.notice = away_notice(away.name, away.seconds_left, seat=self.seat)

    def apply(self, intent: Intent) -> None:
        """Send `intent` to the authority, unless the core already says it is not ours."""
        refusal = self._refusal(intent)
        if refusal is not None:
            self.refuse(refusal)
            return
        self.notice = Notice()
        self._send(Act(self.version, intent))

    def _refusal(self, intent: Intent) -> Notice | None:
        try:
            act(self.series, self.seat, intent, away=self._away_name, rng=self.rng)
        except SeriesError as refusal:
            return self._explain(refusal)
        return None

    @property
    def _away_name(self) -> str | None:
        return None if self.away is None else self.away.name

    def action_hint(self) -> None:
        """A hint on this seat's own turn; the other screens are told it was asked for."""
        try:
            check_hint(self.series, self.seat, away=self._away_name)
        except SeriesError as refusal:
            self.notice = refusal.notice
            return
        super().action_hint()
        if self.board.hints:
            self._send(AskHint())

    def _next_step(self) -> None:
        """The mark dialog opens only on the chooser's own screen; nobody else waits on it."""
        if chooses_now(self.series, self.seat, away=self._away_name):
            self.post_message(self.MarkWanted())

    def choose_mark(self, mark: Mark | None) -> None:
        """The dialog's answer; its Quit leaves the series, as `q` does."""
        if mark is None:
            self.app.call_later(self.app.action_quit)
        else:
            super().choose_mark(mark)
