"""Warnings and penalties in the database (R-PEN-1..3): giving one (a disqualification through
services.busts, R-PTS-5), ending one early or extending it, and a player's earlier infractions this
month. Each is a row of `penalties` and a ruling in the rulings log (R-MEM-2); league.penalties
decides the hands and the return time. Callers commit."""
from __future__ import annotations

import datetime as dt

from sqlalchemy import func

from league import penalties
from league.statuses import EntryStatus, PenaltyKind, RulingKind
from services import MAX_REASON_LENGTH, Refused, push, typed_text
from services.busts import disqualify
from services.journal import Journal
from services.models import Entry, Event, Penalty, Ruling, utcnow
from services.night_snapshot import read_night
from wiring.extensions import db


def hands_per_hour(event: Event) -> int:
    """R-PEN-2: the hands-per-hour setting the night was created with (its snapshot, Event.setting),
    for a night without one the league's now (penalties.hands_per_hour: its default, 30)."""
    value = event.setting("hands_per_hour")
    return penalties.hands_per_hour(None if value is None else {"hands_per_hour": value})


def table_size(event: Event, entry: Entry) -> int:
    """R-PEN-1: the players at the player's table now, them included (before the seats are drawn,
    everyone in the game, as many as a table seats)."""
    query = db.select(func.count()).select_from(Entry).where(Entry.event_id == event.id,
                                                             Entry.status == EntryStatus.PLAYING)
    if entry.table_no is not None:
        return db.session.scalar(query.where(Entry.table_no == entry.table_no)) or 1
    return max(1, min(db.session.scalar(query) or 1, event.max_seats))


def in_force(entry: Entry, now: dt.datetime | None = None) -> Penalty | None:
    """R-PEN-2: the penalty keeping the player away now, if any (none once they are out of the game
    or have re-entered: their entry's return time is cleared)."""
    now = now or utcnow()
    if entry.penalty_until is None or entry.status != EntryStatus.PLAYING:
        return None
    return db.session.scalar(db.select(Penalty).where(
        Penalty.entry_id == entry.id, Penalty.ended_at.is_(None), Penalty.until > now).order_by(Penalty.id.desc()))


def _local(event: Event, at: dt.datetime) -> str:
    return at.replace(tzinfo=dt.UTC).astimezone(event.league.zone()).strftime("%H:%M")


def _rule(event: Event, entry: Entry, user_id: int | None, kind: RulingKind, rule_id: str, reason: str,
          penalty: Penalty) -> None:
    db.session.add(Ruling(league_id=event.league_id, event_id=event.id, user_id=user_id, kind=kind, rule_id=rule_id,
                          reason=reason, detail={
                              "member": entry.member.name, "penalty": penalty.kind, "penalty_id": penalty.id,
                              "table": penalty.table_no, "seat": penalty.seat_no, "hands": penalty.hands,
                              "rounds": penalty.rounds,
                              "until": penalty.until.isoformat() if penalty.until else None}))


def give(event: Event, entry: Entry, kind: str, journal: Journal, user_id: int | None, *, reason: str,
         hands: int | None = None, rounds: int | None = None, chips: int | None = None,
         now: dt.datetime | None = None) -> Penalty:
    """R-PEN-1/2, R-PTS-5: the host gives a player still in the game a verbal warning, a missed-hand
    penalty (`hands`), a missed-round penalty (`rounds` × the players at their table now) or a
    disqualification (their `chips` leave play, R-CHIP-3). Recorded with who, when, why and their
    table and seat, as a penalty and as a ruling; a penalty that takes them away has an estimated
    return time from the hands and the league's hands-per-hour setting. Refused, nothing written,
    for a player not in the game, no reason, a bad number, or a second penalty while one runs."""
    now = now or utcnow()
    name = entry.member.name
    if entry.status != EntryStatus.PLAYING or entry.event_id != event.id:
        raise Refused(f"{name} is not in the game.")
    if kind not in set(PenaltyKind):
        raise Refused("Pick a warning, a missed-hand or missed-round penalty, or a disqualification.")
    if not (reason or "").strip():
        raise Refused("Give the reason: it goes in the rulings log (R-PEN-1).")
    reason = typed_text(reason, MAX_REASON_LENGTH, "the reason", required=True)
    size = table_size(event, entry)
    try:
        away = penalties.penalty_hands(kind, hands=hands, rounds=rounds, table_size=size)
    except ValueError as problem:
        raise Refused(str(problem)) from None
    running = in_force(entry, now)
    if away and running is not None:
        raise Refused(f"{name} is already on a penalty until {_local(event, running.until)}: extend it instead.")
    penalty = Penalty(event_id=event.id, entry_id=entry.id, member_id=entry.member_id, user_id=user_id, at=now,
                      kind=kind, reason=reason, table_no=entry.table_no, seat_no=entry.seat_no, table_size=size,
                      rounds=rounds if kind == PenaltyKind.MISSED_ROUNDS else None, hands=away or None,
                      until=penalties.return_time(now, away, hands_per_hour(event)) if away else None)
    if kind == PenaltyKind.DISQUALIFICATION:
        disqualify(read_night(event), entry, reason, journal, user_id, chips)  # its own ruling (R-PTS-5)
        entry.penalty_until = None
    db.session.add(penalty)
    db.session.flush()
    journal.created(penalty)
    if away:
        journal.touch(entry).penalty_until = penalty.until
        push.tell_penalty_over(penalty)
    if kind != PenaltyKind.DISQUALIFICATION:
        _rule(event, entry, user_id, RulingKind.PENALTY, "R-PEN-1", reason, penalty)
    return penalty


def penalty_of(event: Event, penalty_id: int | None) -> Penalty:
    """The event's penalty a form names (Refused otherwise)."""
    penalty = db.session.get(Penalty, penalty_id) if penalty_id else None
    if penalty is None or penalty.event_id != event.id:
        raise Refused("That penalty is not in tonight's game.")
    return penalty


def _running(event: Event, penalty: Penalty, now: dt.datetime) -> Entry:
    entry = penalty.entry
    if not penalties.in_force(penalty.until, penalty.ended_at, now) or entry.status != EntryStatus.PLAYING:
        raise Refused(f"{entry.member.name} is not on a penalty now.")
    return entry


def end_early(event: Event, penalty: Penalty, journal: Journal, user_id: int | None,
              now: dt.datetime | None = None) -> None:
    """R-PEN-2: the host ends a penalty before its estimated time: the player is back at the table.
    A ruling of its own (rulings are never changed)."""
    now = now or utcnow()
    entry = _running(event, penalty, now)
    journal.touch(penalty).ended_at = now
    journal.touch(entry).penalty_until = None
    push.tell_penalty_over(penalty, now=True)
    _rule(event, entry, user_id, RulingKind.PENALTY_ENDED, "R-PEN-2", f"Ended early at {_local(event, now)}", penalty)


def extend(event: Event, penalty: Penalty, more_hands: int, journal: Journal, user_id: int | None,
           now: dt.datetime | None = None) -> None:
    """R-PEN-2: the host extends a penalty by `more_hands` hands (1–100): its return time moves on
    by their estimated minutes. A ruling of its own."""
    now = now or utcnow()
    entry = _running(event, penalty, now)
    if not 1 <= more_hands <= penalties.MAX_PENALTY_HANDS:
        raise Refused(f"Give the hands to add as a whole number from 1 to {penalties.MAX_PENALTY_HANDS}.")
    journal.touch(penalty)
    penalty.hands = (penalty.hands or 0) + more_hands
    penalty.until = penalty.until + dt.timedelta(
        minutes=penalties.away_minutes(more_hands, hands_per_hour(event)))
    journal.touch(entry).penalty_until = penalty.until
    push.tell_penalty_over(penalty)
    _rule(event, entry, user_id, RulingKind.PENALTY_EXTENDED, "R-PEN-2", f"Extended by {more_hands} hands", penalty)


def _month(day: dt.date) -> tuple[dt.date, dt.date]:
    first = day.replace(day=1)
    return first, (first + dt.timedelta(days=32)).replace(day=1)


def history(event: Event, member_id: int) -> penalties.History:
    """R-PEN-3: the member's warnings and penalties tonight and at the league's other nights this
    month (the venue's local date), newest first, for the host giving a new one. A disqualification
    given from the roster's own form (services.busts, no penalty row) counts too, with its ruling's reason."""
    first, after = _month(event.date)
    in_month = (Event.league_id == event.league_id, Event.date >= first, Event.date < after)
    rows = db.session.execute(db.select(Penalty, Event).join(Event, Penalty.event_id == Event.id).where(
        Penalty.member_id == member_id, *in_month)).all()
    where = {e.id: "" if e.id == event.id else f"{e.venue.name}, {e.date.strftime('%a %d %b')}" for _, e in rows}
    found = [penalties.Infraction(kind=p.kind, at=p.at, event_id=p.event_id, reason=p.reason, hands=p.hands,
                              rounds=p.rounds, where=where[p.event_id]) for p, _ in rows]
    recorded = {p.event_id for p, _ in rows if p.kind == PenaltyKind.DISQUALIFICATION}
    for entry, night in db.session.execute(db.select(Entry, Event).join(Event, Entry.event_id == Event.id).where(
            Entry.member_id == member_id, Entry.status == EntryStatus.DQ, *in_month)).all():
        if night.id in recorded:
            continue
        ruling = db.session.scalar(db.select(Ruling).where(
            Ruling.event_id == night.id, Ruling.kind == RulingKind.DISQUALIFICATION).order_by(Ruling.id.desc()).filter(
            Ruling.detail["member"].as_string() == entry.member.name).limit(1))
        found.append(penalties.Infraction(
            kind=PenaltyKind.DISQUALIFICATION, at=ruling.at if ruling else entry.created_at, event_id=night.id,
            reason=ruling.reason if ruling else "", where=""
            if night.id == event.id else f"{night.venue.name}, {night.date.strftime('%a %d %b')}"))
    return penalties.history(found, event.id)
