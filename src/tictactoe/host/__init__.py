"""`tictactoe host`: the authority of one series, served to its seats, and the doors opened.

- `hosting`: `Hosting`, the composition of a hosted series: its code, the authority's server
  (`tictactoe.link`), the doors and the relay, and the host's log;
- `invitation`: the lines a friend joins by, and from where each works.
"""
