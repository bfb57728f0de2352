"""The club's record: who comes in, keys, bans, ratings beside their match, and the file's
promises (a restart keeps everything, one transaction a match, a damaged file kept aside)."""

from __future__ import annotations

import base64
import math
import re
import sqlite3
import threading
from pathlib import Path

import pytest

from tictactoe.core.ai import Level
from tictactoe.core.club import CLAIMS_PER_HOUR, START, Rating, rated
from tictactoe.core.engine import Mark
from tictactoe.core.key_words import KEYS_PER_PLAYER, word_refused
from tictactoe.core.series import Player
from tictactoe.record.club import (
    CLUB_MIGRATIONS,
    ClubRecord,
    ClubUnavailable,
    UnknownHandle,
    club_path,
)
from tictactoe.record.club_store import ClubStore
from tictactoe.record.match import MatchRecord
from tictactoe.record.store import GameRecord

NOW = 1_800_000_000.0
HOUR = 3600.0


def key(number: int, comment: str = "someone@somewhere") -> str:
    """An ed25519 public key line, told apart by `number`."""
    blob = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + number.to_bytes(32, "big")
    return f"ssh-ed25519 {base64.b64encode(blob).decode()} {comment}"


ADA, BOB, CY = key(1), key(2), key(3)


def add_key(club: ClubStore, handle: str, line: str, now: float = NOW) -> str | None:
    """A session of `handle` asks for a one-time word, and a login as `HANDLE+WORD` signs in with
    the key `line`: why it did not add the key, or None."""
    word = club.key_word(handle, now)
    return club.enter(f"{handle}+{word}", line, "10.0.0.9", now + 1).refusal


def won_by_first(a: str, b: str) -> MatchRecord:
    """A match `a` (X, first) won on the top row against `b`."""
    return MatchRecord((Player(a), Player(b)), (Mark.X, Mark.O), 0, (0, 3, 1, 4, 2), 0)


def drawn(a: str, b: str) -> MatchRecord:
    return MatchRecord(
        (Player(a), Player(b)), (Mark.X, Mark.O), 0, (4, 0, 8, 2, 1, 7, 6, 3, 5), None
    )


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return club_path(tmp_path)


@pytest.fixture
def club(path: Path) -> ClubRecord:
    record = ClubRecord(path)
    assert record.enter("Ada", ADA, "10.0.0.1", NOW).refusal is None
    assert record.enter("bob", BOB, "10.0.0.2", NOW).refusal is None
    return record


def test_the_club_file_lives_in_the_data_folder(tmp_path: Path) -> None:
    assert club_path(tmp_path) == tmp_path / "club.sqlite3"
    assert club_path(None).name == "club.sqlite3"


def test_the_first_key_claims_a_free_handle_and_only_its_keys_come_in(club: ClubRecord) -> None:
    again = club.enter("ADA", key(1, "another comment"), "10.9.9.9", NOW + 1)
    assert again.refusal is None and again.handle == "ada" and not again.guest
    other = club.enter("ada", CY, "10.0.0.3", NOW + 2)
    assert other.refusal == "The handle ada belongs to another key; choose another handle."
    assert add_key(club, "ada", CY) is None
    assert club.enter("ada", CY, "10.0.0.3", NOW + 3).refusal is None
    assert add_key(club, "ada", CY, NOW + 3) is None, "a key added twice is kept once"
    (ada, _bob) = club.players()
    assert ada.handle == "ada" and len(ada.fingerprints) == 2 and ada.last_seen == NOW + 4
    assert all(re.fullmatch(r"SHA256:[A-Za-z0-9+/]{43}", f) for f in ada.fingerprints)


def test_refusals_are_one_sentence(club: ClubRecord) -> None:
    nobody = club.enter("nobody-here+abcdefgh", CY, "10.0.0.3", NOW).refusal
    assert nobody == word_refused("nobody-here")
    not_key = club.enter("ada+abcdefgh", "ssh-ed25519 !!!", "10.0.0.3", NOW).refusal
    assert not_key == "That public key is not written in base64."
    bad = club.enter("a b", CY, "10.0.0.3", NOW).refusal
    assert bad is not None and bad.endswith(".")
    reserved = club.enter("admin", CY, "10.0.0.3", NOW).refusal
    assert reserved == "The handle admin is reserved; please choose another."


def test_a_login_without_a_key_is_a_guest_not_kept(club: ClubRecord) -> None:
    guest = club.enter("ada", None, "10.0.0.3", NOW)
    assert guest.guest and guest.handle.startswith("guest-") and guest.refusal is None
    assert guest.rating == START
    asked = club.enter("guest", CY, "10.0.0.3", NOW)
    assert asked.guest and asked.handle != guest.handle
    assert [row.handle for row in club.players()] == ["ada", "bob"]
    fresh = club.enter("x", None, "10.0.0.3", NOW, taken={guest.handle})
    assert fresh.handle != guest.handle


def test_new_handles_are_bounded_per_address_per_hour(path: Path) -> None:
    club = ClubRecord(path)
    for number in range(CLAIMS_PER_HOUR):
        assert (
            club.enter(f"p{number}", key(100 + number), "203.0.113.9", NOW + number).refusal is None
        )
    refused = club.enter("one-more", key(200), "203.0.113.9", NOW + 10).refusal
    assert refused is not None and "this address this hour" in refused
    assert club.enter("p0", key(100), "203.0.113.9", NOW + 11).refusal is None, "no new claim"
    assert club.enter("elsewhere", key(201), "198.51.100.1", NOW + 12).refusal is None
    assert club.enter("one-more", key(200), "203.0.113.9", NOW + HOUR + 1).refusal is None
    assert "one-more" in [row.handle for row in ClubRecord(path).players()]


def test_a_ban_refuses_the_handle_and_its_keys_until_it_ends(club: ClubRecord) -> None:
    version = club.bans_version()
    club.ban("Bob", NOW + HOUR)
    assert club.bans_version() != version
    assert club.banned_until("bob", NOW) == NOW + HOUR
    refused = club.enter("bob", BOB, "10.0.0.2", NOW + 1).refusal
    assert refused == "bob is banned until 2027-01-15 09:00 UTC."
    evading = club.enter("bob2", BOB, "10.0.0.2", NOW + 2).refusal
    assert evading == refused, "the banned key claims no other handle"
    assert club.banned_until("bob", NOW + HOUR) is None
    assert club.enter("bob", BOB, "10.0.0.2", NOW + HOUR).refusal is None, "the ban has ended"

    club.ban("bob", None)
    assert club.banned_until("bob", NOW) == math.inf
    assert club.enter("bob", BOB, "10.0.0.2", NOW).refusal == "bob is banned for ever."
    version = club.bans_version()
    assert club.unban("bob") and not club.unban("bob")
    assert club.bans_version() != version
    assert club.enter("bob", BOB, "10.0.0.2", NOW).refusal is None
    with pytest.raises(UnknownHandle, match=r"No player is called zed\."):
        club.ban("zed", None)
    with pytest.raises(UnknownHandle):
        club.unban("zed")


def test_a_ban_by_the_owner_is_seen_by_the_running_club_at_once(
    club: ClubRecord, path: Path
) -> None:
    seen = club.bans_version()
    owner = ClubRecord(path)  # `tictactoe club ban`, another process in real life
    owner.ban("ada", None)
    owner.close()
    assert club.bans_version() != seen
    assert club.enter("ada", ADA, "10.0.0.1", NOW).refusal == "ada is banned for ever."


def test_a_rated_match_moves_both_ratings_with_the_match(club: ClubRecord) -> None:
    after = club.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW)
    assert after == rated(START, START, 0)
    assert club.rating("ada") == after[0] and club.rating("bob") == after[1]
    first, second = club.ladder()
    assert (first.rank, first.handle, first.matches, first.wins) == (1, "ada", 1, 1)
    assert (second.rank, second.handle, second.losses, second.draws) == (2, "bob", 1, 0)
    club.finish("t1", ("bob", "ada"), True, drawn("bob", "ada"), NOW + 60)
    assert [(row.handle, row.matches, row.draws) for row in club.ladder()] == [
        ("ada", 2, 1),
        ("bob", 2, 1),
    ]
    (last, earlier) = club.recent("ADA")
    assert last.players == (Player("bob"), Player("ada")) and last.winner is None
    assert earlier.moves == (0, 3, 1, 4, 2) and earlier.result() == "ada won"
    assert len(earlier.positions()) == 6, "replayable move by move"


def test_unrated_matches_are_kept_but_move_no_rating(club: ClubRecord) -> None:
    assert club.finish("t2", ("ada", "bob"), False, won_by_first("ada", "bob"), NOW) is None
    guest = club.enter("x", None, "10.0.0.9", NOW).handle
    assert club.finish("t3", ("ada", guest), True, won_by_first("ada", guest), NOW) is None
    computer = MatchRecord(
        (Player("ada"), Player.computer(Level.HARD)), (Mark.X, Mark.O), 0, (0, 3, 1, 4, 2), 0
    )
    assert club.finish("t4", ("ada", "computer"), True, computer, NOW) is None
    assert club.ladder() == [] and club.rating("ada") == START
    assert len(club.recent("ada")) == 3
    assert club.recent("ada")[0].players[1] == Player.computer(Level.HARD)


def test_a_seat_left_past_the_grace_is_a_loss_on_an_unfinished_board(club: ClubRecord) -> None:
    left = MatchRecord((Player("ada"), Player("bob")), (Mark.X, Mark.O), 0, (4,), 0)
    club.finish("t1", ("ada", "bob"), True, left, NOW)
    assert [row.handle for row in club.ladder()] == ["ada", "bob"]
    assert club.recent("bob")[0].moves == (4,) and club.recent("bob")[0].winner == 0


def test_a_restart_keeps_players_keys_ratings_bans_and_matches(
    club: ClubRecord, path: Path
) -> None:
    add_key(club, "ada", CY)
    club.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW)
    club.ban("bob", NOW + HOUR)
    before = (club.players(), club.ladder(), club.recent("ada"), club.bans_version())
    club.close()

    again = ClubRecord(path)
    assert (again.players(), again.ladder(), again.recent("ada"), again.bans_version()) == before
    assert again.banned_until("bob", NOW) == NOW + HOUR
    assert again.enter("ada", CY, "10.0.0.1", NOW).refusal is None
    assert again.enter("ada", key(9), "10.0.0.1", NOW).refusal is not None


def test_a_failure_mid_finish_leaves_no_half_and_loses_nothing(
    club: ClubRecord, path: Path
) -> None:
    other = sqlite3.connect(path)
    (bob,) = other.execute("SELECT id FROM players WHERE handle = 'bob'").fetchone()
    other.execute(
        "CREATE TRIGGER fail_midway BEFORE INSERT ON rating_history"
        f" WHEN NEW.player = {bob} BEGIN SELECT RAISE(ABORT, 'the disk is on fire'); END"
    )
    other.commit()

    assert club.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW) is None
    assert club.unsaved == 1 and club.problem is not None and "on fire" in club.problem
    assert club.recent("ada") == [] and club.ladder() == []
    assert other.execute("SELECT count(*) FROM rating_history").fetchone() == (0,)

    other.execute("DROP TRIGGER fail_midway")
    other.commit()
    other.close()
    after = club.finish("t1", ("ada", "bob"), True, drawn("ada", "bob"), NOW + 60)
    assert club.unsaved == 0 and club.problem is None
    first = rated(START, START, 0)
    assert after == rated(*first, None), "the match that waited is rated first, in order"
    assert [len(club.recent(h)) for h in ("ada", "bob")] == [2, 2]
    db = sqlite3.connect(path)
    history = db.execute("SELECT count(*), count(DISTINCT match) FROM rating_history").fetchone()
    assert history == (4, 2)
    db.close()


def test_a_match_waiting_in_memory_is_written_at_close(club: ClubRecord, path: Path) -> None:
    other = sqlite3.connect(path)
    other.execute(
        "CREATE TRIGGER fail_once BEFORE INSERT ON matches"
        " WHEN (SELECT count(*) FROM matches) = 0 AND NEW.club_table = 't1'"
        " BEGIN SELECT RAISE(ABORT, 'no room'); END"
    )
    other.commit()
    club.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW)
    assert club.unsaved == 1
    other.execute("DROP TRIGGER fail_once")
    other.commit()
    other.close()
    club.close()
    assert [row.wins for row in ClubRecord(path).ladder()] == [1, 0]


def test_matches_finished_from_many_threads_and_processes_are_all_counted(
    club: ClubRecord, path: Path
) -> None:
    second = ClubRecord(path)  # another connection, as another process would have

    def play(record: ClubRecord, times: int) -> None:
        for number in range(times):
            record.finish(f"t{number}", ("ada", "bob"), True, drawn("ada", "bob"), NOW)

    threads = [threading.Thread(target=play, args=(r, 10)) for r in (club, club, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert club.unsaved == second.unsaved == 0
    assert [row.matches for row in club.ladder()] == [30, 30]
    assert len(club.recent("ada", limit=100)) == 30


@pytest.mark.parametrize(
    "content",
    [b"not a database at all\n" * 100, b"SQLite format 3\x00" + b"\xff" * 500],
    ids=["text", "a damaged header"],
)
def test_a_damaged_file_is_kept_aside_and_a_fresh_one_made(path: Path, content: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    club = ClubRecord(path)
    (notice,) = club.take_notices()
    (copy,) = [p for p in path.parent.iterdir() if ".corrupt-" in p.name]
    assert copy.read_bytes() == content and copy.name in notice and "fresh one" in notice
    assert club.enter("ada", ADA, "10.0.0.1", NOW).refusal is None
    assert [row.handle for row in ClubRecord(path).players()] == ["ada"]


def test_another_programs_file_is_left_alone(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    game = GameRecord(path)  # the game record's file, not a club's
    game.add(won_by_first("ada", "bob"))
    game.finish()
    content = path.read_bytes()
    with pytest.raises(ClubUnavailable, match="some other program"):
        ClubRecord(path)
    assert path.read_bytes() == content


def test_ratings_read_back_exactly(club: ClubRecord) -> None:
    after = club.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW)
    assert after is not None
    assert isinstance(club.rating("ada"), Rating) and club.rating("ada") == after[0]


def test_recent_matches_say_whether_they_moved_the_ratings(club: ClubRecord) -> None:
    club.finish("t1", ("ada", "bob"), True, won_by_first("ada", "bob"), NOW)
    club.finish("t2", ("ada", "bob"), False, won_by_first("ada", "bob"), NOW + 1)
    guest = club.enter("x", None, "10.0.0.9", NOW).handle
    club.finish("t3", ("ada", guest), True, won_by_first("ada", guest), NOW + 2)
    assert [rated for _, rated in club.recent_rated("ada")] == [False, False, True]
    assert [match for match, _ in club.recent_rated("ada")] == club.recent("ada")


def test_a_key_joins_by_a_login_with_a_word(club: ClubStore) -> None:
    word = club.key_word("ada", NOW)
    assert club.would_refuse(f"ada+{word}", CY, "10.0.0.3", NOW) is None
    assert club.enter("ada+zzzzzzzz", CY, "10.0.0.3", NOW).refusal == word_refused("ada")
    assert club.enter(f"bob+{word}", CY, "10.0.0.3", NOW).refusal == word_refused("bob")
    late = club.enter(f"ada+{word}", CY, "10.0.0.3", NOW + 601).refusal
    assert late == word_refused("ada"), "a word is good for ten minutes"
    came = club.enter(f"ADA+{word.upper()}", CY, "10.0.0.3", NOW + 2)
    assert came.refusal is None and came.handle == "ada" and not came.guest
    assert came.said is not None and "now signs in as ada" in came.said
    assert club.enter(f"ada+{word}", key(4), "10.0.0.3", NOW + 3).refusal == word_refused("ada")
    assert [len(row.fingerprints) for row in club.players()] == [2, 1]
    assert [row.type for row in club.keys("ada")] == ["ssh-ed25519"] * 2


def test_a_key_belongs_to_one_handle(club: ClubStore) -> None:
    taken = "This key already signs in as bob: a key belongs to one handle."
    assert club.would_refuse("carol", BOB, "10.0.0.3", NOW) == taken
    assert club.enter("carol", BOB, "10.0.0.3", NOW).refusal == taken
    assert add_key(club, "ada", BOB) == taken
    assert [row.handle for row in club.players()] == ["ada", "bob"]


def test_a_ban_never_refuses_anothers_key(club: ClubStore) -> None:
    add_key(club, "bob", CY)
    club.ban("bob", None, NOW)
    assert club.enter("ada", ADA, "10.0.0.1", NOW + 1).refusal is None
    assert club.enter("bob", CY, "10.0.0.1", NOW + 1).refusal == "bob is banned for ever."
    word = club.key_word("bob", NOW + 2)
    assert club.enter(f"bob+{word}", key(5), "10.0.0.1", NOW + 3).refusal == (
        "bob is banned for ever."
    )


def test_the_owner_sees_and_removes_keys(club: ClubStore) -> None:
    add_key(club, "ada", CY)
    first, second = club.keys("ada")
    assert club.remove_key("ada", second.fingerprint)
    assert not club.remove_key("ada", second.fingerprint)
    assert not club.remove_key("bob", first.fingerprint), "only the handle's own keys"
    assert [row.fingerprint for row in club.keys("ada")] == [first.fingerprint]
    assert club.enter("ada", CY, "10.0.0.1", NOW).refusal is not None
    with pytest.raises(UnknownHandle):
        club.keys("nobody")
    with pytest.raises(UnknownHandle):
        club.remove_key("nobody", first.fingerprint)


def test_a_handle_holds_few_keys(club: ClubStore) -> None:
    for number in range(10, 10 + KEYS_PER_PLAYER - 1):
        assert add_key(club, "ada", key(number)) is None
    refusal = add_key(club, "ada", key(99))
    assert refusal is not None and str(KEYS_PER_PLAYER) in refusal


def test_the_migration_keeps_only_the_keys_that_claimed_their_handles(path: Path) -> None:
    """A file of the first schema, where keys were pasted in: the pasted ones were never proven
    (Mallory's copy of Alice's line, Alice's own second key alike) and go; a key that claimed
    two handles stays with the first."""
    db = sqlite3.connect(path)
    for statement in CLUB_MIGRATIONS[0]:
        db.execute(statement)
    db.execute("PRAGMA user_version = 1")
    rows = [("alice", 1.0, ADA), ("mallory", 2.0, CY), ("twice", 3.0, CY)]
    for number, (handle, at, line) in enumerate(rows, 1):
        db.execute("INSERT INTO players VALUES (?, ?, ?, ?)", (number, handle, at, at))
        db.execute(
            "INSERT INTO keys (player, type, data, fingerprint, added_at) VALUES (?, ?, ?, ?, ?)",
            (number, "ssh-ed25519", line.split()[1], f"F{number}", at),
        )
    pasted = [(2, ADA, 5.0), (1, BOB, 6.0)]  # Alice's line into mallory; Alice's second key
    for player, line, at in pasted:
        db.execute(
            "INSERT INTO keys (player, type, data, fingerprint, added_at) VALUES (?, ?, ?, ?, ?)",
            (player, "ssh-ed25519", line.split()[1], "pasted", at),
        )
    db.commit()
    db.close()

    club = ClubRecord(path)
    assert [(row.handle, row.fingerprints) for row in club.players()] == [
        ("alice", ("F1",)),
        ("mallory", ("F2",)),
        ("twice", ()),
    ]
    assert club.enter("mallory", ADA, "10.0.0.1", NOW).refusal is not None
    assert club.enter("alice", ADA, "10.0.0.1", NOW).refusal is None
    club.close()
