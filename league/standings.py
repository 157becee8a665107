"""Monthly and season standings (R-STD-1, R-STD-2)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from league.points import key_order

SEASON_TABLE_SIZE = 50


@dataclass(frozen=True)
class StandingRow:
    """One player's line in a standings table (R-STD-1)."""

    rank: int
    key: Hashable
    player: str
    points: int
    events: int


def rank_table(rows: Iterable[tuple[Hashable, str, int, int]]) -> list[StandingRow]:
    """Rank (key, player name, points, events played) rows into a table (R-STD-1).

    Sorted by points descending, then player name (casefold), then key, so the display
    order is stable; equal points share a rank, competition style (1, 2, 2, 4).
    """
    items = list(rows)
    keys = [key for key, _, _, _ in items]
    if len(set(keys)) != len(keys):
        duplicate = next(key for key in keys if keys.count(key) > 1)
        raise ValueError(f"{duplicate!r} appears more than once in the table")
    order = key_order(keys)
    items.sort(key=lambda row: (-row[2], row[1].casefold(), order[row[0]]))
    table: list[StandingRow] = []
    rank = 0
    for index, (key, player, points, events) in enumerate(items):
        if not table or points != table[-1].points:
            rank = index + 1
        table.append(StandingRow(rank, key, player, points, events))
    return table


def top_with_ties(table: Sequence[StandingRow], n: int = SEASON_TABLE_SIZE) -> list[StandingRow]:
    """The first `n` rows of a ranked table plus everyone tied on points with the n-th (R-STD-2).

    `table` is ordered as rank_table returns it.
    """
    if n <= 0:
        return []
    if len(table) <= n:
        return list(table)
    cutoff = table[n - 1].points
    shown = list(table[:n])
    for row in table[n:]:
        if row.points != cutoff:
            break
        shown.append(row)
    return shown
