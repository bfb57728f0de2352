"""A game started from the warm parent (`tictactoe.doors.warm`) is what a game started by exec is:
it has its terminal (standard input, output and error, its size, as its controlling terminal, in a
session and process group of its own), its environment, and its exit status and a hang-up reach
the door as they do today; no process of the warm parent's is left once the club has stopped."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

if sys.platform == "win32":
    pytest.skip("pseudo-terminals: Linux and macOS", allow_module_level=True)

from club.test_club_end_to_end import open_club
from limits import EVENT_LIMIT, wait_until
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from tictactoe.club.server import MERGING_OFF
from tictactoe.doors.ssh.terminal import TerminalGame
from tictactoe.doors.warm import WarmGame, WarmParent, merging_off

PROBE = """
import json, os, sys, time

terminal = os.open("/dev/tty", os.O_RDWR)  # fails without a controlling terminal
os.close(terminal)
facts = {
    "ttys": [os.isatty(fd) for fd in (0, 1, 2)],
    "name": os.ttyname(0),
    "size": list(os.get_terminal_size(0)),
    "leads_session": os.getsid(0) == os.getpid(),
    "foreground": os.tcgetpgrp(0) == os.getpgrp() == os.getpid(),
    "colour": os.environ.get("PROBE_COLOUR"),
    "home": os.environ.get("HOME"),
    "argv": sys.argv[1:],
    "streams": [sys.stdout.encoding, sys.stdout.line_buffering],
    "mergeable": [
        line.split()[-1]
        for line in open("/proc/self/ksm_stat").read().splitlines()
        if line.startswith("ksm_merge_any")
    ] if os.path.exists("/proc/self/ksm_stat") else [],
}
print("facts " + json.dumps(facts))
if sys.argv[1] == "wait":
    time.sleep(60)
sys.exit(int(sys.argv[1]))
"""

WAIT = EVENT_LIMIT


class Viewer:
    """The person's side of a game: what it showed, and how it ended."""

    def __init__(self) -> None:
        self.shown = bytearray()
        self.status: int | None = None
        self.ended = asyncio.Event()

    def show(self, data: bytes) -> None:
        self.shown += data

    def pause_input(self) -> None:
        pass

    def resume_input(self) -> None:
        pass

    def game_ended(self, status: int | None) -> None:
        self.status = status
        self.ended.set()

    async def facts(self) -> dict[str, object]:
        deadline = time.monotonic() + WAIT
        while b"\n" not in self.shown.partition(b"facts ")[2]:
            assert time.monotonic() < deadline, bytes(self.shown)
            await asyncio.sleep(0.02)
        line = self.shown.partition(b"facts ")[2].partition(b"\n")[0]
        facts: dict[str, object] = json.loads(line)
        return facts


@pytest.fixture
async def warm(tmp_path: Path) -> AsyncIterator[WarmParent]:
    (tmp_path / "warm_probe.py").write_text(PROBE)
    parent = WarmParent(["json"], {**os.environ, "PYTHONPATH": str(tmp_path)})
    await parent.start()
    assert parent.ready
    try:
        yield parent
    finally:
        await parent.stop()


def merge_any_known() -> bool:
    """Whether this kernel says if a process's pages may all be merged (Linux 6.4 on)."""
    stat = Path("/proc/self/ksm_stat")
    return stat.exists() and "ksm_merge_any" in stat.read_text()


def probe(*args: str) -> list[str]:
    return [sys.executable, "-m", "warm_probe", *args]


async def start(warm: WarmParent, viewer: Viewer, *args: str) -> TerminalGame:
    environment = {"PROBE_COLOUR": "green", "HOME": "/nowhere", "TERM": "xterm"}
    return await TerminalGame.start(probe(*args), environment, (91, 27), viewer, spawn=warm.spawn)


async def test_a_warm_game_has_its_terminal_its_environment_and_its_exit_status(
    warm: WarmParent,
) -> None:
    viewer = Viewer()
    game = await start(warm, viewer, "7")
    assert isinstance(game.process, WarmGame)
    assert game.pid != warm.pid
    running = asyncio.create_task(game.run())
    facts = await viewer.facts()
    assert facts == {
        "ttys": [True, True, True],
        "name": facts["name"],
        "size": [91, 27],
        "leads_session": True,
        "foreground": True,
        "colour": "green",
        "home": "/nowhere",
        "argv": ["7"],
        "streams": ["utf-8", True],
        "mergeable": ["yes"] if merge_any_known() else [],  # KSM may merge its pages
    }
    assert str(facts["name"]).startswith("/dev/")
    await asyncio.wait_for(running, WAIT)
    assert viewer.status == 7


async def test_hanging_up_ends_a_warm_game_with_sighup(warm: WarmParent) -> None:
    viewer = Viewer()
    game = await start(warm, viewer, "wait")
    running = asyncio.create_task(game.run())
    await viewer.facts()
    await asyncio.wait_for(game.end(), WAIT)  # SIGHUP to its process group, as today
    await asyncio.wait_for(running, WAIT)
    assert viewer.status == 128 + signal.SIGHUP


async def test_what_cannot_start_warm_starts_by_exec(warm: WarmParent) -> None:
    viewer = Viewer()
    game = await TerminalGame.start(
        ["/bin/sh", "-c", "exit 3"], {}, (80, 24), viewer, spawn=warm.spawn
    )
    assert not isinstance(game.process, WarmGame)
    await asyncio.wait_for(game.run(), WAIT)
    assert viewer.status == 3


async def test_no_process_of_the_warm_parent_is_left_once_it_stops(warm: WarmParent) -> None:
    viewers = [Viewer() for _ in range(3)]
    games = [await start(warm, viewer, "wait") for viewer in viewers]
    running = [asyncio.create_task(game.run()) for game in games]
    for viewer in viewers:
        await viewer.facts()
    parent = warm.pid
    assert parent is not None
    warm.close()  # the door stops taking players: the games go on
    assert alive(parent) and all(alive(game.pid) for game in games)
    await asyncio.wait_for(asyncio.gather(*(game.end() for game in games)), WAIT)  # the door stops
    await asyncio.wait_for(asyncio.gather(*running), WAIT)
    assert [viewer.status for viewer in viewers] == [128 + signal.SIGHUP] * 3
    await warm.stop()
    assert not alive(parent)
    assert not any(alive(game.pid) for game in games)


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie does not)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return False
    return fields[0] != "Z"


@pytest.mark.slow
@pytest.mark.usefixtures("ssh")
def test_no_game_and_no_warm_parent_is_left_once_the_club_stops(tmp_path: Path) -> None:
    club = open_club(tmp_path)
    try:
        players = [club.ssh(handle, handle) for handle in ("alice", "bob")]
        for player in players:
            player.expect("Open tables")
        processes = tree(club.server.pid)
        assert len(processes) == 4  # the club, its warm parent, and a game for each player
        if merging_off():  # the owner is told what KSM would save
            club.server.expect(re.escape(MERGING_OFF))
        os.kill(club.server.pid, signal.SIGTERM)
        assert club.server.finish() == 128 + signal.SIGTERM
        wait_until(
            lambda: not [pid for pid in processes if alive(pid)],
            lambda: [pid for pid in processes if alive(pid)],
            "every process of the club gone",
        )
    finally:
        club.close()


def tree(root: int) -> list[int]:
    """`root` and every process descended from it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def test_the_club_says_what_ksm_would_save_only_where_it_is_off(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.write_text("0\n")
    assert merging_off(run)
    run.write_text("1\n")
    assert not merging_off(run)
    assert not merging_off(tmp_path / "absent")  # a kernel without KSM: nothing to say
    assert "(docs/club.md)" in MERGING_OFF  # where turning it on is told
