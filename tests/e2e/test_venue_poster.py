"""A venue's permanent QR on phones (390×844): a new league's organiser adds a venue and sees the first
steps tick, prints the venue's poster (A4 and table tent, looked at as printed), a player opens the
poster's link into tonight's check-in and joins, the organiser replaces the link of a lost poster and
the old one says to scan the new poster; the venue's page with no night open and with two (R-MEM-1).
axe-core on every new page, in both themes where players read it."""
import datetime as dt
import re

import pytest
from playwright.sync_api import expect

from services.models import User, Venue
from tests.e2e.conftest import SCREENSHOTS, axe, check_fits, check_taps
from tests.e2e.test_organiser_admin import log_in
from tests.fixtures.new_league import new_league
from tests.fixtures.tonight import night_at
from wiring.extensions import db

SLUG = "harbour-league"


@pytest.fixture
def fresh(live_server):
    """A new league with only its organiser (olive / pw-olive) and a host login (harry / pw-harry)."""
    with live_server.app.app_context():
        league = new_league()
        harry = User(username="harry", display_name="Harry", role="host", league_id=league.id)
        harry.set_password("pw-harry")
        db.session.add(harry)
        db.session.commit()
        db.session.remove()
    return live_server


def test_r_mem_1_the_poster_from_a_new_league_to_a_player_checked_in(fresh, phone, screenshot):
    base = fresh.url
    olive = phone()
    olive.on("dialog", lambda dialog: dialog.accept())  # "Replace Rose & Crown's link? …"
    # The browser's print dialog, counted instead of opened (headless Chromium would hold the page in it).
    olive.add_init_script("window.print = () => { window.printed = (window.printed || 0) + 1; }")
    log_in(olive, base)
    olive.goto(f"{base}/organiser/{SLUG}/setup")
    steps = olive.locator(".first-steps")
    expect(steps).to_contain_text("1 of 5 done")  # the host is there already
    axe(olive, "venues and hosts with the first steps")
    screenshot(olive, "first-steps-new-league")
    steps.get_by_role("link", name="Add a venue").click()
    olive.get_by_label("Venue", exact=True).fill("Rose & Crown")
    olive.get_by_role("button", name="Add venue").click()
    expect(steps).to_contain_text("2 of 5 done")
    # The checklist's next poster step leads straight to the new venue's poster.
    steps.get_by_role("link", name="Print the venue poster").click()
    expect(olive.get_by_role("heading", name="Rose & Crown's poster")).to_be_visible()
    expect(olive.locator(".panel-venue")).to_have_text("Rose & Crown")
    expect(olive.locator(".panel-league")).to_have_text("Harbour League")
    check_fits(olive, 390)
    axe(olive, "the A4 poster page")
    screenshot(olive, "poster-a4-phone")
    link = olive.locator(".poster-tools a[href*='/venue/']").get_attribute("href")
    assert re.fullmatch(rf"{base}/venue/[\w-]{{20,}}", link)
    print_button = olive.get_by_role("button", name="Print the A4 poster")
    assert print_button.bounding_box()["height"] >= 44
    print_button.click()
    expect(olive.locator(".poster-tools")).to_contain_text("Printed ")
    olive.wait_for_function("window.printed === 1")
    assert "print=1" not in olive.url  # the dialog once: a reload does not print again
    olive.reload()
    assert olive.evaluate("window.printed") is None
    # On paper: the A4 sheet alone, then the table tent's two halves.
    olive.emulate_media(media="print")
    olive.set_viewport_size({"width": 794, "height": 1123})  # A4 at 96 dpi
    expect(olive.locator("header.bar")).to_be_hidden()
    expect(olive.locator(".poster-tools")).to_be_hidden()
    screenshot(olive, "poster-a4-printed")
    pdf = olive.pdf(format="A4", print_background=True)
    assert pdf.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page(?!s)", pdf)) == 1  # one A4 sheet
    (SCREENSHOTS / "poster-a4.pdf").write_bytes(pdf)
    olive.goto(f"{base}/organiser/{SLUG}/venues/1/poster/tent")
    expect(olive.locator(".sheet-tent .panel")).to_have_count(2)
    screenshot(olive, "poster-tent-printed")
    tent = olive.pdf(format="A4", print_background=True)
    assert len(re.findall(rb"/Type\s*/Page(?!s)", tent)) == 1  # both halves on one sheet, to fold
    (SCREENSHOTS / "poster-tent.pdf").write_bytes(tent)
    olive.emulate_media(media="screen")
    olive.set_viewport_size({"width": 390, "height": 844})
    axe(olive, "the table tent page")

    # Tonight's night at the Rose: a player scans the poster and is at tonight's check-in.
    with fresh.app.app_context():
        venue = db.session.get(Venue, 1)
        night = night_at(venue, "running", start=dt.time(19, 0))
        code = night.check_in_code
        db.session.remove()
    ann = phone()
    ann.goto(link)
    assert ann.url == f"{base}/check-in/{code}"
    expect(ann.get_by_role("heading", name="Check in")).to_be_visible()
    ann.get_by_label("Your name").fill("Ann O'Brien")
    ann.get_by_label("I am 18 or over").check()
    ann.get_by_role("button", name="Join and check in").click()
    expect(ann.get_by_text("Ann O'Brien, you're checked in.")).to_be_visible()

    # A lost poster: the organiser replaces the link; the old one now says to scan the new poster.
    olive.goto(f"{base}/organiser/{SLUG}/venues/1/poster/a4")
    olive.get_by_text("Poster lost?").click()
    olive.get_by_role("button", name="Replace the link").click()
    expect(olive.get_by_role("status")).to_contain_text("Rose & Crown has a new link")
    expect(olive.locator(".poster-tools")).to_contain_text("Not printed yet.")
    new_link = olive.locator(".poster-tools a[href*='/venue/']").get_attribute("href")
    assert new_link != link
    bob = phone()
    phone.allow(r"status of 410")  # the old poster's answer, on purpose
    response = bob.goto(link)
    assert response.status == 410
    expect(bob.get_by_role("alert")).to_have_text("Rose & Crown has a new poster: scan the new one to check in.")
    axe(bob, "the replaced poster's page")
    screenshot(bob, "venue-link-replaced")
    bob.goto(new_link)
    assert bob.url == f"{base}/check-in/{code}"


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_r_mem_1_the_venue_page_with_no_night_open_and_with_two(fresh, phone, screenshot, theme):
    with fresh.app.app_context():
        venue = Venue(league_id=1, name="Rose & Crown", address="1 Pier St")
        db.session.add(venue)
        db.session.commit()
        night_at(venue, "scheduled", date=venue.league.today() + dt.timedelta(days=5), start=dt.time(19, 0))
        link = f"{fresh.url}/venue/{venue.link_code}"
        venue_id = venue.id
        db.session.remove()
    page = phone()
    page.add_init_script(f"localStorage.setItem('shuffleup-theme', '{theme}')")
    page.goto(link)
    expect(page.get_by_role("heading", name="Rose & Crown", exact=True)).to_be_visible()
    expect(page.locator(".notice")).to_contain_text("No game is open here right now")
    expect(page.get_by_role("heading", name="Coming nights here")).to_be_visible()
    check_fits(page, 390)
    check_taps(page)
    axe(page, f"the venue page, nothing open ({theme})")
    screenshot(page, f"venue-page-nothing-open-{theme}")
    with fresh.app.app_context():
        venue = db.session.get(Venue, venue_id)
        night_at(venue, "running", start=dt.time(18, 0))
        night_at(venue, "scheduled", start=dt.time(20, 30), event_type="highroller")
        db.session.remove()
    page.goto(link)
    expect(page.get_by_role("heading", name="2 games tonight: pick yours")).to_be_visible()
    check_taps(page)
    axe(page, f"the venue page, two nights open ({theme})")
    screenshot(page, f"venue-page-two-open-{theme}")
    page.get_by_role("link", name=re.compile("High-roller")).click()
    expect(page.get_by_role("heading", name="Check in")).to_be_visible()
