"""The browser door: a tab gets a game process of its own, through textual-serve's page.

- `server`: the pages, the games' websockets, what a tab may send;
- `games`: the game processes, and the spare started ahead;
- `guard`: what is refused before any game sees it;
- `code_gate`: the host's door asks for the code before any game starts.

Nothing is imported here: the code gate is wanted without textual-serve, which is imported
only once a browser door opens.
"""
