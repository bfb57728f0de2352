"""Online play's pure part: the authority of a shared series and the messages that reach it.

No socket, no clock of its own: `tictactoe.link` serves it, `tictactoe.play.seat_table` speaks
to it, and `tests/unit/test_core_is_pure.py` fences this folder as it fences `tictactoe.core`.

- `authority`: who holds which seat, and the one place the shared series changes;
- `protocol`: the messages between a seat's game process and the authority, as values;
- `wire`: how they travel (versioned JSON text frames), read with `schema`'s strict kit.
"""
