"""The `tictactoe` command's words, in one place: the tree of parsers, one for each command
(`tree`), the checks of their values (`checks`), the sentences a club's commands refuse in
(`parsers`), and what the words become (`setups`: `parse` reads them once)."""

from __future__ import annotations

from tictactoe.options.parsers import BadArguments, CommandParser
from tictactoe.options.setups import (
    Parsed,
    game_config,
    game_options,
    host_options,
    online_setup,
    parse,
    parse_config,
    parse_online,
    parse_serve,
    serve_config,
)
from tictactoe.options.tree import tree

__all__ = [
    "BadArguments",
    "Parsed",
    "build_parser",
    "game_config",
    "game_options",
    "host_options",
    "online_setup",
    "parse",
    "parse_config",
    "parse_online",
    "parse_serve",
    "serve_config",
]


def build_parser() -> CommandParser:
    """The `tictactoe` command's parser, its commands' under it."""
    return tree()[()]
