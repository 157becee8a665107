"""Tonight's game for the tests that need one: a league, a venue, a host login and a running
nightly event dated today at the league's venues. Call inside an app context; it commits."""
import datetime as dt

from services import leagues
from services.models import Event, User, Venue
from wiring.extensions import db


def tonight(league: str = "Harbour League", venue: str = "Rose & Crown", username: str = "host",
            password: str = "pw-host", start: dt.time | None = None, date: dt.date | None = None) -> Event:
    """The running nightly event, hosted by `username` / `password`."""
    found = leagues.create_league(league, "free")
    pub = Venue(league_id=found.id, name=venue)
    host = User(username=username, display_name=username.title(), role="host", league_id=found.id)
    host.set_password(password)
    db.session.add_all([pub, host])
    db.session.flush()
    event = Event(league_id=found.id, venue_id=pub.id, event_type="nightly", date=date or found.today(),
                  start_time=start, host_id=host.id, status="running")
    db.session.add(event)
    db.session.commit()
    return event
