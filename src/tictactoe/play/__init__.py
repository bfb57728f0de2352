"""The tables a game is played at, by the full-screen view (`tui`) and the line view (`lines`).

A view hands its table intents and shows what the table tells it; where the series lives is the
table's business. Nothing here draws or reads a key, so a view that loads no Textual plays here too.

- `table`: the seam between a view and wherever the series lives (`Table`, `View`), and
  `LocalTable` (the series in this process, the computer's pause);
- `seat_table`: `SeatTable`, one seat of a series that lives in the host's authority, through its
  link (`SeatLink`);
- `joining`: how a seat reaches an online series (`JoinSetup`), and how long it waits for a name.
"""
