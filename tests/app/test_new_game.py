"""The new-game screen, and names: defaults, clashes, markup and control characters."""

from __future__ import annotations

import unicodedata

import pytest
from rich.cells import cell_len
from textual import events
from textual.widgets import Footer, Input, RadioButton

from app.conftest import Driver, Start, inside, painted, running_until
from tictactoe.core.ai import Level
from tictactoe.core.engine import Mark
from tictactoe.core.names import clean_name
from tictactoe.options import parse_config
from tictactoe.tui.screens.mark_choice import MarkChoiceScreen
from tictactoe.tui.screens.new_game import NewGameScreen


def error_text(ui: Driver) -> str:
    return ui.top_text("#new-error")


async def test_names_typed_and_enter_start_the_match_from_the_keyboard(start: Start) -> None:
    async with start() as ui:
        assert isinstance(ui.app.screen, NewGameScreen)
        assert ui.app.game_screen is None
        await ui.press(*"Al", "tab", *"Bo", "enter")
        await ui.pilot.pause()

        assert isinstance(ui.app.screen, MarkChoiceScreen)
        assert ui.top_text("#question") == "Al, choose your mark"
        assert [player.name for player in ui.series.players] == ["Al", "Bo"]
        assert not any(player.is_computer for player in ui.series.players)
        assert ui.card(1).startswith("Bo |")


async def test_names_typed_before_the_game_is_up_start_it_too(start: Start) -> None:
    """Keys typed while the game starts reach the terminal before Textual takes it over:
    the terminal then still turns Enter into a newline, which arrives as Ctrl+J."""
    async with start() as ui:
        await ui.press(*"Al", "tab", *"Bo", "ctrl+j", "x", "5")
        await ui.pilot.pause()

        assert [player.name for player in ui.series.players] == ["Al", "Bo"]
        assert ui.cell(4).mark is Mark.X


async def test_empty_names_become_the_defaults(start: Start) -> None:
    async with start() as ui:
        await ui.click("#start")
        await ui.pilot.pause()
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        assert ui.top_text("#question") == "Player 1, choose your mark"
        assert ui.card(0).startswith("Player 1 |")
        assert ui.card(1).startswith("Player 2 |")


async def test_equal_names_are_refused_inline_and_the_screen_stays(start: Start) -> None:
    async with start() as ui:
        await ui.press(*"Al", "tab", *"al", "enter")
        await ui.pilot.pause()

        assert isinstance(ui.app.screen, NewGameScreen)
        assert ui.app.game_screen is None
        assert "must differ" in error_text(ui)
        assert ui.app.focused is ui.app.screen.query_one("#name-2", Input)

        await ui.press("backspace", "backspace", *"Bo", "enter")
        await ui.pilot.pause()
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        assert [player.name for player in ui.series.players] == ["Al", "Bo"]


async def test_computer_hard_chosen_from_the_keyboard(start: Start) -> None:
    async with start() as ui:
        await ui.press(*"Ann", "tab", "tab")  # past the second name, onto the opponents
        await ui.press("down", "down", "down", "enter")
        name_2 = ui.app.screen.query_one("#name-2", Input)
        assert name_2.disabled
        assert name_2.placeholder == "Computer"
        await ui.press("tab", "enter")  # the disabled name is skipped: Start has focus
        await ui.pilot.pause()

        assert isinstance(ui.app.screen, MarkChoiceScreen)
        computer = ui.series.players[1]
        assert (computer.name, computer.level) == ("Computer", Level.HARD)
        assert ui.card(1).startswith("Computer |")
        assert "hard" in ui.card(1)


async def test_computer_hard_chosen_with_clicks(start: Start) -> None:
    async with start() as ui:
        await ui.click("#vs-hard")
        await ui.click("#start")
        await ui.pilot.pause()

        assert isinstance(ui.app.screen, MarkChoiceScreen)
        assert ui.top_text("#question") == "Player 1, choose your mark"
        assert ui.series.players[1].level is Level.HARD
        assert ui.series.players[1].name == "Computer"


async def test_a_person_may_be_called_computer_against_the_computer(start: Start) -> None:
    async with start() as ui:
        await ui.click("#vs-easy")
        await ui.click("#name-1")
        await ui.press(*"Computer", "enter")
        await ui.pilot.pause()
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        person, computer = ui.series.players
        assert (person.name, person.is_computer) == ("Computer", False)
        assert (computer.name, computer.level) == ("Computer", Level.EASY)


def test_equal_names_on_the_command_line_exit_with_status_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_config(["--player1", "Ada", "--player2", "ada"])
    assert exit_info.value.code == 2
    assert "must differ" in capsys.readouterr().err


MARKUP_NAME = "[bold]Eve[/]"


async def test_a_markup_name_is_shown_literally_everywhere(start: Start) -> None:
    async with start(player1=MARKUP_NAME, player2="[red]Bob") as ui:
        assert ui.top_text("#question") == f"{MARKUP_NAME}, choose your mark"
        await ui.press("x", "7", "4", "8", "5", "9")

        assert ui.card(0).startswith(f"★ {MARKUP_NAME} |")
        assert ui.card(1).startswith("[red]Bob |")
        assert ui.status().startswith(f"{MARKUP_NAME} wins!")


async def test_control_characters_are_removed_from_names(start: Start) -> None:
    async with start(player1="E\x1b[31mve\x07", player2="Bo\tb\x00") as ui:
        assert ui.top_text("#question") == "E[31mve, choose your mark"
        await ui.press("x")
        assert ui.card(0).startswith("▶ E[31mve |")
        assert ui.card(1).startswith("Bo b |")
        assert not any(char in ui.status() for char in "\x1b\x07\x00")


async def test_a_long_name_is_shortened_with_an_ellipsis(start: Start) -> None:
    async with start(player1="Bartholomew " * 6, player2="Bob") as ui:
        await ui.press("x")
        name = ui.card(0).split(" | ")[0]
        assert name.startswith("▶ Bartholomew")
        assert name.endswith("…")
        assert len(name) < 40


async def test_a_long_name_does_not_crowd_out_the_board(start: Start) -> None:
    """The command line keeps names up to 1000 characters; the status line must shorten them."""
    async with start(player1="A" * 1000, player2="Bob") as ui:
        await ui.press("x")
        assert ui.game.query_one("#status").region.height <= 2
        assert "…" in ui.status()
        assert all(ui.cell(cell).region.height >= 3 for cell in range(9))


def field(ui: Driver, number: int) -> Input:
    return ui.app.screen.query_one(f"#name-{number}", Input)


def opponent(ui: Driver) -> Level | None:
    screen = ui.app.screen
    assert isinstance(screen, NewGameScreen)
    return screen.level


@pytest.mark.parametrize(
    ("argv", "name_1", "name_2", "level"),
    [
        ([], "", "", None),
        (["--vs", "computer"], "", "", Level.MEDIUM),
        (["--level", "hard"], "", "", Level.HARD),
        (["--vs", "computer", "--level", "easy"], "", "", Level.EASY),
        (["--player1", "Ada"], "Ada", "", None),
        (["--player2", "Bob"], "", "Bob", None),
        (["--vs", "person", "--player2", "Bob"], "", "Bob", None),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else "",
)
async def test_the_new_game_screen_starts_from_what_the_command_line_said(
    start: Start, argv: list[str], name_1: str, name_2: str, level: Level | None
) -> None:
    config = parse_config(argv)
    async with start(player1=config.player1, player2=config.player2, level=config.level) as ui:
        assert isinstance(ui.app.screen, NewGameScreen)
        assert (field(ui, 1).value, field(ui, 2).value, opponent(ui)) == (name_1, name_2, level)
        assert field(ui, 2).disabled is (level is not None)
        assert field(ui, 2).placeholder == ("Player 2" if level is None else "Computer")


async def test_a_name_from_the_command_line_is_the_one_played_with(start: Start) -> None:
    async with start(player1="Ada") as ui:
        await ui.press("tab", *"Bob", "enter")
        await ui.pilot.pause()

        assert isinstance(ui.app.screen, MarkChoiceScreen)
        assert [player.name for player in ui.series.players] == ["Ada", "Bob"]


async def test_a_level_from_the_command_line_is_the_computer_played_against(start: Start) -> None:
    async with start(level=Level.HARD) as ui:
        await ui.press(*"Ada", "enter")
        await ui.pilot.pause()

        assert isinstance(ui.app.screen, MarkChoiceScreen)
        first, second = ui.series.players
        assert first.name == "Ada"
        assert (second.name, second.level) == ("Computer", Level.HARD)


LOOK_THE_SAME = {
    "a zero-width joiner": ("Ada", "Ada\u200d"),
    "José typed two ways": ("Jos\u00e9", "Jose\u0301"),
    "only the case": ("a", "A"),
}
"""Pairs of names a person could not tell apart on screen."""


@pytest.mark.parametrize(("first", "second"), LOOK_THE_SAME.values(), ids=LOOK_THE_SAME.keys())
def test_names_that_look_the_same_are_refused_on_the_command_line_in_one_sentence(
    capsys: pytest.CaptureFixture[str], first: str, second: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_config(["--player1", first, "--player2", second])
    assert exit_info.value.code == 2
    said = capsys.readouterr().err
    assert said.startswith(f"tictactoe: error: The two names must differ: {first!r} and ")
    assert said.endswith(" look the same.\n") and said.count("differ") == 1


def test_the_refusal_quotes_the_names_as_typed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_config(["--player1", "a", "--player2", "A"])
    assert capsys.readouterr().err == (
        "tictactoe: error: The two names must differ: 'a' and 'A' look the same.\n"
    )


@pytest.mark.parametrize(("first", "second"), LOOK_THE_SAME.values(), ids=LOOK_THE_SAME.keys())
async def test_names_that_look_the_same_are_refused_on_the_new_game_screen(
    start: Start, first: str, second: str
) -> None:
    async with start() as ui:
        for number, name in enumerate((first, second), start=1):  # pasted: invisible ones too
            field(ui, number).post_message(events.Paste(name))
        await ui.pilot.pause()
        await ui.press("enter")
        await ui.pilot.pause()

        assert isinstance(ui.app.screen, NewGameScreen)
        assert ui.app.game_screen is None
        assert (field(ui, 1).value, field(ui, 2).value) == (first, second)
        said = " ".join(error_text(ui).split())  # as painted, line breaks aside
        assert said.startswith(f"The two names must differ: {first!r} and ")
        assert said.endswith(" look the same.") and said.count("differ") == 1


async def test_the_screen_says_it_once_too(start: Start) -> None:
    async with start() as ui:
        await ui.press("a", "tab", "A", "enter")
        await ui.pilot.pause()
        said = " ".join(error_text(ui).split())
        assert said == "The two names must differ: 'a' and 'A' look the same."


LONG_NAMES = {
    "a long name": "Bartholomew Fitzwilliam " * 4,
    "a thousand letters": "A" * 1000,
    "wide characters": "山田太郎" * 8,
    "wide, cut mid-way": "a" + "字" * 40,
    "an emoji sequence": "👩\u200d💻" * 12,
}


@pytest.mark.parametrize("size", [(100, 32), (50, 16)], ids=["comfortable", "smallest"])
@pytest.mark.parametrize("name", LONG_NAMES.values(), ids=LONG_NAMES.keys())
async def test_the_mark_dialog_keeps_its_question_whole_and_shortens_the_name(
    start: Start, name: str, size: tuple[int, int]
) -> None:
    async with start(size=size, player1=name, player2="Bob") as ui:
        assert isinstance(ui.app.screen, MarkChoiceScreen)
        question = ui.app.screen.query_one("#question")
        lines = [line.strip() for line in inside(question)]

        assert len(lines) == 1
        assert lines[0].endswith("…, choose your mark")
        assert cell_len(lines[0]) <= question.content_size.width
        assert name.startswith(lines[0].removesuffix("…, choose your mark"))


async def test_the_opponent_list_starts_at_the_level_the_command_line_chose(start: Start) -> None:
    async with start(level=Level.HARD) as ui:
        await ui.press("tab")  # the computer's name is not asked: on to the opponents
        assert ui.app.focused is ui.app.screen.query_one("#opponent")
        await ui.press("enter")
        assert opponent(ui) is Level.HARD
        await ui.press("up", "enter")
        assert opponent(ui) is Level.MEDIUM


MARKS = "".join(chr(point) for point in range(0x300, 0x319))
"""Twenty-five combining marks: piled on a letter, as in "Zalgo" text."""
ZALGO = "".join(letter + MARKS for letter in "Zalgo")
"""Five letters in 130 code points."""


@pytest.mark.parametrize("how", ["typed", "pasted"])
async def test_a_zalgo_name_keeps_its_visible_letters(start: Start, how: str) -> None:
    async with start() as ui:
        if how == "typed":
            await ui.burst(*ZALGO)  # as a terminal sends them: one character a key
        else:
            field(ui, 1).post_message(events.Paste(ZALGO))
            await ui.pilot.pause()
        assert field(ui, 1).value == ZALGO, "the field keeps every mark typed"
        await ui.press("enter")
        name = ui.series.players[0].name
        assert name == clean_name(ZALGO, "") == unicodedata.normalize("NFC", ZALGO)
        letters = unicodedata.normalize("NFD", name)
        assert "".join(char for char in letters if not unicodedata.combining(char)) == "Zalgo"


@pytest.mark.parametrize(
    "size", [(80, 24), (60, 20), (50, 16)], ids=lambda size: f"{size[0]}x{size[1]}"
)
@pytest.mark.parametrize("refused", [False, True], ids=["", "refused"])
async def test_the_whole_form_fits_start_and_every_opponent_included(
    start: Start, size: tuple[int, int], refused: bool
) -> None:
    async with start(size=size) as ui:
        if refused:
            await ui.press(*"Ada", "tab", *"ada", "ctrl+s")
            assert error_text(ui)
        await ui.pilot.pause()
        form = ui.app.screen.query_one("#new-game")
        assert form.max_scroll_y == 0, (size, form.virtual_size, form.size)
        footer = ui.app.screen.query_one(Footer)
        assert form.region.bottom <= footer.region.y
        for widget in (*ui.app.screen.query(RadioButton), ui.app.screen.query_one("#start")):
            assert form.region.contains_region(widget.region), widget


async def test_the_footer_keeps_the_palette_key_where_it_has_room(start: Start) -> None:
    async with start(size=(60, 20)) as ui:

        def shown() -> str:
            keys = ui.app.screen.query_one(Footer).query("*")
            return " ".join(" ".join(painted(key).split()) for key in keys if key.display)

        await running_until(ui, lambda: "^p palette" in shown(), "^p palette", shown)


async def test_the_choices_say_which_is_chosen_without_colour(start: Start) -> None:
    """A plain capture, a braille display or a terminal without colour reads ● on the chosen
    option of each row and ○ on the others, as it changes."""

    def marks() -> dict[str, str]:
        return {
            str(button.id): painted(button).strip()[1]
            for button in ui.app.screen.query(RadioButton)
            if button.display
        }

    async with start() as ui:
        shown = marks()
        assert shown["game-classic"] == "●" and shown["game-ultimate"] == "○", shown
        assert [shown[key] for key in ("vs-person", "vs-easy", "vs-medium", "vs-hard")] == [
            "●",
            "○",
            "○",
            "○",
        ], shown
        await ui.click("#vs-hard")
        await ui.click("#game-ultimate")
        shown = marks()
        assert (shown["vs-person"], shown["vs-hard"]) == ("○", "●"), shown
        assert (shown["game-classic"], shown["game-ultimate"]) == ("○", "●"), shown
