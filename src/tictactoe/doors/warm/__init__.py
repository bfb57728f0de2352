"""Games started from a warm parent: a process that has imported a game's modules once, and forks
a copy of itself for each session instead of starting a fresh interpreter.

A fresh interpreter per game costs every session its own copy of every module; a fork shares them
with the warm parent until written to (`benchmarks/README.md`, "Memory per player"). Each game is
still a process of its own (a crash or a hang touches one person), started as `TerminalGame`
starts one by exec:

- the door's side (`door_side`: `WarmParent`) starts the warm parent (`python -m
  tictactoe.doors.warm`), and sends it, over a Unix socket, each game's request: the slave end of
  the game's new pseudo-terminal (`SCM_RIGHTS`), the game's argv and environment, and one end of
  a socket of the game's own. It waits for the game's exit status there (`WarmGame.wait`) and
  signals the game's process group itself, as it does a game it started by exec;
- the warm parent (`parent`) imports the modules it is given, starts no thread and plays nothing,
  freezes what it made (`gc.freeze`: the collector of a child never writes to those objects),
  forks a child for each request, says the child's pid on the game's socket, and later its exit
  status (the warm parent, not the door, reaps it). It ends once the door has closed its socket
  and the games it started have ended;
- the child (`child`) leads a new session, takes the terminal as its controlling terminal and
  its standard streams, takes the environment and runs the argv's module as `python -m MODULE
  ARGS` would;
- `merging` lets the kernel merge the warm parent's pages and its games' with identical ones,
  where KSM is on, and says whether the machine's owner has left it off.

Only `python -m MODULE ...` of the door's own interpreter can be started warm; anything else, or a
warm parent that is not there, is started by exec (`WarmParent.spawn` falls back by itself).
"""

from tictactoe.doors.warm.door_side import WarmGame, WarmParent
from tictactoe.doors.warm.merging import KSM_RUN, merging_off

__all__ = ["KSM_RUN", "WarmGame", "WarmParent", "merging_off"]
