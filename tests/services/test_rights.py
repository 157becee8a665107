"""Who may run a night (blueprints/host/base.py `my_event`, the host's line): `leagues.night_run_by`,
the one read a tap on the host's line makes at every tap, decides as `runs_event` does for every
kind of login (R-CLOCK-3: only the night's own host or organiser moves its clock), and a login
logged out since (its session token rotated) runs nothing."""
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services import leagues
from services.models import Event, HostVenue, User, Venue
from tests.fixtures.tonight import tonight
from wiring.extensions import db


@pytest.fixture
def nights(app):
    """Two leagues; in the first, two venues with a night each (Rose hosted by Harry), and logins
    of every kind: organiser, Harry, Hana (another host), and the other league's organiser."""
    rose = tonight("Harbour League", "Rose & Crown", "harry", "pw-harry")
    league_id = rose.league_id
    anchor = Venue(league_id=league_id, name="The Anchor")
    db.session.add(anchor)
    db.session.flush()
    harry = db.session.get(User, rose.host_id)
    anchor_night = Event(league_id=league_id, venue_id=anchor.id, event_type="nightly", date=rose.date,
                         host_id=harry.id, status="scheduled")
    other = leagues.create_league("Other League", "free")
    users = {"harry": harry}
    for username, role, league in (("olive", "organiser", league_id), ("hana", "host", league_id),
                                   ("otto", "organiser", other.id)):
        user = User(username=username, display_name=username.title(), role=role, league_id=league)
        user.set_password("pw-" + username)
        users[username] = user
    db.session.add_all([anchor_night, *users.values()])
    db.session.commit()
    return {"users": {name: user.id for name, user in users.items()},
            "events": [rose.id, anchor_night.id], "venues": [rose.venue_id, anchor.id]}


def test_each_login_runs_the_nights_runs_event_says(nights):
    users = {name: db.session.get(User, user_id) for name, user_id in nights["users"].items()}
    rose, anchor = (db.session.get(Event, event_id) for event_id in nights["events"])
    expected = {"olive": (True, True), "harry": (True, True), "hana": (False, False), "otto": (False, False)}
    for name, user in users.items():
        assert tuple(leagues.night_run_by(event.id, user.session_token)[1] for event in (rose, anchor)) == \
            expected[name], name
        assert tuple(leagues.runs_event(user, event) for event in (rose, anchor)) == expected[name], name


def test_a_login_logged_out_since_runs_nothing_and_no_night_is_none(nights):
    harry = db.session.get(User, nights["users"]["harry"])
    old = harry.session_token
    harry.rotate_session_token()
    db.session.commit()
    event, allowed = leagues.night_run_by(nights["events"][0], old)
    assert event is not None and event.id == nights["events"][0] and not allowed
    assert leagues.night_run_by(nights["events"][0], harry.session_token)[1]
    assert leagues.night_run_by(999_999, harry.session_token) == (None, False)
    assert leagues.night_run_by(nights["events"][0], "") == (db.session.get(Event, nights["events"][0]), False)


GIVEN = st.sets(st.sampled_from([0, 1]))  # which of the league's two venues a host is given


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(harrys=GIVEN, hanas=GIVEN, hosts=st.tuples(st.sampled_from(["harry", "hana"]), st.sampled_from(["harry", "hana"])))
def test_night_run_by_agrees_with_runs_event_for_any_venues_and_hosts(nights, harrys, hanas, hosts):
    """Any venues given to either host, any host assigned to either night: the one read decides as
    runs_event does, for every login and night."""
    ids, venues = nights["users"], nights["venues"]
    db.session.execute(db.delete(HostVenue))
    db.session.add_all(HostVenue(user_id=ids[name], venue_id=venues[index])
                       for name, given_venues in (("harry", harrys), ("hana", hanas)) for index in given_venues)
    for event_id, host in zip(nights["events"], hosts, strict=True):
        db.session.get(Event, event_id).host_id = ids[host]
    db.session.commit()
    given = {"harry": {venues[i] for i in harrys}, "hana": {venues[i] for i in hanas}}
    for name, event_id in itertools.product(ids, nights["events"]):
        user, event = db.session.get(User, ids[name]), db.session.get(Event, event_id)
        # The rule as the host pages state it: an organiser of the league runs every night; a host
        # given venues, the nights at those; a host given none, the nights assigned to them.
        rule = user.league_id == event.league_id and (
            user.role == "organiser" or (event.venue_id in given[name] if given.get(name) else event.host_id == user.id))
        assert leagues.runs_event(user, event) == rule, (name, event_id)
        assert leagues.night_run_by(event_id, user.session_token) == (event, rule), (name, event_id)


def test_night_run_by_gives_the_night_as_a_query_loads_it(nights):
    """The night comes from the read's columns (`leagues._loaded`), not from the ORM's loading: it
    must be the row as stored, in the session, unchanged, with its relationships loading on use, and
    a change to it must be written as to any loaded row's."""
    rose_id, token = nights["events"][0], db.session.get(User, nights["users"]["harry"]).session_token
    db.session.close()
    event, allowed = leagues.night_run_by(rose_id, token)
    assert allowed and event in db.session and not db.session.dirty and not db.session.new
    as_read = {column.key: getattr(event, column.key) for column in Event.__table__.c}
    assert event.league.name == "Harbour League" and event.venue.name == "Rose & Crown"
    event.max_seats = 9
    assert list(db.session.dirty) == [event]
    db.session.commit()
    db.session.close()

    stored = db.session.get(Event, rose_id)
    assert {column.key: getattr(stored, column.key) for column in Event.__table__.c} == {**as_read, "max_seats": 9}
    # the session's own copy, when it has one, as a query gives it
    assert leagues.night_run_by(rose_id, token) == (stored, True)
