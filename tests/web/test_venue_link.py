"""A venue's permanent link (R-MEM-1): the QR on its poster opens tonight's check-in while a night is open
there, lets the player pick when two are, and otherwise shows the venue's coming nights and the league's
standings; a replaced link (a lost poster) answers 410 and says to scan the new poster. The organiser's
poster page (A4, table tent), Print recorded, Replace after a confirmation, its refusals."""
import datetime as dt
import re

import pytest

from services.models import ReplacedVenueLink, Venue
from tests.conftest import csrf_token, login
from tests.fixtures.pages import html, text
from tests.fixtures.rows import count
from tests.fixtures.tonight import night_at
from wiring.extensions import db


def door(client, venue_or_code):
    code = venue_or_code if isinstance(venue_or_code, str) else venue_or_code.link_code
    return client.get(f"/venue/{code}")


def poster_url(venue, size="a4"):
    return f"/organiser/{venue.league.slug}/venues/{venue.id}/poster/{size}"


def replace(client, venue, seen=None, htmx=True):
    page = html(client.get(poster_url(venue)))
    if seen is None:
        seen = re.search(r'name="seen" value="([^"]+)"', page).group(1)
    return client.post(f"/organiser/{venue.league.slug}/venues/{venue.id}/link",
                       headers={"HX-Request": "true"} if htmx else {},
                       data={"csrf_token": csrf_token(client, poster_url(venue)), "seen": seen, "size": "tent"})


def test_r_mem_1_every_venue_has_its_own_unguessable_link(app, rose):
    db.session.add(Venue(league_id=rose.league_id, name="Anchor"))
    db.session.commit()
    venues = db.session.scalars(db.select(Venue)).all()
    codes = {v.link_code for v in venues}
    assert len(codes) == len(venues) == 2 and all(len(code) >= 20 for code in codes)


def test_r_mem_1_the_link_opens_tonights_check_in(client, night):
    response = door(client, night.venue)
    assert response.status_code == 303
    assert response.location.endswith(f"/check-in/{night.check_in_code}")
    assert response.headers["Cache-Control"] == "no-store"
    page = client.get(response.location)
    assert page.status_code == 200 and "Join and check in" in text(page)


def test_r_mem_1_a_night_booked_for_today_not_started_yet_opens_too(client, rose):
    booked = night_at(rose, "scheduled", start=dt.time(19, 30))
    assert door(client, rose).location.endswith(f"/check-in/{booked.check_in_code}")


def test_r_mem_1_a_night_past_midnight_still_opens_but_an_old_unsettled_one_does_not(client, rose):
    today = rose.league.today()
    late = night_at(rose, "running", date=today - dt.timedelta(days=1))
    assert door(client, rose).location.endswith(f"/check-in/{late.check_in_code}")
    for status, days in (("running", 3), ("settled", 0), ("cancelled", 0)):  # left unsettled; over; never on
        late.status, late.date = status, today - dt.timedelta(days=days)
        db.session.commit()
        response = door(client, rose)
        assert response.status_code == 200 and "No game is open here right now" in text(response)


def test_r_mem_1_two_nights_open_at_once_the_player_picks(client, night):
    second = night_at(night.venue, "scheduled", start=dt.time(20, 0), event_type="highroller")
    response = door(client, night.venue)
    page = text(response)
    assert response.status_code == 200 and "2 games tonight: pick yours" in page
    assert f"/check-in/{night.check_in_code}" in page and f"/check-in/{second.check_in_code}" in page
    assert "High-roller" in page and "Playing now" in page


def test_r_mem_1_no_night_open_shows_coming_nights_and_the_standings(client, november):
    rose = november["venue"]
    today = rose.league.today()
    coming = night_at(rose, "scheduled", date=today + dt.timedelta(days=3), start=dt.time(19, 0))
    night_at(rose, "cancelled", date=today + dt.timedelta(days=4))  # never shown
    response = door(client, rose)
    page = text(response)
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    assert "No game is open here right now" in page and "Coming nights here" in page
    assert f"/events/{coming.id}" in page and page.count("pre-register") == 1
    assert "top of the table" in page and "Ann" in page  # November's table: the latest month with results
    assert "/leagues/harbour-league" in page


def test_r_mem_1_nothing_booked_says_where_to_look(client, rose):
    page = text(door(client, rose))
    assert "No nights booked here yet" in page and "/leagues/harbour-league/nights" in page
    assert "No results yet: the table fills once the league's first night is settled." in page


def test_r_mem_1_names_are_escaped_on_the_venue_page(client, rose):
    rose.name, rose.address = "O'Brien <b>", "<i>1 Pier St</i>"
    db.session.commit()
    page = html(door(client, rose))
    assert "O&#39;Brien &lt;b&gt;" in page and "&lt;i&gt;1 Pier St&lt;/i&gt;" in page and "<b>" not in page


@pytest.mark.parametrize("code", ["nope", "x" * 44, "%20", ".."])
def test_r_mem_1_a_wrong_link_is_a_404_that_says_so(client, rose, code):
    response = client.get(f"/venue/{code}")
    assert response.status_code == 404 and "scan the poster at the venue again" in text(response)
    assert client.get("/venue/%00").status_code == 404


def test_r_mem_1_a_replaced_link_is_gone_and_says_to_scan_the_new_poster(client, organiser, night):
    venue = night.venue
    old = venue.link_code
    login(client, "organiser", "pw-organiser")
    response = replace(client, venue)
    assert response.status_code == 200 and "has a new link" in text(response)
    assert venue.link_code != old and venue.poster_printed_at is None
    gone = client.get(f"/venue/{old}")
    assert gone.status_code == 410 and "This poster has been replaced" in text(gone)
    assert "Rose &amp; Crown has a new poster: scan the new one" in html(gone)
    assert door(client, venue).location.endswith(f"/check-in/{night.check_in_code}")


def test_r_mem_1_a_double_tap_on_replace_replaces_once(client, organiser, rose):
    login(client, "organiser", "pw-organiser")
    seen = re.search(r'name="seen" value="([^"]+)"', html(client.get(poster_url(rose)))).group(1)
    first, second = replace(client, rose, seen), replace(client, rose, seen)
    assert first.status_code == second.status_code == 200
    assert count(ReplacedVenueLink) == 1 and "has a new link" in text(second)


def test_r_mem_1_replace_from_a_stale_or_forged_page_is_refused_and_changes_nothing(client, organiser, rose):
    login(client, "organiser", "pw-organiser")
    old_seen = re.search(r'name="seen" value="([^"]+)"', html(client.get(poster_url(rose)))).group(1)
    replace(client, rose)
    replace(client, rose)  # replaced twice: the first page's mark is two links old
    code = rose.link_code
    for seen in (old_seen, "", "forged", "x" * 5000):
        response = replace(client, rose, seen)
        assert response.status_code == 409 and 'role="alert"' in html(response)
        assert "link has changed since this page was opened" in text(response)
    db.session.refresh(rose)
    assert rose.link_code == code and count(ReplacedVenueLink) == 2


def test_replace_needs_csrf_and_the_organiser_of_that_league(client, app, organiser, rose):
    code = rose.link_code
    url = f"/organiser/harbour-league/venues/{rose.id}/link"
    assert client.post(url, data={"csrf_token": csrf_token(client), "seen": "x"}).status_code == 401  # not logged in
    login(client, "host", "pw-host")
    assert client.post(url, data={"csrf_token": csrf_token(client, "/"), "seen": "x"}).status_code == 403
    login(client, "organiser", "pw-organiser")
    assert client.post(url, data={"seen": "x"}).status_code == 400  # no CSRF token
    assert client.post("/organiser/harbour-league/venues/999/link",
                       data={"csrf_token": csrf_token(client, "/"), "seen": "x"}).status_code == 404
    db.session.refresh(rose)
    assert rose.link_code == code and count(ReplacedVenueLink) == 0


def test_the_poster_page_a4_and_table_tent(client, organiser, rose):
    login(client, "organiser", "pw-organiser")
    a4 = client.get(poster_url(rose))
    page = html(a4)
    assert a4.status_code == 200 and "<svg" in page and "Rose &amp; Crown" in page and "Harbour League" in page
    assert f"/venue/{rose.link_code}" in page and "sheet-a4" in page and page.count('class="panel"') == 1
    assert "organiser/poster.css" in page and "Not printed yet." in page
    tent = html(client.get(poster_url(rose, "tent")))
    assert "sheet-tent" in tent and tent.count('class="panel"') == 2 and 'aria-hidden="true"' in tent
    assert client.get(poster_url(rose, "a3")).status_code == 404
    assert client.get(f"/organiser/harbour-league/venues/{rose.id + 50}/poster/a4").status_code == 404


def test_print_records_the_poster_printed_and_asks_the_browser_to_print(client, organiser, rose):
    login(client, "organiser", "pw-organiser")
    response = client.post(f"{poster_url(rose, 'tent')}/printed", data={"csrf_token": csrf_token(client, poster_url(rose))})
    assert response.status_code == 303 and response.location.endswith(f"{poster_url(rose, 'tent')}?print=1")
    assert rose.poster_printed_at is not None
    page = html(client.get(response.location))
    assert "data-print-now" in page and "Printed " in page
    assert "data-print-now" not in html(client.get(poster_url(rose)))


def test_print_needs_csrf(client, organiser, rose):
    login(client, "organiser", "pw-organiser")
    assert client.post(f"{poster_url(rose)}/printed").status_code == 400
    db.session.refresh(rose)
    assert rose.poster_printed_at is None


def test_the_poster_is_the_organisers_own(client, app, organiser, rose):
    assert client.get(poster_url(rose)).status_code == 302
    login(client, "host", "pw-host")
    assert client.get(poster_url(rose)).status_code == 403
