"""What "Tonight" lists, on the host's start page, the organiser's nights and the public home: never
a settled night (one imported from a results file included) nor one dated before today that never
started; a night under way since yesterday still (it can run past midnight)."""
import datetime as dt
from zoneinfo import ZoneInfo

from services import leagues
from services.models import Event
from tests.conftest import login
from tests.fixtures.results import HEADER
from tests.web.test_cli import imported
from wiring.extensions import db


def night(league, venue, days, status, hour):
    from services.models import User
    host = db.session.scalar(db.select(User).where(User.username == "host"))
    event = Event(league_id=league.id, venue_id=venue.id, event_type="nightly", host_id=host.id,
                  date=league.today() + dt.timedelta(days=days), start_time=dt.time(hour, 0), status=status)
    db.session.add(event)
    db.session.commit()
    return event


def test_a_settled_or_past_night_is_not_tonight_a_running_one_from_yesterday_is(client, league, rose):
    keep = [night(league, rose, 0, "scheduled", 19), night(league, rose, -1, "running", 18),
            night(league, rose, 3, "scheduled", 20)]
    gone = [night(league, rose, 0, "settled", 17), night(league, rose, -1, "scheduled", 16),
            night(league, rose, -5, "scheduled", 15)]
    assert [e.id for e in leagues.upcoming_nights(league)] == [keep[1].id, keep[0].id, keep[2].id]
    login(client, "host", "pw-host")
    page = client.get("/host/").get_data(as_text=True)
    for event in keep:
        assert f"/host/events/{event.id}\"" in page
    for event in gone:
        assert f"/host/events/{event.id}\"" not in page


def test_a_night_imported_from_a_results_file_is_never_tonight(runner, tmp_path, client, app):
    today = dt.datetime.now(ZoneInfo("Australia/Sydney")).date().isoformat()  # a new league's zone
    imported(runner, tmp_path, HEADER + f"{today},19:00,The Rose,nightly,1,Ann,\n{today},19:00,The Rose,nightly,2,Bob,\n")
    event = db.session.scalar(db.select(Event))
    assert event.status == "settled"
    assert leagues.upcoming_nights(event.league) == []
    home = client.get("/").get_data(as_text=True)
    assert "No games tonight: each league below lists its coming nights." in home and f"/events/{event.id}\"" not in home
