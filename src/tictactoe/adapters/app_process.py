"""textual-serve's AppService: no start without a shell, no bounded stop; drop once it has both.

`AppProcess` is textual-serve's service for one app process (it speaks Textual's web protocol on
the process's pipes), changed where a server that starts a process per browser tab needs it:

- the command is run as a list of arguments, without a shell, in a session of its own (a Ctrl+C
  typed at the server's terminal reaches the server alone, which then ends every app in order);
- the environment textual-serve builds gets the entries given (`extra_environment`);
- `stop` asks the app to quit, then terminates it, then kills it, each after a grace period,
  and waits a bounded time for the rest of its output.

Private parts of textual-serve relied on (pinned by `tests/unit/test_adapters_contract.py`): the
overrides of `AppService._build_environment` and `AppService._open_app_process`, and the
attributes `_process`, `_task`, `_stdin` and `_download_manager` that `AppService` keeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import ClassVar

from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from tictactoe.process import end_in_steps

__all__ = ["AppProcess"]

log = logging.getLogger("tictactoe.web")


class AppProcess(AppService):
    """One app process run without a shell, with extra environment, stopped in bounded time."""

    quit_grace: ClassVar[float] = 0.8
    """Seconds the app has to end after being asked to, before it is terminated."""
    kill_grace: ClassVar[float] = 0.4
    """Seconds the app has to end after SIGTERM before it is killed; also the longest wait for
    the rest of its output."""

    def __init__(
        self,
        argv: Sequence[str],
        extra_environment: Mapping[str, str],
        *,
        write_bytes: Callable[[bytes], Awaitable[None]],
        write_str: Callable[[str], Awaitable[None]],
        close: Callable[[], Awaitable[None]],
        download_manager: DownloadManager,
    ) -> None:
        super().__init__(
            shlex.join(argv),
            write_bytes=write_bytes,
            write_str=write_str,
            close=close,
            download_manager=download_manager,
        )
        self.argv = tuple(argv)
        """The app's command, run without a shell."""
        self.extra_environment = dict(extra_environment)
        """Added to the environment textual-serve builds for the app."""
        self.stopping = False
        """Set once `stop` is called: the app is ending because it was told to."""

    @property
    def pid(self) -> int | None:
        """The app process's id, once started."""
        return None if self._process is None else self._process.pid

    @property
    def running(self) -> bool:
        """Started and not ended (nor asked to end)."""
        return (
            self._task is not None
            and self._process is not None
            and self._process.returncode is None
        )

    def environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        """The environment the app process is started with, for a terminal of that size."""
        return self._build_environment(width, height)

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        environment.update(self.extra_environment)
        return environment

    async def _open_app_process(
        self, width: int = 80, height: int = 24
    ) -> asyncio.subprocess.Process:
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width=width, height=height),
            start_new_session=True,
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def stop(self) -> None:
        """End the app: ask it to quit, then terminate it, then kill it; bounded, idempotent."""
        self.stopping = True
        task, process = self._task, self._process
        if task is None or process is None:
            return
        self._task = None
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        if process.returncode is None:
            await self.send_meta({"type": "quit"})
            with contextlib.suppress(OSError, RuntimeError):
                self.stdin.close()  # the app also ends when its input closes

        def hurry(signal: Callable[[], None]) -> Callable[[], None]:
            def send() -> None:
                with contextlib.suppress(ProcessLookupError):
                    signal()

            return send

        steps = [(lambda: None, self.quit_grace), (hurry(process.terminate), self.kill_grace)]
        await end_in_steps(process.wait, steps, hurry(process.kill))
        try:
            await asyncio.wait_for(task, self.kill_grace)  # reads the rest of the app's output
        except TimeoutError:
            log.warning("the output of game %s did not end; left unread", process.pid)
