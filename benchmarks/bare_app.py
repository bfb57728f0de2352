"""The yardstick for `bench_app.py`: the least Textual app with the game's widget kinds.

A 3x3 grid of Buttons labelled 1-9, a Static sidebar and a Footer, nothing else.
Pressing a digit changes that button's label to "X", so a key-to-screen change can be
seen from outside; q quits. Run it exactly as the game is run:

    .venv/bin/python benchmarks/bare_app.py
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal
from textual.widgets import Button, Footer, Static

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
"""


class BareApp(App[None]):
    CSS = CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        *(Binding(str(digit), f"take({digit})", show=False) for digit in range(1, 10)),
    ]

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Grid(id="grid"):
                for digit in range(1, 10):
                    yield Button(str(digit), id=f"b{digit}")
            yield Static("Bare sidebar\n\nDraws 0\nPlayed 0", id="sidebar")
        yield Footer()

    def action_take(self, digit: int) -> None:
        self.query_one(f"#b{digit}", Button).label = "X"


if __name__ == "__main__":
    BareApp().run()
