"""Undo and Redo over any sequence of host actions (a Hypothesis state machine driving the host's
roster over HTTP): Undo always leaves the night as it was before the action it took back, Redo as it
was after it, Redo is offered exactly while something taken back can be put back, and a new action
ends that (services/journal.py)."""
import itertools

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from services.models import Event, User
from services.night_snapshot import read_night
from tests.conftest import login
from tests.fixtures.host import host_op
from tests.fixtures.pages import refusal, text
from tests.fixtures.roster import check_in_players, draw_seats
from tests.fixtures.rows import entries, every_row
from wiring.extensions import db

PLAYERS = 6
nights = itertools.count()


def playing(night) -> list:
    return sorted((e for e in entries(night).values() if e.status == "playing"), key=lambda e: e.id)


@pytest.mark.usefixtures("app")
def test_undo_and_redo_over_any_sequence_of_host_actions(client, night):
    login(client, "host", "pw-host")
    host_id = db.session.scalar(db.select(User.id).where(User.username == "host"))

    class HostsNight(RuleBasedStateMachine):
        def __init__(self):
            super().__init__()
            number = next(nights)
            self.night = Event(league_id=night.league_id, venue_id=night.venue_id, event_type="nightly",
                               date=night.date, host_id=host_id, status="running")
            db.session.add(self.night)
            db.session.commit()
            check_in_players(self.night, [f"Night {number} Player {n}" for n in range(PLAYERS)])
            draw_seats(self.night)
            self.done = [every_row(journal=False)]   # the night after each action standing
            self.taken_back: list[dict] = []          # after each action taken back, the last on top

        def act(self, op, **data):
            answer = host_op(client, self.night, op, **data)
            assert answer.status_code == 200, refusal(text(answer))
            self.done.append(every_row(journal=False))
            self.taken_back.clear()

        @precondition(lambda self: len(playing(self.night)) > 1)
        @rule(pick=st.integers(0, PLAYERS))
        def bust(self, pick):
            players = playing(self.night)
            self.act(f"bust:{players[pick % len(players)].id}")

        @precondition(lambda self: any("membership" not in read_night(self.night).claimed.get(e.id, ())
                                       for e in playing(self.night)))
        @rule(pick=st.integers(0, PLAYERS))
        def bonus(self, pick):
            claimed = read_night(self.night).claimed
            players = [e for e in playing(self.night) if "membership" not in claimed.get(e.id, ())]
            self.act(f"bonus:{players[pick % len(players)].id}", kind="membership")

        @precondition(lambda self: len(self.done) > 1)
        @rule()
        def undo(self):
            answer = host_op(client, self.night, f"undo:{read_night(self.night).last_action.id}")
            assert answer.status_code == 200 and "Took back: " in text(answer)
            self.taken_back.append(self.done.pop())
            assert every_row(journal=False) == self.done[-1]

        @precondition(lambda self: self.taken_back)
        @rule(twice=st.booleans())
        def redo(self, twice):
            tap = f"redo:{read_night(self.night).redo_action.id}"
            assert host_op(client, self.night, tap).status_code == 200
            self.done.append(self.taken_back.pop())
            if twice:  # a double tap: the second is refused and changes nothing
                assert host_op(client, self.night, tap).status_code == 422
            assert every_row(journal=False) == self.done[-1]

        @invariant()
        def redo_offered_while_something_can_be_put_back(self):
            db.session.expire_all()
            assert (read_night(self.night).redo_action is not None) == bool(self.taken_back)

    run_state_machine_as_test(HostsNight, settings=settings(
        max_examples=12, stateful_step_count=12, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]))
