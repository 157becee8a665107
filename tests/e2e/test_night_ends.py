"""A night that ends, and the truth on every screen, on a 390×844 phone and a TV (R-CLOCK-3, R-PTS,
R-PAY-1/2): the host settles and every phone and the big screen stop counting levels and show the
night's result; after a deal every screen shows the prizes as paid, not the ladder before it."""
from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import expect

from services import clocks
from services.models import Event
from tests.e2e.conftest import axe, check_fits, join_and_check_in, seed_tonight
from tests.e2e.test_seat_notice import open_roster, seed_players
from tests.fixtures.roster import bust_out
from wiring.extensions import db

TV = {"viewport": {"width": 1920, "height": 1080}, "device_scale_factor": 1, "is_mobile": False, "has_touch": False}


def cash_night(app, event_id: int, *, start: bool) -> None:
    """Tonight as a $30 cash night ($25 of each to the prizes, $250 guaranteed), its clock started if asked."""
    with app.app_context():
        event = db.session.get(Event, event_id)
        event.buy_in, event.pool_share, event.guarantee = 30, 25, 250
        if start:
            clocks.act(event, "start", event.clock_version)
        db.session.commit()
        db.session.remove()


def out(app, event_id: int, *names: str) -> None:
    """Each of `names` out in turn, as the roster's Out does (the screens hear of it at the next change)."""
    with app.app_context():
        event = db.session.get(Event, event_id)
        for name in names:
            bust_out(event, name)
        db.session.remove()


def clock_json(base: str, event_id: int) -> dict:
    with urllib.request.urlopen(f"{base}/api/events/{event_id}/clock") as answer:
        return json.load(answer)


def live(page, url: str):
    page.goto(url)
    expect(page.locator("[data-connection]")).to_have_text("Live")
    return page


def check_both_themes(page, context: str) -> None:
    """axe-core on the page as it is (dark) and in the light theme: no serious or critical violation."""
    axe(page, f"{context}, dark")
    page.evaluate("document.documentElement.dataset.theme = 'light'")
    axe(page, f"{context}, light")
    page.evaluate("document.documentElement.dataset.theme = 'dark'")


def test_r_clock_3_settling_stops_the_clock_on_a_phone_and_the_tv(live_server, phone, screenshot):
    league_id, event_id, code = seed_tonight(live_server.app)
    base = live_server.url
    ann = phone()
    join_and_check_in(ann, base, code, "Ann Lee")
    seed_players(live_server.app, event_id, league_id, ["Bea Park", "Cal Dunn"])
    cash_night(live_server.app, event_id, start=True)
    host = open_roster(phone, base, event_id)
    host.locator("#players").get_by_role("button", name="Confirm").click()  # Ann's arrival
    expect(host.locator("#players")).to_contain_text("Confirmed Ann Lee")
    out(live_server.app, event_id, "Cal Dunn", "Bea Park")

    tv = live(phone(**TV), f"{base}/events/{event_id}/screen?code={code}")
    live(ann, f"{base}/events/{event_id}")
    for screen in (ann, tv):
        expect(screen.locator(".clock-time")).to_be_visible()
        expect(screen.locator(".clock-result")).to_be_hidden()
    expect(tv.locator(".screen-qr")).to_be_visible()

    host.reload()
    host.once("dialog", lambda dialog: dialog.accept())
    host.get_by_role("button", name="Settle the night").click()
    expect(host.locator("#players")).to_contain_text("Night settled")

    # every screen hears it over its stream: the result in the clock's place, nothing counting
    for screen in (ann, tv):
        result = screen.locator(".clock-result")
        expect(result).to_be_visible()
        expect(result).to_contain_text("The night is over: results")
        expect(result.locator("li")).to_have_count(3)
        expect(result.locator("li").first).to_contain_text("1st Ann Lee 200 pts · $325 · Final ticket")
        expect(screen.locator(".clock-time")).to_be_hidden()
        expect(screen.locator(".clock-blinds")).to_be_hidden()
    expect(tv.locator(".screen-qr")).to_be_hidden()  # the check-in has closed
    expect(ann.locator("[data-me]")).to_contain_text("Finished 1st · 200 points · $325")
    state = clock_json(base, event_id)
    assert state["settled"] and not state["running"] and not state["registration_open"]

    check_fits(ann, 390)
    link = ann.get_by_role("link", name="Every place, points and prize")
    assert link.bounding_box()["height"] >= 44
    assert tv.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]") == [1920, 1080]
    screenshot(ann, "night-ends-phone")
    screenshot(tv, "night-ends-tv")
    check_both_themes(ann, "a settled night on a phone")
    check_both_themes(tv, "a settled night on the TV")
    link.click()
    expect(ann.locator("table.results")).to_contain_text("Ann Lee")


def test_r_pay_2_a_deals_paid_prizes_on_every_screen(live_server, phone, screenshot):
    phone.allow(r"status of 422")  # the count refused on purpose below (R-CHIP-3)
    league_id, event_id, code = seed_tonight(live_server.app)
    base = live_server.url
    early = [f"Early {n}" for n in range(7)]
    seed_players(live_server.app, event_id, league_id, ["Ann Lee", "Bea Park", "Cal Dunn", *early])
    cash_night(live_server.app, event_id, start=False)
    out(live_server.app, event_id, *early)  # 10 × $25 + $250 = $500, one place paid (R-PAY-1)

    tv = live(phone(**TV), f"{base}/events/{event_id}/screen")
    player = live(phone(), f"{base}/events/{event_id}")
    host = open_roster(phone, base, event_id)
    roster = host.locator("#players")
    for screen in (tv, player, host):
        expect(screen.locator(".prize-ladder").first).to_contain_text("1st $500")

    roster.locator("summary", has_text="Deal at the final table").click()
    deal = roster.locator("details.deal")
    for name, chips in [("Ann Lee", "50000"), ("Bea Park", "30000"), ("Cal Dunn", "2000")]:
        deal.get_by_label(name).fill(chips)
    deal.get_by_role("button", name="Put the deal to the vote").click()
    # R-CHIP-3: 82,000 counted of the 100,000 in play: the host sees why, beside the button, with the
    # counts kept, and counts again
    refusal = roster.locator(".refusal")
    expect(refusal).to_contain_text("82,000 chips, 18,000 fewer than the 100,000 in play")
    expect(refusal.get_by_label("Reason for your ruling (recorded)")).to_be_visible()
    screenshot(host, "deal-count-refused")
    deal = roster.locator("details.deal")
    expect(deal.get_by_label("Ann Lee")).to_have_value("50000")
    deal.get_by_label("Cal Dunn").fill("20000")
    deal.get_by_role("button", name="Put the deal to the vote").click()
    expect(roster).to_contain_text("0 of 3 have voted (ICM)")

    for name in ("Ann Lee", "Bea Park", "Cal Dunn"):
        roster.get_by_role("link", name=f"Hand the phone to {name}").click()
        host.get_by_role("button", name="Yes, deal").click()
        host.get_by_role("link", name="Host: back to the roster").click()
    expect(roster).to_contain_text("Deal agreed")

    # R-PAY-2: what the deal paid, on the TV, a player's phone, the roster and the clock's JSON
    for screen in (tv, player, host):
        ladder = screen.locator(".prize-ladder").first
        expect(ladder).to_contain_text("1st $250 · 2nd $150 · 3rd $100")
        expect(ladder).not_to_contain_text("1st $500")
    assert clock_json(base, event_id)["prizes"] == [250, 150, 100]
    screenshot(tv, "deal-paid-tv")
    screenshot(player, "deal-paid-phone")
    screenshot(host, "deal-paid-roster")
    axe(player, "a dealt night's prizes on a phone")

    host.once("dialog", lambda dialog: dialog.accept())
    host.get_by_role("button", name="Settle the night").click()
    for screen in (tv, player):
        rows = screen.locator(".clock-result li")
        expect(rows.nth(0)).to_contain_text("1st Ann Lee")
        expect(rows.nth(0)).to_contain_text("$250")
        expect(rows.nth(1)).to_contain_text("$150")
        expect(rows.nth(2)).to_contain_text("$100")
    expect(tv.locator(".clock-result li")).to_have_count(10)  # the final table's ten places
    assert tv.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]") == [1920, 1080]
    screenshot(tv, "deal-settled-tv")
