"""The `tictactoe` command's words, in one place: the tree of parsers, one for each command
(`tree`), the checks of their values (`checks`), the sentences a club's commands refuse in
(`parsers`), and what the words become (`setups`: `parse` reads them once)."""

from __future__ import annotations

from tictactoe.options import setups
from tictactoe.options.parsers import BadArguments, CommandParser
from tictactoe.options.setups import *  # noqa: F403 - its names are the package's, as __all__ says
from tictactoe.options.tree import tree

__all__ = ["BadArguments", "build_parser"]
__all__ += setups.__all__


def build_parser() -> CommandParser:
    """The `tictactoe` command's parser, its commands' under it."""
    return tree()[()]
