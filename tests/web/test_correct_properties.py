"""A property over random corrections of a settled night (R-PTS-5..7, R-MEM-2, services.settling.correct):
whatever the host types (hands, stacks, statuses), the correction is either refused with nothing
changed, or the night is settled again with the positions of the corrected elimination order (worked
out here independently of league.finishing) and their points; and Undo puts everything back."""
import datetime as dt

import hypothesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league.events import EVENT_TYPES
from league.points import Finish, award_points, check_finishing_order
from services import Refused, settling
from services.busts import bust
from services.journal import Journal, undo
from services.models import Entry, Event, Member, Ruling, Ticket, Venue
from services.night_snapshot import read_night
from wiring.extensions import db

CORRECTIONS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
PLAYERS = 7
FIX = st.tuples(st.sampled_from(["played"] * 6 + ["dq", "no_show"]), st.none() | st.integers(1, PLAYERS),
                st.none() | st.sampled_from([0, 1_000, 2_500, 5_000]))


def settled_night(league) -> Event:
    venue = Venue(league_id=league.id, name="Property Pub")
    db.session.add(venue)
    db.session.flush()
    event = Event(league_id=league.id, venue_id=venue.id, event_type="nightly", date=dt.date.today(), status="running")
    db.session.add(event)
    db.session.flush()
    for n in range(PLAYERS):
        member = Member.named(league.id, f"P{n}")
        db.session.add(member)
        db.session.flush()
        db.session.add(Entry(event_id=event.id, member_id=member.id, status="playing"))
    db.session.flush()
    entries = list(db.session.scalars(db.select(Entry).where(Entry.event_id == event.id).order_by(Entry.id)))
    for entry in entries[:-1]:
        log = Journal(event, None, "bust", "Out")
        bust(read_night(event), {entry: None}, log)
        log.record()
    log = Journal(event, None, "settle", "Night settled")
    settling.settle(read_night(event), log)
    log.record()
    db.session.flush()
    return event


def snapshot(event: Event):
    db.session.flush()
    db.session.expire_all()
    rows = [(e.id, e.status, e.position, e.points, e.prize, e.bust_hand, e.stack_at_bust) for e in db.session.scalars(
        db.select(Entry).where(Entry.event_id == event.id).order_by(Entry.id))]
    tickets = sorted(db.session.execute(db.select(Ticket.member_id, Ticket.event_id, Ticket.position)).all())
    return rows, tickets, db.session.get(Event, event.id).status


def expected_positions(fixes: dict[int, settling.Fix]) -> dict[int, int]:
    """The positions of a corrected night from its hands, worked out here: in hand order (a hand's
    bust-outs, then its disqualifications), each takes the worst places still open, a larger stack
    higher, equal stacks sharing; the one player with no hand is 1st."""
    field = {i: f for i, f in fixes.items() if f.status != "no_show"}
    left, positions = len(field), {}
    for hand in sorted({f.hand for f in field.values() if f.hand is not None}):
        out = {i: f.stack or 0 for i, f in field.items() if f.hand == hand and f.status == "played"}
        for i, stack in out.items():
            positions[i] = left - len(out) + 1 + sum(1 for other in out.values() if other > stack)
        left -= len(out)
        for i in sorted(i for i, f in field.items() if f.hand == hand and f.status == "dq"):
            positions[i], left = left, left - 1
    positions.update({i: 1 for i, f in field.items() if f.hand is None})
    return positions


def plausible(data, entries: list[int]) -> dict[int, settling.Fix]:
    """A whole night re-told: the players in a new order of elimination, some out together in one
    hand with their stacks, a disqualification or a no-show now and then; the last one wins."""
    order = data.draw(st.permutations(entries))
    fixes, at, hand = {order[-1]: settling.Fix("played", None, None)}, 0, 1
    while at < len(order) - 1:
        size = data.draw(st.integers(1, min(3, len(order) - 1 - at)))
        group = order[at:at + size]
        if size == 1:
            status = data.draw(st.sampled_from(["played"] * 4 + ["dq", "no_show"]))
            fixes[group[0]] = settling.Fix(status, None if status == "no_show" else hand,
                                           data.draw(st.none() | st.sampled_from([0, 1_000, 5_000])))
        else:
            for player in group:
                fixes[player] = settling.Fix("played", hand, data.draw(st.sampled_from([0, 1_000, 2_500, 5_000])))
        at, hand = at + size, hand + 1
    return fixes


@CORRECTIONS
@given(data=st.data())
def test_r_pts_5_any_correction_is_refused_unchanged_or_settles_by_the_corrected_order(app, league, data):
    event = settled_night(league)
    try:
        before = snapshot(event)
        entries = [row[0] for row in before[0]]
        if data.draw(st.booleans()):
            fixes = plausible(data, entries)
        else:  # anything at all the form could post, mostly impossible
            fixes = {i: settling.Fix(*data.draw(FIX)) for i in data.draw(st.lists(st.sampled_from(entries), unique=True))}
        current = settling.elimination_order(read_night(event))
        wanted = {**current, **{i: settling.Fix(f.status, None, None) if f.status == "no_show" or f.hand is None
                                else f for i, f in fixes.items()}}
        log = Journal(event, None, "correct", "Results corrected")
        savepoint = db.session.begin_nested()
        try:
            settling.correct(event, fixes, "Property check", log, None)
        except Refused as refused:
            hypothesis.event(f"refused: {str(refused)[:60]}")
            savepoint.rollback()
            assert snapshot(event) == before
            return
        savepoint.commit()
        hypothesis.event("corrected")
        log.record()
        rows, _, status = snapshot(event)
        assert status == "settled"
        got = {row[0]: row[2] for row in rows if row[1] in ("played", "dq")}
        check_finishing_order(got.values())
        assert got == expected_positions(wanted)
        finishes = [Finish(row[0], row[2], row[1]) for row in rows]
        kind = EVENT_TYPES["nightly"]
        points = award_points(finishes, high_roller=kind.high_roller, awards_points=kind.awards_points)
        assert {row[0]: row[3] for row in rows} == {i: points.get(i, 0) for i in entries}
        assert db.session.scalar(db.select(db.func.count()).select_from(Ruling)) == 1
        undo(log.action)
        assert snapshot(event) == before
    finally:
        db.session.rollback()
