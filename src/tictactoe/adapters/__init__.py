"""Where the game relies on private parts of Textual, Rich or textual-serve: nowhere else.

Each module covers one gap in their public API, says in its first line when it can go, and
lists the private names it uses; `tests/unit/test_adapters_contract.py` checks that each of
them is still there, as used, in the installed versions, so that an upgrade fails there first.
"""
