"""Leagues and their calendar: finding and creating a league, months and years, its nights."""
from __future__ import annotations

import datetime as dt

from sqlalchemy import func
from sqlalchemy.orm import joinedload

from league.statuses import EventStatus
from services.models import Event, League, slugify
from wiring.extensions import db


def parse_month(text: str) -> tuple[dt.date, dt.date]:
    """'YYYY-MM' → (first day, first day of the next month); ValueError with a clear message."""
    try:
        if len(text) != 7:
            raise ValueError
        first = dt.date.fromisoformat(text + "-01")
    except ValueError:
        raise ValueError(f"bad month {text!r}: use YYYY-MM") from None
    following = dt.date(first.year + first.month // 12, first.month % 12 + 1, 1)
    return first, following


def parse_year(text: str | int) -> tuple[dt.date, dt.date]:
    """'YYYY' → (1 January, 1 January of the next year)."""
    year = str(text)
    if len(year) != 4 or not year.isdigit() or int(year) < 1900:
        raise ValueError(f"bad year {text!r}: use YYYY")
    return dt.date(int(year), 1, 1), dt.date(int(year) + 1, 1, 1)


def find_league(name_or_slug: str) -> League | None:
    """A league by its name (any case) or its slug."""
    return db.session.scalar(db.select(League).where(
        (func.lower(League.name) == name_or_slug.strip().lower()) | (League.slug == name_or_slug)))


def create_league(name: str, kind: str) -> League:
    """A new league with the defaults of its kind (pass-down on for free leagues, off for cash: R-QUAL-2)."""
    if kind not in ("free", "cash"):
        raise ValueError(f"unknown league kind {kind!r}: use free or cash")
    league = League(name=name.strip(), slug=slugify(name), kind=kind, pass_down=(kind == "free"), settings={})
    db.session.add(league)
    db.session.flush()
    return league


def league_months(league: League) -> list[str]:
    """The months (YYYY-MM) in which the league has settled nights, newest first."""
    dates = db.session.scalars(db.select(Event.date).where(
        Event.league_id == league.id, Event.status == EventStatus.SETTLED).distinct()).all()
    return sorted({d.strftime("%Y-%m") for d in dates}, reverse=True)


def settled_nights(league: League, first: dt.date | None = None, following: dt.date | None = None,
                    limit: int | None = None) -> list[Event]:
    """Settled events of the league in [first, following), newest first."""
    query = db.select(Event).options(joinedload(Event.venue)).where(
        Event.league_id == league.id, Event.status == EventStatus.SETTLED)
    if first is not None:
        query = query.where(Event.date >= first, Event.date < following)
    query = query.order_by(Event.date.desc(), Event.start_time.desc(), Event.id.desc())
    return db.session.scalars(query.limit(limit) if limit else query).all()


def nights_from(league: League, today: dt.date) -> list[Event]:
    """The league's running events (whatever their date: a night can run past midnight) and its
    scheduled ones from `today`, in date and start-time order."""
    return db.session.scalars(db.select(Event).options(joinedload(Event.venue)).where(
        Event.league_id == league.id,
        (Event.status == EventStatus.RUNNING) | ((Event.status == EventStatus.SCHEDULED) & (Event.date >= today)))
        .order_by(Event.date, Event.start_time, Event.id)).all()


def upcoming_nights(league: League) -> list[Event]:
    """The league's nights not settled yet, in date and start-time order: what its organiser and
    hosts manage ("Tonight" and what is coming). A night booked from today at its venues, or one
    under way since yesterday (a night can run past midnight), and one cancelled from today on (it
    stays listed, shown as cancelled); never a settled night (an imported one included) nor one
    dated before today that never started."""
    today = league.today()
    return db.session.scalars(db.select(Event).options(joinedload(Event.venue)).where(
        Event.league_id == league.id,
        ((Event.status.in_((EventStatus.SCHEDULED, EventStatus.CANCELLED))) & (Event.date >= today))
        | ((Event.status == EventStatus.RUNNING) & (Event.date >= today - dt.timedelta(days=1))))
        .order_by(Event.date, Event.start_time)).all()



def same_night(event: Event) -> Event | None:
    """Another night of the league booked at the event's venue, date and start time (the same night
    booked twice), if any; a night with no start time matches one with none; a cancelled one never."""
    start = Event.start_time.is_(None) if event.start_time is None else Event.start_time == event.start_time
    return db.session.scalar(db.select(Event).where(
        Event.league_id == event.league_id, Event.venue_id == event.venue_id, Event.date == event.date, start,
        Event.id != (event.id or 0), Event.status != EventStatus.CANCELLED).limit(1))
