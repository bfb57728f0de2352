"""The ladder after a rated match, worked out from the ladder shown and the two new ratings
(`ladder_after`), so that the club need not read it again after it has just rated a match.

It sorts as the store's ladder does: by `Rating.points`' measure (mu less three sigma), best
first, then by handle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tictactoe.core.club import LadderRow, Rating

__all__ = ["ladder_after"]


def ladder_after(
    ladder: Sequence[LadderRow],
    limit: int,
    handles: tuple[str, str],
    after: tuple[Rating, Rating],
    winner: int | None,
) -> tuple[LadderRow, ...] | None:
    """The best `limit` rows once a rated match between `handles` (`winner` 0, 1, or None for a
    draw) gave them the ratings `after`, from `ladder`, the best `limit` rows before it. None
    when that cannot be told without reading the ladder: a player a full ladder did not show
    comes into it (their totals are not shown), or one it showed falls out of it (whoever comes
    next is not shown)."""
    rows = {row.handle: row for row in ladder}
    full = len(ladder) >= limit
    outside: list[tuple[str, Rating]] = []
    for side, (handle, rating) in enumerate(zip(handles, after, strict=True)):
        before = rows.get(handle)
        if before is None and full:
            outside.append((handle, rating))  # below the last row before: where now is seen below
            continue
        if before is None:  # a ladder not full shows everyone rated: this is their first
            before = LadderRow(0, handle, rating, 0, 0, 0, 0)
        rows[handle] = replace(
            before,
            rating=rating,
            matches=before.matches + 1,
            wins=before.wins + (winner == side),
            draws=before.draws + (winner is None),
            losses=before.losses + (winner == 1 - side),
        )
    if full and any(
        handle in rows and _order(rows[handle]) > _order(ladder[-1]) for handle in handles
    ):
        return None  # below the last row shown before: someone not shown may be above them
    shown = sorted(rows.values(), key=_order)[:limit]
    if any(len(shown) >= limit and _order_of(*each) < _order(shown[-1]) for each in outside):
        return None
    return tuple(replace(row, rank=rank) for rank, row in enumerate(shown, 1))


def _order(row: LadderRow) -> tuple[float, str]:
    return _order_of(row.handle, row.rating)


def _order_of(handle: str, rating: Rating) -> tuple[float, str]:
    return -(rating.mu - 3 * rating.sigma), handle
