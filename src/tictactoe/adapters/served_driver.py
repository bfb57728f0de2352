"""Textual's web driver outlives the server that started it; drop once it ends the app on EOF.

Textual's `WebDriver` reads the server's packets from stdin and writes the screen to stdout. When
the server dies, stdin reaches its end and the driver's input thread simply stops: the app would
live on, alone, for ever. `ServedDriver` ends the app instead, the way closing its tab does, and
drops what it would write to a server that is no longer there. Its input is read by `KeyReader`
(see `terminal_input`): no byte a tab sends ends the game, and a flood is held back.

Private parts of Textual relied on (pinned by `tests/unit/test_adapters_contract.py`): the
`_write` callable through which `WebDriver` writes every packet, the driver's `_app`, `_debug`,
`_input_reader` and `_on_meta`, and `textual.drivers._byte_stream.ByteStream`.
"""

from __future__ import annotations

import logging
import os
from functools import partial
from typing import Any

from textual import messages
from textual.app import App
from textual.drivers._byte_stream import ByteStream
from textual.drivers.web_driver import WebDriver

from tictactoe.adapters.terminal_input import KeyReader

__all__ = ["ServedDriver"]

log = logging.getLogger("tictactoe.web")


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
        """Textual's web input loop, with every byte survived and a flood held back
        (`KeyReader`); when the input ends before the app does, the server is gone."""
        reader = KeyReader(self._debug)
        packets = ByteStream()
        try:
            for data in self._input_reader:
                if data:
                    for kind, payload in packets.feed(data):
                        if kind == "D":
                            for event in reader.feed(payload):
                                self.process_message(event)
                        else:
                            self._on_meta(kind, payload)
                for event in reader.tick():
                    self.process_message(event)
                reader.keep_up(self._app, self.exit_event)
        except Exception:  # a packet Textual's framing cannot read: the server is not ours
            log.warning("the input from the server could not be read; the game ends")
        finally:
            self._input_reader.close()
        if not self.exit_event.is_set():
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
