"""Qualification for finals: Monthly Final tickets, the Top-10 Shoot-out, minimum play (R-QUAL)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from league.points import Finish, check_finishes, key_order
from league.standings import StandingRow
from league.statuses import PARTICIPANT_STATUSES, EntryStatus

TICKET_PLACES = 5
FINAL_TABLE = 10
SHOOTOUT_PLACES = 10


@dataclass(frozen=True)
class EventResult:
    """One ticket-awarding event's finishes, with its settle-order sort key (R-QUAL-2).

    `order` is supplied by the caller: (date, start time, venue name).
    """

    key: Hashable
    order: tuple
    finishes: tuple[Finish, ...]


@dataclass(frozen=True)
class Ticket:
    """A Monthly Final ticket earned by `player` at `event` finishing `position` (R-QUAL-1)."""

    player: Hashable
    event: Hashable
    position: int


def _tie_groups(finishes: Sequence[Finish]) -> list[tuple[int, list[Finish]]]:
    groups: dict[int, list[Finish]] = {}
    for finish in finishes:
        if finish.status in PARTICIPANT_STATUSES:
            assert finish.position is not None  # check_finishes guarantees it
            groups.setdefault(finish.position, []).append(finish)
    order = key_order(f.key for f in finishes)
    return [
        (position, sorted(members, key=lambda f: order[f.key]))
        for position, members in sorted(groups.items())
    ]


def _settle_order(events: list[EventResult]) -> list[EventResult]:
    # Two events can share (date, time, venue); their keys break the tie so the
    # month settles the same way whatever order the results were entered in.
    order = key_order(event.key for event in events)
    return sorted(events, key=lambda event: (event.order, order[event.key]))


def monthly_tickets(
    events: Iterable[EventResult],
    *,
    pass_down: bool,
    places: int = TICKET_PLACES,
    final_table: int = FINAL_TABLE,
) -> list[Ticket]:
    """Monthly Final tickets for ONE month's ticket-awarding events (R-QUAL-1, R-QUAL-2).

    Events settle in `order` (R-QUAL-2), so entering an older event later re-settles the
    month. A player holds at most one ticket per month. Finishers are walked in groups of
    tied players (same position); disqualified players never get a ticket and don't
    count; no-shows never.

    Pass-down on: a group is eligible while its position <= min(final_table, field size);
    every member holding no ticket gets one; stop once `places` or more tickets have been
    given by this event, or when the final table is exhausted.
    Pass-down off: only groups whose position <= `places` earn tickets; a member who
    already holds one simply gets none.

    Returned in settle order, then position, then player key.
    """
    if places < 0:
        raise ValueError(f"ticket places must be 0 or more, not {places}")
    if final_table < 1:
        raise ValueError(f"a final table seats at least one player, not {final_table}")
    holders: set[Hashable] = set()
    tickets: list[Ticket] = []
    for event in _settle_order(list(events)):
        finishes = check_finishes(event.finishes)
        groups = _tie_groups(finishes)
        field = sum(len(members) for _, members in groups)
        last_eligible = min(final_table, field) if pass_down else places
        given = 0
        for position, members in groups:
            if position > last_eligible or (pass_down and given >= places):
                break
            for finish in members:
                if finish.status == EntryStatus.DQ or finish.key in holders:
                    continue
                holders.add(finish.key)
                tickets.append(Ticket(finish.key, event.key, position))
                given += 1
    return tickets


def shootout_qualifiers(table: Sequence[StandingRow], places: int = SHOOTOUT_PLACES) -> list[StandingRow]:
    """Top-10 Shoot-out qualifiers from a ranked monthly table (R-QUAL-4).

    The `places` highest scorers qualify, plus anyone tied on points with the places-th;
    with fewer scorers, all scorers qualify.
    House decision: a scorer has more than 0 points, so a player whose only result
    was a disqualification (in the table with 0 points, R-STD-1) does not qualify.
    `table` is ordered as rank_table returns it; the qualifiers keep that order.
    """
    scorers = [row for row in table if row.points > 0]
    if places <= 0:
        return []
    if len(scorers) <= places:
        return scorers
    cutoff = scorers[places - 1].points
    return [row for row in scorers if row.points >= cutoff]


def may_enter_final(events_played: int) -> bool:
    """Whether a player who played `events_played` league events this month may enter a Final (R-QUAL-5)."""
    if events_played < 0:
        raise ValueError(f"events played cannot be negative, not {events_played}")
    return events_played >= 1
