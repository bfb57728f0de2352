"""Textual prints an unexpected error's traceback and has no public hook; drop once it has one.

On an unhandled exception Textual keeps what it would show (a Rich traceback) in a private list
and prints it on the terminal once the screen is restored. `CrashReporting` is an `App` that hands
that to `report_crash` instead, where an application can write it down elsewhere and say one plain
sentence, and lets an application call some errors expected (`is_expected_error`): those end
nothing that was not ending already.

Private parts of Textual relied on (pinned by `tests/unit/test_adapters_contract.py`): the
overrides of `App._handle_exception` and `App._print_error_renderables`, the list
`App._exit_renderables` they read, and `App._return_code`, which `panic` sets as
`_handle_exception` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from rich.console import RenderableType
from textual.app import App

__all__ = ["CrashReporting"]

ResultType = TypeVar("ResultType")


class CrashReporting(App[ResultType]):
    """An `App` that reports an unexpected error through `report_crash`, not a traceback."""

    def is_expected_error(self, error: Exception) -> bool:
        """Whether `error` is part of an ending already under way: it is then ignored."""
        return False

    def report_crash(self, details: Sequence[RenderableType]) -> None:
        """Tell of an unexpected error, once the terminal is restored.

        `details` are what Textual would have printed (a traceback, as Rich renders it).
        By default they are printed as Textual does.
        """
        console = self.error_console
        for renderable in details:
            console.print(renderable)

    def _handle_exception(self, error: Exception) -> None:
        if self.is_expected_error(error):
            return
        super()._handle_exception(error)

    def panic(self, *renderables: RenderableType) -> None:
        """Textual's drivers panic on an error in their input thread and leave status 0: an
        unexpected error leaves 1, as one raised in the app does."""
        self._return_code = 1
        super().panic(*renderables)

    def _print_error_renderables(self) -> None:
        details = list(self._exit_renderables)
        self._exit_renderables.clear()
        if details:
            self.report_crash(details)
