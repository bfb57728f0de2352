"""The authority's link: one series' authority served over websockets, and a seat's end of it.

The host's series (`tictactoe.host`) and each of a club's tables (`tictactoe.club`) serve their
authority the same way; the rules and the messages stay pure in `tictactoe.online`.

- `served`: one authority's links, what each may say and what each is sent (`AuthorityLinks`);
- `links`: one link and what waits to be sent to it (`Link`);
- `server`: where links are served: many authorities on one port, a path each (`LinkServer`, a
  club's tables), or one on a port of its own (`AuthorityServer`, the host's series);
- `host_link`: the host's own seat's link in this process (`HostLink`);
- `client`: a seat's link to the authority over its websocket (`AuthorityLink`).
"""
