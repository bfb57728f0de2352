"""The pure core: every rule of the game and of a series, and the words they are said in.

Nothing here knows a screen, a file, a socket or a clock it was not handed: each module is
pure and immutable, imports nothing from Textual, Rich's console, aiohttp, asyncssh, sqlite3,
sockets or subprocesses (`tests/unit/test_core_is_pure.py` fences the folder), and every
transition is `state -> new state`.

- `rules`: a game variant as a value (`Variant`: classic or Ultimate), the seam above the rules;
- `engine`: one match of classic (`GameState`, `Mark`, `IllegalMove`);
- `ultimate`: one match of Ultimate (`UltimateState`); `ultimate_ai`: its computer;
- `ai`: the computer's move at each `Level`, for either variant;
- `series`: the matches of a session: players, marks, who chooses, the score, who may act now,
  and the intents that change it (`Play`, `Undo`, `ChooseMark`...), refused in words;
- `seats`: what a seat, a watcher and a pause allow online; `reachable`: whether a series
  received could have been reached by play;
- `notices`: a notice as data (its phrases, each with its wordings);
- `names`, `labels`: players' names as user text, and how players and results read;
- `keys`: the digit layouts (a cell's key);
- `codes`: the code of a hosted series.
"""
