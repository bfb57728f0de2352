"""The yardstick for `bench_app.py`: what the game draws first, in stock Textual parts.

A Header, a 3x3 grid of Buttons labelled 1-9, a Static sidebar and a Footer; on top,
pushed at start as the game pushes its mark dialog, a `ModalScreen` with a question,
two Buttons and a Footer of its own. `x` or `o` (or a click on a Button) closes the
dialog. Then pressing a digit changes that button's label to "X", so a key-to-screen
change can be seen from outside; q quits. Run it exactly as the game is run:

    .venv/bin/python benchmarks/bare_app.py
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Header, Static

CSS = """
#main { height: 1fr; }
#grid {
    grid-size: 3 3;
    grid-gutter: 0 1;
    width: 1fr;
    max-width: 47;
    max-height: 21;
    padding: 1 2 0 2;
}
#grid Button { width: 1fr; height: 1fr; }
#sidebar { width: 30; padding: 1 2; border-left: solid $panel-lighten-2; }
BareDialog { align: center middle; }
#dialog { width: 46; height: auto; padding: 1 2; border: thick $secondary; background: $surface; }
#question { width: 100%; text-align: center; }
#choices { width: 100%; height: auto; align-horizontal: center; }
"""


class BareDialog(ModalScreen[str]):
    """A question and two Buttons over the grid; dismisses with the one chosen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "dismiss('x')", "First"),
        Binding("o", "dismiss('o')", "Second"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Bare dialog: pick one", id="question")
            with Horizontal(id="choices"):
                yield Button("x", id="x")
                yield Button("o", id="o")
        yield Footer()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "")


class BareApp(App[None]):
    CSS = CSS
    TITLE = "Bare app"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        *(Binding(str(digit), f"take({digit})", show=False) for digit in range(1, 10)),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Grid(id="grid"):
                for digit in range(1, 10):
                    yield Button(str(digit), id=f"b{digit}")
            yield Static("Bare sidebar\n\nDraws 0\nPlayed 0", id="sidebar")
        yield Footer()

    def on_mount(self) -> None:
        self.push_screen(BareDialog())

    def action_take(self, digit: int) -> None:
        self.query_one(f"#b{digit}", Button).label = "X"


if __name__ == "__main__":
    BareApp().run()
