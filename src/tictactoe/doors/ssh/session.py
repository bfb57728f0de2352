"""One SSH session: a game in the person's terminal, or a sentence saying why not.

- a session without a terminal, a full door, and a connection past the games its gate allows it
  (`Admission.games`) are told why in a sentence: no game starts;
- the terminal type and size the person's `ssh` reports are taken when they are sane, and
  every change of size reaches the game;
- input is paced (`INPUT_RATE` bytes a second past a paste's `INPUT_BURST`, and the door's
  sessions together `DOOR_INPUT_RATE`; past that, reading pauses and SSH's flow control holds
  the sender back), and waits while the game's terminal is full;
- one command is taken: `plain` (`ssh -p PORT CODE@HOST plain`), the game line by line for a
  screen reader or a braille display (`tictactoe.lines`), with or without a terminal of the
  person's own; every other command, and subsystems (SFTP), are refused.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("the SSH door runs games in pseudo-terminals: it needs Linux or macOS")

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

import asyncssh

from tictactoe.doors.bounds import Bucket, fits, printable
from tictactoe.doors.ssh.gate import Admission
from tictactoe.doors.ssh.terminal import Spawner, TerminalGame

__all__ = [
    "CHANNEL_WINDOW",
    "DOOR_INPUT_RATE",
    "INPUT_RATE",
    "NO_TERMINAL",
    "Door",
    "Session",
    "SessionInfo",
    "SessionsConnection",
]

log = logging.getLogger("tictactoe.online")

NO_TERMINAL: Final = (
    "This door opens a game in a terminal: run ssh without -T (or add the word plain"
    " after the address, for the game line by line)"
)
FULL: Final = "Too many games are open here: try again later."
NO_MORE_GAMES: Final = "You have as many games open here as you may: close one first."
CANNOT_START: Final = "The game could not start here; the host's log says why."

CHANNEL_WINDOW: Final = 16 * 1024
"""Bytes of a person's input the door takes before waiting for the game to read them: far more
than typing needs, and little for a game to catch up with after a flood."""

INPUT_RATE: Final = 1024 * 1024
"""Bytes of a person's input a session takes a second, past `INPUT_BURST`: far more than anyone
types, so that a key typed after a paste does not wait behind it (PRODUCT.md: within 2 s; a
megabyte's paste then a move: the move shown in 0.43 s), and a flood held to it costs the door
and the game about 5 % of a core each (of a flood, the game keeps only the last key,
`tictactoe.adapters.terminal_input`)."""

INPUT_BURST: Final = 2 * 1024 * 1024
"""Bytes of a person's input a session takes at once: a long paste, whole."""

DOOR_INPUT_RATE: Final = 4 * 1024 * 1024
"""Bytes of input the door takes a second from all its sessions together, past a burst of
twice as many: however many sessions flood at once, they cost the door and their games a small
share of a core each (benchmarks/README.md has the figures)."""

PLAIN: Final = "plain"
"""The command that asks for the game line by line."""

LINE_TERMINAL: Final = "dumb"
"""The terminal type a game line by line is given: a terminal that draws nothing."""

SAFE_VALUE: Final = re.compile(r"[A-Za-z0-9_.:@+-]{1,64}")
"""A value a client sends (its terminal type, its language) that the game may be given."""


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """What the door knows of a session when it starts its game."""

    code: str
    """The series' code (normalised), or the user name when the door takes any."""
    peer: str
    """The client's address."""
    term_type: str
    """The terminal type the client reported (its TERM)."""
    size: tuple[int, int]
    """The terminal's size in columns and rows (0 when the client did not say)."""
    plain: bool = False
    """Whether the person asked for the game line by line (the command `plain`)."""


class Door(Protocol):
    """What a session asks of the door it came in by (`tictactoe.doors.ssh.door.SshDoor`)."""

    login_timeout: float
    max_sessions: int
    start_game: Spawner | None
    input_pace: Bucket
    """The input of all the door's sessions together (`DOOR_INPUT_RATE`)."""

    @property
    def sessions(self) -> int: ...

    @property
    def stopping(self) -> bool: ...

    def command(self, info: SessionInfo) -> Sequence[str]: ...

    def environment(self, info: SessionInfo, sent: Mapping[str, str]) -> dict[str, str]: ...

    def opened(self, session: Session) -> None: ...

    def closed(self, session: Session) -> None: ...

    def games_of(self, connection: SessionsConnection) -> int:
        """Games open (or being started) on `connection`'s sessions."""

    def spawn(
        self, work: Callable[[], Coroutine[object, object, None]], *, starting: bool = False
    ) -> None: ...


class SessionsConnection(Protocol):
    """What a session asks of its connection (`tictactoe.doors.ssh.connection.Connection`)."""

    @property
    def door(self) -> Door: ...

    @property
    def peer(self) -> str: ...

    @property
    def code(self) -> str: ...

    @property
    def admission(self) -> Admission | None:
        """What a gate decided about the connection (None at a door without one)."""

    @property
    def admitting(self) -> asyncio.Task[None] | None:
        """The gate deciding about the connection, while it has not: sessions wait for it."""

    def note(self, message: str, *args: object) -> None: ...

    def session_opened(self, session: Session) -> None: ...

    def session_ended(self, session: Session) -> None: ...


class Session(asyncssh.SSHServerSession[bytes]):
    """One SSH session: a game in a terminal, or a sentence saying why not."""

    def __init__(self, connection: SessionsConnection) -> None:
        self.connection = connection
        self.door = connection.door
        self.channel: asyncssh.SSHServerChannel[bytes] | None = None
        self.term_type: str | None = None
        self.size = (0, 0)
        self.game: TerminalGame | None = None
        self.closed = False
        self.plain = False
        """Whether the person asked for the game line by line (`PLAIN`)."""
        self._unstarted: asyncio.TimerHandle | None = None
        self._input = Bucket(INPUT_RATE, INPUT_BURST)
        self._input_paused: asyncio.TimerHandle | None = None

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.channel = chan
        self.connection.session_opened(self)
        loop = asyncio.get_running_loop()
        self._unstarted = loop.call_later(self.door.login_timeout, self._close_unstarted)

    def _close_unstarted(self) -> None:
        """A session that asks for nothing to run within `login_timeout` seconds is closed."""
        self._unstarted = None
        self.connection.note("closed a session from %s: nothing asked", self.connection.peer)
        if self.channel is not None:
            self.channel.close()

    def pty_requested(
        self,
        term_type: str,
        term_size: tuple[int, int, int, int],
        term_modes: Mapping[int, int],
    ) -> bool:
        self.term_type = term_type if SAFE_VALUE.fullmatch(term_type) else "xterm"
        width, height = term_size[0], term_size[1]
        self.size = (width, height) if fits(width, height, unknown=True) else (0, 0)
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        if command.strip().lower() == PLAIN:
            self.plain = True
            return True
        self.connection.note("refused a command from %s", self.connection.peer)
        return False

    def subsystem_requested(self, subsystem: str) -> bool:
        self.connection.note(
            "refused the subsystem %r from %s", printable(subsystem), self.connection.peer
        )
        return False

    def break_received(self, msec: int) -> bool:
        return False

    def session_started(self) -> None:
        if self._unstarted is not None:
            self._unstarted.cancel()
            self._unstarted = None
        admitting = self.connection.admitting
        if admitting is not None and not admitting.done():
            self.door.spawn(self._when_admitted, starting=True)
            return
        self._begin()

    async def _when_admitted(self) -> None:
        admitting = self.connection.admitting
        if admitting is not None:
            await asyncio.gather(admitting, return_exceptions=True)
        self._begin()

    def _begin(self) -> None:
        """A game for this session, or the one sentence saying why not."""
        admission = self.connection.admission
        refusal = None if admission is None else admission.refusal
        peer = self.connection.peer
        if self.plain:
            self.term_type = LINE_TERMINAL  # written to as lines, never drawn on
        if refusal is None and self.term_type is None:
            self.connection.note("refused a session without a terminal from %s", peer)
            refusal = NO_TERMINAL
        most = None if admission is None else admission.games
        if refusal is None and most is not None and self.door.games_of(self.connection) >= most:
            self.connection.note("refused %s a game past its %d", peer, most)
            refusal = NO_MORE_GAMES
        if refusal is None and self.door.sessions >= self.door.max_sessions:
            self.connection.note("refused a game to %s: %d are open", peer, self.door.sessions)
            refusal = FULL
        if refusal is not None:
            self._say_and_exit(refusal)
            return
        self.door.opened(self)
        self.door.spawn(self._start_game, starting=True)

    async def _start_game(self) -> None:
        channel, term_type = self.channel, self.term_type
        if self.closed or channel is None or term_type is None:
            self.door.closed(self)
            return
        info = SessionInfo(
            self.connection.code, self.connection.peer, term_type, self.size, plain=self.plain
        )
        try:
            argv = list(self.door.command(info))
            environment = self.door.environment(info, channel.get_environment())
            if self.connection.admission is not None:
                environment.update(self.connection.admission.environment)
            # Without a terminal of the person's own, theirs echoes what they type.
            echo = channel.get_terminal_type() is not None
            game = await TerminalGame.start(
                argv, environment, self.size, self, echo=echo, spawn=self.door.start_game
            )
        except Exception as error:  # a broken command is the host's problem: said, then logged
            self.door.closed(self)
            self.connection.note("the game for %s could not start: %s", info.peer, error)
            self._say_and_exit(CANNOT_START)
            return
        self.game = game
        self.door.spawn(game.run)
        if self.closed or self.door.stopping:
            await game.end()

    def _say_and_exit(self, sentence: str) -> None:
        if self.channel is None or self.closed:
            return
        newline = "\n" if self.term_type is None else "\r\n"
        with contextlib.suppress(OSError):
            self.channel.write_stderr((sentence + newline).encode())
            self.channel.exit(1)

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if self.game is None or datatype is not None:
            return
        self.game.send(data)
        late = max(self._input.take(len(data)), self.door.input_pace.take(len(data)))
        if late > 0 and self._input_paused is None and self.channel is not None:
            # Past the rate: take no more until the bucket has refilled.
            self.channel.pause_reading()
            self._input_paused = asyncio.get_running_loop().call_later(late, self._resume_input)

    def _resume_input(self) -> None:
        self._input_paused = None
        self.resume_input()

    def eof_received(self) -> bool:
        return True  # the game's terminal stays open: the game decides when to end

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        if not fits(width, height, unknown=True):
            log.warning(
                "ignored a terminal of %d by %d from %s", width, height, self.connection.peer
            )
            return
        self.size = (width, height)
        if self.game is not None:
            self.game.resize(self.size)

    def pause_writing(self) -> None:
        if self.game is not None:
            self.game.pause_output()

    def resume_writing(self) -> None:
        if self.game is not None:
            self.game.resume_output()

    def connection_lost(self, exc: Exception | None) -> None:
        """The channel has closed (the person left, or the game ended): the game ends too."""
        self.closed = True
        for timer in (self._unstarted, self._input_paused):
            if timer is not None:
                timer.cancel()
        self._unstarted = self._input_paused = None
        self.connection.session_ended(self)
        if self.game is not None:
            self.door.spawn(self.game.end)

    # What the game asks of its session

    def show(self, data: bytes) -> None:
        if self.channel is not None and not self.closed:
            with contextlib.suppress(OSError):
                self.channel.write(data)

    def pause_input(self) -> None:
        if self.channel is not None and not self.closed:
            self.channel.pause_reading()

    def resume_input(self) -> None:
        """Take input again, unless the door's pace or the game's full terminal still holds it."""
        holding = self.game is not None and self.game.holding
        if self.channel is not None and not self.closed and not self._input_paused and not holding:
            self.channel.resume_reading()

    def game_ended(self, status: int | None) -> None:
        """The game has ended, its output sent: the session ends with its exit status."""
        self.door.closed(self)
        if self.channel is not None and not self.closed:
            with contextlib.suppress(OSError):
                if status is None:
                    self.channel.close()
                else:
                    self.channel.exit(status)
