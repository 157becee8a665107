"""The organiser's month view on a phone (R-STD-1, R-QUAL-1..4, R-FIN): log in, read the month, page
between months with htmx.

Every expected number below is worked out from RULES.md by hand, not by calling league/.
"""
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import check_fits, organiser_league

SLUG = "harbour-league"
OCTOBER = f"/organiser/{SLUG}/months/2026-10"
SEPTEMBER = f"/organiser/{SLUG}/months/2026-09"

RESULTS = """\
date,start_time,venue,event_type,position,player,status
2026-09-15,19:00,Crown Hotel,nightly,1,Zoe,
2026-09-15,19:00,Crown Hotel,nightly,2,Alice,
2026-09-15,19:00,Crown Hotel,nightly,3,Bob,
2026-09-15,19:00,Crown Hotel,nightly,4,Quinn,
2026-09-15,19:00,Crown Hotel,nightly,5,Ray,
2026-09-22,19:30,The Anchor,highroller,1,Bob,
2026-09-22,19:30,The Anchor,highroller,2,Zed,
2026-09-29,19:00,Crown Hotel,monthly_final,1,Zoe,
2026-09-29,19:00,Crown Hotel,monthly_final,2,Ray,
2026-09-29,19:00,Crown Hotel,monthly_final,3,Alice,
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
2026-10-13,19:00,Crown Hotel,nightly,8,Kim,dq
2026-10-20,19:00,The Anchor,nightly,1,Leo,
2026-10-20,19:00,The Anchor,nightly,2,Mia,
2026-10-20,19:00,The Anchor,nightly,3,Dana,
2026-10-20,19:00,The Anchor,nightly,4,Eve,
"""

# October. Points (R-PTS-1/2, short fields shift so last place earns 150; R-PTS-5 a dq counts in
# the field and earns 0):
#   6 Oct, 5 players: 250 225 200 175 150      (Alice, Bob, O'Brien, Dana, Eve)
#   13 Oct, 8 players: 400 300 275 250 225 200 175 | Kim dq 0   (Bob, Alice, Frank … Jack)
#   20 Oct, 4 players: 225 200 175 150          (Leo, Mia, Dana, Eve)
# R-STD-1: summed, ranked by points, ties share a rank (1, 2, 2, 4), the dq player is listed with 0.
OCTOBER_STANDINGS = [
    ["1", "Bob", "625", "2"],
    ["2", "Alice", "550", "2"],
    ["3", "Dana", "350", "2"],
    ["4", "Eve", "300", "2"],
    ["5", "Frank", "275", "1"],
    ["6", "Gina", "250", "1"],
    ["7", "Hal", "225", "1"],
    ["7", "Leo", "225", "1"],
    ["9", "Ivy", "200", "1"],
    ["9", "Mia", "200", "1"],
    ["9", "O'Brien <b>", "200", "1"],
    ["12", "Jack", "175", "1"],
    ["13", "Kim", "0", "1"],
]
# R-QUAL-1/2 (free league, pass-down): 6 Oct gives places 1-5; on 13 Oct Bob and Alice already hold
# one, so tickets pass down to places 3-7 (five given, stop); on 20 Oct the final table is the whole
# field of 4: Leo and Mia get one, Dana and Eve already hold one. Kim was disqualified: never.
OCTOBER_TICKETS = [
    ["Alice", "Tue 06 Oct 19:00 · The Anchor", "1", ""],
    ["Bob", "Tue 06 Oct 19:00 · The Anchor", "2", ""],
    ["O'Brien <b>", "Tue 06 Oct 19:00 · The Anchor", "3", ""],
    ["Dana", "Tue 06 Oct 19:00 · The Anchor", "4", ""],
    ["Eve", "Tue 06 Oct 19:00 · The Anchor", "5", ""],
    ["Frank", "Tue 13 Oct 19:00 · Crown Hotel", "3", ""],
    ["Gina", "Tue 13 Oct 19:00 · Crown Hotel", "4", ""],
    ["Hal", "Tue 13 Oct 19:00 · Crown Hotel", "5", ""],
    ["Ivy", "Tue 13 Oct 19:00 · Crown Hotel", "6", "↓ passed down"],
    ["Jack", "Tue 13 Oct 19:00 · Crown Hotel", "7", "↓ passed down"],
    ["Leo", "Tue 20 Oct 19:00 · The Anchor", "1", ""],
    ["Mia", "Tue 20 Oct 19:00 · The Anchor", "2", ""],
]
# R-QUAL-4: the ten highest scorers, plus O'Brien tied on 200 with the 10th (Mia): eleven, and the
# three on 200 are marked tied on 10th.
TIED = "= tied on 10th"
OCTOBER_SHOOTOUT = [["Bob", "625"], ["Alice", "550"], ["Dana", "350"], ["Eve", "300"], ["Frank", "275"],
                    ["Gina", "250"], ["Hal", "225"], ["Leo", "225"], ["Ivy", "200", TIED], ["Mia", "200", TIED],
                    ["O'Brien <b>", "200", TIED]]
# R-QUAL-5 and R-FIN: everyone who played may enter (Kim's dq night counts as played); 25,000 for
# 2+ events that month, else 20,000.
OCTOBER_HIGHROLLER = [[row[1], row[3], "25,000" if row[3] == "2" else "20,000"] for row in OCTOBER_STANDINGS]

# September: 15 Sep, 5 players: 250 225 200 175 150 (Zoe, Alice, Bob, Quinn, Ray); 22 Sep high-roller
# game, 2 players: 175+450 and 150+450 (R-PTS-4) but no tickets (R-QUAL-1 counts nightly games only);
# 29 Sep Monthly Final: no points (R-PTS-8), so no change to the table or the night counts.
SEPTEMBER_STANDINGS = [
    ["1", "Bob", "825", "2"],
    ["2", "Zed", "600", "1"],
    ["3", "Zoe", "250", "1"],
    ["4", "Alice", "225", "1"],
    ["5", "Quinn", "175", "1"],
    ["6", "Ray", "150", "1"],
]
SEPTEMBER_TICKETS = [[name, "Tue 15 Sep 19:00 · Crown Hotel", str(place), ""]
                     for place, name in enumerate(["Zoe", "Alice", "Bob", "Quinn", "Ray"], start=1)]
SEPTEMBER_SHOOTOUT = [[row[1], row[2]] for row in SEPTEMBER_STANDINGS]
SEPTEMBER_HIGHROLLER = [[row[1], row[3], "25,000" if row[3] == "2" else "20,000"] for row in SEPTEMBER_STANDINGS]

ROWS_JS = "el => [...el.querySelectorAll('tbody tr')].map(tr => [...tr.cells].map(c => c.textContent.trim()))"
ITEMS_JS = ("el => [...el.querySelectorAll(':scope > li')]"
            ".map(li => [...li.children].map(c => c.textContent.trim()))")


@pytest.fixture
def league_server(live_server):
    """The live app with a free league, two months of results and an organiser login."""
    return organiser_league(live_server, RESULTS)


def log_in(page, base_url, screenshot=None):
    """From the home page, tap Log in, fill the form, and land on the latest month."""
    page.goto(base_url + "/")
    page.get_by_role("link", name="Log in").click()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    if screenshot:
        screenshot(page, "login")
    page.get_by_label("Username").fill("olive")
    page.get_by_label("Password").fill("pw-olive")
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(base_url + OCTOBER)


def section(page, heading, following="table"):
    """The table (or list) right after the h2 that starts with `heading`."""
    return page.locator(f"#month h2:text-matches('^{re.escape(heading)}') + {following}")


def check_month(page, standings, tickets, shootout, highroller):
    assert section(page, "Standings").evaluate(ROWS_JS) == standings
    assert section(page, "Monthly Final tickets").evaluate(ROWS_JS) == tickets
    assert section(page, "Top-10 Shoot-out", "ol").evaluate(ITEMS_JS) == shootout
    assert section(page, "High-roller Final").evaluate(ROWS_JS) == highroller
    expect(page.locator("#month h2", has_text="Monthly Final tickets")).to_contain_text(str(len(tickets)))
    expect(page.locator("#month h2", has_text="Top-10 Shoot-out")).to_contain_text(str(len(shootout)))
    expect(page.locator("#month h2", has_text="High-roller Final")).to_contain_text(str(len(highroller)))


def check_month_nav_taps(page):
    """Every link and button in the month nav is at least 44 CSS pixels tall (a thumb, not a stylus)."""
    targets = page.locator("#month nav a, #month nav button")
    assert targets.count() >= 1
    for index in range(targets.count()):
        box = targets.nth(index).bounding_box()
        label = targets.nth(index).inner_text()
        assert box["height"] >= 44, f"{label!r} in the month nav is {box['height']}px tall"


def test_r_std_1_r_qual_r_fin_organiser_month_on_a_phone(league_server, phone, screenshot):
    base = league_server.url
    page = phone()
    log_in(page, base, screenshot)

    expect(page.get_by_role("heading", level=1)).to_have_text("October 2026")
    check_month(page, OCTOBER_STANDINGS, OCTOBER_TICKETS, OCTOBER_SHOOTOUT, OCTOBER_HIGHROLLER)
    # A name is text, never markup: no <b> element appears anywhere.
    assert page.locator("#month b").count() == 0
    assert page.locator("b").count() == 0
    expect(page.locator("#month td", has_text="O'Brien <b>").first).to_have_text("O'Brien <b>")
    check_fits(page, 390)
    check_month_nav_taps(page)
    screenshot(page, "month-2026-10")

    # The pager swaps the month in place (htmx), pushes the URL, and keeps the page (no reload).
    page.evaluate("window.__marker = 1")
    page.get_by_role("link", name="Previous month").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("September 2026")
    expect(page).to_have_url(base + SEPTEMBER)
    assert page.evaluate("window.__marker") == 1, "the page was reloaded instead of swapped"
    assert page.locator("#month").count() == 1
    check_month(page, SEPTEMBER_STANDINGS, SEPTEMBER_TICKETS, SEPTEMBER_SHOOTOUT, SEPTEMBER_HIGHROLLER)
    check_fits(page, 390)
    check_month_nav_taps(page)
    screenshot(page, "month-2026-09")

    page.get_by_role("link", name="Next month").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("October 2026")
    expect(page).to_have_url(base + OCTOBER)
    assert page.evaluate("window.__marker") == 1

    # The phone's Back button walks the pushed history, still without a reload.
    page.go_back()
    expect(page).to_have_url(base + SEPTEMBER)
    expect(page.get_by_role("heading", level=1)).to_have_text("September 2026")
    page.go_back()
    expect(page).to_have_url(base + OCTOBER)
    expect(page.get_by_role("heading", level=1)).to_have_text("October 2026")
    check_month(page, OCTOBER_STANDINGS, OCTOBER_TICKETS, OCTOBER_SHOOTOUT, OCTOBER_HIGHROLLER)
    assert page.evaluate("window.__marker") == 1


def test_month_view_fits_a_320_pixel_phone(league_server, phone, screenshot):
    page = phone(viewport={"width": 320, "height": 640})
    log_in(page, league_server.url)
    expect(page.get_by_role("heading", level=1)).to_have_text("October 2026")
    check_fits(page, 320)
    check_month_nav_taps(page)
    screenshot(page, "month-2026-10-320px")
    page.get_by_role("link", name="Previous month").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("September 2026")
    check_fits(page, 320)
    screenshot(page, "month-2026-09-320px")
