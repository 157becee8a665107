"""The public home page and the host's start page."""
import datetime as dt

from extensions import db
from models import Event, Venue
from tests.conftest import login


def test_home_lists_tonight_and_leagues(client, league):
    venue = Venue(league_id=league.id, name="The <Rose>")
    db.session.add(venue)
    db.session.flush()
    db.session.add(Event(league_id=league.id, venue_id=venue.id, event_type="nightly",
                         date=dt.date.today(), start_time=dt.time(19, 0), status="running"))
    db.session.commit()
    html = client.get("/").get_data(as_text=True)
    assert "Harbour League" in html and "The &lt;Rose&gt;" in html and "19:00" in html
    assert f"/events/{db.session.scalar(db.select(Event.id))}" in html


def test_home_without_games(client):
    html = client.get("/").get_data(as_text=True)
    assert "No games tonight." in html and "No leagues yet." in html


def test_host_page_needs_login(client, organiser):
    assert client.get("/host/").status_code == 302
    login(client, "host", "pw-host")
    assert b"Harry" in client.get("/host/").data
