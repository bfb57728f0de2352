"""`tictactoe host`: the authority of one series, served to its seats, and the doors opened.

- `hosting`: `Hosting`, the composition of a hosted series: its code, the authority's server,
  the doors and the relay, and the host's log;
- `server`: the authority over a loopback websocket (`AuthorityServer`), and the host's own
  seat's link in this process (`HostLink`);
- `client`: a seat's link to the authority (`AuthorityLink`);
- `invitation`: the lines a friend joins by, and from where each works.
"""
