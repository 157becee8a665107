"""The public home page and the host's start page."""
import datetime as dt
from zoneinfo import ZoneInfo

from services.models import Event, Venue
from tests.conftest import login
from wiring.extensions import db


def test_home_lists_tonight_and_leagues(client, league):
    venue = Venue(league_id=league.id, name="The <Rose>")
    db.session.add(venue)
    db.session.flush()
    db.session.add(Event(league_id=league.id, venue_id=venue.id, event_type="nightly",
                         date=local_date(league.timezone), start_time=dt.time(19, 0), status="running"))
    db.session.commit()
    html = client.get("/").get_data(as_text=True)
    assert "Harbour League" in html and "The &lt;Rose&gt;" in html and "19:00" in html
    assert f"/events/{db.session.scalar(db.select(Event.id))}" in html


def local_date(zone):
    return dt.datetime.now(ZoneInfo(zone)).date()


def test_tonight_is_the_leagues_own_date(client, league):
    """R-STD-1: a league 14 hours ahead of UTC has its own "tonight"; a game dated at a place 11 hours
    behind (always another date, 25 hours apart) is not tonight's."""
    league.timezone = "Pacific/Kiritimati"
    venue = Venue(league_id=league.id, name="Reef Bar")
    db.session.add(venue)
    db.session.flush()
    for date, start in ((local_date("Pacific/Kiritimati"), dt.time(20, 0)), (local_date("Pacific/Pago_Pago"), dt.time(21, 30))):
        db.session.add(Event(league_id=league.id, venue_id=venue.id, event_type="nightly", date=date,
                             start_time=start, status="scheduled"))
    db.session.commit()
    html = client.get("/").get_data(as_text=True)
    assert "20:00" in html and "21:30" not in html


def test_home_without_games(client):
    html = client.get("/").get_data(as_text=True)
    assert "No games tonight: each league below lists its coming nights." in html
    assert "No leagues yet: once an organiser starts one, it shows here." in html and 'href="/login"' in html


def test_host_page_needs_login(client, organiser):
    assert client.get("/host/").status_code == 302
    login(client, "host", "pw-host")
    assert b"Harry" in client.get("/host/").data
