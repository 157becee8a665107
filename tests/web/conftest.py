"""Web-test fixtures shared by the night's tests: a player's phone, the Rose & Crown, a settled
November, tonight's night, nine players at its one table, and a cash night down to its last three."""
import datetime as dt

import pytest

from services.models import Event, User, Venue
from tests.fixtures import months
from tests.fixtures.cash import cash_night_with_phones
from tests.fixtures.host import seat_players
from tests.fixtures.push_service import PushService
from tests.fixtures.roster import bust_out, check_in_players, draw_seats
from wiring.extensions import db


@pytest.fixture
def phone(app):
    """A second browser: a player's phone with its own cookies."""
    return app.test_client()


@pytest.fixture
def service(app):
    """The loopback push service (tests/fixtures/push_service.py), the only one this app may post to;
    retries come 100 times sooner."""
    service = PushService()
    app.config.update(PUSH_SERVICES=service.origin, PUSH_BACKOFF_SCALE=0.01)
    yield service
    assert app.extensions["push"].wait_idle()
    service.close()


@pytest.fixture
def rose(app, league, organiser):
    """The Rose & Crown, a venue of the league (no night booked there yet)."""
    venue = Venue(league_id=league.id, name="Rose & Crown")
    db.session.add(venue)
    db.session.commit()
    return venue


@pytest.fixture
def november(app, league, organiser):
    """November 2026 settled (tests/fixtures/months.py): Ann played two nights and holds a ticket; Bob
    and Cara one night each. {"venue", "nights", "Ann", "Bob", "Cara"}."""
    return months.november(league)


@pytest.fixture
def night(app, league, organiser):
    """Tonight's nightly event at the Rose, hosted by `host`: tonight in the league's own time zone
    (league.today(), as the app dates it: after 13:00 UTC it is already tomorrow in Sydney)."""
    venue = Venue(league_id=league.id, name="Rose & Crown")
    db.session.add(venue)
    db.session.flush()
    host = db.session.scalar(db.select(User).where(User.username == "host"))
    event = Event(league_id=league.id, venue_id=venue.id, event_type="nightly", date=league.today(),
                  start_time=dt.time(19, 0), host_id=host.id, status="running")
    db.session.add(event)
    db.session.commit()
    return event


@pytest.fixture
def table_of_nine(client, night):
    """Nine players (Ann, Bob, Cat, Dan, Eve, Fay, Gus, Hal, Ivy) seated at one table of ten, the host
    logged in on `client`: the night's entries by name."""
    seat_players(client, night, ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy"])
    return draw_seats(night)


@pytest.fixture
def final_three(app, client, night):
    """A $30 cash night of 10 ($25 each to the pool + $250 guarantee = $500; 1 paid place…) down to 3,
    with each remaining player's phone."""
    return down_to_three(night, cash_night_with_phones(app, client, night))


@pytest.fixture
def final_three_two_without_phones(app, client, night):
    """final_three, but only Ann has a phone of her own: the host checked Bob and Cat in by hand
    (R-PAY-2: pass the phone is for them). Ann's phone."""
    return down_to_three(night, cash_night_with_phones(app, client, night, without=("Bob", "Cat")))


def down_to_three(night, phones):
    """Seven early players checked in and out, leaving the three of the cash night: `phones`."""
    early = [f"Early {n}" for n in range(7)]
    check_in_players(night, early)
    for name in early:
        bust_out(night, name)
    return phones


def pytest_terminal_summary(terminalreporter):
    """The fuzz's figures for docs/reliability.md, when it ran in this process (not under -n); the same
    for the two-at-a-time sweep (test_once_fuzz)."""
    from tests.web import test_fuzz
    if test_fuzz.TALLY["requests"]:
        tally = test_fuzz.TALLY
        terminalreporter.write_line(f"fuzz: {tally['requests']} requests, {tally['5xx']} answered 5xx, "
                                    f"{tally['refused']} refused (4xx), {tally['refusals that wrote']} "
                                    "refusals wrote to the database")
    from tests.web import test_once_fuzz
    if test_once_fuzz.TALLY["requests"]:
        tally = test_once_fuzz.TALLY
        terminalreporter.write_line(
            f"two at a time: {tally['requests']} requests, {tally['5xx']} answered 5xx, {tally['double-applied']} "
            f"double-applied; of each pair's second, {tally['second answered as the first']} answered as the first, "
            f"{tally['second told already being done']} told already being done; {tally['refused before the key']} "
            "refused before a key was claimed")
