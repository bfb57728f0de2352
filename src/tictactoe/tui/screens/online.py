"""The screens of an online series: joining it, the host's invitation, and a seat's board.

The host's authority holds the series; a seat's game process renders the copy it is sent.
A key still becomes an intent as in hot seat, and the core says at once when it is not
this seat's to give ("It is Alice's turn."); otherwise the intent goes to the authority,
and the board changes when the new state comes back, on every screen at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Input, Label, Static

from tictactoe.core.codes import CODE_LENGTH, normalise_code
from tictactoe.host.invitation import Invitation
from tictactoe.tui.screens.new_game import NameField
from tictactoe.tui.widgets.drained import drained
from tictactoe.tui.widgets.too_small import MinimumSize, TooSmall

__all__ = ["InvitationScreen", "JoinScreen"]


class InvitationScreen(MinimumSize, Screen[None]):
    """The host's screen until a friend joins (and on `i` later): the lines to pass on."""

    # Nothing here takes the focus: every key comes to the screen itself, in the order typed.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "app.quit", "Quit"),
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

    # Priority: they move the focus as they arrive (see above).
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
