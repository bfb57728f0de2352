"""The doors' log: owner-only, bounded per address and in all, one line per complaint."""

from __future__ import annotations

import logging
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tictactoe.doors.log import LOG_SIZE, DoorLog


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def logger(tmp_path: Path, clock: Clock) -> Iterator[tuple[logging.Logger, DoorLog]]:
    logger = logging.getLogger("tictactoe.test-door-log")
    logger.propagate = False
    handler = DoorLog(tmp_path / "host.log", clock=clock)
    logger.addHandler(handler)
    yield logger, handler
    logger.removeHandler(handler)
    handler.close()


def lines(tmp_path: Path) -> list[str]:
    return (tmp_path / "host.log").read_text(encoding="utf-8").splitlines()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_log_is_readable_by_its_owner_only_even_after_rotating(tmp_path: Path) -> None:
    path = tmp_path / "host.log"
    path.write_text("from an earlier version\n")
    path.chmod(0o644)
    handler = DoorLog(path)
    assert mode(path) == 0o600
    handler.doRollover()
    assert mode(path) == 0o600 and mode(tmp_path / "host.log.1") == 0o600
    handler.close()


def test_a_flood_from_one_address_writes_a_few_lines_and_then_how_many_were_left_out(
    logger: tuple[logging.Logger, DoorLog], tmp_path: Path, clock: Clock
) -> None:
    log, _ = logger
    log.warning("before the flood", extra={"peer": "127.0.0.2"})
    for n in range(1000):
        log.warning("refused %d from %s", n, "127.0.0.3", extra={"peer": "127.0.0.3"})
        clock.now += 0.01
    log.warning("the friend is refused nothing", extra={"peer": "127.0.0.2"})
    written = lines(tmp_path)
    assert len(written) == 22
    assert "before the flood" in written[0] and "refused nothing" in written[-1]
    clock.now += 60
    log.warning("a minute later", extra={"peer": "127.0.0.3"})
    written = lines(tmp_path)
    assert "980 about 127.0.0.3" in written[-2] and "a minute later" in written[-1]


def test_a_flood_from_many_addresses_is_bounded_in_all(
    logger: tuple[logging.Logger, DoorLog], tmp_path: Path, clock: Clock
) -> None:
    log, _ = logger
    for minute in range(70):  # 70 minutes of 3,000 addresses a minute
        for n in range(3000):
            log.warning("refused a connection", extra={"peer": f"10.{minute}.{n // 250}.{n % 250}"})
        clock.now += 60
    size = (tmp_path / "host.log").stat().st_size
    assert len(lines(tmp_path)) <= 70 * 121 and size < LOG_SIZE  # nothing rotated away


def test_aiohttp_s_complaint_about_a_request_is_one_line_without_a_traceback(
    tmp_path: Path, logger: tuple[logging.Logger, DoorLog]
) -> None:
    _, handler = logger
    try:
        raise ValueError("Invalid method encountered:\n  b'\\x16\\x03'")
    except ValueError as error:
        record = logging.LogRecord(
            "aiohttp.server",
            logging.ERROR,
            __file__,
            1,
            "Error handling request from %s",
            ("127.0.0.9",),
            (type(error), error, error.__traceback__),
        )
    handler.handle(record)
    [line] = lines(tmp_path)
    assert "refused a request from 127.0.0.9: Invalid method encountered:?" in line


def test_asyncio_s_complaint_of_no_free_descriptor_is_one_line(
    tmp_path: Path, logger: tuple[logging.Logger, DoorLog]
) -> None:
    _, handler = logger
    error = OSError(24, "Too many open files")
    record = logging.LogRecord(
        "asyncio",
        logging.ERROR,
        __file__,
        1,
        "socket.accept() out of system resource\nsocket: %s",
        ("<socket>",),
        (type(error), error, None),
    )
    handler.handle(record)
    [line] = lines(tmp_path)
    assert "socket.accept() out of system resource: [Errno 24] Too many open files" in line
