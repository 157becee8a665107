"""A venue's permanent link in the database (R-MEM-1): the venue a poster's QR names, the nights it
opens tonight, its coming nights, replacing a lost poster's link and recording the poster printed.
league/events.py decides which night the door opens; callers commit."""
from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets

from sqlalchemy.orm import joinedload

from league.events import open_at_the_door
from league.statuses import EventStatus
from services import Refused
from services.models import Event, ReplacedVenueLink, Venue, utcnow
from wiring.extensions import db

MAX_CODE_LENGTH = 43  # Venue.link_code: String(43); anything longer is no link of ours


def venue_by_link(code: str) -> Venue | None:
    """R-MEM-1: the venue whose current permanent link this is (None: unknown or replaced)."""
    if not code or len(code) > MAX_CODE_LENGTH:
        return None
    return db.session.scalar(db.select(Venue).options(joinedload(Venue.league)).where(Venue.link_code == code))


def replaced_link(code: str) -> ReplacedVenueLink | None:
    """R-MEM-1: the replaced link this was, with its venue (a lost poster's), or None."""
    if not code or len(code) > MAX_CODE_LENGTH:
        return None
    return db.session.scalar(db.select(ReplacedVenueLink).where(ReplacedVenueLink.code == code))


def nights_open_tonight(venue: Venue) -> list[Event]:
    """R-MEM-1: the venue's nights whose check-in its link opens now (league.events.open_at_the_door),
    by start time: usually one; two when two games run there at once (the player picks)."""
    today = venue.league.today()
    candidates = db.session.scalars(db.select(Event).where(
        Event.venue_id == venue.id, Event.status.in_((EventStatus.SCHEDULED, EventStatus.RUNNING)),
        Event.date >= today - dt.timedelta(days=1), Event.date <= today).order_by(Event.start_time, Event.id)).all()
    return [event for event in candidates if open_at_the_door(event.status, event.date, today)]


def coming_nights(venue: Venue) -> list[Event]:
    """R-MEM-1: the venue's nights booked from today on (its local date), in date and start order: what
    its link shows when no night is open."""
    return list(db.session.scalars(db.select(Event).where(
        Event.venue_id == venue.id, Event.status == EventStatus.SCHEDULED, Event.date >= venue.league.today())
        .order_by(Event.date, Event.start_time, Event.id)))


def fingerprint(code: str) -> str:
    """R-MEM-1: a short mark of a venue link, which the Replace form carries (not the link itself): a
    second tap carries the mark of the link it already replaced."""
    return hashlib.sha256(code.encode()).hexdigest()[:16]


def replace_link(venue: Venue, seen: str, user_id: int | None) -> bool:
    """R-MEM-1: a new permanent link for the venue (a lost poster): the old one is kept to say it was
    replaced, and the new poster is not printed yet. `seen` is the fingerprint of the link the
    organiser's page showed. → True: replaced now; False: that link was the one last replaced (a
    repeat of the same request, a double tap), nothing more changes. Refused: any other mark (a page
    older than the last replacement, or none)."""
    if hmac.compare_digest(seen.encode(), fingerprint(venue.link_code).encode()):
        db.session.add(ReplacedVenueLink(venue_id=venue.id, code=venue.link_code, replaced_by=user_id))
        venue.link_code = secrets.token_urlsafe(16)
        venue.poster_printed_at = None
        return True
    last = db.session.scalar(db.select(ReplacedVenueLink.code).where(ReplacedVenueLink.venue_id == venue.id)
                             .order_by(ReplacedVenueLink.id.desc()).limit(1))
    if last is not None and hmac.compare_digest(seen.encode(), fingerprint(last).encode()):
        return False
    raise Refused(f"{venue.name}'s link has changed since this page was opened: the poster below has "
                  "the current link. Replace it again only if that poster is lost too.")


def poster_printed(venue: Venue) -> None:
    """R-MEM-1: the poster of the venue's current link was printed (a new league's checklist ticks it)."""
    venue.poster_printed_at = utcnow()
