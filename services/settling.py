"""Settling a night in the database (R-PTS, R-QUAL-1/2, R-PAY-1): points, prizes, and the month's
Monthly Final tickets re-issued in date order."""
from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import joinedload

from league import night
from league.events import EVENT_TYPES
from league.points import PARTICIPANT_STATUSES, Finish, award_points
from league.qualify import EventResult, monthly_tickets
from league.statuses import FIELD, REQUESTED, DealStatus, EntryStatus, EventStatus
from services import Refused
from services.field import prize_table
from services.journal import Journal
from services.leagues import parse_month
from services.models import Entry, Event, League, Ticket, utcnow
from services.places import dealt as dealt_counts
from services.places import place
from services.prereg import remove_absentees
from wiring.extensions import db


def settle(event: Event, journal: Journal) -> None:
    """Settle the night once one player remains (or a deal was agreed): the winner takes 1st,
    pre-registered no-shows leave the field (R-LATE-3), every position is placed from the field as it
    finally stands (R-PTS-5..7, services.places), then points (R-PTS), prizes for cash nights
    (R-PAY-1), and the month's tickets settled again in date order (R-QUAL-1/2). A correction
    re-settles. Whatever state the night is in, the answer is a settled night or Refused saying what
    to fix first."""
    entries = db.session.scalars(db.select(Entry).where(Entry.event_id == event.id)).all()
    playing = [e for e in entries if e.status == EntryStatus.PLAYING]
    dealt = event.deal_status == DealStatus.AGREED
    if len(playing) > 1 or (dealt and playing):
        raise Refused(f"{len(playing)} players are still in: settle when one remains.")
    if any(e.status in (EntryStatus.PENDING, REQUESTED) for e in entries):
        raise Refused("Confirm or turn away the arrivals and pre-registration requests still waiting first.")
    if not any(e.status in FIELD for e in entries):
        raise Refused("Nobody has played in this game yet: there is nothing to settle.")
    journal.touch(event)
    for entry in entries:
        journal.touch(entry)
    if playing:
        playing[0].status = EntryStatus.PLAYED
    try:
        remove_absentees(event, journal)
        finished = place(event, journal)
    except Refused as problem:
        raise Refused(f"The night can't be settled yet: {problem} Fix that first (Undo takes back the last "
                      "action), then settle again.") from None
    if not finished.over:
        raise Refused(f"The night can't be settled yet: {len(finished.still_in)} players have no finishing "
                      "position. Record who went out (Undo takes back the last action), then settle again.")
    event.status, event.settled_at = EventStatus.SETTLED, utcnow()
    table = prize_table(event)
    try:
        award_event_points(event)
        counted = [e for e in entries if e.status in PARTICIPANT_STATUSES]
        if table:
            prizes = night.prizes_for({e.id: e.position for e in counted}, {e.id: e.status for e in counted}, table)
            shares = dealt_counts(event, entries)
            for entry in counted:
                if entry.id not in shares:  # a deal's players keep their shares
                    entry.prize = prizes.get(entry.id, 0)
        db.session.flush()
        before = {t.id: t for t in db.session.scalars(db.select(Ticket).where(
            Ticket.league_id == event.league_id, Ticket.month == event.month))}
        for ticket in before.values():
            journal.touch(ticket)
        after = settle_tickets(event.league, event.month)
    except Refused:
        raise
    except ValueError as problem:
        raise Refused(f"The night can't be settled: the results don't add up ({problem}). Fix that first "
                      "(Undo takes back the last action), then settle again.") from None
    db.session.flush()
    for ticket in after:
        if ticket.id not in before:
            journal.created(ticket)


TICKET_TYPES = tuple(name for name, kind in EVENT_TYPES.items() if kind.awards_tickets)


def settle_order(event: Event) -> tuple:
    """R-QUAL-2: events settle by date, then start time, then venue name."""
    return (event.date, event.start_time or dt.time(0, 0), event.venue.name.casefold(), event.id)


def award_event_points(event: Event) -> None:
    """R-PTS-1..8: write each entry's points from its finishing position and status."""
    kind = EVENT_TYPES[event.event_type]
    finishes = [Finish(entry.id, entry.position, entry.status) for entry in event.entries]
    # R-PTS-8: the night's settings (its snapshot, league.settings) may switch its type's points off.
    awards = kind.awards_points and (event.settings or {}).get("awards_points", True) is not False
    points = award_points(finishes, high_roller=kind.high_roller, awards_points=awards)
    for entry in event.entries:
        entry.points = points.get(entry.id, 0)


def settle_tickets(league: League, month: str) -> list[Ticket]:
    """R-QUAL-1/2: re-issue the month's Monthly Final tickets from its settled nights, in date order.

    A ticket already presented at the Final keeps its presented time if its holder still earns it.
    """
    first, following = parse_month(month)
    events = db.session.scalars(db.select(Event).options(joinedload(Event.venue)).where(
        Event.league_id == league.id, Event.date >= first, Event.date < following,
        Event.event_type.in_(TICKET_TYPES), Event.status == EventStatus.SETTLED)).all()
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

