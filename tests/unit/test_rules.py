"""The variant seam: each variant starts its own positions, says and writes its moves, and
plays its computer; classic's are the engine's own states."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tictactoe.core.ai import Level
from tictactoe.core.engine import GameState, IllegalMove, Mark
from tictactoe.core.rules import CLASSIC, ULTIMATE, VARIANTS, Variant, variant
from tictactoe.core.ultimate import UltimateState


def test_variants_by_name() -> None:
    assert variant("classic") is CLASSIC and variant("ultimate") is ULTIMATE
    assert list(VARIANTS) == ["classic", "ultimate"]
    with pytest.raises(ValueError, match="there is no variant 'chess': choose classic or ultimate"):
        variant("chess")


def test_each_variant_starts_its_own_positions() -> None:
    assert CLASSIC.new() == GameState.new()
    assert isinstance(CLASSIC.new(), GameState)
    assert CLASSIC.new(Mark.O) == GameState.new(Mark.O)
    assert ULTIMATE.new() == UltimateState.new()
    assert ULTIMATE.new(Mark.O).to_move is Mark.O
    assert (CLASSIC.cells, ULTIMATE.cells) == (9, 81)
    assert len(CLASSIC.new().legal_moves()) == 9 and len(ULTIMATE.new().legal_moves()) == 81
    assert CLASSIC.levels == ULTIMATE.levels == (Level.EASY, Level.MEDIUM, Level.HARD)


def test_moves_in_words() -> None:
    assert CLASSIC.move_words(4) == "the centre"
    assert CLASSIC.short_move_words(0) == "top-left"
    assert ULTIMATE.move_words(36) == "the top-left of the centre board"
    assert ULTIMATE.short_move_words(36) == "centre board, top-left"


def test_classic_moves_are_written_as_today() -> None:
    assert CLASSIC.write_moves((4, 0, 2, 1)) == "4021"
    assert CLASSIC.read_moves("4021") == (4, 0, 2, 1)
    assert ULTIMATE.write_moves((40, 36, 4)) == "444004"
    assert ULTIMATE.read_moves("444004") == (40, 36, 4)
    for bad in ("9", "4a"):
        with pytest.raises(IllegalMove, match="is not a list of"):
            CLASSIC.read_moves(bad)
    with pytest.raises(IllegalMove, match="is not a list of Ultimate moves"):
        ULTIMATE.read_moves("444")


@given(st.data())
def test_a_game_written_and_read_back_is_the_same_game(data: st.DataObject) -> None:
    for rules in (CLASSIC, ULTIMATE):
        state = rules.new()
        while not state.is_over and data.draw(st.booleans()):
            state = state.play(data.draw(st.sampled_from(state.legal_moves())))
        text = rules.write_moves(state.moves)
        assert len(text) == len(state.moves) * rules.digits_a_move
        assert rules.replay(rules.read_moves(text)) == state


@pytest.mark.parametrize("rules", [CLASSIC, ULTIMATE], ids=lambda rules: rules.name)
def test_each_variant_plays_its_computer(rules: Variant) -> None:
    state = rules.new().play(4)
    for level in rules.levels:
        assert rules.choose_move(state, level, random.Random(1)) in state.legal_moves()
