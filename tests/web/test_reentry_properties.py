"""A property over random nights with re-entries (R-ENTRY-1..2, R-PTS-5, R-PAY-1, R-CHIP-3, undo):
check-ins, bust-outs (alone or several in one hand), re-entries, rebuys and Undo, through the services.
After every step the players out hold the positions of the elimination order in the field as it
stands, a re-entered player's earlier bust-out gone from it; every player has at most one position;
the pool is the guarantee plus each buy-in's share; chips in play are a stack per buy-in. Then bust
down to one and settle: one finishing position per player, a valid order, prizes within the pool."""
import datetime as dt

import hypothesis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league.points import check_finishing_order
from services import Refused, reentries, seats, settling
from services.busts import bust
from services.field import starting_stack
from services.models import Entry, Event, User, Venue
from services.night_snapshot import read_night
from tests.web.test_places_properties import STACKS, Night, check_in, positions_out
from wiring.extensions import db

ACTIONS = st.sampled_from(["check_in", "bust", "bust", "bust", "bust_hand", "reenter", "reenter", "reenter",
                           "rebuy", "undo", "undo"])
SHARE, GUARANTEE = 20, 150
NIGHTS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def without(steps, player: int) -> list:
    """The elimination order once `player` re-enters: their bust-out leaves it (R-ENTRY-2)."""
    kept = []
    for step in steps:
        step = {p: s for p, s in step.items() if p != player}
        if step:
            kept.append(step)
    return kept


def check_night(night: Night) -> None:
    field = night.rows("playing", "played", "dq")
    out = {e.id: e.position for e in field if e.status != "playing"}
    assert out == positions_out({e.id for e in field}, night.steps)
    check_finishing_order(list(out.values()) + [1] * (len(field) - len(out)))
    assert all(e.position is None for e in field if e.status == "playing")
    assert len({e.member_id for e in field}) == len(field)  # one entry, so one position, per player
    buy_ins = sum(e.buy_ins for e in field)
    assert sum(read_night(night.event).prizes) == GUARANTEE + SHARE * buy_ins  # R-ENTRY-2, R-PAY-1
    assert read_night(night.event).chip_count()[0] == starting_stack(night.event) * buy_ins  # R-ENTRY-2, R-CHIP-3


@st.composite
def nights(draw):
    return {"mode": draw(st.sampled_from(["reentry", "reentry", "rebuy"])), "limit": draw(st.integers(1, 3)),
            "starting": draw(st.integers(2, 7)), "seated": draw(st.booleans()),
            "actions": draw(st.lists(ACTIONS, min_size=4, max_size=30)), "data": draw(st.data())}


@NIGHTS
@given(plan=nights())
def test_r_entry_2_any_night_with_re_entries_keeps_one_position_per_player_and_the_pool(app, league, organiser,
                                                                                        plan):
    league.settings = {"nightly": {"reentry": plan["mode"], "reentry_limit": plan["limit"]}}
    venue = Venue(league_id=league.id, name="Property Pub")
    db.session.add(venue)
    db.session.flush()
    host = db.session.scalar(db.select(User).where(User.username == "host"))
    event = Event(league_id=league.id, venue_id=venue.id, event_type="nightly", date=dt.date.today(),
                  host_id=host.id, status="running", buy_in=30, pool_share=SHARE, guarantee=GUARANTEE)
    db.session.add(event)
    db.session.flush()
    night = Night(event)
    try:
        run_night(night, plan)
    finally:
        db.session.rollback()
        league.settings = {}


def run_night(night: Night, plan: dict) -> None:
    event, data = night.event, plan["data"]
    for _ in range(plan["starting"]):
        night.act("join", "New member", lambda log: check_in(night, log))
    if plan["seated"]:
        night.act("draw", "Seats drawn", lambda log: seats.draw(read_night(event), log))
    for action in plan["actions"]:
        playing, played = night.rows("playing"), night.rows("played")
        if action == "check_in":
            night.act("join", "New member", lambda log: check_in(night, log))
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
        elif action == "reenter" and played:
            entry = data.draw(st.sampled_from(played))
            allowed = reentries.problem(event, entry, reentries.rule_of(event).mode) is None \
                and plan["mode"] == "reentry"
            if not allowed:  # the service says no too, and writes nothing
                with pytest.raises(Refused):
                    night.act("reenter", "Re-entered", lambda log, e=entry: reentries.re_enter(read_night(event), e, log))
                hypothesis.event("a re-entry refused")
                continue
            night.act("reenter", "Re-entered", lambda log, e=entry: reentries.re_enter(read_night(event), e, log))
            night.steps = without(night.steps, entry.id)
        elif action == "rebuy" and playing and plan["mode"] == "rebuy":
            entry = data.draw(st.sampled_from(playing))
            if reentries.problem(event, entry, reentries.rule_of(event).mode) is not None:
                hypothesis.event("a rebuy refused")
                continue
            night.act("rebuy", "Rebought", lambda log, e=entry: reentries.rebuy(event, e, log))
        elif action == "undo" and len(night.history) > plan["starting"] + plan["seated"]:
            night.undo()
        else:
            continue
        hypothesis.event(f"did {action}")
        check_night(night)
        if plan["seated"]:
            taken = [(e.table_no, e.seat_no) for e in night.rows("playing")]
            assert None not in (t for t, _ in taken) and len(set(taken)) == len(taken)  # R-LATE-2

    while len(playing := night.rows("playing")) > 1:
        entry = data.draw(st.sampled_from(playing))
        night.act("bust", "Out", lambda log, e=entry: bust(read_night(event), {e: None}, log))
        night.steps.append({entry.id: None})
    check_night(night)
    night.act("settle", "Night settled", lambda log: settling.settle(read_night(event), log))
    field = night.rows("played", "dq")
    assert db.session.get(Event, event.id).status == "settled"
    positions = [e.position for e in field]
    assert None not in positions and len({e.member_id for e in field}) == len(field)
    check_finishing_order(positions)
    assert sum(e.prize for e in field) == sum(read_night(event).prizes) == GUARANTEE + SHARE * sum(
        e.buy_ins for e in field)
    assert sum(db.session.scalars(db.select(Entry.buy_ins).where(Entry.event_id == event.id))) >= len(field)
