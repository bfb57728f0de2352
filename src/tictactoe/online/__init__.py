"""Online play: one host process holds the series; seats and watchers join through its doors.

- `codes`: the series' code, and the throttle on wrong codes;
- `protocol`: the messages between a seat's game process and the authority, as values;
  `wire`: how they travel (versioned JSON text frames), read with `schema`'s strict kit;
- `authority`: who holds which seat, and the one place the shared series changes;
- `server` and `client`: the authority's link over a loopback websocket;
- `relay`: a port of an SSH server the host can log into, forwarded to the SSH door
  (`tictactoe.doors.ssh`);
- `invitation`: the lines a friend joins by, and from where each works.
"""
