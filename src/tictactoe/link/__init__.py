"""The authority's link: one series' authority served over websockets, and a seat's end of it.

The host's series (`tictactoe.host`) and each of a club's tables (`tictactoe.club`) serve their
authority the same way; the rules and the messages stay pure in `tictactoe.online`.

- `server`: the authority over a loopback websocket (`AuthorityServer`), and the host's own
  seat's link in this process (`HostLink`);
- `client`: a seat's link to the authority over its websocket (`AuthorityLink`).
"""
