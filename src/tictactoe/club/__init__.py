"""The club: a long-running server where players come in with `ssh`, find a game in the lobby
and climb a ladder (`server`), and the owner's commands over its record (`commands`).

The club's rules are `tictactoe.core.club`; what it remembers is its store
(`tictactoe.record.club_store`). A club of several processes shares one PostgreSQL database:
`cluster`, over the registry of every process's tables (`registry_pg`).
"""
