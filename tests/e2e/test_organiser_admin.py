"""The organiser's settings and members on a phone (390×844): change a setting and see it recorded, a
bad value refused beside its field, a group reset to THPA; find a member, merge a duplicate record
and undo the merge (R-MEM-1, R-CHIP-1)."""
import pytest
from playwright.sync_api import expect

from services.models import User
from tests.e2e.conftest import organiser_league
from wiring.extensions import db

SLUG = "harbour-league"
# Points (R-PTS-2, short fields): 6 Oct, 2 players: 175, 150; 3 Nov, 3 players: 200, 175, 150.
RESULTS = """\
date,start_time,venue,event_type,position,player,status
2026-10-06,19:00,The Anchor,nightly,1,Dave O'Brien,
2026-10-06,19:00,The Anchor,nightly,2,Alice,
2026-11-03,19:00,Crown Hotel,nightly,1,Alice,
2026-11-03,19:00,Crown Hotel,nightly,2,Dave OBrien,
2026-11-03,19:00,Crown Hotel,nightly,3,Zoë,
"""


@pytest.fixture
def league_server(live_server):
    return organiser_league(live_server, RESULTS)


def log_in(page, base_url):
    page.goto(base_url + "/login")
    page.get_by_label("Username").fill("olive")
    page.get_by_label("Password").fill("pw-olive")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Log in")).to_have_count(0)


def test_settings_on_a_phone(phone, league_server, screenshot):
    page = phone()
    phone.allow(r"status of 422 .*/settings/nightly\)$")  # the refusal, on purpose
    phone.allow(r"Response Status Error Code 422 from /organiser/harbour-league/settings/nightly")
    page.on("dialog", lambda dialog: dialog.accept())  # "Put every … back to THPA's default?"
    log_in(page, league_server.url)
    page.goto(f"{league_server.url}/organiser/{SLUG}/settings")
    expect(page.get_by_role("heading", name="Settings")).to_be_visible()
    screenshot(page, "organiser-settings")
    page.locator("#group-nightly > summary").click()
    stack = page.get_by_label("Starting stack")
    expect(stack.first).to_have_value("10000")
    assert page.locator("#group-nightly button[type=submit]").first.bounding_box()["height"] >= 44
    page.locator("#set-nightly-starting_stack").fill("lots")
    page.get_by_role("button", name="Save nightly settings").click()
    expect(page.locator("#set-nightly-starting_stack-error")).to_contain_text("give a whole number")
    expect(page.locator("#set-nightly-starting_stack")).to_have_attribute("aria-invalid", "true")
    page.locator("#set-nightly-starting_stack").fill("12,000")
    page.get_by_role("button", name="Save nightly settings").click()
    expect(page.get_by_role("status")).to_contain_text("1 setting changed; nights created from now on use them")
    expect(page.locator(".changes")).to_contain_text("10000 → 12000")
    expect(page.locator(".changes")).to_contain_text("Olive")
    screenshot(page, "organiser-settings-changed")
    page.get_by_role("button", name="Reset Nightly to THPA").click()
    expect(page.get_by_role("status")).to_contain_text("Nightly back to THPA's defaults: 1 setting changed")
    expect(page.locator("#set-nightly-starting_stack")).to_have_value("10000")
    expect(page.locator(".changes li")).to_have_count(2)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    page.locator("#group-nightly > summary").click()
    page.locator("#group-league > summary").click()
    expect(page.get_by_label("Hands per hour (penalty return times)")).to_have_value("30")
    screenshot(page, "organiser-settings-league")


def test_merge_a_member_and_undo_it_on_a_phone(phone, league_server, screenshot):
    page = phone()
    page.on("dialog", lambda dialog: dialog.accept())  # "Merge … into …?"
    log_in(page, league_server.url)
    page.goto(f"{league_server.url}/organiser/{SLUG}/members")
    page.get_by_label("Find a player").fill("OBRI")
    expect(page.locator("#member-list li")).to_have_count(2)  # apostrophes left out: both records
    page.get_by_label("Find a player").fill("zoe")  # accents left out
    expect(page.locator("#member-list")).to_contain_text("Zoë")
    page.get_by_label("Find a player").fill("dave")
    expect(page.locator("#member-list li")).to_have_count(2)
    screenshot(page, "organiser-members")
    page.get_by_role("link", name="Dave O'Brien").click()
    expect(page.get_by_role("heading", name="Dave O'Brien")).to_be_visible()
    expect(page.locator("#member")).to_contain_text("1 night · 175 points")
    page.locator("#merge > summary").click()
    page.get_by_role("button", name="Merge here").click()
    expect(page.get_by_role("status")).to_contain_text("Merged Dave OBrien into Dave O'Brien")
    expect(page.locator("#member")).to_contain_text("2 nights · 350 points")
    screenshot(page, "organiser-member-merged")
    page.get_by_role("button", name="Undo merge").click()
    expect(page.get_by_role("status")).to_contain_text("Merge undone.")
    expect(page.locator("#member")).to_contain_text("1 night · 175 points")
    screenshot(page, "organiser-member-unmerged")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_venues_and_hosts_on_a_phone(phone, league_server, screenshot):
    with league_server.app.app_context():
        host = User(username="harry", display_name="Harry", role="host", league_id=1)
        host.set_password("pw-harry-long")
        db.session.add(host)
        db.session.commit()
        db.session.remove()
    page = phone()
    log_in(page, league_server.url)
    page.goto(f"{league_server.url}/organiser/{SLUG}/setup")
    anchor = page.locator("#setup .venue", has_text="The Anchor")
    anchor.locator("summary").click()
    anchor.get_by_label("New name").fill("The Anchor Inn")
    anchor.get_by_role("button", name="Rename").click()
    expect(page.get_by_role("status")).to_contain_text("Renamed to The Anchor Inn.")
    page.locator("#setup .venue summary", has_text="Crown Hotel").click()
    page.get_by_role("button", name="Retire Crown Hotel").click()
    expect(page.get_by_role("status")).to_contain_text("Crown Hotel is retired.")
    expect(page.locator("#setup .venue", has_text="Crown Hotel")).to_contain_text("retired")
    page.locator("#setup .host summary", has_text="Harry").click()
    page.get_by_label("The Anchor Inn").check()
    page.get_by_role("button", name="Save Harry's venues").click()
    expect(page.get_by_role("status")).to_contain_text("Harry's venues saved.")
    expect(page.locator("#setup .host", has_text="Harry")).to_contain_text("The Anchor Inn")
    page.locator("#setup .host summary", has_text="Harry").click()
    screenshot(page, "organiser-venues-and-hosts")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
