"""A property over random nights of host actions through the services (R-PTS-5..7, R-LATE-2,
R-LATE-3, undo): check-ins before and after bust-outs (the host's, a phone's confirmed, a
pre-registered player arriving or never coming), bust-outs alone and several in one hand with
random stacks, disqualifications, Undo of the last action, and sometimes a deal; then bust down to
one and settle. Settling always succeeds, and the positions are those of the elimination order in
the field as it finally stands, computed here independently of league.finishing."""
import datetime as dt

import hypothesis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league.events import EVENT_TYPES
from league.points import Finish, award_points, check_finishing_order
from services import checkin, deals, members, prereg, settling
from services.busts import bust, disqualify
from services.journal import Journal, last_action, undo
from services.models import Entry, Event, User, Venue
from services.night_snapshot import read_night
from wiring.extensions import db

pytestmark = pytest.mark.both_databases(
    "random nights through the services: positions and points read back through SQL orderings")

NIGHTS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
STACKS = st.sampled_from([0, 1_000, 2_500, 2_500, 5_000, 12_000])
ACTIONS = st.sampled_from(["host_check_in", "host_check_in", "phone_arrival", "pre_register", "arrive", "arrive",
                           "bust", "bust", "bust", "bust_hand", "bust_hand", "dq", "undo", "undo"])


class Night:
    """The test's own record of the night: the elimination steps in order (what positions follow
    from), with one snapshot per journalled action so Undo can be followed."""

    def __init__(self, event: Event):
        self.event = event
        self.steps: list[dict[int, int | None] | int] = []  # a hand {entry id: stack}, or a DQ's entry id
        self.deal: dict[int, int] | None = None
        self.history: list[list] = []
        self.names = 0

    def act(self, kind: str, summary: str, do) -> None:
        log = Journal(self.event, None, kind, summary)
        before = list(self.steps)
        do(log)
        log.record()
        db.session.flush()
        self.history.append(before)

    def undo(self) -> None:
        undo(last_action(self.event))
        db.session.flush()
        db.session.expire_all()
        self.steps = self.history.pop()

    def rows(self, *statuses) -> list[Entry]:
        return list(db.session.scalars(db.select(Entry).where(Entry.event_id == self.event.id,
                                                              Entry.status.in_(statuses)).order_by(Entry.id)))

    def member(self):
        self.names += 1
        return members.join(self.event.league_id, f"Player {self.names:03d}", True, False)


def positions_out(field: set[int], steps) -> dict[int, int]:
    """R-PTS-5, R-PTS-6 by hand: of a field of N the first out finishes N-th; several out in one hand
    take the worst places open, more chips higher, equal chips sharing the best of theirs; a
    disqualification takes the worst place open."""
    positions, gone = {}, 0
    for step in steps:
        left = len(field) - gone
        if isinstance(step, int):
            positions[step] = left
            gone += 1
            continue
        best = left - len(step) + 1
        for player, stack in step.items():
            positions[player] = best + sum(1 for other in step.values() if (other or 0) > (stack or 0))
        gone += len(step)
    return positions


def final_positions(field: set[int], steps, deal) -> dict[int, int]:
    """Everyone's positions once the night is over: the winner 1st, or the deal's count fixing the
    places of the players left, most chips 1st, equal counts sharing (R-PTS-7)."""
    positions = positions_out(field, steps)
    rest = field - positions.keys()
    if deal:
        assert rest == set(deal)
        positions.update({p: 1 + sum(1 for c in deal.values() if c > deal[p]) for p in rest})
    else:  # nobody left when the last player was disqualified: they took 1st
        assert len(rest) <= 1
        positions.update({p: 1 for p in rest})
    return positions


def check_positions_so_far(night: Night) -> None:
    """Mid-night: each player out holds the position of their step in the field as it stands now;
    with the players still in sharing 1st they form a valid finishing order; nobody outside the
    field and nobody still in holds one."""
    field = night.rows("playing", "played", "dq")
    out = {e.id: e.position for e in field if e.status != "playing"}
    assert out == positions_out({e.id for e in field}, night.steps)
    check_finishing_order(list(out.values()) + [1] * (len(field) - len(out)))
    assert all(e.position is None for e in night.rows("playing", "registered", "pending", "no_show"))


@st.composite
def nights(draw):
    return {"cash": draw(st.booleans()), "starting": draw(st.integers(2, 8)),
            "actions": draw(st.lists(ACTIONS, min_size=4, max_size=30)), "deal": draw(st.booleans()),
            "data": draw(st.data())}


@NIGHTS
@given(plan=nights())
def test_r_pts_5_any_night_of_host_actions_settles_by_the_order_of_elimination(app, league, organiser, plan):
    data = plan["data"]
    venue = Venue(league_id=league.id, name="Property Pub")
    db.session.add(venue)
    db.session.flush()
    host = db.session.scalar(db.select(User).where(User.username == "host"))
    event = Event(league_id=league.id, venue_id=venue.id, event_type="nightly", date=dt.date.today(),
                  host_id=host.id, status="running", buy_in=30 if plan["cash"] else 0, pool_share=25)
    db.session.add(event)
    db.session.flush()
    night = Night(event)
    try:
        run_night(night, plan, data)
    finally:
        db.session.rollback()


def check_in(night: Night, log: Journal) -> None:
    member = log.created(night.member())
    checkin.check_in(night.event, member, log, by_host=True)


def run_night(night: Night, plan: dict, data) -> None:
    event = night.event
    for _ in range(plan["starting"]):
        night.act("join", "New member", lambda log: check_in(night, log))
    for action in plan["actions"]:
        playing = night.rows("playing")
        if action == "host_check_in":
            night.act("join", "New member", lambda log: check_in(night, log))
        elif action == "phone_arrival":  # checked in on their phone (not an action), then confirmed by the host
            entry = checkin.check_in(event, night.member())
            db.session.flush()
            night.act("confirm", "Confirmed", lambda log, entry=entry: checkin.confirm(read_night(event), entry, log))
        elif action == "pre_register":
            night.act("prereg", "Pre-registered", lambda log: prereg.pre_register(event, night.member(), log))
        elif action == "arrive" and night.rows("registered"):
            entry = data.draw(st.sampled_from(night.rows("registered")))
            night.act("walk_in", "Arrived", lambda log, m=entry.member: checkin.check_in(event, m, log, by_host=True))
        elif action == "bust" and len(playing) >= 2:
            entry = data.draw(st.sampled_from(playing))
            stack = data.draw(st.none() | STACKS)
            night.act("bust", "Out", lambda log, e=entry, s=stack: bust(read_night(event), {e: s}, log))
            night.steps.append({entry.id: stack})
        elif action == "bust_hand" and len(playing) >= 3:
            out = data.draw(st.lists(st.sampled_from(playing), min_size=2, max_size=len(playing) - 1, unique=True))
            stacks = {e: data.draw(STACKS) for e in out}
            night.act("bust_hand", "Out in one hand", lambda log, s=stacks: bust(read_night(event), s, log))
            night.steps.append({e.id: s for e, s in stacks.items()})
        elif action == "dq" and playing:
            entry = data.draw(st.sampled_from(playing))
            night.act("dq", "Disqualified", lambda log, e=entry: disqualify(read_night(event), e, "Angle shooting", log, None))
            night.steps.append(entry.id)
        elif action == "undo" and len(night.history) > plan["starting"]:
            night.undo()
        else:
            continue
        if action in ("host_check_in", "phone_arrival", "arrive") and night.steps:
            hypothesis.event("a late entrant after a bust-out")
        hypothesis.event(f"did {action}")
        check_positions_so_far(night)

    # Arrivals still waiting for the host (a confirm that was undone) are confirmed or turned away.
    for entry in night.rows("pending"):
        if data.draw(st.booleans()):
            night.act("confirm", "Confirmed", lambda log, e=entry: checkin.confirm(read_night(event), e, log))
        else:
            night.act("reject", "Turned away", lambda log, e=entry: checkin.reject(read_night(event), e, log))
    playing = night.rows("playing")
    if plan["deal"] and 2 <= len(playing) <= 4:
        counts = {e: data.draw(st.sampled_from([1, 5_000, 5_000, 20_000])) for e in playing}
        # Counts drawn at random rarely add up to the chips in play (R-CHIP-3): the host's ruling lets them stand.
        night.act("deal", "Deal put to the vote", lambda log: deals.open_deal(
            read_night(event), counts, "chip_chop", log, difference_reason="Counted as drawn"))
        for entry in playing:
            log = Journal(event, None, "deal_agreed", "Deal agreed")
            if deals.vote(event, entry, True, log) == "agreed":
                log.record()
        night.deal = {e.id: c for e, c in counts.items()}
        hypothesis.event("a deal")
    else:
        while len(playing := night.rows("playing")) > 1:
            entry = data.draw(st.sampled_from(playing))
            night.act("bust", "Out", lambda log, e=entry: bust(read_night(event), {e: None}, log))
            night.steps.append({entry.id: None})
    night.act("settle", "Night settled", lambda log: settling.settle(read_night(event), log))

    rows = night.rows("playing", "played", "dq", "no_show", "registered", "pending", "requested")
    field = [e for e in rows if e.status in ("played", "dq")]
    assert db.session.get(Event, event.id).status == "settled"
    assert not [e for e in rows if e.status in ("playing", "registered", "pending")]
    assert all(e.position is not None for e in field)  # every entrant in the field has one position
    assert all(e.position is None for e in rows if e.status == "no_show")
    check_finishing_order([e.position for e in field])
    expected = final_positions({e.id for e in field}, night.steps, night.deal)
    assert {e.id: e.position for e in field} == expected
    kind = EVENT_TYPES[event.event_type]
    points = award_points([Finish(e.id, expected.get(e.id), e.status) for e in rows], high_roller=kind.high_roller)
    assert {e.id: e.points for e in rows} == points
    # an earlier step never finishes above a later one
    order = [list(step) if isinstance(step, dict) else [step] for step in night.steps]
    by_id = {e.id: e.position for e in field}
    for earlier, later in zip(order, order[1:]):
        assert min(by_id[p] for p in earlier) > max(by_id[p] for p in later)
    assert sum(e.prize for e in field) <= sum(read_night(event).prizes)  # R-PAY-1: never more than the pool
