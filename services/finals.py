"""Finals in the database (R-QUAL-1..5, R-FIN): who may enter a final, the Monthly Final ticket
presented at its check-in, each entrant's own starting stack, and a month's qualifiers as every screen,
file, the API and the CLI give them (one reading, so one player has one number everywhere).

league.finals decides; this module reads the month's tickets and standings, records the host's
overrides as rulings and writes through the caller's Journal. It never commits.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import func
from sqlalchemy.orm import joinedload

from league import finals
from league.events import event_type
from league.qualify import may_enter_final, shootout_qualifiers
from league.standings import StandingRow
from league.statuses import EntryStatus, EventStatus, RulingKind, TicketState
from services import MAX_REASON_LENGTH, Overridable, Refused, typed_text
from services.journal import Journal
from services.leagues import parse_month
from services.models import Entry, Event, League, Member, Ruling, Ticket, utcnow
from services.standings import month_standings, ticket_holders
from wiring.extensions import db


def is_final(event: Event) -> bool:
    """Whether the event is a final (R-PTS-8's Monthly Final, High-roller Final, Top-10 Shoot-out)."""
    return event_type(event.event_type).is_final


def final_month(event: Event) -> str:
    """The month (YYYY-MM) whose qualifiers the final is for: the one stored on the event, else the
    month before its date (league.finals.qualifying_month)."""
    return finals.qualifying_month(event.date, event.final_month)


def ticket_of(event: Event, member: Member) -> Ticket | None:
    """R-QUAL-1..3: the member's Monthly Final ticket for the final's month, if any."""
    return db.session.scalar(db.select(Ticket).where(
        Ticket.league_id == event.league_id, Ticket.month == final_month(event), Ticket.member_id == member.id))


def _month_table(event: Event):
    return month_standings(event.league, final_month(event))


def _row(table, member_id: int):
    return next((row for row in table if row.key == member_id), None)


def _new_member(event: Event, member: Member) -> bool:
    # A member with no entry in any other event of the league: they joined tonight.
    return not db.session.scalar(db.select(func.count()).select_from(Entry).join(Event).where(
        Entry.member_id == member.id, Event.league_id == event.league_id, Event.id != event.id))


def standing_of(event: Event, member: Member) -> finals.Standing:
    """What the member holds for the final's month (R-QUAL-1..5), read for league.finals."""
    table = _month_table(event)
    row = _row(table, member.id)
    ticket = ticket_of(event, member) if event.event_type == "monthly_final" else None
    held = TicketState.NONE if ticket is None else (TicketState.USED if ticket.presented_at else TicketState.UNUSED)
    return finals.Standing(
        events_played=row.events if row else 0,
        ticket=held,
        shootout=event.event_type == "top10_shootout" and any(r.key == member.id for r in shootout_qualifiers(table)),
        new_member=_new_member(event, member))


def admission(event: Event, member: Member) -> finals.Admission:
    """R-QUAL-3..5: whether the member may enter this final (always admitted to other events)."""
    if not is_final(event):
        return finals.ADMITTED
    return finals.admission(event.event_type, final_month(event), standing_of(event, member))


def _overridden(event: Event, member: Member) -> bool:
    return any((r.detail or {}).get("member_id") == member.id for r in db.session.scalars(
        db.select(Ruling).where(Ruling.event_id == event.id, Ruling.kind == RulingKind.FINAL_ENTRY_OVERRIDE)))


def admit(event: Event, member: Member, journal: Journal | None = None, *, present_ticket: bool = True,
          by_host: bool = False, override_reason: str = "", user_id: int | None = None) -> None:
    """R-QUAL-3..5: let the member into a final, or raise Refused with the reason. The host may
    override a refusal with a reason, recorded as a ruling; a player already let in by a ruling
    (say at pre-registration) is not asked again. `present_ticket`: a Monthly Final ticket is
    presented now (check-in) and marked used, so it can't admit twice (R-QUAL-3); pre-registration
    only checks it. Other events: nothing to do."""
    if not is_final(event):
        return
    decision = admission(event, member)
    if decision.admitted:
        if present_ticket and event.event_type == "monthly_final":
            ticket = ticket_of(event, member)
            if journal:
                journal.touch(ticket)
            ticket.presented_at, ticket.presented_event_id = utcnow(), event.id
        return
    if _overridden(event, member):
        return
    if not (by_host and override_reason.strip()):
        # The host's roster offers the override with a reason (R-MEM-2); a phone is simply refused.
        raise (Overridable if by_host else Refused)(decision.reason)
    db.session.add(Ruling(league_id=event.league_id, event_id=event.id, user_id=user_id,
                          kind=RulingKind.FINAL_ENTRY_OVERRIDE, rule_id=decision.rule_id,
                          reason=typed_text(override_reason, MAX_REASON_LENGTH, "the reason"),
                          detail={"member": member.name, "member_id": member.id, "refused": decision.reason}))
    db.session.flush()


def starts_at_utc(event: Event) -> dt.datetime:
    """When the event starts, naive UTC as the timestamps are stored (no start time: midnight)."""
    local = dt.datetime.combine(event.date, event.start_time or dt.time(0, 0), tzinfo=event.league.zone())
    return local.astimezone(dt.UTC).replace(tzinfo=None)


def registered_ahead(event: Event, entry: Entry) -> bool:
    """R-FIN: whether the entry registered for the final 24 h or more before its start: only a
    pre-registration (or a phone's request to pre-register) is a registration ahead."""
    ahead = entry.pre_registered or entry.status == EntryStatus.REQUESTED
    return bool(ahead and finals.registered_early(entry.created_at or utcnow(), starts_at_utc(event)))


def entry_stack(event: Event, entry: Entry) -> int | None:
    """R-FIN: the entrant's own starting stack in a High-roller Final (20,000, or 25,000 with 2+ events
    in the final's month, +2,000 for registering 24 h before); None elsewhere (the event type's
    stack, services.field.starting_stack)."""
    if event.event_type != "highroller_final":
        return None
    row = _row(_month_table(event), entry.member_id)
    early = registered_ahead(event, entry)
    return finals.starting_stack(event.event_type, event.league.kind, row.events if row else 0, early)


# --- a month's qualifiers, the one reading every screen and file gives (R-QUAL-1..5, R-FIN) --------

@dataclass(frozen=True)
class HighrollerEntrant:
    """R-FIN: a High-roller Final entrant for a month and their starting stack (20,000; 25,000 with 2+
    nights; +2,000 registered 24 h ahead for one of the month's High-roller Finals)."""

    key: int  # the member's id
    player: str
    nights: int
    stack: int
    early: bool


FINAL_TYPES = tuple(finals.FINAL_LABELS)


def finals_for(league: League, month: str, types: tuple[str, ...] = FINAL_TYPES) -> list[Event]:
    """The finals (of `types`) for `month`'s qualifiers, the month stored on the event or the month
    before its date (R-QUAL-1..5), cancelled ones left out; by date and start time."""
    following = parse_month(month)[1]
    after = parse_month(following.strftime("%Y-%m"))[1]
    events = db.session.scalars(db.select(Event).options(joinedload(Event.venue)).where(
        Event.league_id == league.id, Event.event_type.in_(types), Event.status != EventStatus.CANCELLED,
        ((Event.final_month == month) | (Event.final_month.is_(None) & (Event.date >= following)
                                         & (Event.date < after)))).order_by(Event.date, Event.start_time)).all()
    return [e for e in events if finals.qualifying_month(e.date, e.final_month) == month]


def month_to_lead(league: League, today: dt.date, months_with_results: list[str]) -> str:
    """R-QUAL-1..5: the month a league's public page leads with: last month while its finals are still
    to be played (one booked and not settled, or none booked while this month has no results yet),
    else this month, else the latest month with results. `months_with_results`: newest first."""
    this = today.strftime("%Y-%m")
    last = (today.replace(day=1) - dt.timedelta(days=1)).strftime("%Y-%m")
    if last in months_with_results:
        booked = finals_for(league, last)
        if any(e.status != EventStatus.SETTLED for e in booked) or (not booked and this not in months_with_results):
            return last
    if this in months_with_results or not months_with_results:
        return this
    return months_with_results[0]


def highroller_entrants(league: League, month: str, table: list[StandingRow]) -> list[HighrollerEntrant]:
    """R-QUAL-5, R-FIN: who may enter `month`'s High-roller Final (a night played that month) and each
    one's starting stack, with +2,000 for a registration 24 h ahead for one of its finals: the same
    figure the host's roster gives the entrant (entry_stack)."""
    early: set[int] = set()
    for event in finals_for(league, month, ("highroller_final",)):
        early.update(entry.member_id for entry in db.session.scalars(db.select(Entry).where(Entry.event_id == event.id))
                     if registered_ahead(event, entry))
    return [HighrollerEntrant(row.key, row.player, row.events,
                              finals.starting_stack("highroller_final", league.kind, row.events, row.key in early),
                              row.key in early)
            for row in table if may_enter_final(row.events)]


def qualifiers(league: League, month: str, table: list[StandingRow] | None = None) -> dict[str, list[dict]]:
    """R-QUAL-1..5 and R-FIN: who holds Monthly Final tickets, who made the Top-10 Shoot-out, and the
    High-roller Final entrants with their starting stacks, as the public pages, the API and `flask
    league qualifiers --json` give them: the organiser's pack reads the same (services.pack)."""
    table = month_standings(league, month) if table is None else table
    return {
        "monthly_final": [
            {"player": t.member.name, "date": t.event.date.isoformat(),
             "start_time": t.event.start_time.strftime("%H:%M") if t.event.start_time else None,
             "venue": t.event.venue.name, "position": t.position} for t in ticket_holders(league, month)],
        "top10_shootout": [{"player": row.player, "points": row.points} for row in shootout_qualifiers(table)],
        "highroller_final": [{"player": h.player, "events": h.nights, "starting_stack": h.stack}
                             for h in highroller_entrants(league, month, table)],
    }


def set_stack(event: Event, entry: Entry) -> None:
    """R-FIN, R-CHIP-3: put the entrant's own starting stack on their entry where it differs by player.
    Called where the entry is created or already noted in the action's journal."""
    stack = entry_stack(event, entry)
    if stack is not None:
        entry.starting_stack = stack


def give_back_ticket(entry: Entry, journal: Journal) -> None:
    """R-QUAL-3: an entry that leaves the final before playing (turned away, undone) gives back the
    Monthly Final ticket it presented there."""
    for ticket in db.session.scalars(db.select(Ticket).where(
            Ticket.presented_event_id == entry.event_id, Ticket.member_id == entry.member_id)):
        journal.touch(ticket)
        ticket.presented_at = ticket.presented_event_id = None
