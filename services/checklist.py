"""A new league's first steps, read from its records: a venue, a host, the settings reviewed, the first
night booked, a venue's poster printed. No rule governs them; the organiser's pages show what is left."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import exists

from league.statuses import EventStatus, Role
from services.models import Event, League, User, Venue, utcnow
from wiring.extensions import db

STEPS = ("venue", "host", "settings", "night", "poster")  # in the order they are best done


@dataclass(frozen=True)
class FirstSteps:
    """Which of STEPS the league has done (`done`), and the open venue whose poster to print next."""
    done: frozenset[str]
    poster_venue: Venue | None


def first_steps(league: League) -> FirstSteps | None:
    """The league's first steps, each ticked from what it holds; None once the league is under way (a
    night settled, imported ones included: it needs no checklist) or every step is done. One query, and
    while no poster is printed one more for the venue whose poster to print."""
    venues = Venue.league_id == league.id
    flags = db.session.execute(db.select(
        exists().where(Event.league_id == league.id, Event.status == EventStatus.SETTLED),
        exists().where(venues),
        exists().where(User.league_id == league.id, User.role == Role.HOST, User.removed_at.is_(None)),
        exists().where(Event.league_id == league.id, Event.status != EventStatus.CANCELLED),
        exists().where(venues, Venue.poster_printed_at.is_not(None)),
    )).one()
    settled, venue, host, night, poster = flags
    if settled:
        return None
    ticked = {"venue": venue, "host": host, "settings": league.settings_reviewed_at is not None, "night": night,
              "poster": poster}
    done = frozenset(step for step, ok in ticked.items() if ok)
    if done == frozenset(STEPS):
        return None
    unprinted = None if poster else db.session.scalar(db.select(Venue).where(
        venues, Venue.retired_at.is_(None)).order_by(Venue.name).limit(1))
    return FirstSteps(done, unprinted)


def settings_reviewed(league: League) -> None:
    """The organiser has looked over the league's settings (kept or saved them): the checklist ticks it."""
    league.settings_reviewed_at = utcnow()
