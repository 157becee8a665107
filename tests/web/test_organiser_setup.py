"""The organiser creates venues and hosts and assigns a host to a night."""
import datetime as dt

from services.models import Event, User, Venue
from tests.conftest import csrf_token, login
from wiring.extensions import db


def post(client, path, **data):
    return client.post(path, headers={"HX-Request": "true"}, data={"csrf_token": csrf_token(client, "/"), **data})


def test_setup_and_nights_need_an_organiser(client, league, organiser):
    for path in ("/organiser/harbour-league/setup", "/organiser/harbour-league/nights"):
        assert client.get(path).status_code == 302
    login(client, "host", "pw-host")
    assert client.get("/organiser/harbour-league/setup").status_code == 403
    assert post(client, "/organiser/harbour-league/venues", name="Sneaky").status_code == 403
    assert db.session.scalar(db.select(db.func.count()).select_from(Venue)) == 0


def test_add_a_venue_page_and_fragment(client, league, organiser):
    login(client, "organiser", "pw-organiser")
    page = client.get("/organiser/harbour-league/setup")
    assert page.status_code == 200 and "<html" in page.get_data(as_text=True)
    response = post(client, "/organiser/harbour-league/venues", name="The <Rose>", address="1 Pier St")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "<html" not in html and "The &lt;Rose&gt;" in html
    assert "HX-Request" in response.headers["Vary"]
    again = post(client, "/organiser/harbour-league/venues", name="the <rose>")
    assert again.status_code == 422 and "already has a venue" in again.get_data(as_text=True)
    empty = post(client, "/organiser/harbour-league/venues", name="  ")
    assert empty.status_code == 422 and "Give the venue a name." in empty.get_data(as_text=True)
    assert db.session.scalar(db.select(db.func.count()).select_from(Venue)) == 1


def test_add_a_host_with_a_hashed_password(client, league, organiser):
    login(client, "organiser", "pw-organiser")
    response = post(client, "/organiser/harbour-league/hosts", display_name="Kim O'Neil", username="kim",
                    password="long-enough")
    assert response.status_code == 200 and "Kim O&#39;Neil" in response.get_data(as_text=True)
    kim = db.session.scalar(db.select(User).where(User.username == "kim"))
    assert kim.role == "host" and kim.check_password("long-enough") and "long-enough" not in kim.password_hash
    taken = post(client, "/organiser/harbour-league/hosts", display_name="K", username="kim", password="long-enough")
    assert taken.status_code == 422 and "taken" in taken.get_data(as_text=True)
    short = post(client, "/organiser/harbour-league/hosts", display_name="K", username="kim2", password="short")
    assert short.status_code == 422 and "at least 8 characters" in short.get_data(as_text=True)
    assert post(client, "/organiser/harbour-league/hosts", display_name="K", username="bad name!",
                password="long-enough").status_code == 422


def test_create_a_night_and_reassign_its_host(client, league, organiser):
    venue = Venue(league_id=league.id, name="Rose")
    db.session.add(venue)
    db.session.commit()
    host = db.session.scalar(db.select(User).where(User.username == "host"))
    login(client, "organiser", "pw-organiser")
    assert "Create night" in client.get("/organiser/harbour-league/nights").get_data(as_text=True)
    today = dt.date.today().isoformat()
    response = post(client, "/organiser/harbour-league/nights", venue=str(venue.id), date=today, start_time="19:30",
                    event_type="nightly", host=str(host.id), template="turbo")
    assert response.status_code == 200, response.get_data(as_text=True)
    event = db.session.scalar(db.select(Event))
    assert (event.host_id, event.start_time, event.structure[0]["minutes"]) == (host.id, dt.time(19, 30), 10)
    # the assigned host now runs it; an organiser can give it to another host
    client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
    login(client, "host", "pw-host")
    assert client.get(f"/host/events/{event.id}").status_code == 200
    client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
    login(client, "organiser", "pw-organiser")
    assert post(client, f"/organiser/harbour-league/nights/{event.id}/host", **{f"e{event.id}-host": str(organiser.id)}
                ).status_code == 200
    db.session.refresh(event)
    assert event.host_id == organiser.id


def test_bad_nights_are_refused_and_change_nothing(client, league, organiser):
    venue = Venue(league_id=league.id, name="Rose")
    db.session.add(venue)
    db.session.commit()
    login(client, "organiser", "pw-organiser")
    base = {"venue": str(venue.id), "date": "2026-12-01", "event_type": "nightly", "host": str(organiser.id),
            "template": "thpa_nightly"}
    for bad in ({"date": "31/12/2026"}, {"venue": "999"}, {"host": "999"}, {"event_type": "poker"},
                {"template": "nope"}, {"start_time": "7pm"}):
        response = post(client, "/organiser/harbour-league/nights", **{**base, **bad})
        assert response.status_code == 422, bad
    assert db.session.scalar(db.select(db.func.count()).select_from(Event)) == 0
    assert post(client, "/organiser/harbour-league/nights/999/host", host="1").status_code == 404
