"""Web Push subscriptions in the database, and the messages a host action leaves to be sent once it is
committed (the sending itself is live/push.py's, off the request path)."""
from __future__ import annotations

import datetime as dt

from league import push as push_rules
from league.finals import month_label
from league.push import Message
from league.qualify import shootout_qualifiers
from league.statuses import PRE_REGISTERED
from services.models import Entry, Event, PushSent, PushSubscription, utcnow
from wiring.extensions import db

MAX_PHONES_PER_MEMBER = 5  # a member's phones and browsers; a sixth pushes out the one subscribed longest ago
OUTBOX = "push_outbox"  # the session's info key: messages waiting for the transaction's commit


def subscribe(member_id: int, endpoint: str, p256dh: str, auth: str) -> PushSubscription:
    """R-MEM-1: this phone's subscription, for its member (checked by league.push first). A phone that
    subscribes again keeps one row (its keys renewed); a phone whose card moved to another member is
    theirs now; past MAX_PHONES_PER_MEMBER the member's oldest subscription goes."""
    row = db.session.scalar(db.select(PushSubscription).where(PushSubscription.endpoint == endpoint))
    if row is None:
        row = PushSubscription(member_id=member_id, endpoint=endpoint, p256dh=p256dh, auth=auth)
        db.session.add(row)
    else:
        row.member_id, row.p256dh, row.auth, row.created_at = member_id, p256dh, auth, utcnow()
    db.session.flush()
    mine = db.session.scalars(db.select(PushSubscription).where(PushSubscription.member_id == member_id)
                              .order_by(PushSubscription.created_at.desc(), PushSubscription.id.desc())).all()
    for old in mine[MAX_PHONES_PER_MEMBER:]:
        db.session.delete(old)
    return row


def unsubscribe(member_id: int, endpoint: str | None) -> int:
    """R-MEM-1: end this phone's subscription (the member's own only); without an endpoint, every one of
    the member's phones. How many ended."""
    query = db.delete(PushSubscription).where(PushSubscription.member_id == member_id)
    if endpoint is not None:
        query = query.where(PushSubscription.endpoint == endpoint)
    return db.session.execute(query).rowcount or 0


def subscriptions_of(member_ids: list[int]) -> list[PushSubscription]:
    """Every phone subscribed for these members."""
    if not member_ids:
        return []
    return list(db.session.scalars(db.select(PushSubscription).where(PushSubscription.member_id.in_(member_ids))
                                   .order_by(PushSubscription.id)))


def forget(endpoint: str) -> None:
    """The push service says this subscription is gone (404/410): it is never sent to again."""
    db.session.execute(db.delete(PushSubscription).where(PushSubscription.endpoint == endpoint))


def tell(member_id: int | None, message: Message, *, due: dt.datetime | None = None,
         unless_changed: tuple | None = None, once: tuple[str, str] | None = None) -> None:
    """Leave `message` for the member's phones, sent only once the transaction it belongs to commits
    (a refused or rolled-back action tells nobody). `due` (UTC): not before then; `unless_changed`: a
    fact the sender checks again at that time (live.push.still_true) so a penalty ended early or
    extended meanwhile is not announced twice or too soon; `once`: (kind, ref) a member is told only
    once ever (note_told)."""
    if member_id is None:
        return
    _leave({"member": member_id, "message": message.payload(),
            "due": due.replace(tzinfo=dt.UTC).timestamp() if due else None,
            "check": list(unless_changed) if unless_changed else None, "once": list(once) if once else None})


def _leave(item: dict) -> None:
    db.session.info.setdefault(OUTBOX, []).append(item)


def note_told(member_id: int, kind: str, ref: str) -> None:
    """R-LATE-3, R-QUAL-4: the member is being told (kind, ref), a message they get once only. Raises
    IntegrityError (at this flush, or the commit) when they were told it already: of two senders, the
    one whose row commits first tells them; the caller commits each on its own."""
    db.session.add(PushSent(member_id=member_id, kind=kind, ref=ref))
    db.session.flush()


def already_told(member_ids: list[int] | set[int], kind: str, ref: str) -> set[int]:
    """R-LATE-3, R-QUAL-4: which of these members were told (kind, ref) already (one read: the senders
    and the settle skip them without trying a write that would only be refused)."""
    if not member_ids:
        return set()
    return set(db.session.scalars(db.select(PushSent.member_id).where(
        PushSent.kind == kind, PushSent.ref == ref, PushSent.member_id.in_(sorted(member_ids)))))


def audience(item: dict) -> list[int]:
    """The members a message is for: its one member, or, for the registration-closing message, the
    night's pre-registered players not yet arrived, read when it is sent (R-LATE-3: whoever arrived or
    cancelled meanwhile is not told)."""
    if item.get("member") is not None:
        return [item["member"]]
    kind, event_id = item["audience"]
    if kind != "pre_registered":
        return []
    return list(db.session.scalars(db.select(Entry.member_id).where(
        Entry.event_id == event_id, Entry.status.in_(PRE_REGISTERED)).order_by(Entry.member_id)))


def schedule_registration_closing(event: Event, closes_in: int | None) -> None:
    """R-LATE-1, R-LATE-3: after any change to the night's clock (a start, pause, resume, level skip,
    time added, a new structure), the "registration closes in 10 minutes" message is scheduled again
    for the moment the clock now gives; the sender checks that moment is unchanged when it comes (so a
    message superseded by a later change is dropped), and tells each member once a night. `closes_in`:
    services.clocks.registration_closes_in_ms, from the clock that calls this."""
    warning = push_rules.registration_warning(closes_in)
    if warning is None or closes_in is None:
        return
    delay_ms, minutes = warning
    now = dt.datetime.now(dt.UTC)
    closes_at = now + dt.timedelta(milliseconds=closes_in)
    # The words are put together when it is sent (compose): a host's tap reads nothing more for them.
    _leave({"member": None, "audience": ["pre_registered", event.id], "message": None,
            "compose": ["registration_closing", event.id, minutes],
            "due": (now + dt.timedelta(milliseconds=delay_ms)).timestamp(),
            "check": ["registration", event.id, int(closes_at.timestamp() * 1000)],
            "once": ["registration_closing", str(event.id)]})


def compose(item: dict) -> dict[str, str] | None:
    """The payload of a message whose words are put together when it is sent (R-LATE-3: the night's
    venue named), or None when its night is gone."""
    if item.get("message") is not None:
        return item["message"]
    kind, event_id, minutes = item["compose"]
    event = db.session.get(Event, event_id)
    if kind != "registration_closing" or event is None:
        return None
    return push_rules.registration_closing(event.venue.name, minutes, night_url(event.id)).payload()


def shootout_ids(event: Event) -> set[int]:
    """R-QUAL-4: the members in the event's month's Top-10 Shoot-out as the settled nights stand."""
    from services.standings import month_standings
    return {row.key for row in shootout_qualifiers(month_standings(event.league, event.month))}


def tell_shootout(event: Event, before: set[int]) -> None:
    """R-QUAL-4: the members a settled night put into the month's Top-10 Shoot-out (newly in: those
    already in are not told every night) hear so, once a month each."""
    url = path_for("play.month_qualifiers", slug=event.league.slug, month=event.month)
    message = push_rules.shootout_made(month_label(event.month), url)
    newly_in = push_rules.newly_qualified(before, shootout_ids(event))
    # A night settled again (after an undo) puts the same players in again: told once a month is enough.
    for member_id in sorted(newly_in - already_told(newly_in, "shootout", event.month)):
        tell(member_id, message, once=("shootout", event.month))


def night_url(event_id: int) -> str:
    """The night's clock page, the page a move's notification opens (built from the app's URL map, so it
    works in a request or a command alike)."""
    return path_for("play.event", event_id=event_id)


def path_for(endpoint: str, **values) -> str:
    """A path of this app by its endpoint, as url_for gives it, without needing a request."""
    from flask import current_app
    return current_app.url_map.bind("").build(endpoint, values)


def tell_seats(event_id: int, changes: list[tuple[int, int, int]], why: str, broken: int | None = None) -> None:
    """R-SEAT-2..4: each moved player's phones are told their new seat ("Table 1, Seat 8");
    `changes` are (member id, table, seat)."""
    url = night_url(event_id)
    for member_id, table, seat in changes:
        tell(member_id, push_rules.seat_moved(why, table, seat, url, broken))


def tell_penalty_over(penalty, *, now: bool = False) -> None:
    """R-PEN-2: the player is told their penalty is over: at its estimated return time (not sent if it
    was ended early or extended meanwhile), or at once when the host ends it early."""
    url = night_url(penalty.event_id)
    if now:
        tell(penalty.member_id, push_rules.penalty_over(url))
    elif penalty.until is not None:
        tell(penalty.member_id, push_rules.penalty_over(url), due=penalty.until,
             unless_changed=("penalty", penalty.id, penalty.until.isoformat()))


def tell_results(event, entries, new_tickets) -> None:
    """R-PTS, R-QUAL-1/2: a settled night's players hear that the results are up (their own finish and
    points), and whoever won a Monthly Final ticket hears that too."""
    label = f"{event.venue.name}, {event.date.strftime('%a %d %b')}"
    results = path_for("play.event_results", event_id=event.id)
    for entry in entries:
        if entry.position is not None:
            tell(entry.member_id, push_rules.results_posted(label, entry.position, entry.points, results))
    me = path_for("play.me")
    for ticket in new_tickets:
        tell(ticket.member_id, push_rules.ticket_won(label, me))
