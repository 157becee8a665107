"""The organiser's month on a phone (390×844), R-PAY-3 and R-FIN: from the League menu to the month whose
finals a free league played, where the ledger names the prizes the league funds and balances; the
final's public results say which month it was for and what it paid. axe-core finds nothing serious."""
import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import axe, check_fits, organiser_league

SLUG = "harbour-league"
# November's nights, then its finals in December, with the free league's fixed prizes (R-FIN).
RESULTS = """\
date,start_time,venue,event_type,position,player,status,prize
2026-11-03,19:00,Crown Hotel,nightly,1,Zoë Nguyễn,,
2026-11-03,19:00,Crown Hotel,nightly,2,李小龍,,
2026-11-03,19:00,Crown Hotel,nightly,3,O'Brien <b>,,
2026-12-02,19:00,Crown Hotel,monthly_final,1,Zoë Nguyễn,,300
2026-12-02,19:00,Crown Hotel,monthly_final,2,李小龍,,100
2026-12-03,19:30,Crown Hotel,top10_shootout,1,O'Brien <b>,,1000
2026-12-03,19:30,Crown Hotel,top10_shootout,2,Zoë Nguyễn,,500
2026-12-03,19:30,Crown Hotel,top10_shootout,3,李小龍,,
"""


@pytest.fixture
def league_server(live_server):
    return organiser_league(live_server, RESULTS)


def test_r_pay_3_r_fin_the_organiser_reads_a_free_leagues_finals_in_the_ledger(league_server, phone, screenshot):
    base = league_server.url
    page = phone()
    page.goto(base + "/login")
    page.get_by_label("Username").fill("olive")
    page.get_by_label("Password").fill("pw-olive")
    page.get_by_role("button", name="Log in").click()

    # Two taps from any page to any of the league's pages: the League menu, then the page.
    menu = page.locator("details.menu")
    menu.locator("summary").click()
    links = menu.locator(".menu-links a")
    expect(links).to_have_text(["Month", "Nights", "Members", "Venues and hosts", "Settings", "Import and export"])
    for index in range(links.count()):
        box = links.nth(index).bounding_box()
        assert box["height"] >= 44 and box["y"] + box["height"] <= 844, links.nth(index).inner_text()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, links.nth(index).inner_text()  # on the screen
    screenshot(page, "organiser-menu")
    links.get_by_text("Month").click()
    page.goto(base + f"/organiser/{SLUG}/months/2026-12")

    ledger = page.locator("#pack-ledger")
    expect(ledger.locator("tr", has_text="Prizes the league funds")).to_contain_text("$1,900")
    expect(ledger.locator(".balance")).to_have_text("✓ Balances to the dollar: $1,900 in = $1,900 out.")
    expect(ledger).not_to_contain_text("−$")
    ledger.scroll_into_view_if_needed()
    check_fits(page, 390)
    axe(page, "the organiser's December")
    screenshot(page, "organiser-month-free-finals")

    # The final's own results: its month, and the prizes it paid (a free league's, shown all the same).
    page.locator("#pack-venues th a").first.click()  # each night links to its results
    expect(page.locator("main p.muted").first).to_contain_text("Monthly Final for November 2026")
    expect(page.locator("table.results")).to_contain_text("$300")
    assert page.locator("b").count() == 0  # O'Brien <b> is text
    check_fits(page, 390)
    axe(page, "a free Monthly Final's results")
    screenshot(page, "results-free-monthly-final")
