"""What `tictactoe.adapters` relies on in Textual and textual-serve, pinned.

Each adapter uses private parts of an upstream package, which may change in any release. These
tests check that every one of them is still there, as the adapter uses it, in the installed
versions: after an upgrade they fail here first, naming the adapter to look at.
"""

from __future__ import annotations

import inspect
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
import textual_serve
from rich.console import RenderableType
from textual.app import App
from textual.drivers.linux_driver import LinuxDriver
from textual.drivers.web_driver import WebDriver
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from tictactoe.adapters.crash import CrashReporting

INSTALLED = f"Textual {version('textual')}, textual-serve {version('textual-serve')}"


def pinned(owner: type, name: str, parameters: Sequence[str], adapter: str) -> None:
    """`owner.name` is a function taking `parameters` (after self), as `adapter` uses it."""
    where = f"{owner.__module__}.{owner.__qualname__}.{name}"
    function = getattr(owner, name, None)
    assert callable(function), f"{where} is gone in {INSTALLED}: see {adapter}"
    found = [
        parameter.name
        if parameter.kind is not inspect.Parameter.VAR_POSITIONAL
        else f"*{parameter.name}"
        for parameter in list(inspect.signature(function).parameters.values())[1:]
    ]
    assert found == list(parameters), (
        f"{where} now takes {found} in {INSTALLED}, where {adapter} expects {list(parameters)}"
    )


def has_attributes(thing: object, names: Sequence[str], adapter: str) -> None:
    for name in names:
        assert hasattr(thing, name), (
            f"{type(thing).__qualname__} has no {name} in {INSTALLED}: see {adapter}"
        )


@contextmanager
def a_pipe_as_stdin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Textual's drivers read `sys.__stdin__` as they are made: a pipe, whatever the tests got."""
    reading, writing = os.pipe()
    with os.fdopen(reading) as stdin:
        monkeypatch.setattr(sys, "__stdin__", stdin)
        try:
            yield
        finally:
            os.close(writing)


TERMINAL = "tictactoe/adapters/terminal_driver.py"


async def test_the_terminal_driver_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    pinned(LinuxDriver, "_get_terminal_size", [], TERMINAL)
    pinned(LinuxDriver, "_sigcont_application", ["*_"], TERMINAL)
    pinned(LinuxDriver, "run_input_thread", [], TERMINAL)
    pinned(LinuxDriver, "process_message", ["message"], TERMINAL)

    suspend_handlers = {
        number: signal.getsignal(number) for number in (signal.SIGTSTP, signal.SIGCONT)
    }
    with a_pipe_as_stdin(monkeypatch):
        try:
            driver = LinuxDriver(App(), debug=False, mouse=True, size=None)
        finally:
            for number, handler in suspend_handlers.items():
                signal.signal(number, handler)
    has_attributes(
        driver,
        ["_file", "_debug", "_app", "_must_signal_resume", "fileno", "exit_event"],
        TERMINAL,
    )
    assert driver._file is sys.__stderr__, f"LinuxDriver no longer draws on _file: see {TERMINAL}"


INPUT = "tictactoe/adapters/terminal_input.py"


def test_the_terminal_input_adapter() -> None:
    from textual import events
    from textual._xterm_parser import XTermParser

    parser = XTermParser(False)
    pinned(XTermParser, "feed", ["data"], INPUT)
    pinned(XTermParser, "tick", [], INPUT)
    keys = [event for event in parser.feed("5") if isinstance(event, events.Key)]
    assert [key.key for key in keys] == ["5"], f"XTermParser no longer reads keys: see {INPUT}"
    learnt = {"mouse_pixels": False, "terminal_size": None, "terminal_pixel_size": None}
    found = {name: getattr(parser, name, "missing") for name in learnt}
    assert found == learnt, f"XTermParser no longer keeps what it learns so: see {INPUT}"


SERVED = "tictactoe/adapters/served_driver.py"


async def test_the_served_driver_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    pinned(WebDriver, "run_input_thread", [], SERVED)
    with a_pipe_as_stdin(monkeypatch):
        driver = WebDriver(App(), debug=False, mouse=True, size=(80, 24))
    has_attributes(
        driver,
        ["_write", "_app", "_debug", "_input_reader", "_on_meta", "fileno", "exit_event"],
        SERVED,
    )
    from textual.drivers._byte_stream import ByteStream

    packets = list(ByteStream().feed(b"D\x00\x00\x00\x01x"))
    assert packets == [("D", b"x")], f"ByteStream no longer reads packets: see {SERVED}"
    written: list[bytes] = []
    driver._write = written.append  # type: ignore[assignment]
    driver.write("x")
    assert written == [b"D\x00\x00\x00\x01x"], (
        f"WebDriver.write no longer uses _write: see {SERVED}"
    )


PROCESS = "tictactoe/adapters/app_process.py"


async def test_the_app_process_adapter() -> None:
    pinned(AppService, "_build_environment", ["width", "height"], PROCESS)
    pinned(AppService, "_open_app_process", ["width", "height"], PROCESS)
    assert inspect.iscoroutinefunction(AppService._open_app_process), PROCESS
    for name, parameters in (
        ("start", ["width", "height"]),
        ("stop", []),
        ("run", []),
        ("on_meta", ["data"]),
        ("send_meta", ["data"]),
    ):
        pinned(AppService, name, parameters, PROCESS)

    async def nothing(*_: object) -> None:
        pass

    opened: list[tuple[int, int]] = []

    class Opening(AppService):
        async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
            opened.append((width, height))
            raise LookupError  # nothing to start

    service = Opening(
        "true",
        write_bytes=nothing,
        write_str=nothing,
        close=nothing,
        download_manager=DownloadManager(),
    )
    has_attributes(service, ["_process", "_task", "_stdin", "_download_manager"], PROCESS)
    environment = service._build_environment(100, 32)
    assert environment["COLUMNS"] == "100" and "TEXTUAL_DRIVER" in environment, PROCESS
    with pytest.raises(LookupError):
        await service.start(100, 32)
    assert opened == [(100, 32)], (
        f"AppService.start no longer opens through _open_app_process: {PROCESS}"
    )


def test_textual_serve_ships_the_files_of_its_page() -> None:
    static = Path(textual_serve.__file__).with_name("static")
    for name in ("js/textual.js", "css/xterm.css", "fonts/RobotoMono-VariableFont_wght.ttf"):
        assert (static / name).is_file(), (
            f"textual-serve has no static/{name}: see tictactoe/doors/web/server.py"
        )


CRASH = "tictactoe/adapters/crash.py"


def test_the_crash_adapter() -> None:
    pinned(App, "_handle_exception", ["error"], CRASH)
    pinned(App, "_print_error_renderables", [], CRASH)
    pinned(App, "panic", ["*renderables"], CRASH)

    reports: list[Sequence[RenderableType]] = []

    class Failing(CrashReporting[None]):
        def on_mount(self) -> None:
            raise RuntimeError("planted")

        def report_crash(self, details: Sequence[RenderableType]) -> None:
            reports.append(details)

    app = Failing()
    has_attributes(app, ["_exit_renderables", "_return_code"], CRASH)
    app.run(headless=True)
    assert app.return_code == 1
    assert len(reports) == 1 and reports[0], (
        f"Textual's error no longer reaches report_crash: {CRASH}"
    )


def test_an_expected_error_ends_nothing_that_was_not_ending() -> None:
    reports: list[Sequence[RenderableType]] = []

    class Expecting(CrashReporting[None]):
        def on_mount(self) -> None:
            self.exit(return_code=130)
            raise LookupError("the screens are going")

        def is_expected_error(self, error: Exception) -> bool:
            return isinstance(error, LookupError)

        def report_crash(self, details: Sequence[RenderableType]) -> None:
            reports.append(details)

    app = Expecting()
    app.run(headless=True)
    assert (app.return_code, reports) == (130, []), (
        f"Textual's errors no longer go through _handle_exception: see {CRASH}"
    )


SSH_CHANNEL = "tictactoe/adapters/ssh_channel.py"


def test_the_ssh_channel_adapter() -> None:
    import asyncssh
    from asyncssh.packet import SSHPacket, String

    pinned(asyncssh.SSHServerChannel, "_process_env_request", ["packet"], SSH_CHANNEL)
    packet = SSHPacket(String("LANG") + String("C.UTF-8"))
    assert packet.get_remaining_payload() == String("LANG") + String("C.UTF-8"), (
        f"SSHPacket.get_remaining_payload changed: see {SSH_CHANNEL}"
    )


IDLE = "tictactoe/adapters/idle.py"


async def test_the_idle_adapter() -> None:
    from textual import events
    from textual.message_pump import MessagePump
    from textual.widgets import Static

    from tictactoe.adapters.idle import pending_work

    class Waiting(App[None]):
        def compose(self) -> Any:
            yield Static("idle")

    app = Waiting()
    async with app.run_test() as pilot:
        has_attributes(app, ["_resize_event"], IDLE)
        has_attributes(app.query_one(Static), ["_next_callbacks"], IDLE)
        assert isinstance(MessagePump.message_queue_size, property), IDLE
        await pilot.pause()
        assert pending_work(app) is None, f"a settled app still looks busy: see {IDLE}"
        app.query_one(Static).call_next(lambda: None)
        assert pending_work(app) is not None, f"call_next no longer queues: see {IDLE}"
        await pilot.pause()
        assert pending_work(app) is None, IDLE
        app.post_message(events.Key("x", "x"))
        assert pending_work(app) is not None, f"a posted message goes unseen: see {IDLE}"
    # A resize is held back until its debounce timer fires: when is the machine's to say,
    # so the contract reads where Textual keeps it rather than racing the timer.
    assert "self._resize_event = event" in inspect.getsource(App._on_resize), (
        f"Textual no longer holds a resize back in _resize_event: see {IDLE}"
    )


CURSOR = "tictactoe/adapters/terminal_cursor.py"


async def test_the_terminal_cursor_adapter() -> None:
    from textual.driver import Driver

    app: App[None] = App()
    has_attributes(app, ["_driver"], CURSOR)
    async with app.run_test():
        assert isinstance(app._driver, Driver), f"App._driver is no longer the driver: see {CURSOR}"
    pinned(Driver, "write", ["data"], CURSOR)
