"""Web Push subscriptions in the database, and the messages a host action leaves to be sent once it is
committed (the sending itself is live/push.py's, off the request path)."""
from __future__ import annotations

import datetime as dt

from league import push as push_rules
from league.push import Message
from services import Refused
from services.models import PushSubscription, utcnow
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
         unless_changed: tuple | None = None) -> None:
    """Leave `message` for the member's phones, sent only once the transaction it belongs to commits
    (a refused or rolled-back action tells nobody). `due` (UTC): not before then; `unless_changed`: a
    fact the sender checks again at that time (live.push.still_true) so a penalty ended early or
    extended meanwhile is not announced twice or too soon."""
    if member_id is None:
        return
    db.session.info.setdefault(OUTBOX, []).append({
        "member": member_id, "message": message.payload(),
        "due": due.replace(tzinfo=dt.UTC).timestamp() if due else None,
        "check": list(unless_changed) if unless_changed else None})


def refuse(problem: str | None) -> None:
    """Refused with the problem league.push found, if any."""
    if problem:
        raise Refused(problem)


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
