"""Codes: 30 bits from an alphabet without look-alikes; five wrong ones a minute per address."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from tictactoe.online.codes import ALPHABET, CODE_LENGTH, Throttle, new_code, normalise_code


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


def test_five_wrong_codes_in_a_minute_make_an_address_wait() -> None:
    now = [0.0]
    throttle = Throttle(limit=5, window=60, clock=lambda: now[0])
    for _ in range(5):
        assert throttle.allowed("10.0.0.9")
        throttle.failed("10.0.0.9")
        now[0] += 1
    assert not throttle.allowed("10.0.0.9")
    assert throttle.allowed("10.0.0.8")
    assert 0 < throttle.wait("10.0.0.9") <= 60
    now[0] = 60.5
    assert throttle.allowed("10.0.0.9")


def test_the_throttle_forgets_the_oldest_addresses_past_its_bound() -> None:
    throttle = Throttle(limit=1, max_addresses=3)
    for address in ("a", "b", "c", "d"):
        throttle.failed(address)
    assert throttle.allowed("a")
    assert not throttle.allowed("d")
