"""Words on screen at every supported size: the status line breaks between phrases,
never inside one, and the footer keeps the game's keys at the smallest size."""

from __future__ import annotations

from typing import Final

import pytest
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Footer

from app.conftest import Driver, Start, painted
from limits import eventually
from tictactoe.core.notices import SLOTS
from tictactoe.tui.screens.game import KEY_WORDS, GameScreen
from tictactoe.tui.widgets.status import Phrase, lay_out
from tictactoe.tui.widgets.too_small import MIN_HEIGHT, MIN_WIDTH

SIZES: Final = [(MIN_WIDTH, MIN_HEIGHT), (MIN_WIDTH, 28), (60, 20), (79, 24), (80, 24), (100, 32)]
"""The smallest size, each side of the app's breakpoints, and a roomy one."""

LONG: Final = "W" * 60

_PHRASE_ENDS: Final = (".", "!", "?", "…", ":", "to move", "next match", "n: next", "q: quit")
"""How a line of the status may end: a sentence, a clause, or a key hint of the "·" list."""


def status_lines(ui: Driver) -> list[str]:
    lines = [line.strip() for line in painted(ui.game.query_one("#status")).splitlines()]
    return [line for line in lines if line]


def assert_whole_phrases(ui: Driver, what: str) -> list[str]:
    lines = status_lines(ui)
    assert lines, what
    for line in lines:
        assert line.endswith(_PHRASE_ENDS), f"{what}: {lines}"
        assert not line.startswith(("·", ".")), f"{what}: {lines}"
    return lines


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_the_status_line_breaks_between_phrases_at_every_size(
    start: Start, size: tuple[int, int]
) -> None:
    async with start(size=size, player1=LONG, player2="Bob") as ui:
        assert_whole_phrases(ui, "choosing")
        await ui.press("x")
        assert_whole_phrases(ui, "to move")
        await ui.press("7", "7")
        assert_whole_phrases(ui, "a taken cell")
        await ui.press("h")
        assert_whole_phrases(ui, "a hint")
        await ui.press("4", "8", "5", "9")
        assert_whole_phrases(ui, "a win")
        await ui.press("5")
        lines = assert_whole_phrases(ui, "a key after the match")
        if size == (100, 32):
            assert lines == ["This match is over:", "press n or Enter for the next one."]
        await ui.press("h")
        assert_whole_phrases(ui, "a hint after the match")
        await ui.press("n", "o", "5", "1", "9", "3", "7", "8", "4", "6", "2")
        assert ui.series.finished and ui.series.winner is None
        assert_whole_phrases(ui, "a draw")


def test_a_phrase_too_long_for_its_line_takes_a_shorter_wording() -> None:
    over = [Phrase(("This match is over:",)), Phrase(("press n or Enter for the next one.",))]
    assert lay_out(over, 60, 2) == "This match is over: press n or Enter for the next one."
    assert lay_out(over, 47, 2) == "This match is over:\npress n or Enter for the next one."
    assert lay_out(over, 24, 2) == lay_out(over, 34, 1) == lay_out(over, 24, 1)
    keys = [Phrase(("Ada wins!",)), Phrase(("n or Enter: next match", "n: next"), "\n")]
    assert lay_out(keys, 47, 2) == "Ada wins!\nn or Enter: next match"
    assert lay_out(keys, 20, 2) == "Ada wins!\nn: next"


def test_every_slot_a_notice_may_leave_is_filled_by_the_game_screens_keys() -> None:
    assert set(KEY_WORDS) == set(SLOTS)
    bindings = [binding for binding in GameScreen.BINDINGS if isinstance(binding, Binding)]
    bound = {key for binding in bindings for key in binding.key.split(",")}
    for keys in KEY_WORDS.values():
        assert {key.lower() for key in keys} <= bound


async def footer_keys(ui: Driver, first: str) -> tuple[Footer, list[Widget], list[str]]:
    """The footer and its keys (the palette's aside) once its first key reads `first`: the
    footer is made again with the keys on offer after a frame."""
    footer = ui.game.query_one(Footer)

    def offered() -> tuple[list[Widget], list[str]]:
        keys = [key for key in footer.query("FooterKey") if not key.has_class("-command-palette")]
        return keys, [" ".join(painted(key).split()) for key in keys]

    await eventually(lambda: offered()[1][:1] == [first], lambda: offered()[1], f"{first} first")
    return footer, *offered()


async def test_the_footer_shows_the_games_keys_at_the_smallest_size(start: Start) -> None:
    async with start(size=(MIN_WIDTH, MIN_HEIGHT), player1="Ada", player2="Bob") as ui:
        await ui.press("x")
        footer, keys, shown = await footer_keys(ui, "u Undo")
        assert shown == ["u Undo", "h Hint", "s Record", "? Help", "q Quit"]
        await ui.press("7", "4", "8", "5", "9")  # once a match is over, n instead of u and h
        footer, keys, shown = await footer_keys(ui, "n Next match")
        assert shown == ["n Next match", "s Record", "? Help", "q Quit"]
        palette = [key for key in footer.query("FooterKey") if key.has_class("-command-palette")]
        right = min([key.region.x for key in palette if key.display] + [MIN_WIDTH])
        for key in keys:
            assert key.region.right <= right, f"{painted(key)!r} is cut off"


@pytest.mark.parametrize(
    "size", [(60, 20), (MIN_WIDTH, MIN_HEIGHT)], ids=lambda s: f"{s[0]}x{s[1]}"
)
async def test_the_footer_keeps_the_palette_s_key_in_a_small_terminal(
    start: Start, size: tuple[int, int]
) -> None:
    """^p is the one way to the palette (the settings, the themes, the line mode) a player sees:
    below 80 columns it made way for the game's keys, though they all fit beside it."""
    async with start(size=size, player1="Ada", player2="Bob") as ui:
        await ui.press("x")
        for first, moves in (("u Undo", ()), ("n Next match", ("7", "4", "8", "5", "9"))):
            await ui.press(*moves)
            footer, keys, _ = await footer_keys(ui, first)
            palette = [
                key for key in footer.query("FooterKey") if key.has_class("-command-palette")
            ]
            shown = [" ".join(painted(key).split()) for key in palette if key.display]
            assert len(shown) == 1 and shown[0].endswith("^p palette"), (first, shown)
            right = min(key.region.x for key in palette)
            for key in keys:
                assert key.region.right <= right, f"{painted(key)!r} is cut off by ^p"
