"""Web-test fixtures shared by the night's tests."""
import datetime as dt

import pytest

from services.models import Event, User, Venue
from wiring.extensions import db


@pytest.fixture
def night(app, league, organiser):
    """Tonight's nightly event at the Rose, hosted by `host`."""
    venue = Venue(league_id=league.id, name="Rose & Crown")
    db.session.add(venue)
    db.session.flush()
    host = db.session.scalar(db.select(User).where(User.username == "host"))
    event = Event(league_id=league.id, venue_id=venue.id, event_type="nightly", date=dt.date.today(),
                  start_time=dt.time(19, 0), host_id=host.id, status="running")
    db.session.add(event)
    db.session.commit()
    return event
