"""Random input against the real app, checked after every input or burst (engine: fuzzing.py).

600 events a run by default: 150 in hot seat and 150 against each computer level,
from a fixed seed so that CI is repeatable, with bursts of type-ahead and, against the
computer, input while it thinks. Choose others with the environment:

    TICTACTOE_FUZZ_SEED=7 TICTACTOE_FUZZ_EVENTS=2000 uv run pytest tests/app/test_fuzz.py

(TICTACTOE_FUZZ_EVENTS counts the events of each of the four ways to play.) A failure
names its seed and input, and the command that replays it. The session summary prints
how many events and bursts ran, and how often a check met one of the app's bugs listed
in `fuzzing.KNOWN_BUGS` (counted there until fixed, not failed).
"""

from __future__ import annotations

import os
from typing import Final

import pytest

from app.fuzzing import CONFIGS, FuzzFailure, fuzz

SEED: Final = int(os.environ.get("TICTACTOE_FUZZ_SEED", "20261121"))
EVENTS: Final = int(os.environ.get("TICTACTOE_FUZZ_EVENTS", "150"))


@pytest.mark.parametrize("name", list(CONFIGS), ids=lambda name: name.replace(" ", "_"))
async def test_random_input_never_breaks_the_board_or_the_score(name: str) -> None:
    try:
        report = await fuzz(SEED, EVENTS, CONFIGS[name])
    except FuzzFailure as failure:
        events = failure.report.events if failure.report else EVENTS
        replay = (
            f"replay: TICTACTOE_FUZZ_SEED={SEED} TICTACTOE_FUZZ_EVENTS={events} "
            f"uv run pytest tests/app/test_fuzz.py -k {name.replace(' ', '_')}"
        )
        message = f"{failure}\n{replay}"
    else:
        assert report.events == EVENTS
        if EVENTS >= 150:  # (fewer may by chance miss a kind)
            assert report.kinds.keys() == {"key", "click", "resize"}
            assert report.bursts > 0
            if CONFIGS[name].level is not None:
                assert report.during_pause > 0
        return
    pytest.fail(message, pytrace=False)  # outside the except: no chained traceback


async def test_seed_22_a_resize_after_a_burst_leaves_no_mark_drawn_for_an_empty_room() -> None:
    """Found by the fuzz test (seed 22, after 163 inputs: a burst, then a resize to 51x28): the
    cells drew their marks for a room 0 cells wide once the board's columns had changed, as a
    cell's new size came after the board's own resize. Replayed as it was found."""
    await fuzz(22, 170, CONFIGS["hot seat"])
