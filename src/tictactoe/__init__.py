"""A full-screen terminal tic-tac-toe built on Textual, with a pure game core."""

from __future__ import annotations

__version__ = "0.1.0"
"""The version, written here only: the build reads it (pyproject.toml), as does --version."""
