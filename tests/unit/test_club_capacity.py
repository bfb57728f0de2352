"""The club's door bounds: players from the machine's memory, the guests' share and their pace.

The gate itself (`tictactoe.club.lobby.Club`, no SSH) is tried with a small share: guests past
it are refused in one sentence, players with keys still come in, and each guest may have one game.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncssh
import pytest

from tictactoe.club.capacity import (
    FEWEST_PLAYERS,
    GUEST_BURST,
    GUEST_WAIT,
    GUESTS_A_SECOND,
    GUESTS_FULL,
    GUESTS_WAIT_TOO_LONG,
    KEPT_MEMORY,
    MOST_PLAYERS,
    PLAYER_MEMORY,
    GuestDoor,
    Turn,
    available_memory,
    door_bounds,
    guest_places,
    players_for,
)
from tictactoe.club.lobby import Club
from tictactoe.options import BadArguments, parse
from tictactoe.record.club import ClubRecord

MIB = 1024 * 1024


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_memory_available_is_read_from_the_kernel(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:  8000000 kB\nMemFree:  100 kB\nMemAvailable:  4000000 kB\n")
    assert available_memory(meminfo) == 4_000_000 * 1024
    found = available_memory(tmp_path / "none")  # the system's own count of free pages, if any
    assert found is None or found > 0


def test_players_are_what_the_memory_holds_within_bounds() -> None:
    assert players_for(KEPT_MEMORY + 34 * PLAYER_MEMORY + MIB) == 34
    assert players_for(1024 * 1024 * MIB) == MOST_PLAYERS  # a terabyte: the most a club takes
    assert players_for(100 * MIB) == FEWEST_PLAYERS
    assert players_for(None) == 64  # the machine does not say: hosting's own bound


def test_guests_take_half_of_the_places_and_connections_follow() -> None:
    assert [guest_places(players) for players in (2, 3, 16, 500)] == [1, 1, 8, 250]
    bounds = door_bounds(16, cores=2)
    assert (bounds.players, bounds.guests) == (16, 8)
    waiting = 2 * GUEST_BURST + 2 * GUESTS_A_SECOND * GUEST_WAIT
    assert bounds.logging_in == 256
    assert bounds.connections == 16 + 256 + waiting + 64


def test_guests_come_in_at_a_pace_and_past_their_share_are_refused() -> None:
    clock = Clock()
    door = GuestDoor(100, cores=1, clock=clock)
    turns = [door.turn(0) for _ in range(GUEST_BURST)]
    assert [turn.wait for turn in turns] == [0.0] * GUEST_BURST  # a burst at once
    waits = []
    while (turn := door.turn(0)).refusal is None:
        waits.append(turn.wait)
    assert waits == sorted(waits) and waits[0] == 1 / GUESTS_A_SECOND
    assert waits[-1] <= GUEST_WAIT < waits[-1] + 1 / GUESTS_A_SECOND
    assert turn.refusal == GUESTS_WAIT_TOO_LONG
    clock.now += GUEST_WAIT + 1  # the pace has caught up with those who waited
    assert door.turn(0) == Turn(None, 0.0)
    assert door.turn(100).refusal == GUESTS_FULL


def key_line() -> str:
    return asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().strip()


async def test_the_gate_keeps_room_for_keys_and_gives_a_guest_one_game(tmp_path: Path) -> None:
    club = Club(ClubRecord(tmp_path / "club.sqlite3"))
    club.guest_door = GuestDoor(3, cores=2)
    await club.start()
    try:
        guests = await asyncio.gather(
            *(club.enter("anyone", None, f"127.0.1.{number}") for number in range(1, 6))
        )
        assert [guest.refusal for guest in guests].count(None) == 3
        assert [guest.refusal for guest in guests].count(GUESTS_FULL) == 2
        assert {guest.games for guest in guests if guest.refusal is None} == {1}
        ada = await club.enter("ada", key_line(), "127.0.1.9")
        assert ada.refusal is None and ada.games is None  # a key: as many as the door allows
        club.left(next(guest for guest in guests if guest.refusal is None))
        assert (await club.enter("anyone", None, "127.0.1.7")).refusal is None  # a place freed
    finally:
        await club.stop()


def test_max_players_is_a_number_of_players() -> None:
    assert parse(["club", "--max-players", "64"]).args.max_players == 64
    assert parse(["club"]).args.max_players is None  # from the memory
    for wrong in ("1", "x", "-5"):
        with pytest.raises(BadArguments) as refusal:
            parse(["club", "--max-players", wrong])
        assert str(refusal.value).startswith("tictactoe club: --max-players: ")
