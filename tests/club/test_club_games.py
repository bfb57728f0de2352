"""A ladder for each game at the club: the owner's `club ladder --variant`, `club migrate` of the
club's own file, and the real thing: two players with the real `ssh` open a rated Ultimate table,
play it to a win, and the Ultimate ladder moves while the classic one does not."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import asyncssh
import pytest

from club.test_club_end_to_end import Club, open_club
from club.test_club_end_to_end import owner as owner_beside
from club.test_club_features import at_table, goto, key_line, next_news, said, until
from club.test_club_files import owner
from online.test_end_to_end import Terminal
from online.test_link import state
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from online.test_ultimate_link import X_WINS
from online.test_ultimate_online import keys
from record.test_club_games import OLD_SCHEMA, ultimate_left
from record.test_club_record import won_by_first
from tictactoe.club.link import LobbyLink
from tictactoe.club.lobby import CLUB_TOKEN
from tictactoe.club.lobby import Club as LobbyClub
from tictactoe.core.club import START
from tictactoe.core.engine import Mark
from tictactoe.core.rules import ULTIMATE
from tictactoe.core.series import ChooseMark, Play
from tictactoe.core.ultimate import UltimateState
from tictactoe.link.client import AuthorityLink
from tictactoe.online.lobby import (
    CloseTable,
    GoTo,
    LobbyNews,
    OpenTable,
    QuickPair,
    Rematch,
    SitAt,
    Snapshot,
)
from tictactoe.online.protocol import Ended, State
from tictactoe.record.club import CLUB_MIGRATIONS, ClubRecord

NOW = 1_800_000_000.0


def _club_of_both_games(folder: Path) -> None:
    """A club's file where ada beat bob at classic, and bob beat ada at Ultimate."""
    record = ClubRecord(folder / "club.sqlite3")
    try:
        for handle in ("ada", "bob"):
            assert record.enter(handle, _key(), "127.0.0.1", NOW).refusal is None
        record.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW)
        record.finish("t2", ("bob", "ada"), True, ultimate_left("bob", "ada"), NOW)
    finally:
        record.close()


def _key() -> str:
    """A fresh public key line."""
    return asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().strip()


def test_club_ladder_prints_the_ladder_of_the_game_asked_for(tmp_path: Path) -> None:
    _club_of_both_games(tmp_path)
    ultimate = json.loads(owner(tmp_path, "ladder", "--variant", "ultimate", "--json").stdout)
    assert [(row["rank"], row["handle"], row["wins"], row["losses"]) for row in ultimate] == [
        (1, "bob", 1, 0),
        (2, "ada", 0, 1),
    ]
    classic = json.loads(owner(tmp_path, "ladder", "--json").stdout)
    assert [(row["handle"], row["wins"]) for row in classic] == [("ada", 1), ("bob", 0)]
    said = owner(tmp_path, "ladder", "--variant", "ultimate").stdout
    assert said.splitlines()[1].split()[:2] == ["1", "bob"]
    helped = owner(tmp_path, "ladder", "--help").stdout
    assert "--variant" in helped and "(default: classic)" in " ".join(helped.split())


def test_an_empty_ladder_says_which_game(tmp_path: Path) -> None:
    ClubRecord(tmp_path / "club.sqlite3").close()
    done = owner(tmp_path, "ladder", "--variant", "ultimate")
    assert done.stdout == "Nobody has played a rated Ultimate match yet.\n"
    assert json.loads(owner(tmp_path, "ladder", "--variant", "ultimate", "--json").stdout) == []


def test_a_game_the_club_does_not_know_is_refused_in_one_sentence(tmp_path: Path) -> None:
    ClubRecord(tmp_path / "club.sqlite3").close()
    done = owner(tmp_path, "ladder", "--variant", "chess")
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "chess" in line and line.endswith(".") and line.count(". ") == 0


def test_club_migrate_brings_the_clubs_own_file_up_to_date(tmp_path: Path) -> None:
    path = tmp_path / "club.sqlite3"
    with sqlite3.connect(path) as db:
        for steps in CLUB_MIGRATIONS[:OLD_SCHEMA]:
            for statement in steps:
                db.execute(statement)
        db.execute("INSERT INTO players VALUES (1, 'ada', 1.0, 1.0)")
        db.execute("INSERT INTO ratings VALUES (1, 27.5, 7.1, 1, 1, 0, 0)")
        db.execute(f"PRAGMA user_version = {OLD_SCHEMA}")
    done = owner(tmp_path, "migrate")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"The club's file {path} went from schema version {OLD_SCHEMA} to {len(CLUB_MIGRATIONS)}.\n"
    )
    assert owner(tmp_path, "migrate").stdout.endswith("already.\n")
    classic = json.loads(owner(tmp_path, "ladder", "--json").stdout)
    assert [(row["handle"], row["mu"]) for row in classic] == [("ada", 27.5)]


def test_club_migrate_without_a_club_says_so_in_one_sentence(tmp_path: Path) -> None:
    done = owner(tmp_path, "migrate")
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("tictactoe club migrate: there is no club in") and line.endswith(".")
    assert not (tmp_path / "club.sqlite3").exists(), "nothing made"


async def _series_of(seat: AuthorityLink) -> State:
    """The first state of a table's link that holds its series (both seats taken)."""
    state: State = await until(seat, State)
    while state.series is None:
        state = await until(seat, State)
    return state


async def test_quick_pair_pairs_within_a_game_and_a_rematch_keeps_it(tmp_path: Path) -> None:
    record = ClubRecord(tmp_path / "club.sqlite")
    club = LobbyClub(record)
    await club.start()
    links: dict[str, LobbyLink] = {}
    try:
        for handle in ("ada", "alan", "grace"):
            admission = await club.enter(handle, key_line(handle), "127.0.0.1")
            links[handle] = await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN])
        ada, alan, grace = links["ada"], links["alan"], links["grace"]
        await ada.ask(OpenTable(rated=True, variant="ultimate"))
        opened = await next_news(ada, goto)
        assert isinstance(opened, GoTo)

        await grace.ask(QuickPair("classic"))  # Ada waits at Ultimate: nobody waits at classic
        grace_waits = await next_news(grace, goto)
        await next_news(grace, said("Nobody is waiting"))
        assert grace_waits.table != opened.table  # type: ignore[union-attr]
        shown = club.snapshot("alan", False).open
        assert sorted((row.players[0], row.variant) for row in shown) == [
            ("ada", "ultimate"),
            ("grace", "classic"),
        ]

        await alan.ask(QuickPair("ultimate"))  # the closest waiting at Ultimate: Ada's table
        sat = await next_news(alan, goto)
        assert isinstance(sat, GoTo) and sat.table == opened.table
        seats = [await at_table(opened), await at_table(sat)]
        for seat in seats:
            state = await _series_of(seat)
            assert state.series is not None and state.series.variant.name == "ultimate"
        (playing,) = club.snapshot("grace", False).playing
        assert (playing.players, playing.variant) == (("ada", "alan"), "ultimate")

        await seats[1].leave()  # before a move: aborted, nothing recorded
        for seat in seats:
            await until(seat, Ended)
            await seat.close()
        await ada.ask(Rematch())
        offer = await next_news(ada, goto)

        def offered(news: LobbyNews) -> bool:
            return isinstance(news, Snapshot) and news.you.offered_by == "ada"

        kept = await next_news(alan, offered)
        assert isinstance(kept, Snapshot)
        assert [(row.variant, row.rematch) for row in kept.open if row.players == ("ada",)] == [
            ("ultimate", True)
        ]
        await alan.ask(Rematch())
        taken = await next_news(alan, goto)
        seats = [await at_table(offer), await at_table(taken)]
        for seat in seats:
            state = await _series_of(seat)
            assert state.series is not None and state.series.variant.name == "ultimate"
            await seat.close()
        await grace.ask(CloseTable())
    finally:
        for link in links.values():
            with contextlib.suppress(Exception):
                await link.close()
        await club.stop()
        record.close()


async def test_leaving_a_rated_ultimate_match_after_both_moved_loses_it_on_its_ladder(
    tmp_path: Path,
) -> None:
    record = ClubRecord(tmp_path / "club.sqlite")
    club = LobbyClub(record)
    await club.start()
    links: dict[str, LobbyLink] = {}
    try:
        for handle in ("ada", "alan"):
            admission = await club.enter(handle, key_line(handle), "127.0.0.1")
            links[handle] = await LobbyLink.open(club.url, admission.environment[CLUB_TOKEN])
        ada, alan = links["ada"], links["alan"]
        await ada.ask(OpenTable(rated=True, variant="ultimate"))
        opened = await next_news(ada, goto)
        assert isinstance(opened, GoTo)
        await alan.ask(SitAt(opened.table))
        seats = (await at_table(opened), await at_table(await next_news(alan, goto)))
        last = await state(seats[0], lambda seen: seen.series is not None)
        await seats[0].act(last.version, ChooseMark(Mark.X))
        for turn, move in enumerate(X_WINS[:2]):
            last = await state(seats[turn], _after(turn))
            await seats[turn].act(last.version, Play(move))
        await state(seats[0], lambda seen: _moves(seen) == 2)
        await seats[1].leave()  # after both have moved: Alan's loss, on the Ultimate ladder

        def rated(news: LobbyNews) -> bool:
            return isinstance(news, Snapshot) and news.you.rating_in("ultimate") != START.shown

        told = await next_news(ada, rated)
        assert isinstance(told, Snapshot) and told.you.rating_in("classic") == START.shown
        assert [
            (row.handle, row.wins, row.losses) for row in record.ladder(variant="ultimate")
        ] == [
            ("ada", 1, 0),
            ("alan", 0, 1),
        ]
        assert record.ladder() == []
        (left,) = record.recent("alan")
        assert (left.variant, left.moves, left.winner) == ("ultimate", X_WINS[:2], 0)
        for seat in seats:
            await seat.close()
    finally:
        for link in links.values():
            with contextlib.suppress(Exception):
                await link.close()
        await club.stop()
        record.close()


def _after(moves: int) -> Callable[[State], bool]:
    """Whether a table's state shows its match after `moves` moves."""
    return lambda seen: _moves(seen) == moves


def _moves(seen: State) -> int:
    """The moves of the match a table's state shows (0 before its marks are chosen)."""
    match = None if seen.series is None else seen.series.match
    return 0 if match is None else len(match.moves)


def play(
    moves: tuple[int, ...], players: dict[str, Terminal], *watching: Terminal, start: int = 0
) -> None:
    """`moves` of a match from its `start`th, X's by the first of `players` (by handle), O's by
    the second; each shows in every moves list (its number and who made it: at a club's width
    the rest of the line wraps) before the next."""
    state = ULTIMATE.replay(moves[:start])
    assert isinstance(state, UltimateState)
    names = list(players)
    for number, move in enumerate(moves[start:], start=start + 1):
        name = names[(number - 1) % 2]
        for terminal in (*players.values(), *watching):
            terminal.from_now()
        players[name].send(keys(state, move))
        for terminal in (*players.values(), *watching):
            terminal.expect(rf"\b{number}\. {name} [XO]\b")
        state = state.play(move)


@pytest.fixture
def club(tmp_path: Path) -> Iterator[Club]:
    running = open_club(tmp_path)
    try:
        yield running
    finally:
        running.close()


@pytest.mark.slow
@pytest.mark.usefixtures("ssh")
def test_a_rated_ultimate_match_at_the_club_moves_the_ultimate_ladder_alone(club: Club) -> None:
    alice = club.ssh("alice", "alice")
    bob = club.ssh("bob", "bob")
    dave = club.ssh("dave", None)  # a guest, who watches
    alice.expect("p pairs in Classic")  # nobody has played yet: classic is in focus
    bob.expect("Open tables")
    dave.expect("Open tables")
    alice.from_now().send(b"og\r")  # the open dialog, g: Ultimate, Enter opens it
    bob.expect(r"alice 1500 ± \d+ Ultimate · open")
    bob.from_now().send(b"\r")
    alice.expect("alice, choose your mark")
    dave.expect(r"alice v bob Ultimate 0–0 0 0")
    dave.from_now().send(b"\t\r")  # Enter on the table in play: watch it
    dave.expect("watching")
    alice.from_now().send(b"x")
    bob.expect(r"alice \(X\) to move")
    dave.expect(r"alice \(X\) to move")
    play(X_WINS[:1], {"alice": alice, "bob": bob}, dave)
    dave.expect("top-left board")  # the watcher's moves are Ultimate's, by board and cell
    play(X_WINS, {"alice": alice, "bob": bob}, dave, start=1)
    for each in (alice, bob, dave):
        each.expect("alice wins!")

    bob.from_now().send(b"q")  # leaves the table: the series ends for both, back to the lobby
    bob.expect(r"bob · Classic 1500 ± 500 · Ultimate 1[0-4]\d\d ± \d+")
    bob.expect("p pairs in Ultimate")  # the game of his last match, in focus
    alice.expect(r"alice · Classic 1500 ± 500 · Ultimate 1[6-9]\d\d ± \d+")  # up, once written

    ultimate = json.loads(owner_beside(club, "ladder", "--variant", "ultimate", "--json").stdout)
    assert [(row["handle"], row["wins"], row["losses"]) for row in ultimate] == [
        ("alice", 1, 0),
        ("bob", 0, 1),
    ]
    assert json.loads(owner_beside(club, "ladder", "--json").stdout) == []

    carol = club.ssh("carol", "carol")
    carol.expect("Classic ladder · g switches")
    carol.from_now().send(b"g")
    carol.expect("Ultimate ladder · g switches")
    ladder = carol.expect(r"1 alice (\d+) ± \d+ 1 0 0 2 bob (\d+) ± \d+ 0 0 1")
    assert int(ladder[1]) > 1500 > int(ladder[2])
