"""Points for one event (R-PTS-1 .. R-PTS-8)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from league.numbers import is_whole
from league.statuses import PARTICIPANT_STATUSES, RESULT_STATUSES, EntryStatus

BASE_POINTS = (750, 550, 400, 300, 275, 250, 225, 200, 175, 150)
OTHER_POINTS = 75
# The "top 10" of R-PTS-1/3/4 is one table's worth of players.
TOP = len(BASE_POINTS)
# R-PTS-3, largest band first: (smallest field in the band, bonus for the top 10).
BONUS_BANDS = ((45, 450), (35, 350), (25, 250), (15, 150))
HIGH_ROLLER_BONUS = 450


@dataclass(frozen=True)
class Finish:
    """One entry's result in an event (R-PTS-5, R-PTS-6).

    `position` is the shared number for ties (1, 2, 2, 4: the next position skips) and
    None for a no-show. `status` is "played", "dq" or "no_show".
    """

    key: Hashable
    position: int | None
    status: str = EntryStatus.PLAYED




def round_half_up(value: Fraction) -> int:
    """Round an exact non-negative value to a whole number, halves up (R-PTS-6, R-CHIP-3)."""
    return math.floor(value + Fraction(1, 2))


def key_order(keys: Iterable[Hashable]) -> dict[Hashable, int]:
    """A stable rank for each key, so results never depend on input order (R-STD-1, R-QUAL-2).

    Keys are sorted by their own order when they have one, else by repr (mixed types).
    """
    unique = list(dict.fromkeys(keys))
    try:
        ordered = sorted(unique)  # type: ignore[type-var]
    except TypeError:
        ordered = sorted(unique, key=repr)
    return {key: rank for rank, key in enumerate(ordered)}


def field_bonus(field_size: int, high_roller: bool = False) -> int:
    """Bonus for each top-10 position in a field of `field_size` (R-PTS-3, R-PTS-4)."""
    if high_roller:
        return HIGH_ROLLER_BONUS
    for smallest_field, bonus in BONUS_BANDS:
        if field_size >= smallest_field:
            return bonus
    return 0


def position_points(position: int, field_size: int, high_roller: bool = False) -> int:
    """Points for one untied `position` in a field of `field_size` (R-PTS-1 .. R-PTS-4).

    Short fields (N < 10) shift the table so last place earns the 10th-place value
    (R-PTS-2); the top 10 get the field-size bonus (R-PTS-3), or always +450 in
    high-roller games (R-PTS-4).
    """
    if not is_whole(field_size) or field_size < 1:
        raise ValueError(f"a field needs at least one participant, not {field_size!r}")
    if not is_whole(position) or not 1 <= position <= field_size:
        raise ValueError(f"position {position!r} is outside a field of {field_size}")
    if position > TOP:
        return OTHER_POINTS
    shift = max(0, TOP - field_size)
    return BASE_POINTS[position + shift - 1] + field_bonus(field_size, high_roller)


def field_size(finishes: Iterable[Finish]) -> int:
    """Participants in an event: players who played plus the disqualified (R-PTS-5).

    No-shows are not participants.
    """
    return sum(1 for finish in finishes if finish.status in PARTICIPANT_STATUSES)


def _span(first: int, last: int) -> str:
    return str(first) if first == last else f"{first} to {last}"


def check_finishing_order(positions: Iterable[int]) -> None:
    """Raise ValueError unless `positions` form a finishing order with ties (R-PTS-6).

    Sorted, the first position is 1 and a position shared by k players is followed by
    position + k (1, 2, 2, 4). An empty order is valid. Messages are worded for an
    organiser fixing an import.
    """
    ordered = list(positions)
    for position in ordered:
        if not is_whole(position):
            raise ValueError(f"position {position!r} is not a whole number")
    if not ordered:
        return
    ordered.sort()
    if ordered[0] != 1:
        raise ValueError(f"positions must start at 1, not {ordered[0]}")
    groups = sorted(Counter(ordered).items())
    for (position, shared_by), (following, _) in zip(groups, groups[1:]):
        expected = position + shared_by
        if following == expected:
            continue
        if shared_by == 1:
            raise ValueError(
                f"positions {position}, {following} skip {_span(expected, following - 1)}"
            )
        raise ValueError(
            f"position {position} is shared by {shared_by} players, "
            f"so the next is {expected}, not {following}"
        )


def check_finishes(finishes: Iterable[Finish]) -> list[Finish]:
    """Validate one event's finishes and return them as a list (R-PTS-5, R-PTS-6).

    Each key appears once; status is one of RESULT_STATUSES; a no-show has no position and
    everyone else has one; participants' positions form a valid finishing order.
    Raises ValueError with an organiser-readable message.
    """
    rows = list(finishes)
    seen: set[Hashable] = set()
    positions: list[int] = []
    for finish in rows:
        if finish.key in seen:
            raise ValueError(f"{finish.key!r} appears more than once")
        seen.add(finish.key)
        if finish.status not in RESULT_STATUSES:
            raise ValueError(
                f"{finish.key!r} has unknown status {finish.status!r} "
                f"(expected one of {', '.join(RESULT_STATUSES)})"
            )
        if finish.status == EntryStatus.NO_SHOW and finish.position is not None:
            raise ValueError(f"{finish.key!r} did not show, so cannot have position {finish.position}")
        if finish.status != EntryStatus.NO_SHOW:
            if finish.position is None:
                raise ValueError(f"{finish.key!r} has no finishing position")
            positions.append(finish.position)
    check_finishing_order(positions)
    return rows


def award_points(
    finishes: Iterable[Finish], *, high_roller: bool = False, awards_points: bool = True
) -> dict[Hashable, int]:
    """Points for every entry of one event (R-PTS-1 .. R-PTS-6, R-PTS-8).

    Field size per R-PTS-5. A tie group at position p with k members (disqualified
    members included: they still took those positions) covers positions p .. p+k-1;
    each member who played gets the mean of those positions' points, rounded half up.
    Disqualified players and no-shows get 0; everyone gets 0 when the event type does
    not award points (R-PTS-8). Raises ValueError for an invalid set of finishes.
    """
    rows = check_finishes(finishes)
    if not awards_points:
        return {finish.key: 0 for finish in rows}
    size = field_size(rows)
    shared_by = Counter(f.position for f in rows if f.status in PARTICIPANT_STATUSES)
    points: dict[Hashable, int] = {}
    for finish in rows:
        if finish.status != EntryStatus.PLAYED:
            points[finish.key] = 0
            continue
        first = finish.position
        assert first is not None  # check_finishes guarantees it
        covered = range(first, first + shared_by[first])
        total = sum(position_points(p, size, high_roller) for p in covered)
        points[finish.key] = round_half_up(Fraction(total, len(covered)))
    return points


def rank_by_chips(chips: Mapping[Hashable, int], best_position: int = 1) -> dict[Hashable, int]:
    """Positions fixed by chip counts, most chips best, equal counts sharing (R-PTS-6, R-PTS-7).

    For a deal (R-PTS-7) pass the remaining players' counts. For several bust-outs in one
    hand (R-PTS-6) pass their stacks at the start of that hand and, as `best_position`,
    the best position still to be given to them. Shared numbers skip (1, 2, 2, 4).
    """
    if not is_whole(best_position) or best_position < 1:
        raise ValueError(f"best position must be 1 or more, not {best_position!r}")
    for key, count in chips.items():
        if not is_whole(count) or count < 0:
            raise ValueError(f"{key!r} has an impossible chip count {count!r}")
    ordered = sorted(chips.items(), key=lambda item: -item[1])
    positions: dict[Hashable, int] = {}
    previous: int | None = None
    position = best_position
    for index, (key, count) in enumerate(ordered):
        if count != previous:
            position = best_position + index
            previous = count
        positions[key] = position
    return positions
