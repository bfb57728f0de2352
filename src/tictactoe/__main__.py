"""`python -m tictactoe` runs the game."""

from __future__ import annotations

from tictactoe.cli import main

raise SystemExit(main())
