"""The club's pure rules: handles, guests, keys, ratings, quick pair and ban lengths."""

from __future__ import annotations

import base64
import math
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tictactoe.core.club import (
    RESERVED,
    START,
    BadDuration,
    BadHandle,
    BadKey,
    Rating,
    closest,
    duration_of,
    guest_handle,
    handle_of,
    is_guest,
    public_key,
    rated,
    until_text,
)

ALLOWED = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,19}")

ratings = st.builds(
    Rating,
    mu=st.floats(min_value=0, max_value=50, allow_nan=False),
    sigma=st.floats(min_value=0.5, max_value=25 / 3, allow_nan=False),
)


@given(st.text(max_size=25))
def test_handle_of_accepts_exactly_the_alphabet_in_any_case(user: str) -> None:
    allowed = ALLOWED.fullmatch(user) is not None
    lowered = user.lower()
    reserved = lowered in RESERVED or lowered.startswith("guest")
    if allowed and not reserved:
        assert handle_of(user) == lowered
    else:
        with pytest.raises(BadHandle):
            handle_of(user)


@given(st.from_regex(ALLOWED, fullmatch=True))
def test_a_handle_is_the_same_in_any_case(user: str) -> None:
    if user.lower() in RESERVED or user.lower().startswith("guest"):
        return
    assert handle_of(user.upper()) == handle_of(user.lower()) == user.lower()


@pytest.mark.parametrize(
    "user",
    [
        "",
        "a" * 21,
        "ada lovelace",
        "a..b",
        "-x",
        "--help",
        "ad@",
        "ada\n",
        "\u212aelvin",
        "ädä",
        "Admin",
        "ROOT",
        "guest-1",
    ],
)
def test_handles_refused(user: str) -> None:
    with pytest.raises(BadHandle) as refusal:
        handle_of(user)
    assert str(refusal.value).endswith(".") and "\n" not in str(refusal.value)


def test_guest_handles_are_fresh_and_never_claimable() -> None:
    rng = random.Random(7)
    first = guest_handle(rng)
    assert re.fullmatch(r"guest-[a-z0-9]{4,6}", first) and is_guest(first)
    again = guest_handle(random.Random(7), taken={first})
    assert again != first and is_guest(again)
    with pytest.raises(BadHandle):
        handle_of(first)
    assert not is_guest("ada")


def test_a_key_keeps_its_type_and_blob_and_prints_the_fingerprint_ssh_keygen_does(
    tmp_path: Path,
) -> None:
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is not installed")
    file = tmp_path / "id"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ada@home", "-f", file], check=True
    )
    line = (tmp_path / "id.pub").read_text()
    key = public_key(line)
    assert key.type == "ssh-ed25519" and key.line == " ".join(line.split()[:2])
    printed = subprocess.run(
        ["ssh-keygen", "-l", "-f", tmp_path / "id.pub"], check=True, capture_output=True, text=True
    ).stdout.split()[1]
    assert key.fingerprint == printed


def test_a_known_key_fingerprint() -> None:
    blob = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + bytes(range(32))
    key = public_key("ssh-ed25519 " + base64.b64encode(blob).decode() + " comment here")
    assert key.fingerprint.startswith("SHA256:") and not key.fingerprint.endswith("=")
    assert len(key.fingerprint) == len("SHA256:") + 43


@pytest.mark.parametrize(
    "line",
    [
        "",
        "ssh-ed25519",
        "ssh-foo AAAA",
        "ssh-ed25519 not*base64",
        "ssh-rsa " + base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519").decode(),
    ],
)
def test_lines_that_are_no_key(line: str) -> None:
    with pytest.raises(BadKey):
        public_key(line)


@given(ratings, ratings)
def test_a_win_never_lowers_the_winner_nor_raises_the_loser(a: Rating, b: Rating) -> None:
    won, lost = rated(a, b, 0)
    assert won.mu >= a.mu and lost.mu <= b.mu
    lost2, won2 = rated(a, b, 1)
    assert won2.mu >= b.mu and lost2.mu <= a.mu


@given(ratings, ratings, st.sampled_from([0, 1, None]))
def test_a_match_never_makes_a_rating_less_certain(
    a: Rating, b: Rating, winner: int | None
) -> None:
    after = rated(a, b, winner)
    assert after[0].sigma <= a.sigma and after[1].sigma <= b.sigma


@given(ratings)
def test_a_draw_between_equals_leaves_them_equal(a: Rating) -> None:
    first, second = rated(a, a, None)
    assert math.isclose(first.mu, second.mu) and math.isclose(first.mu, a.mu, abs_tol=1e-9)
    assert first.sigma <= a.sigma


def test_a_beginner_shows_one_number_with_its_uncertainty() -> None:
    assert START.shown == "1500 ± 500" and START.points == 0
    winner, loser = rated(START, START, 0)
    assert winner.points > START.points > loser.points
    assert winner.sigma < START.sigma and loser.sigma < START.sigma
    assert re.fullmatch(r"\d+ ± \d+", winner.shown)


@given(ratings, st.lists(ratings, max_size=8))
def test_quick_pair_finds_the_nearest_rating_first_of_equals(
    mine: Rating, waiting: list[Rating]
) -> None:
    chosen = closest(mine, list(enumerate(waiting)))
    if not waiting:
        assert chosen is None
        return
    assert chosen is not None
    gaps = [abs(rating.mu - mine.mu) for rating in waiting]
    assert gaps[chosen] == min(gaps) and gaps.index(min(gaps)) == chosen


@pytest.mark.parametrize(
    ("text", "seconds"), [("30m", 1800), ("1h", 3600), ("2d", 172800), ("1w", 604800), ("45s", 45)]
)
def test_ban_lengths(text: str, seconds: float) -> None:
    assert duration_of(text) == seconds


@pytest.mark.parametrize("text", ["", "0h", "h", "1y", "1.5h", "-1h", "1 h 2"])
def test_ban_lengths_refused(text: str) -> None:
    with pytest.raises(BadDuration):
        duration_of(text)


def test_until_text() -> None:
    assert until_text(math.inf) == "for ever"
    assert until_text(0) == "until 1970-01-01 00:00 UTC"
