"""Standings from the database (R-STD-1/2, R-QUAL-1/2): monthly and season tables (points summed over
point-awarding nights), the month's Monthly Final tickets issued from its settled nights and their
holders; the finals' qualifiers as a whole are
services.finals.qualifiers. league/ ranks; this module reads.
"""
from __future__ import annotations

import datetime as dt

from sqlalchemy import func
from sqlalchemy.orm import joinedload

from league.events import EVENT_TYPES
from league.points import Finish
from league.qualify import EventResult, monthly_tickets
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


TICKET_TYPES = tuple(name for name, kind in EVENT_TYPES.items() if kind.awards_tickets)


def settle_tickets(league: League, month: str, existing: list[Ticket] | None = None) -> list[Ticket]:
    """R-QUAL-1/2: re-issue the month's Monthly Final tickets from its settled nights, in date order.

    A ticket already presented at the Final keeps its presented time if its holder still earns it.
    `existing`: the month's tickets as they stand, when the caller has read them.
    """
    first, following = parse_month(month)
    # The nights as plain rows of what their order needs (settle_order), not entities with their venues.
    events = [(event_id, (date, start or dt.time(0, 0), venue.casefold(), event_id))
              for event_id, date, start, venue in db.session.execute(
                  db.select(Event.id, Event.date, Event.start_time, Venue.name).join(Venue, Event.venue_id == Venue.id)
                  .where(Event.league_id == league.id, Event.date >= first, Event.date < following,
                         Event.event_type.in_(TICKET_TYPES), Event.status == EventStatus.SETTLED))]
    # Only three columns of each entry: read as plain rows, not entities (a month of nights is
    # hundreds of entries; settling tonight's 200-player night re-reads all of them).
    finishes: dict[int, list[Finish]] = {event_id: [] for event_id, _ in events}
    if finishes:
        for event_id, member_id, position, status in db.session.execute(
                db.select(Entry.event_id, Entry.member_id, Entry.position, Entry.status)
                .where(Entry.event_id.in_(list(finishes))).order_by(Entry.id)):
            finishes[event_id].append(Finish(member_id, position, status))
    results = [EventResult(event_id, order, tuple(finishes[event_id])) for event_id, order in events]
    issued = monthly_tickets(results, pass_down=league.pass_down)
    if existing is None:
        existing = list(db.session.scalars(db.select(Ticket).where(Ticket.league_id == league.id,
                                                                   Ticket.month == month)))
    held = {t.member_id: t for t in existing}
    tickets = []
    for ticket in issued:
        old = held.pop(ticket.player, None)
        if old is None:
            old = Ticket(league_id=league.id, month=month, member_id=ticket.player)
            db.session.add(old)
        old.event_id, old.position = ticket.event, ticket.position
        tickets.append(old)
    for gone in held.values():
        db.session.delete(gone)
    return tickets
