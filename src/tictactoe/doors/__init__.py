"""The doors a person comes in by, for `tictactoe serve` and `tictactoe host` alike.

- `ssh`: plain `ssh` opens a game process per terminal session;
- `web`: a browser tab gets a game process of its own, through textual-serve's page;
- `bounds`: what either door takes from a client, and how much.
"""
