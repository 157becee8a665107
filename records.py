"""The league's records: reads and writes models, and asks league/ for every decision.

Views and commands call these; they never decide a rule themselves. Callers commit.
"""
from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass

from sqlalchemy import delete, func, insert
from sqlalchemy.orm import joinedload, selectinload

from extensions import db
from league.events import EVENT_TYPES
from league.finals import starting_stack
from league.members import name_key
from league.points import PARTICIPANT_STATUSES, Finish, award_points
from league.qualify import EventResult, may_enter_final, monthly_tickets, shootout_qualifiers
from league.results_file import EventResults, ResultsFileError
from league.standings import StandingRow, rank_table
from models import Entry, Event, League, Member, Ticket, Venue, slugify, utcnow

POINT_TYPES = tuple(name for name, kind in EVENT_TYPES.items() if kind.awards_points)
TICKET_TYPES = tuple(name for name, kind in EVENT_TYPES.items() if kind.awards_tickets)
COUNTED = PARTICIPANT_STATUSES  # R-PTS-5: who took a seat and played


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


def settle_order(event: Event) -> tuple:
    """R-QUAL-2: events settle by date, then start time, then venue name."""
    return (event.date, event.start_time or dt.time(0, 0), event.venue.name.casefold(), event.id)


def award_event_points(event: Event) -> None:
    """R-PTS-1..8: write each entry's points from its finishing position and status."""
    kind = EVENT_TYPES[event.event_type]
    finishes = [Finish(entry.id, entry.position, entry.status) for entry in event.entries]
    points = award_points(finishes, high_roller=kind.high_roller, awards_points=kind.awards_points)
    for entry in event.entries:
        entry.points = points.get(entry.id, 0)


def settle_tickets(league: League, month: str) -> list[Ticket]:
    """R-QUAL-1/2: re-issue the month's Monthly Final tickets from its settled nights, in date order.

    A ticket already presented at the Final keeps its presented time if its holder still earns it.
    """
    first, following = parse_month(month)
    events = db.session.scalars(db.select(Event).options(joinedload(Event.venue)).where(
        Event.league_id == league.id, Event.date >= first, Event.date < following,
        Event.event_type.in_(TICKET_TYPES), Event.status == "settled")).all()
    # Only three columns of each entry: read as plain rows, not entities (a month of nights is
    # hundreds of entries; settling tonight's 200-player night re-reads all of them).
    finishes: dict[int, list[Finish]] = {event.id: [] for event in events}
    if finishes:
        for event_id, member_id, position, status in db.session.execute(
                db.select(Entry.event_id, Entry.member_id, Entry.position, Entry.status)
                .where(Entry.event_id.in_(list(finishes))).order_by(Entry.id)):
            finishes[event_id].append(Finish(member_id, position, status))
    results = [EventResult(event.id, settle_order(event), tuple(finishes[event.id])) for event in events]
    issued = monthly_tickets(results, pass_down=league.pass_down)
    existing = {t.member_id: t for t in db.session.scalars(
        db.select(Ticket).where(Ticket.league_id == league.id, Ticket.month == month))}
    tickets = []
    for ticket in issued:
        old = existing.pop(ticket.player, None)
        if old is None:
            old = Ticket(league_id=league.id, month=month, member_id=ticket.player)
            db.session.add(old)
        old.event_id, old.position = ticket.event, ticket.position
        tickets.append(old)
    for gone in existing.values():
        db.session.delete(gone)
    return tickets


@dataclass(frozen=True)
class ImportSummary:
    events: int
    results: int
    new_members: int
    new_venues: int
    months: tuple[str, ...]


def import_results(league: League, events: list[EventResults], *, replace: bool = False) -> ImportSummary:
    """Write a parsed results file (R-PTS for each event, then R-QUAL for each month it touches).

    An event that already has results is an error unless `replace` is set, so importing the same
    file twice cannot double anyone's points. Points are decided before writing, and entries and
    new members go in as bulk inserts (one INSERT per row is what makes a 10,000-row file slow on
    SQLite). Nothing is committed here: the caller commits once.
    """
    venues = {name_key(v.name): v for v in db.session.scalars(db.select(Venue).where(Venue.league_id == league.id))}
    members = dict(db.session.execute(db.select(Member.name_key, Member.id).where(Member.league_id == league.id)).all())
    existing = {(e.venue_id, e.date, e.start_time): e for e in db.session.scalars(
        db.select(Event).where(Event.league_id == league.id, Event.date.in_({f.date for f in events})))}
    new_venues = 0
    errors, months, targets = [], set(), []
    for found in events:
        venue = venues.get(name_key(found.venue))
        if venue is None:
            venue = venues[name_key(found.venue)] = Venue(league_id=league.id, name=found.venue)
            db.session.add(venue)
            db.session.flush()
            new_venues += 1
        event = existing.get((venue.id, found.date, found.start_time))
        if event is not None and db.session.scalar(db.select(Entry.id).where(Entry.event_id == event.id).limit(1)):
            if not replace:
                errors.append(f"line {found.first_line}: {found.describe()} already has results "
                              "(import with --replace to overwrite them)")
                continue
            months.add(event.month)
            db.session.execute(delete(Entry).where(Entry.event_id == event.id))
        if event is None:
            event = Event(league_id=league.id, venue=venue, date=found.date, start_time=found.start_time,
                          event_type=found.event_type)
            db.session.add(event)
        event.event_type, event.status, event.settled_at = found.event_type, "settled", utcnow()
        targets.append((event, found))
        months.add(event.month)
    if errors:
        raise ResultsFileError(errors)
    new = {}
    for _, found in targets:
        for row in found.rows:
            key = name_key(row.player)
            if key not in members and key not in new:
                new[key] = row.player
    if new:
        db.session.execute(insert(Member), [
            {"league_id": league.id, "name": name, "name_key": key, "card_code": secrets.token_urlsafe(24)}
            for key, name in new.items()])
        members.update(db.session.execute(db.select(Member.name_key, Member.id).where(
            Member.league_id == league.id, Member.name_key.in_(list(new)))).all())
    db.session.flush()  # the new events get their ids
    rows, now = [], utcnow()
    for event, found in targets:
        kind = EVENT_TYPES[found.event_type]
        finishes = [Finish(i, r.position, r.status) for i, r in enumerate(found.rows)]
        points = award_points(finishes, high_roller=kind.high_roller, awards_points=kind.awards_points)
        rows += [{"event_id": event.id, "member_id": members[name_key(r.player)], "status": r.status,
                  "position": r.position, "points": points[i], "prize": 0, "created_at": now}
                 for i, r in enumerate(found.rows)]
    db.session.execute(insert(Entry), rows)
    for event, _ in targets:
        db.session.expire(event, ["entries"])
    for month in sorted(months):
        settle_tickets(league, month)
    return ImportSummary(len(events), len(rows), len(new), new_venues, tuple(sorted(months)))


def standings(league: League, first: dt.date, following: dt.date) -> list[StandingRow]:
    """R-STD-1/2: the table for [first, following): points summed over point-awarding nights."""
    rows = db.session.execute(
        db.select(Member.id, Member.name, func.sum(Entry.points), func.count(Entry.id))
        .join(Entry, Entry.member_id == Member.id)
        .join(Event, Event.id == Entry.event_id)
        .where(Event.league_id == league.id, Event.date >= first, Event.date < following,
               Event.event_type.in_(POINT_TYPES), Event.status == "settled", Entry.status.in_(COUNTED))
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
    tickets = db.session.scalars(db.select(Ticket).join(Event).join(Venue).options(
        joinedload(Ticket.member), joinedload(Ticket.event).joinedload(Event.venue)).where(
        Ticket.league_id == league.id, Ticket.month == month)).all()
    return sorted(tickets, key=lambda t: (settle_order(t.event), t.position, t.member.name.casefold()))


def qualifiers(league: League, month: str, table: list[StandingRow] | None = None) -> dict[str, list[dict]]:
    """R-QUAL-1..5 and R-FIN: who holds Monthly Final tickets, who made the Top-10 Shoot-out, and the
    High-roller Final entrants with their starting stacks, in DESIGN.md's JSON shape."""
    table = month_standings(league, month) if table is None else table
    return {
        "monthly_final": [
            {"player": t.member.name, "date": t.event.date.isoformat(), "venue": t.event.venue.name,
             "position": t.position} for t in ticket_holders(league, month)],
        "top10_shootout": [{"player": row.player, "points": row.points} for row in shootout_qualifiers(table)],
        "highroller_final": [
            {"player": row.player, "events": row.events,
             "starting_stack": starting_stack("highroller_final", league.kind, row.events)}
            for row in table if may_enter_final(row.events)],
    }


def standings_json(table: list[StandingRow]) -> dict[str, list[dict]]:
    """DESIGN.md's standings shape."""
    return {"standings": [{"rank": r.rank, "player": r.player, "points": r.points, "events": r.events}
                          for r in table]}


def league_months(league: League) -> list[str]:
    """The months (YYYY-MM) in which the league has settled nights, newest first."""
    dates = db.session.scalars(db.select(Event.date).where(
        Event.league_id == league.id, Event.status == "settled").distinct()).all()
    return sorted({d.strftime("%Y-%m") for d in dates}, reverse=True)


def settled_nights(league: League, first: dt.date | None = None, following: dt.date | None = None,
                    limit: int | None = None) -> list[Event]:
    """Settled events of the league in [first, following), newest first."""
    query = db.select(Event).options(joinedload(Event.venue)).where(
        Event.league_id == league.id, Event.status == "settled")
    if first is not None:
        query = query.where(Event.date >= first, Event.date < following)
    query = query.order_by(Event.date.desc(), Event.start_time.desc(), Event.id.desc())
    return db.session.scalars(query.limit(limit) if limit else query).all()


def nights_from(league: League, today: dt.date) -> list[Event]:
    """The league's running events (whatever their date: a night can run past midnight) and its
    scheduled ones from `today`, in date and start-time order."""
    return db.session.scalars(db.select(Event).options(joinedload(Event.venue)).where(
        Event.league_id == league.id,
        (Event.status == "running") | ((Event.status == "scheduled") & (Event.date >= today)))
        .order_by(Event.date, Event.start_time, Event.id)).all()


def upcoming_nights(league: League) -> list[Event]:
    """The league's nights not settled yet, from yesterday at its venues (a night can run past
    midnight), in date and start-time order: what its organiser and hosts manage."""
    return db.session.scalars(db.select(Event).options(joinedload(Event.venue)).where(
        Event.league_id == league.id, Event.date >= league.today() - dt.timedelta(days=1),
        Event.status != "settled").order_by(Event.date, Event.start_time)).all()


def finishers(event: Event) -> list[Entry]:
    """R-PTS-5: the participants (played or disqualified) in finishing order; no-shows are not."""
    entries = db.session.scalars(db.select(Entry).options(selectinload(Entry.member)).where(
        Entry.event_id == event.id, Entry.status.in_(COUNTED))).all()
    return sorted(entries, key=lambda e: (e.position is None, e.position or 0, e.member.name.casefold()))


def ticketed(event: Event) -> set[int]:
    """R-QUAL-1/2: the members whose Monthly Final ticket came from this event."""
    return set(db.session.scalars(db.select(Ticket.member_id).where(Ticket.event_id == event.id)))


# ---- One member's own records, for their home page (/me; issue 5) ----

LIVE_ENTRY_STATUSES = ("requested", "pending", "registered", "playing", "played", "dq")


def row_of(table: list[StandingRow], member_id: int) -> StandingRow | None:
    """R-STD-1/2: the member's row in a standings table (None: not in it)."""
    return next((row for row in table if row.key == member_id), None)


def shootout_standing(table: list[StandingRow], member_id: int) -> tuple[bool, int | None]:
    """R-QUAL-4: whether the member is in the month's Top-10 Shoot-out, and the points it takes
    (the lowest qualifier's; None while nobody has scored)."""
    qualified = shootout_qualifiers(table)
    return any(row.key == member_id for row in qualified), (qualified[-1].points if qualified else None)


def member_live_entry(member: Member, since: dt.date) -> Entry | None:
    """The member's entry in a game not settled yet (dated `since` or later: a forgotten,
    never-settled night does not stay "tonight" for ever), the latest first."""
    return db.session.scalar(db.select(Entry).join(Event).options(
        joinedload(Entry.event).joinedload(Event.venue)).where(
        Entry.member_id == member.id, Entry.status.in_(LIVE_ENTRY_STATUSES),
        Event.status != "settled", Event.date >= since)
        .order_by(Event.date.desc(), Event.start_time.desc(), Event.id.desc()).limit(1))


def member_results(member: Member, limit: int = 50) -> list[Entry]:
    """R-PTS-5: the member's settled games (played or disqualified), newest first."""
    return db.session.scalars(db.select(Entry).join(Event).options(
        joinedload(Entry.event).joinedload(Event.venue)).where(
        Entry.member_id == member.id, Entry.status.in_(COUNTED), Event.status == "settled")
        .order_by(Event.date.desc(), Event.start_time.desc(), Event.id.desc()).limit(limit)).all()


def member_tickets(member: Member, limit: int = 6) -> list[Ticket]:
    """R-QUAL-1..3: the member's Monthly Final tickets, the latest months first."""
    return db.session.scalars(db.select(Ticket).options(
        joinedload(Ticket.event).joinedload(Event.venue)).where(Ticket.member_id == member.id)
        .order_by(Ticket.month.desc()).limit(limit)).all()
