"""The full-screen game: Textual's own widgets over the core, at a table (`tictactoe.play`).

- `app`: `TicTacToeApp`, its stylesheet `app.tcss`, its keys and its ways out;
  `online_app`: `OnlineApp`, one seat of a series online (joining, the link, the invitation);
  `club_app`: a seat at a club's table, and its lobby;
- `screens`: the game, the dialogs, help, the record and the replay, the online screens;
- `widgets`: the board, the scoreboard, the status line, the moves, and their helpers.

Only this package and `tictactoe.adapters` import Textual.
"""
