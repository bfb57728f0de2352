"""Textual's web driver outlives the server that started it; drop once it ends the app on EOF.

Textual's `WebDriver` reads the server's packets from stdin and writes the screen to stdout. When
the server dies, stdin reaches its end and the driver's input thread simply stops: the app would
live on, alone, for ever. `ServedDriver` ends the app instead, the way closing its tab does, and
drops what it would write to a server that is no longer there.

Private parts of Textual relied on (pinned by `tests/unit/test_adapters_contract.py`): the
`_write` callable through which `WebDriver` writes every packet, and the driver's `_app`.
"""

from __future__ import annotations

import os
from functools import partial
from typing import Any

from textual import messages
from textual.app import App
from textual.drivers.web_driver import WebDriver

__all__ = ["ServedDriver"]


class ServedDriver(WebDriver):
    """The web driver, ending the app when its input closes or its output has no reader."""

    def __init__(
        self,
        app: App[Any],
        *,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self._write = partial(self._write_while_heard)  # typed as the partial it replaces
        self._server_gone = False
        """Set once the app has been asked to exit because the server went away."""

    def run_input_thread(self) -> None:
        super().run_input_thread()
        if not self.exit_event.is_set():  # the input ended before the app did: the server is gone
            self._leave()

    def _write_while_heard(self, data: bytes) -> int:
        try:
            return os.write(self.fileno, data)
        except OSError:  # BrokenPipeError and the like: nobody reads the screen any more
            self._leave()
            return len(data)

    def _leave(self) -> None:
        if not self._server_gone:  # posting twice would be harmless; once is tidier
            self._server_gone = True
            self._app.post_message(messages.ExitApp())
