"""What start-up draws first."""

from __future__ import annotations

from app.conftest import HOT_SEAT, SIZE, make_config, painted
from tictactoe.tui.app import TicTacToeApp
from tictactoe.tui.widgets.scoreboard import PlayerCard


async def test_keys_typed_at_launch_leave_the_scoreboard_drawn() -> None:
    """The mark and two moves typed at once, as the game starts: the scoreboard shows both
    players."""
    app = TicTacToeApp(make_config(**HOT_SEAT))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x", "5", "1")
        await pilot.pause()
        text = "\n".join(painted(card) for card in app.screen.query(PlayerCard))
        assert "Ada" in text and "Bob" in text, text
