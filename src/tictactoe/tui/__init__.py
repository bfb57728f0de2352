"""The full-screen game: Textual's own widgets over the core, at a table.

- `app`: `TicTacToeApp`, its stylesheet `app.tcss`, its keys and its ways out;
  `online_app`: `OnlineApp`, one seat of a series online (joining, the link, the invitation);
- `table`: the seam between a view and wherever the series lives (`Table`, `View`), and
  `LocalTable` (the series in this process, the computer's pause); `seat_table`: `SeatTable`,
  a seat whose series lives in the host's authority;
- `screens`: the game, the dialogs, help, the record and the replay, the online screens;
- `widgets`: the board, the scoreboard, the status line, the moves, and their helpers.

Only this package and `tictactoe.adapters` import Textual.
"""
