"""A new league's first steps on the organiser's pages: a checklist (a venue, a host, the settings
reviewed, the first night, the venue poster printed) that ticks itself off from what the league holds,
each step left linking to where it is done; gone once all are done or a night is settled. And every
empty list of the organiser's, host's and player's screens says how to fill it."""
import datetime as dt
import re

import pytest

from services import checklist
from services.models import Event, User, Venue, utcnow
from tests.conftest import csrf_token, login
from tests.fixtures.new_league import new_league
from tests.fixtures.pages import html, text
from tests.fixtures.tonight import night_at
from wiring.extensions import db

SETUP = "/organiser/harbour-league/setup"


@pytest.fixture
def fresh(app, client):
    """A new league whose organiser is logged in on `client`."""
    league = new_league()
    login(client, "olive", "pw-olive")
    return league


def post(client, path, **data):
    return client.post(path, headers={"HX-Request": "true"}, data={"csrf_token": csrf_token(client, SETUP), **data})


def done(page: str) -> int | None:
    found = re.search(r"started: (\d) of 5 done", page)
    return int(found.group(1)) if found else None


def test_a_new_league_sees_every_step_to_do_with_a_link_to_where(client, fresh):
    home = client.get(client.get("/organiser/").location)
    page = html(home)
    assert home.status_code == 200 and done(page) == 0
    for link in (f'{SETUP}#add-venue">Add a venue', f'{SETUP}#add-host">Add a host',
                 '/organiser/harbour-league/settings">Review the settings',
                 '/organiser/harbour-league/nights#new-night">Book the first night', '>Print the venue poster'):
        assert link in page
    for path in (SETUP, "/organiser/harbour-league/nights", "/organiser/harbour-league/settings"):
        assert done(html(client.get(path))) == 0, path


def test_the_steps_tick_themselves_off_then_the_list_goes(client, fresh):
    assert done(html(post(client, "/organiser/harbour-league/venues", name="Rose & Crown"))) == 1
    venue = db.session.scalar(db.select(Venue))
    added = post(client, "/organiser/harbour-league/hosts", display_name="Harry", username="harry",
                 password="long-enough")
    page = html(added)
    assert done(page) == 2 and 'Add a host<span class="visually-hidden">: done</span>' in page
    assert f'/organiser/harbour-league/venues/{venue.id}/poster/a4">Print the venue poster' in page
    settings = post(client, "/organiser/harbour-league/settings/reviewed")
    assert settings.status_code == 200 and done(html(settings)) == 3
    assert "Settings reviewed" in text(settings) and "These settings are right" not in text(settings)
    harry = db.session.scalar(db.select(User).where(User.username == "harry"))
    night = post(client, "/organiser/harbour-league/nights", venue=str(venue.id), date=fresh.today().isoformat(),
                 start_time="19:30", event_type="nightly", host=str(harry.id), template="thpa_nightly")
    assert night.status_code == 200 and done(html(night)) == 4
    printed = client.post(f"/organiser/harbour-league/venues/{venue.id}/poster/a4/printed",
                          data={"csrf_token": csrf_token(client, SETUP)})
    assert printed.status_code == 303
    for path in (SETUP, "/organiser/harbour-league/nights", "/organiser/harbour-league/settings",
                 client.get("/organiser/").location):
        assert "Getting Harbour League started" not in html(client.get(path)), path


def test_saving_a_settings_group_counts_as_reviewed(client, fresh):
    form = html(client.get("/organiser/harbour-league/settings"))
    group = re.search(r'action="(/organiser/harbour-league/settings/[a-z_]+)"', form).group(1)
    assert post(client, group).status_code in (200, 422)
    db.session.refresh(fresh)
    saved = fresh.settings_reviewed_at is not None
    assert saved == (post(client, group).status_code == 200)


def test_settings_reviewed_needs_csrf_and_the_organiser(client, app, fresh):
    assert client.post("/organiser/harbour-league/settings/reviewed").status_code == 400
    phone = app.test_client()
    assert phone.post("/organiser/harbour-league/settings/reviewed",
                      data={"csrf_token": csrf_token(phone)}).status_code == 401
    db.session.refresh(fresh)
    assert fresh.settings_reviewed_at is None


def test_a_replaced_link_needs_its_new_poster_printed(client, fresh):
    venue = Venue(league_id=fresh.id, name="Rose")
    db.session.add(venue)
    db.session.commit()
    client.post(f"/organiser/harbour-league/venues/{venue.id}/poster/a4/printed",
                data={"csrf_token": csrf_token(client, SETUP)})
    assert "poster" in checklist.first_steps(fresh).done
    page = html(client.get(f"/organiser/harbour-league/venues/{venue.id}/poster/a4"))
    seen = re.search(r'name="seen" value="([^"]+)"', page).group(1)
    post(client, f"/organiser/harbour-league/venues/{venue.id}/link", seen=seen)
    assert "poster" not in checklist.first_steps(fresh).done


def test_a_league_under_way_gets_no_checklist(client, fresh):
    venue = Venue(league_id=fresh.id, name="Rose")
    db.session.add(venue)
    db.session.commit()
    night_at(venue, "settled", date=fresh.today() - dt.timedelta(days=7))
    assert checklist.first_steps(fresh) is None
    assert "started:" not in html(client.get(SETUP))


def test_a_cancelled_night_is_not_the_first_night(app, fresh):
    venue = Venue(league_id=fresh.id, name="Rose")
    db.session.add(venue)
    db.session.commit()
    night_at(venue, "cancelled")
    assert "night" not in checklist.first_steps(fresh).done
    db.session.add(Event(league_id=fresh.id, venue_id=venue.id, event_type="nightly", date=fresh.today()))
    db.session.commit()
    assert {"venue", "night"} <= checklist.first_steps(fresh).done


# ---- every empty list says how to fill it ----

def test_the_organisers_empty_lists_say_what_to_do(client, fresh):
    setup = html(client.get(SETUP))
    assert 'No venues yet: add the pub where the league plays <a href="#add-venue">below</a>' in setup
    assert 'No hosts yet: add the person who runs the night from their phone <a href="#add-host">below</a>' in setup
    nights = html(client.get("/organiser/harbour-league/nights"))
    assert 'No nights coming up: book one with <a href="#new-night">New night</a> below.' in nights
    assert f'A night is at a venue: the league has none yet. <a href="{SETUP}#add-venue">Add a venue</a>' in nights


def test_the_organisers_member_and_pack_empty_lists_say_what_to_do(client, fresh):
    members = html(client.get("/organiser/harbour-league/members"))
    assert f"No members yet: players join when they scan a venue's poster (<a href=\"{SETUP}\">" in members
    month = html(client.get(client.get("/organiser/").location))
    assert 'No nights this month: book them on <a href="/organiser/harbour-league/nights">Nights</a>.' in month
    assert "Nobody has scored yet: the ten highest scorers of the month make it." in month


def test_the_hosts_empty_lists_say_what_to_do(client, app, night):
    login(client, "host", "pw-host")
    roster = html(client.get(f"/host/events/{night.id}/players"))
    assert "Nobody waiting: players who scan the check-in QR wait here for your Confirm." in roster
    assert "Nobody in yet: find players by name above, or show them the check-in QR." in roster
    night.status = "settled"
    db.session.commit()
    home = html(client.get("/host/"))
    assert 'No nights to run: book one with <a href="#new-night">New night</a> below' in home
    assert 'id="new-night" open' in home


def test_a_host_with_no_venue_is_told_to_ask_the_organiser(client, app):
    league = new_league()
    harry = User(username="harry", display_name="Harry", role="host", league_id=league.id)
    harry.set_password("pw-harry")
    db.session.add(harry)
    db.session.commit()
    login(client, "harry", "pw-harry")
    assert "The league has no venue yet: ask the organiser to add one" in text(client.get("/host/"))


def test_a_removed_host_is_no_host_for_the_first_steps(client, fresh):
    harry = User(username="harry", display_name="Harry", role="host", league_id=fresh.id)
    harry.set_password("pw-harry")
    db.session.add(harry)
    db.session.commit()
    assert "host" in checklist.first_steps(fresh).done
    harry.removed_at = utcnow()
    db.session.commit()
    assert "host" not in checklist.first_steps(fresh).done
