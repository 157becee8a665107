"""A night cancelled before play keeps its record: listed as cancelled with who and why, it awards
nothing, refuses check-in and pre-registration with the reason, can't start its clock, and Undo
(the journal) books it again while the cancellation is its last action."""
import datetime as dt

import pytest

from services.models import Action, Entry, Event, Member, Ticket
from tests.conftest import csrf_token, login
from tests.fixtures.host import DAY, host_op, new_night, the_night
from wiring.extensions import db


@pytest.fixture
def booked(client, rose):
    login(client, "host", "pw-host")
    assert new_night(client, rose).status_code == 303
    return the_night()


def cancel(client, night, reason="The pub flooded"):
    return client.post(f"/host/events/{night.id}/cancel",
                       data={"csrf_token": csrf_token(client, "/host/"), "reason": reason})


def test_a_cancelled_night_stays_listed_with_who_and_why(client, booked, league):
    response = cancel(client, booked)
    assert response.status_code == 303
    night = the_night()
    assert (night.status, night.cancel_reason, night.canceller.username) == ("cancelled", "The pub flooded", "host")
    assert night.cancelled_at is not None
    home = client.get("/host/").get_data(as_text=True)
    assert "Cancelled</span> by Harry: The pub flooded" in home
    boss = client.application.test_client()
    login(boss, "organiser", "pw-organiser")
    listing = boss.get(f"/organiser/{league.slug}/nights").get_data(as_text=True)
    assert "Cancelled</span> by Harry: The pub flooded" in listing
    page = client.get(f"/host/events/{night.id}/edit")
    assert page.status_code == 200 and "This night was cancelled by Harry on" in page.get_data(as_text=True)
    assert "Undo the cancellation" in page.get_data(as_text=True)
    action = db.session.scalar(db.select(Action).where(Action.event_id == night.id))
    assert action.kind == "cancel" and action.summary == "Night cancelled"


def test_cancelling_needs_a_reason_and_changes_nothing_without_one(client, booked):
    response = cancel(client, booked, reason="  ")
    assert response.status_code == 422 and "the reason" in response.get_data(as_text=True).lower()
    assert the_night().status == "scheduled"
    assert not db.session.scalar(db.select(db.func.count()).select_from(Action))


def test_a_cancelled_night_refuses_check_in_with_the_reason(app, client, booked):
    cancel(client, booked)
    phone = app.test_client()
    page = phone.get(f"/check-in/{booked.check_in_code}")
    assert page.status_code == 410 and "This night was cancelled by Harry" in page.get_data(as_text=True)
    assert "The pub flooded" in page.get_data(as_text=True)
    walk_in = host_op(client, booked, "join", name="Walk In", adult="yes")
    assert walk_in.status_code == 422 and "This night was cancelled by Harry" in walk_in.get_data(as_text=True)
    assert not db.session.scalar(db.select(db.func.count()).select_from(Entry))
    clock = client.post(f"/host/events/{booked.id}/clock", data={
        "csrf_token": csrf_token(client, "/host/"), "action": "start", "version": str(the_night().clock_version)})
    assert clock.status_code == 422 and "cancelled" in clock.get_data(as_text=True)
    assert the_night().status == "cancelled" and not the_night().clock_started


def test_a_cancelled_night_awards_nothing_and_its_pre_registrations_stay_on_record(app, client, booked):
    host_op(client, booked, "join", name="Early Bird", adult="yes")
    cancel(client, booked)
    assert db.session.scalar(db.select(Entry.status)) == "playing"  # the record, never settled
    settle = host_op(client, booked, "settle")
    assert settle.status_code == 422 and "cancelled" in settle.get_data(as_text=True)
    assert not db.session.scalar(db.select(db.func.count()).select_from(Ticket))
    assert db.session.scalar(db.select(db.func.sum(Entry.points))) == 0


def test_undo_books_the_night_again(client, booked):
    cancel(client, booked)
    response = client.post(f"/host/events/{booked.id}/cancel/undo", data={"csrf_token": csrf_token(client, "/host/")})
    assert response.status_code == 303
    night = the_night()
    assert night.status == "scheduled" and night.cancel_reason is None and night.cancelled_by is None
    again = client.post(f"/host/events/{booked.id}/cancel/undo", data={"csrf_token": csrf_token(client, "/host/")})
    assert again.status_code == 409 and "can no longer be undone" in again.get_data(as_text=True)


def test_a_cancelled_night_is_no_duplicate_of_a_new_one(client, booked):
    cancel(client, booked)
    from services.models import Venue
    venue = db.session.scalar(db.select(Venue))
    assert new_night(client, venue).status_code == 303  # no "booked twice" warning
    assert db.session.scalar(db.select(db.func.count()).select_from(Event).where(
        Event.date == dt.date.fromisoformat(DAY))) == 2


def test_a_night_under_way_cannot_be_cancelled(client, booked):
    booked.clock_started, booked.status = True, "running"
    db.session.commit()
    response = cancel(client, booked)
    assert response.status_code == 409 and "clock has started" in response.get_data(as_text=True)
    assert the_night().status == "running"


def test_r_late_3_nobody_pre_registers_for_a_cancelled_night(app, client, booked, league):
    cancel(client, booked)
    from services import prereg
    member = Member.named(league.id, "Pat")
    db.session.add(member)
    db.session.flush()
    assert prereg.self_pre_registration_problem(the_night(), member).startswith("This night was cancelled by Harry")
    with pytest.raises(prereg.Refused, match="cancelled"):
        prereg.pre_register(the_night(), member, None)
    db.session.rollback()
