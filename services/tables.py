"""The league's tables from the database (R-STD-1/2): points summed over point-awarding events.
league/ ranks; this module reads. services.standings builds the qualifiers on it."""
from __future__ import annotations

import datetime as dt

from sqlalchemy import func

from league.events import EVENT_TYPES
from league.points import PARTICIPANT_STATUSES
from league.standings import StandingRow, rank_table
from league.statuses import EventStatus
from services.leagues import parse_month, parse_year
from services.models import Entry, Event, League, Member
from wiring.extensions import db

POINT_TYPES = tuple(name for name, kind in EVENT_TYPES.items() if kind.awards_points)


COUNTED = PARTICIPANT_STATUSES  # R-PTS-5: who took a seat and played


def standings(league: League, first: dt.date, following: dt.date) -> list[StandingRow]:
    """R-STD-1/2: the table for [first, following): points summed over point-awarding nights."""
    rows = db.session.execute(
        db.select(Member.id, Member.name, func.sum(Entry.points), func.count(Entry.id))
        .join(Entry, Entry.member_id == Member.id)
        .join(Event, Event.id == Entry.event_id)
        .where(Event.league_id == league.id, Event.date >= first, Event.date < following,
               Event.event_type.in_(POINT_TYPES), Event.status == EventStatus.SETTLED, Entry.status.in_(COUNTED))
        .group_by(Member.id, Member.name)).all()
    return rank_table((member_id, name, int(points or 0), events) for member_id, name, points, events in rows)


def month_standings(league: League, month: str) -> list[StandingRow]:
    """R-STD-1: the monthly table."""
    return standings(league, *parse_month(month))


def year_standings(league: League, year: str | int) -> list[StandingRow]:
    """R-STD-2: the season table (the whole table; pages show the Top 50 with ties)."""
    return standings(league, *parse_year(year))
