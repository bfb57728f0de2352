"""Codes: 30 bits from an alphabet without look-alikes; five wrong ones a minute per address."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from tictactoe.core.codes import ALPHABET, CODE_LENGTH, new_code, normalise_code
from tictactoe.doors.throttle import Throttle


def test_a_code_carries_at_least_30_bits_with_no_look_alikes() -> None:
    assert CODE_LENGTH * math.log2(len(set(ALPHABET))) >= 30
    assert not set("01IO") & set(ALPHABET)
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200
    assert all(normalise_code(code) == code for code in codes)


@given(st.text(max_size=12))
def test_normalise_accepts_only_codes(text: str) -> None:
    code = normalise_code(text)
    assert code is None or (len(code) == CODE_LENGTH and set(code) <= set(ALPHABET))


def test_a_code_may_be_typed_in_lower_case_with_a_dash() -> None:
    assert normalise_code(" k7m-4qx ") == "K7M4QX"
    assert normalise_code("K7M4Q0") is None


def test_past_five_wrong_codes_in_a_minute_an_address_is_answered_late() -> None:
    now = [0.0]
    throttle = Throttle(limit=5, window=60, delay=10, clock=lambda: now[0])
    for _ in range(5):
        assert throttle.penalty("10.0.0.9") == 0
        assert throttle.failed("10.0.0.9") == 0
        now[0] += 1
    assert throttle.penalty("10.0.0.9") == 10
    assert throttle.failed("10.0.0.9") == 10
    assert throttle.penalty("10.0.0.8") == 0
    now[0] = 61.5
    assert throttle.penalty("10.0.0.9") == 0


def test_an_ipv6_network_counts_as_one_address_and_ipv4_as_itself() -> None:
    throttle = Throttle(limit=2)
    throttle.failed("2001:db8:1:2::1")
    throttle.failed("2001:db8:1:2:ffff::9")
    assert throttle.penalty("2001:db8:1:2::77") > 0
    assert throttle.penalty("2001:db8:1:3::1") == 0
    assert Throttle.network("::ffff:10.0.0.9") == "10.0.0.9"
    assert Throttle.network("2001:db8:1:2::1") == "2001:db8:1:2::/64"


def test_the_throttle_forgets_the_oldest_addresses_past_its_bound() -> None:
    throttle = Throttle(limit=1, max_addresses=3)
    for address in ("10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"):
        throttle.failed(address)
    assert throttle.penalty("10.0.0.1") == 0
    assert throttle.penalty("10.0.0.4") > 0
