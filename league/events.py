"""Event types: which games award points (R-PTS-8) and Monthly Final tickets (R-QUAL-1)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from league.statuses import EventStatus

# The years a league's night can be in: a date outside is a typing slip ("0026-11-03"), and the
# months and seasons it would make (R-STD-1/2) could never be settled.
FIRST_YEAR, LAST_YEAR = 2000, 2100


def date_problem(date: dt.date) -> str | None:
    """Why a night cannot be on this date (outside FIRST_YEAR..LAST_YEAR), or None."""
    if not FIRST_YEAR <= date.year <= LAST_YEAR:
        return f"the date {date.isoformat()} is not between {FIRST_YEAR} and {LAST_YEAR}"
    return None


@dataclass(frozen=True)
class EventType:
    """What kind of game an event is, and what it awards (R-PTS-4, R-PTS-8, R-QUAL-1)."""

    name: str
    label: str
    awards_points: bool
    awards_tickets: bool
    high_roller: bool
    is_final: bool


# R-QUAL-1 speaks of "nightly games" only, so high-roller games award points but no
# Monthly Final tickets. Finals award neither points (R-PTS-8, house decision) nor tickets.
EVENT_TYPES: dict[str, EventType] = {
    event_type.name: event_type
    for event_type in (
        EventType("nightly", "Nightly", awards_points=True, awards_tickets=True,
                  high_roller=False, is_final=False),
        EventType("highroller", "High-roller", awards_points=True, awards_tickets=False,
                  high_roller=True, is_final=False),
        EventType("monthly_final", "Monthly Final", awards_points=False, awards_tickets=False,
                  high_roller=False, is_final=True),
        EventType("highroller_final", "High-roller Final", awards_points=False,
                  awards_tickets=False, high_roller=True, is_final=True),
        EventType("top10_shootout", "Top-10 Shoot-out", awards_points=False,
                  awards_tickets=False, high_roller=False, is_final=True),
    )
}


def event_type(name: str) -> EventType:
    """The event type called `name` (R-PTS-8); ValueError naming the known types otherwise."""
    try:
        return EVENT_TYPES[name]
    except KeyError:
        known = ", ".join(EVENT_TYPES)
        raise ValueError(f"unknown event type {name!r} (expected one of {known})") from None


def change_problem(status: str, clock_started: bool) -> str | None:
    """Why a night can no longer be edited or cancelled, or None: once its clock has started the
    field, the prizes (R-PAY-1) and the points (R-PTS-5) hang on it, so it stays as booked."""
    if status == EventStatus.SETTLED:
        return "this night is settled: its points and prizes are given"
    if status == EventStatus.CANCELLED:
        return "this night was cancelled"
    if clock_started or status != EventStatus.SCHEDULED:
        return "the clock has started: a night under way cannot be edited or cancelled"
    return None


def open_at_the_door(status: str, date: dt.date, today: dt.date) -> bool:
    """R-MEM-1: whether a venue's permanent link (its poster's QR) opens this night's check-in: a night
    booked for today at the venue's local date, or one under way since today or yesterday (a night runs
    past midnight). A running night older than that was left unsettled: it does not hold the door."""
    if status == EventStatus.SCHEDULED:
        return date == today
    return status == EventStatus.RUNNING and 0 <= (today - date).days <= 1
