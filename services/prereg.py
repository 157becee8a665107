"""Pre-registration in the database (R-LATE-3, R-LATE-4): by the host or the player's own phone,
cancelling, missed blinds on arrival, and absentees removed at the final table."""
from __future__ import annotations

from league import late_entry
from league.members import ADULTS_ONLY
from league.statuses import OPEN_EVENTS, PRE_REGISTERED, EntryStatus, EventStatus
from services import Refused, cancelling, finals
from services.clocks import clock_view
from services.field import entry_of, live_game_elsewhere, stack_of, starting_stack
from services.journal import Journal
from services.members import not_welcome
from services.models import Entry, Event, Member, utcnow
from services.night_snapshot import NightSnapshot, read_night
from wiring.extensions import db


def pre_register(event: Event, member: Member, journal: Journal, *, override_reason: str = "",
                 user_id: int | None = None) -> Entry:
    """R-LATE-3: the host pre-registers a player with the full buy-in: their stack is in play from the
    start. R-QUAL-3..5, R-MEM-2: a final takes only its month's qualifiers; the host may override a
    refusal with a reason (services.Overridable), recorded as a ruling, as at a final's check-in."""
    if reason := not_welcome(member):  # R-MEM-2: banned (the reason recorded), or a merged record
        raise Refused(reason)
    if entry_of(event, member) is not None:
        raise Refused(f"{member.name} is already in this game.")
    if event.status == EventStatus.CANCELLED:
        raise Refused(cancelling.cancellation(event))
    if event.status not in OPEN_EVENTS:
        raise Refused("This game is over.")
    finals.admit(event, member, journal, present_ticket=False, by_host=True,  # R-QUAL-3..5: qualifiers only
                 override_reason=override_reason, user_id=user_id)
    return _pre_registered(event, member, EntryStatus.REGISTERED, journal)


def self_pre_registration_problem(event: Event, member: Member) -> str | None:
    """R-LATE-3/4: why the member can't pre-register themselves for the event now, said to them
    (None: they can). Age (R-MEM-1) is checked when they tap: they may confirm it then."""
    if member.league_id != event.league_id:
        return "This night is in another league: your member card can't enter it."
    if reason := not_welcome(member):  # R-MEM-2: banned (the reason recorded), or a merged record
        return reason
    if event.status == EventStatus.CANCELLED:
        return cancelling.cancellation(event)
    if event.status not in OPEN_EVENTS:
        return "This game is over."
    entry = entry_of(event, member)
    if entry is not None:
        if entry.status == EntryStatus.REQUESTED:
            return "You have already asked to pre-register: the host confirms you once your buy-in is paid."
        if entry.status == EntryStatus.REGISTERED:
            return "You are already pre-registered for this game."
        return "You are already in this game."
    if clock_view(event).started:
        return "Play has started, so pre-registration is closed: just check in at the venue with the host's QR code."
    elsewhere = live_game_elsewhere(member, event)
    if elsewhere is not None and elsewhere.date == event.date:  # tonight's game doesn't stop next week's
        return late_entry.one_game_at_a_time(elsewhere.venue.name)
    return None


def self_pre_register(event: Event, member: Member, journal: Journal, *, adult: bool = False) -> Entry:
    """R-LATE-3, R-LATE-4, R-MEM-1: a player pre-registers themselves from their phone, before play
    starts. A free night: their stack is in play at once (as the host's pre_register). A night with a
    buy-in: the entry waits as a request until the host confirms the full buy-in was paid (confirm),
    so no stack is in play on the player's word alone. A member who never confirmed they are 18 or
    over must confirm it now (`adult`), as joining asks; the confirmation is recorded."""
    problem = self_pre_registration_problem(event, member)
    if problem:
        raise Refused(problem)
    if member.adult_confirmed_at is None:
        if not adult:
            raise Refused(ADULTS_ONLY)
        journal.touch(member).adult_confirmed_at = utcnow()
    finals.admit(event, member, journal, present_ticket=False)  # R-QUAL-3..5: a final's qualifiers only
    status = EntryStatus.REQUESTED if event.buy_in > 0 else EntryStatus.REGISTERED
    entry = _pre_registered(event, member, status, journal)
    entry.own_phone = True  # R-PAY-2: from their own phone, so a deal's vote is theirs to cast on it
    return entry


def own_pre_registration(event: Event, member: Member) -> Entry | None:
    """R-LATE-3: the member's pre-registration (or request) that they may still cancel themselves:
    the game is open, play has not started, and they have not arrived."""
    entry = entry_of(event, member)
    if entry is None or entry.status not in PRE_REGISTERED or entry.arrived_at is not None:
        return None
    if event.status not in OPEN_EVENTS or clock_view(event).started:
        return None
    return entry


def cancel_pre_registration(event: Event, member: Member, journal: Journal) -> Entry:
    """R-LATE-3: a player takes back their own pre-registration (or request) before play starts;
    their stack leaves play. Once play has started the stack stays in until the final table
    removes it (the host can still act). Only their own: the entry is found from the member."""
    entry = entry_of(event, member)
    if entry is None or entry.status not in PRE_REGISTERED or entry.arrived_at is not None:
        raise Refused("You have no pre-registration to cancel in this game.")
    if event.status not in OPEN_EVENTS:
        raise Refused("This game is over.")
    if clock_view(event).started:
        raise Refused("Play has started: your stack is in play. Tell the host if you can't come.")
    read_night(event).drop(entry, journal)
    return entry


def deduct(entry: Entry, amount: int, journal: Journal) -> None:
    """R-LATE-3: the host confirms (or edits) the missed-blinds deduction; the chips leave play."""
    if amount < 0:
        raise Refused("The deduction can't be negative.")
    journal.touch(entry).chips_removed = amount


def remove_absentees(night: NightSnapshot, journal: Journal) -> int:
    """R-LATE-3: when the final table forms, pre-registered players who never arrived are removed:
    no points, no place in the field, their chips out of play. They never took a seat, so no
    position counted them (services.places); the caller places the positions again all the same,
    and they are no longer provisional for want of them. Returns how many were removed."""
    # Still "registered" is never arrived: an arrival moves the entry on to pending or playing.
    event = night.event
    waiting = {e.id: e for e in night.entries if e.status == EntryStatus.REGISTERED}
    if not waiting:
        return 0
    absent = late_entry.absent_at_final_table(waiting, (), starting_stack(event),
                                         {entry_id: night.bonus_of(e) for entry_id, e in waiting.items()},
                                         {entry_id: stack_of(event, e) for entry_id, e in waiting.items()})  # R-FIN
    for entry_id in absent.players:
        entry = journal.touch(waiting[entry_id])
        entry.status, entry.position = EntryStatus.NO_SHOW, None
        entry.chips_removed = absent.removed[entry_id]
    return len(absent.players)


def _pre_registered(event: Event, member: Member, status: EntryStatus, journal: Journal) -> Entry:
    """The new entry of a pre-registration (R-LATE-3): REGISTERED has its stack in play from the start
    (its own by R-FIN in a final), EntryStatus.REQUESTED waits for the host to confirm the buy-in."""
    entry = Entry(event_id=event.id, member_id=member.id, status=status,
                  pre_registered=status == EntryStatus.REGISTERED)
    db.session.add(entry)
    db.session.flush()
    journal.created(entry)
    finals.set_stack(event, entry)  # R-FIN: a final's stack by player
    return entry
