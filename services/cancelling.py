"""A night cancelled before play, kept on the record (who, when and why): it awards nothing, takes no
check-in, and Undo (the journal) brings it back while nothing has happened on it since."""
from __future__ import annotations

from league.events import change_problem
from league.statuses import EventStatus
from league.text import as_sentence
from services import MAX_REASON_LENGTH, Refused, finals, typed_text
from services.journal import Journal
from services.models import Entry, Event, User, utcnow
from wiring.extensions import db


def cancel(event: Event, reason: str, journal: Journal, user_id: int | None) -> None:
    """Cancel a night before play (its clock never started): it stays listed as cancelled with who
    cancelled it, when and why; its entries stay as the record (it is never settled, so nobody gets
    points, prizes or tickets from it) and a Monthly Final ticket presented at it is given back
    (R-QUAL-3). Refused with the reason once play has started, or without a reason."""
    if problem := change_problem(event.status, event.clock_started):
        raise Refused(as_sentence(problem))
    why = typed_text(reason, MAX_REASON_LENGTH, "the reason", required=True)
    journal.touch(event)
    event.status, event.cancelled_at, event.cancelled_by, event.cancel_reason = (
        EventStatus.CANCELLED, utcnow(), user_id, why)
    for entry in db.session.scalars(db.select(Entry).where(Entry.event_id == event.id)):
        finals.give_back_ticket(entry, journal)


def cancellation(event: Event) -> str:
    """A cancelled night in words, for every screen that refuses it: who cancelled it and why."""
    who = db.session.get(User, event.cancelled_by) if event.cancelled_by else None
    by = f" by {who.display_name}" if who else ""
    when = f" on {event.cancelled_at.strftime('%d %b')}" if event.cancelled_at else ""
    why = f": {event.cancel_reason}" if event.cancel_reason else ""
    text = f"This night was cancelled{by}{when}{why}"
    return text if text.endswith((".", "!", "?")) else text + "."


def cancelled_by_code(code: str) -> Event | None:
    """The cancelled night a check-in link belongs to (None: the link is another night's, or none)."""
    event = db.session.scalar(db.select(Event).where(Event.check_in_code == code))
    return event if event is not None and event.status == EventStatus.CANCELLED else None
