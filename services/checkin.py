"""Check-in in the database (R-MEM-1, R-LATE-1/3/4): the check-in link's event, arrivals on a
phone or at the host's hand, confirming and turning away.

league/ decides; this module reads and writes models through a Journal, so each host action is
one transaction that can be taken back. Callers commit and publish.
"""
from __future__ import annotations

import dataclasses

from league import late_entry
from league.members import id_refusal
from league.statuses import LIVE, OPEN_EVENTS, PRE_REGISTERED, WAITING, EntryStatus, EventStatus, RulingKind
from services import MAX_REASON_LENGTH, Overridable, Refused, cancelling, finals, typed_text
from services.clocks import clock_view
from services.field import entry_of, live_game_elsewhere
from services.journal import Journal
from services.members import not_welcome
from services.models import Entry, Event, Member, Ruling, moment, utcnow
from services.night_snapshot import NightSnapshot, read_night
from services.places import place
from services.seats import seat_late_arrival
from wiring.extensions import db


def event_for_check_in(code: str) -> Event | None:
    """R-MEM-1: the event a check-in link belongs to, while it can still take entries."""
    event = db.session.scalar(db.select(Event).where(Event.check_in_code == code))
    return event if event is not None and event.status in OPEN_EVENTS else None


def check_in(event: Event, member: Member, journal: Journal | None = None, *, by_host: bool = False,
             override_reason: str = "", user_id: int | None = None, night: NightSnapshot | None = None,
             tapped_at_ms: int | None = None) -> Entry:
    """R-MEM-1, R-LATE-1/3/4: a member arrives. On their own phone the entry waits for the host to
    confirm (pending); the host's own check-in seats them at once, and the field grows: everyone
    already out moves one place down (R-PTS-5, services.places). Closed once the major break has
    started, unless the host overrides with a reason (recorded as a ruling). `night`: the host
    action's night, which the arrival then joins (read here when not given). `tapped_at_ms`: a host's
    check-in kept on their phone while it had no signal is judged, and arrives, at the moment it was
    tapped (R-LATE-1: registration open then is open), where the clock still tells it (clock_view)."""
    if reason := not_welcome(member):  # R-MEM-2: banned (the reason recorded), or a merged record
        raise Refused(reason)
    if event.status == EventStatus.CANCELLED:
        raise Refused(cancelling.cancellation(event))
    if event.status == EventStatus.SETTLED:
        raise Refused("This night is settled: nobody can join it now (its results can be corrected).")
    entry = entry_of(event, member) if night is None else night.entry_of(member)
    if entry is not None and entry.status not in PRE_REGISTERED:
        if entry.status in LIVE:
            return entry  # a second tap or a second scan: already in
        raise Refused(f"{member.name} has already played in this game.")
    if by_host:
        _id_seen(member)
    # R-QUAL-3..5: a final admits only its month's qualifiers (the host may override, a ruling).
    finals.admit(event, member, journal, by_host=by_host, override_reason=override_reason, user_id=user_id)
    elsewhere = live_game_elsewhere(member, event)
    decision = late_entry.entry_decision(clock_view(event, tapped_at_ms), elsewhere.venue.name if elsewhere else None,
                                         member.name)
    minutes = event.setting("registration_close_minutes")
    if decision.reason == late_entry.ENTRY_CLOSED and minutes:  # R-LATE-1: the night's own close, said as it is
        decision = dataclasses.replace(decision, reason=(
            f"Check-in is closed: registration ended after {minutes} minutes of play. "
            "The host can let you in with a reason."))
    if not decision.accepted:
        if not (decision.overridable and by_host and override_reason.strip()):
            raise (Overridable if decision.overridable and by_host else Refused)(decision.reason)
        db.session.add(Ruling(league_id=event.league_id, event_id=event.id, user_id=user_id,
                              kind=RulingKind.LATE_ENTRY_OVERRIDE, rule_id="R-LATE-1",
                              reason=typed_text(override_reason, MAX_REASON_LENGTH, "the reason"),
                              detail={"member": member.name}))
    status = EntryStatus.PLAYING if by_host else EntryStatus.PENDING
    arrived = utcnow() if tapped_at_ms is None else moment(tapped_at_ms)
    if entry is None:
        entry = Entry(event_id=event.id, member_id=member.id, status=status, arrived_at=arrived,
                      own_phone=not by_host)  # R-PAY-2: checked in on their own phone, they vote on it
        if night is None:
            db.session.add(entry)
            db.session.flush()
        else:
            night.add(entry)
        if journal:
            journal.created(entry)
    else:  # a pre-registered player arriving (R-LATE-3), or one whose unpaid request becomes an arrival
        if journal:
            journal.touch(entry)
        entry.status, entry.arrived_at = status, arrived
        entry.own_phone = entry.own_phone or not by_host
    finals.set_stack(event, entry)  # R-FIN: a final's stack by player
    if by_host and journal:
        db.session.flush()
        night = read_night(event) if night is None else night
        seat_late_arrival(night, entry, journal)
        place(night, journal)
    return entry


def confirm(night: NightSnapshot, entry: Entry, journal: Journal) -> None:
    """The host confirms an arrival: the player is in the game. R-LATE-3: confirming a player's own
    pre-registration request (a night with a buy-in) says the buy-in is paid: their stack goes in
    play from the start, and they check in when they arrive. A confirmed arrival takes a seat, so
    everyone already out moves one place down (R-PTS-5, services.places)."""
    if entry.status == EntryStatus.REQUESTED:
        journal.touch(entry)
        entry.status, entry.pre_registered = EntryStatus.REGISTERED, True
        return
    if entry.status != EntryStatus.PENDING:
        raise Refused(f"{entry.member.name} is not waiting to be confirmed.")
    _id_seen(entry.member)
    journal.touch(entry).status = EntryStatus.PLAYING
    seat_late_arrival(night, entry, journal)
    place(night, journal)


def _id_seen(member: Member) -> None:
    """R-MEM-1: a member under 21 takes no seat until the host has recorded their photo ID."""
    if refusal := id_refusal(member.name, member.under_21, member.id_checked_at is not None):
        raise Refused(refusal)


def clear_arrivals(night: NightSnapshot, journal: Journal, last_seen: int) -> list[str]:
    """R-MEM-1: the host turns away at once every arrival waiting for Confirm that their screen
    showed (entry ids up to `last_seen`: one who scanned since stays), after a flood of scans or a
    prank: the names turned away, in the order they arrived; refused when none waits.
    Pre-registration requests (a buy-in to confirm, R-LATE-3) stay: each is a player's own."""
    waiting = [entry for entry in night.with_status(EntryStatus.PENDING) if entry.id <= last_seen]
    if not waiting:
        raise Refused("Nobody is waiting to be confirmed.")
    names = [entry.member.name for entry in waiting]
    for entry in waiting:
        reject(night, entry, journal)
    return names


def reject(night: NightSnapshot, entry: Entry, journal: Journal) -> None:
    """The host turns an arrival away (not a member here, a prank scan…), or a pre-registration
    request whose buy-in was never paid (R-LATE-3): the entry goes."""
    if entry.status not in WAITING:
        raise Refused(f"{entry.member.name} is not waiting to be confirmed.")
    finals.give_back_ticket(entry, journal)  # R-QUAL-3: a ticket presented at a turned-away arrival
    night.drop(entry, journal)

