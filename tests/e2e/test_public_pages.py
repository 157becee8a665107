"""The league pages anyone can open, on a phone (R-STD-1/2, R-QUAL-1..5, R-FIN, R-PTS):
they fit 390 and 320 pixel screens with thumb-sized controls, the name search filters as you type
(and works without script), the pager swaps months and seasons in place, the theme toggle is
remembered and applied before the first paint, and axe-core finds no serious or critical
accessibility problem on any page in either theme.

Expected numbers are worked out from RULES.md by hand, not by calling league/.
"""
from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from league.results_file import parse_results
from services import clocks, leagues, results
from services.models import Entry, Event, Member, Venue
from tests.e2e.conftest import axe, check_fits, check_taps
from wiring.extensions import db

SLUG = "harbour-league"
SIZES = {"390x844": {"width": 390, "height": 844}, "320x640": {"width": 320, "height": 640}}

RESULTS = """\
date,start_time,venue,event_type,position,player,status
2026-09-15,19:00,Crown Hotel,nightly,1,Zoe,
2026-09-15,19:00,Crown Hotel,nightly,2,Alice,
2026-09-15,19:00,Crown Hotel,nightly,3,Bob,
2026-10-06,19:00,The Anchor,nightly,1,Alice,
2026-10-06,19:00,The Anchor,nightly,2,Bob,
2026-10-06,19:00,The Anchor,nightly,3,O'Brien <b>,
2026-10-06,19:00,The Anchor,nightly,4,Dana,
2026-10-06,19:00,The Anchor,nightly,5,Eve,
2026-10-13,19:00,Crown Hotel,nightly,1,Bob,
2026-10-13,19:00,Crown Hotel,nightly,2,Alice,
2026-10-13,19:00,Crown Hotel,nightly,3,Frank,
2026-10-13,19:00,Crown Hotel,nightly,4,Gina,
2026-10-13,19:00,Crown Hotel,nightly,5,Hal,
2026-10-13,19:00,Crown Hotel,nightly,6,Ivy,
2026-10-13,19:00,Crown Hotel,nightly,7,Jack,
2026-10-13,19:00,Crown Hotel,nightly,8,Bartholomew Fitzgerald-Montgomery,dq
"""
# October (R-PTS-1/2, R-PTS-5): 6 Oct, 5 players: 250 225 200 175 150; 13 Oct, 8 players: places
# shift by two, 400 300 275 250 225 200 175, and the disqualified 8th earns 0. R-STD-1 sums them and
# equal points share a rank.
OCTOBER_TABLE = [
    ["1", "Bob", "625", "2"],
    ["2", "Alice", "550", "2"],
    ["3", "Frank", "275", "1"],
    ["4", "Gina", "250", "1"],
    ["5", "Hal", "225", "1"],
    ["6", "Ivy", "200", "1"],
    ["6", "O'Brien <b>", "200", "1"],
    ["8", "Dana", "175", "1"],
    ["8", "Jack", "175", "1"],
    ["10", "Eve", "150", "1"],
    ["11", "Bartholomew Fitzgerald-Montgomery", "0", "1"],
]
# September, 3 players: places shift by seven, 200 175 150.
SEPTEMBER_TABLE = [["1", "Zoe", "200", "1"], ["2", "Alice", "175", "1"], ["3", "Bob", "150", "1"]]
ROWS_JS = "el => [...el.querySelectorAll('tbody tr')].map(tr => [...tr.cells].map(c => c.textContent.trim()))"


@pytest.fixture
def site(live_server):
    """The live app with a free league: two months of results, tonight's running clock at The
    Anchor, and a night scheduled for tomorrow at Crown Hotel."""
    with live_server.app.app_context():
        league = leagues.create_league("Harbour League", "free")
        results.import_results(league, parse_results(RESULTS))
        anchor = db.session.scalar(db.select(Venue).where(Venue.name == "The Anchor"))
        crown = db.session.scalar(db.select(Venue).where(Venue.name == "Crown Hotel"))
        today = dt.date.today()
        tonight = Event(league_id=league.id, venue_id=anchor.id, event_type="nightly", date=today,
                        start_time=dt.time(19, 0), status="running", clock_started=True,
                        clock_running_since_ms=clocks.now_ms() - 95_000, clock_version=1)
        tomorrow = Event(league_id=league.id, venue_id=crown.id, event_type="nightly",
                         date=today + dt.timedelta(days=2), start_time=dt.time(19, 30))
        db.session.add_all([tonight, tomorrow])
        db.session.flush()
        for number in range(9):
            member = Member.named(league.id, f"Player {number + 1}")
            db.session.add(member)
            db.session.flush()
            db.session.add(Entry(event_id=tonight.id, member_id=member.id, status="playing"))
        db.session.commit()
        october_13 = db.session.scalar(db.select(Event.id).where(Event.date == dt.date(2026, 10, 13)))
        ids = SimpleNamespace(tonight=tonight.id, october_13=october_13)
        db.session.remove()
    base = live_server.url
    return SimpleNamespace(
        url=base, app=live_server.app, wire=live_server.wire, ids=ids,
        pages={
            "home": base + "/",
            "league": f"{base}/leagues/{SLUG}",
            "month": f"{base}/leagues/{SLUG}/months/2026-10",
            "season": f"{base}/leagues/{SLUG}/seasons/2026",
            "qualifiers": f"{base}/leagues/{SLUG}/months/2026-10/qualifiers",
            "results": f"{base}/events/{ids.october_13}/results",
            "nights": f"{base}/leagues/{SLUG}/nights",
            "clock": f"{base}/events/{ids.tonight}",
            "offline": base + "/offline",
        })


@pytest.mark.parametrize("size", SIZES)
def test_every_public_page_fits_a_phone_with_thumb_sized_controls(site, phone, screenshot, size):
    page = phone(viewport=SIZES[size])
    for name, url in site.pages.items():
        page.goto(url)
        if name == "clock":
            expect(page.locator("[data-connection]")).to_have_text("Live")
        check_fits(page, SIZES[size]["width"])
        if name != "clock":  # the clock's own controls are clock.js's and checked in test_clock.py
            check_taps(page)
        screenshot(page, f"public-{name}-{size}")


def test_r_std_1_month_table_search_as_you_type_and_pager(site, phone, screenshot):
    page = phone()
    page.goto(site.pages["month"])
    table = page.locator("#standings-table")
    assert table.evaluate(ROWS_JS) == OCTOBER_TABLE
    # A name is text, never markup.
    assert page.locator("main b").count() == 0
    expect(page.locator("td", has_text="O'Brien <b>")).to_have_text("O'Brien <b>")
    # Every row carries the member's id: the hook for "jump to me".
    assert all(row.startswith("member-") for row in table.locator("tbody tr").evaluate_all(
        "rows => rows.map(r => r.id)"))

    page.evaluate("window.__marker = 1")
    page.get_by_label("Find a player").press_sequentially("bri", delay=40)
    expect(table.locator("tbody tr")).to_have_count(1)
    assert table.evaluate(ROWS_JS) == [["6", "O'Brien <b>", "200", "1"]]  # the full table's rank
    expect(page.get_by_role("status")).to_have_text("1 of 11 players match “bri”")
    expect(page).to_have_url(site.pages["month"] + "?q=bri")
    expect(page.get_by_label("Find a player")).to_be_focused()  # only the table was swapped
    screenshot(page, "public-month-search")
    page.get_by_label("Find a player").fill("")
    expect(table.locator("tbody tr")).to_have_count(len(OCTOBER_TABLE))
    page.get_by_label("Find a player").fill("nobody here")
    expect(page.get_by_role("status")).to_have_text("0 of 11 players match “nobody here”")
    assert page.evaluate("window.__marker") == 1, "the page was reloaded instead of swapped"

    # The pager swaps the month in place and pushes the URL; Back walks it, still no reload.
    page.get_by_role("link", name="Previous month").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("September 2026")
    expect(page).to_have_url(f"{site.url}/leagues/{SLUG}/months/2026-09")
    expect(page).to_have_title("September 2026 standings · Harbour League")
    assert table.evaluate(ROWS_JS) == SEPTEMBER_TABLE
    assert page.evaluate("window.__marker") == 1
    page.go_back()
    expect(page.get_by_role("heading", level=1)).to_have_text("October 2026")
    assert page.evaluate("window.__marker") == 1


def test_r_std_2_season_pager_and_search(site, phone):
    page = phone(viewport=SIZES["320x640"])
    page.goto(site.pages["season"])
    expect(page.get_by_role("heading", level=1)).to_have_text("2026 season")
    # R-STD-2, September and October together: Bob 150 + 625, Alice 175 + 550, and Zoe's 200 ties
    # with Ivy and O'Brien for 6th.
    rows = page.locator("#standings-table").evaluate(ROWS_JS)
    assert rows[:3] == [["1", "Bob", "775", "3"], ["2", "Alice", "725", "3"], ["3", "Frank", "275", "1"]]
    assert rows[5:8] == [["6", "Ivy", "200", "1"], ["6", "O'Brien <b>", "200", "1"], ["6", "Zoe", "200", "1"]]
    page.get_by_label("Find a player").fill("ZOE")
    expect(page.locator("#standings-table tbody tr")).to_have_count(1)
    assert page.locator("#standings-table").evaluate(ROWS_JS) == [["6", "Zoe", "200", "1"]]
    check_fits(page, 320)
    assert page.get_by_role("link", name="Previous season").count() == 0  # 2026 is the only season


def test_the_search_works_without_script(site, browser):
    context = browser.new_context(java_script_enabled=False, viewport=SIZES["390x844"])
    try:
        page = context.new_page()
        page.goto(site.pages["month"])
        page.get_by_label("Find a player").fill("bri")
        page.get_by_role("button", name="Search").click()
        expect(page).to_have_url(site.pages["month"] + "?q=bri")
        assert page.locator("#standings-table").evaluate(ROWS_JS) == [["6", "O'Brien <b>", "200", "1"]]
        expect(page.get_by_label("Find a player")).to_have_value("bri")
        # The theme toggle needs script: without it, it is not offered.
        expect(page.locator("[data-theme-toggle]")).to_be_hidden()
    finally:
        context.close()


def test_theme_toggle_is_remembered_and_applied_before_the_first_paint(site, phone, screenshot):
    page = phone()
    page.goto(site.pages["league"])
    toggle = page.get_by_role("button", name="Light theme")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    assert page.evaluate("document.querySelector('meta[name=theme-color]').content") == "#fbfbf8"
    screenshot(page, "public-league-light")
    # Next page, with app.js held back: the inline script in <head> alone already chose light,
    # so there is no dark flash while the scripts load.
    page.route("**/js/app.js", lambda route: route.fulfill(status=200, content_type="text/javascript", body=""))
    page.goto(site.pages["month"])
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    page.unroute("**/js/app.js")
    page.goto(site.pages["month"])
    page.get_by_role("button", name="Light theme").click()
    page.goto(site.pages["league"])
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_no_serious_accessibility_problems(site, phone, screenshot, theme):
    page = phone()
    page.add_init_script(f"localStorage.setItem('shuffleup-theme', '{theme}')")
    for name in ("home", "league", "month", "season", "qualifiers", "results", "nights", "clock", "offline"):
        page.goto(site.pages[name])
        if name == "clock":
            expect(page.locator("[data-connection]")).to_have_text("Live")
        assert page.evaluate("document.documentElement.dataset.theme") == theme
        axe(page, f"{name} ({theme})")
        if theme == "light":
            screenshot(page, f"public-{name}-light")
