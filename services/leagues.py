"""Leagues and their calendar: finding and creating a league, months and years, its nights."""
from __future__ import annotations

import datetime as dt
from typing import NamedTuple

from sqlalchemy import func
from sqlalchemy.orm import joinedload, make_transient_to_detached
from sqlalchemy.orm.instrumentation import manager_of_class

from league.settings import zone_known
from league.statuses import EventStatus, LeagueKind, Role, values
from services import Refused, typed_text
from services.models import Event, HostVenue, League, User, Venue, slugify, utcnow
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
    if kind not in values(LeagueKind):
        raise ValueError(f"unknown league kind {kind!r}: use free or cash")
    league = League(name=name.strip(), slug=slugify(name), kind=kind, pass_down=(kind == LeagueKind.FREE), settings={})
    db.session.add(league)
    db.session.flush()
    return league


def start_league(name: str, kind: str, timezone: str) -> League:
    """The operator's new league with THPA's default settings (league/settings.py) and its kind's
    pass-down (R-QUAL-2), its nights dated in `timezone` (R-STD-1). Refused: no name, a name or slug
    another league has (any case), a kind other than free or cash, a time zone the server does not know."""
    name = typed_text(name, 120, "the league's name", required=True)  # League.name: String(120)
    if kind not in values(LeagueKind):
        raise Refused("Pick the league's kind: free or cash.")
    if not zone_known(timezone):
        raise Refused(f"{timezone.strip()[:60]!r} is not a time zone: pick one from the list, such as "
                      "Australia/Sydney.")
    if find_league(name) is not None or find_league(slugify(name)) is not None:
        raise Refused(f"A league named {name} exists already: choose another name.")
    league = create_league(name, kind)
    league.timezone = timezone
    return league


def league_months(league: League) -> list[str]:
    """The months (YYYY-MM) in which the league has settled nights, newest first."""
    dates = db.session.scalars(db.select(Event.date).where(
        Event.league_id == league.id, Event.status == EventStatus.SETTLED).distinct()).all()
    return sorted({d.strftime("%Y-%m") for d in dates}, reverse=True)


def settle_order(event: Event) -> tuple:
    """R-QUAL-2: events settle by date, then start time, then venue name (then id)."""
    return (event.date, event.start_time or dt.time(0, 0), event.venue.name.casefold(), event.id)


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


# --- Venues and their hosts ----------------------------------------------------------------------

def venues_of(league: League, *, open_only: bool = False) -> list[Venue]:
    """The league's venues by name; `open_only`: not retired (where new nights may be booked)."""
    query = db.select(Venue).where(Venue.league_id == league.id)
    if open_only:
        query = query.where(Venue.retired_at.is_(None))
    return list(db.session.scalars(query.order_by(Venue.name)))


def rename_venue(venue: Venue, name: str) -> None:
    """A venue's new name (its nights keep it: they point at the venue); a name the league has is refused."""
    cleaned = typed_text(name, 120, "the venue's name", required=True)
    if not cleaned:
        raise Refused("Give the venue a name.")
    if any(v.id != venue.id and v.name.casefold() == cleaned.casefold() for v in venues_of(venue.league)):
        raise Refused("The league already has a venue of that name.")
    venue.name = cleaned


def retire_venue(venue: Venue, retired: bool = True) -> None:
    """Retire a venue (its history stays; no new night is booked there) or bring it back. A venue with a
    night booked or under way is refused: move or cancel that night first."""
    if not retired:
        venue.retired_at = None
        return
    if venue.retired_at is not None:
        raise Refused(f"{venue.name} is already retired.")
    booked = db.session.scalar(db.select(Event).where(Event.venue_id == venue.id, Event.status.in_(
        (EventStatus.SCHEDULED, EventStatus.RUNNING)), Event.date >= venue.league.today() - dt.timedelta(days=1))
        .order_by(Event.date).limit(1))
    if booked is not None:
        raise Refused(f"{venue.name} has a night booked on {booked.date:%d %b %Y}: move or cancel it first.")
    venue.retired_at = utcnow()


_HOST_VENUES = db.select(HostVenue.venue_id).where(HostVenue.user_id == db.bindparam("user_id"))  # built once


def host_venue_ids(user_id: int) -> set[int]:
    """The venues given to a host (none given: the host runs only the nights assigned to them)."""
    return set(db.session.scalars(_HOST_VENUES, {"user_id": user_id}))


def set_host_venues(host: User, venue_ids: set[int]) -> None:
    """Give a host exactly these venues of their league (others are refused)."""
    league_venues = {v.id for v in host.league.venues}
    if not venue_ids <= league_venues:
        raise Refused("Those are not all this league's venues.")
    current = host_venue_ids(host.id)
    for venue_id in current - venue_ids:
        db.session.execute(db.delete(HostVenue).where(HostVenue.user_id == host.id, HostVenue.venue_id == venue_id))
    db.session.add_all(HostVenue(user_id=host.id, venue_id=venue_id) for venue_id in venue_ids - current)
    db.session.flush()


def runs_event(user: User, event: Event) -> bool:
    """Whether a login may run this night: an organiser of its league runs every night; a host given
    venues runs the nights at those venues; a host given none runs the nights assigned to them."""
    if user.is_organiser or user.league_id != event.league_id:  # decided without the host's venues
        return _may_run(user, event, False, False)
    venues = host_venue_ids(user.id)
    return _may_run(user, event, bool(venues), event.venue_id in venues)


def _may_run(user: User | _Login, event: Event, given_venues: bool, at_a_given_venue: bool) -> bool:
    if user.league_id != event.league_id:
        return False
    return user.is_organiser or (at_a_given_venue if given_venues else event.host_id == user.id)


class _Login(NamedTuple):
    """The columns of a login that runs_event's rule reads, under User's own names (`_may_run`)."""
    id: int
    league_id: int
    role: str

    @property
    def is_organiser(self) -> bool:
        return self.role == Role.ORGANISER


# The night's columns and the login by its current session token in one read, with what runs_event
# asks of the host's venues: a tap on the host's line checks all of it at every tap (built once).
# Columns, not the ORM's entities: the night is made from them as the ORM would load it (`_loaded`),
# without the ORM's per-row loading work, the largest part of a tap's first read
# (docs/benchmarks-clock.md, session 8).
_EVENTS, _USERS = Event.__table__, User.__table__
_NIGHT_AND_LOGIN = db.select(
    *_EVENTS.c, _USERS.c.id, _USERS.c.league_id, _USERS.c.role,
    db.exists().where(HostVenue.user_id == _USERS.c.id),
    db.exists().where(HostVenue.user_id == _USERS.c.id, HostVenue.venue_id == _EVENTS.c.venue_id),
).join(_USERS, _USERS.c.session_token == db.bindparam("token")).where(_EVENTS.c.id == db.bindparam("event_id"))
_EVENT_KEYS = tuple(column.key for column in _EVENTS.c)
_NEW_EVENT = manager_of_class(Event).new_instance


def _loaded(row) -> Event:
    """The night in this session from a row of its columns (`_EVENT_KEYS` first), as a query would
    load it: its columns as read, its relationships loaded on first use; the session's own copy if
    it has one already (a query returns that one too)."""
    existing = db.session.identity_map.get(db.session.identity_key(Event, row[0]))
    if existing is not None:
        return existing
    event = _NEW_EVENT()
    event.__dict__.update(zip(_EVENT_KEYS, row))
    make_transient_to_detached(event)  # as freshly loaded: nothing changed, the rest (relationships) unloaded
    db.session.add(event)
    return event


def night_run_by(event_id: int, token: str) -> tuple[Event | None, bool]:
    """(the night, whether the login whose current session token is `token` runs it, as runs_event
    decides) in one read: a login logged out since (its token rotated) runs nothing; the night is
    None when there is no such night."""
    row = db.session.execute(_NIGHT_AND_LOGIN, {"event_id": event_id, "token": token}).first()
    if row is None:
        return db.session.get(Event, event_id), False
    event = _loaded(row)
    *_, user_id, league_id, role, given_venues, at_a_given_venue = row
    return event, _may_run(_Login(user_id, league_id, role), event, given_venues, at_a_given_venue)
