"""Standings from the database (R-STD-1/2, R-QUAL-1/2): monthly and season tables (points summed over
point-awarding nights) and the month's ticket holders; the finals' qualifiers as a whole are
services.finals.qualifiers. league/ ranks; this module reads.
"""
from __future__ import annotations

import datetime as dt

from sqlalchemy import func
from sqlalchemy.orm import joinedload

from league.events import EVENT_TYPES
from league.qualify import shootout_qualifiers
from league.standings import StandingRow, rank_table
from league.statuses import PARTICIPANT_STATUSES, EventStatus
from services.leagues import parse_month, parse_year, settle_order
from services.models import Entry, Event, League, Member, Ticket, Venue
from wiring.extensions import db

POINT_TYPES = tuple(name for name, kind in EVENT_TYPES.items() if kind.awards_points)


def standings(league: League, first: dt.date, following: dt.date) -> list[StandingRow]:
    """R-STD-1/2: the table for [first, following): points summed over point-awarding nights."""
    rows = db.session.execute(
        db.select(Member.id, Member.name, func.sum(Entry.points), func.count(Entry.id))
        .join(Entry, Entry.member_id == Member.id)
        .join(Event, Event.id == Entry.event_id)
        .where(Event.league_id == league.id, Event.date >= first, Event.date < following,
               Event.event_type.in_(POINT_TYPES), Event.status == EventStatus.SETTLED,
               Entry.status.in_(PARTICIPANT_STATUSES))
        .group_by(Member.id, Member.name)).all()
    return rank_table((member_id, name, int(points or 0), events) for member_id, name, points, events in rows)


def month_standings(league: League, month: str) -> list[StandingRow]:
    """R-STD-1: the monthly table."""
    return standings(league, *parse_month(month))


def year_standings(league: League, year: str | int) -> list[StandingRow]:
    """R-STD-2: the season table (the whole table; pages show the Top 50 with ties)."""
    return standings(league, *parse_year(year))


def ticket_holders(league: League, month: str) -> list[Ticket]:
    """R-QUAL-1/2: the month's Monthly Final tickets, in the order the nights were settled."""
    tickets = db.session.scalars(db.select(Ticket).join(Ticket.event).join(Venue).options(
        joinedload(Ticket.member), joinedload(Ticket.event).joinedload(Event.venue)).where(
        Ticket.league_id == league.id, Ticket.month == month)).all()
    return sorted(tickets, key=lambda t: (settle_order(t.event), t.position, t.member.name.casefold()))


def standings_json(table: list[StandingRow]) -> dict[str, list[dict]]:
    """R-STD-1/2: the table as the API and `flask league standings --json` give it."""
    return {"standings": [{"rank": r.rank, "player": r.player, "points": r.points, "events": r.events}
                          for r in table]}


def row_of(table: list[StandingRow], member_id: int) -> StandingRow | None:
    """R-STD-1/2: the member's row in a standings table (None: not in it)."""
    return next((row for row in table if row.key == member_id), None)


def shootout_standing(table: list[StandingRow], member_id: int) -> tuple[bool, int | None]:
    """R-QUAL-4: whether the member is in the month's Top-10 Shoot-out, and the points it takes
    (the lowest qualifier's; None while nobody has scored)."""
    qualified = shootout_qualifiers(table)
    return any(row.key == member_id for row in qualified), (qualified[-1].points if qualified else None)

