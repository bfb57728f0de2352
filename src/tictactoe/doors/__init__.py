"""The doors a person comes in by, for `tictactoe serve` and `tictactoe host` alike.

- `ssh`: plain `ssh` opens a game process per terminal session;
- `web`: a browser tab gets a game process of its own, through textual-serve's page;
- `relay`: a port of an SSH server the host can log into, forwarded to the SSH door
  (`relay_target`: the relay asked for);
- `throttle`: how many wrong codes a network may try; `bounds`: what either door takes from a
  client, and how much; `log`: the doors' bounded log; `addresses`: this machine's addresses.

The doors import nothing of `tictactoe.online` or `tictactoe.host`: what they need of a series
(is a code right?) is handed to them.
"""
