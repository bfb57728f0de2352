"""The line view's reading: lines typed ahead come in order; a paste past what the game may have
waiting is a paste, of which the last line counts; a script's lines all count."""

from __future__ import annotations

import asyncio
import io

from limits import EVENT_LIMIT, eventually
from tictactoe.lines.play import MOST_WAITING, LineSession

LINES = "".join(f"{number}\n" for number in range(1, 1001))


class Terminal(io.StringIO):
    """Lines as a terminal gives them: typed, or pasted all at once."""

    def isatty(self) -> bool:
        return True


async def read_all(session: LineSession, settle: bool) -> list[str | None]:
    """What `session` hands over, after its reading thread has read everything it would."""
    session.start_reading()
    if settle:
        await eventually(  # the reader reads on until the input ends: 65 waiting lines
            lambda: session.lines.qsize() > MOST_WAITING,
            session.lines.qsize,
            f"more than {MOST_WAITING} lines waiting",
        )
    taken: list[str | None] = []
    while (line := await asyncio.wait_for(session.line(), EVENT_LIMIT)) is not None:
        taken.append(line)
    return taken


async def test_a_paste_from_a_terminal_past_the_lines_waiting_counts_only_its_last_line() -> None:
    """1,000 lines pasted at once: the first 64, in order, then the last; the rest are a paste
    nobody types (each was answered, one by one, before the line typed after it)."""
    session = LineSession(Terminal(LINES), io.StringIO())
    taken = await read_all(session, settle=True)
    assert taken == [f"{number}\n" for number in range(1, MOST_WAITING + 1)] + ["1000\n"]


async def test_lines_typed_ahead_from_a_terminal_all_count_in_order() -> None:
    typed = "".join(f"{number}\n" for number in range(1, MOST_WAITING + 1))
    session = LineSession(Terminal(typed), io.StringIO())
    assert await read_all(session, settle=True) == typed.splitlines(keepends=True)


async def test_a_script_s_lines_all_count_in_order() -> None:
    """From a pipe or a file, the reading waits for the game: every line counts."""
    session = LineSession(io.StringIO(LINES), io.StringIO())
    assert await read_all(session, settle=False) == LINES.splitlines(keepends=True)
