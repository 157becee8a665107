"""Pass the phone (R-PAY-2) on a 390×844 phone: the host puts a deal to the vote, hands the phone to
a player without one, who sees only their own private ballot, taps Yes or No, and the phone comes
back to the host with the vote hidden."""
from __future__ import annotations

from playwright.sync_api import expect

from services.models import Event
from tests.e2e.conftest import axe, check_fits, seed_tonight
from tests.e2e.test_seat_notice import open_roster, seed_players
from wiring.extensions import db


def test_r_pay_2_a_player_without_a_phone_votes_on_the_hosts(live_server, phone, screenshot):
    league_id, event_id, _ = seed_tonight(live_server.app)
    with live_server.app.app_context():
        event = db.session.get(Event, event_id)
        event.buy_in, event.pool_share, event.guarantee = 30, 25, 250  # a cash night: a prize to split
        db.session.commit()
        db.session.remove()
    seed_players(live_server.app, event_id, league_id, ["Ann Lee", "Bea Park", "Cal Dunn"])
    host = open_roster(phone, live_server.url, event_id)
    roster = host.locator("#players")
    roster.locator("summary", has_text="Deal at the final table").click()
    deal = roster.locator("details.deal")
    for name, chips in [("Ann Lee", "15000"), ("Bea Park", "9000"), ("Cal Dunn", "6000")]:
        deal.get_by_label(name).fill(chips)
    deal.get_by_label("Split").select_option(label="Chip-chop")
    deal.get_by_role("button", name="Put the deal to the vote").click()
    expect(roster).to_contain_text("0 of 3 have voted")
    screenshot(host, "deal-hand-the-phone")

    # Cal has no phone: the host's screen becomes his ballot, and only his
    roster.get_by_role("link", name="Hand the phone to Cal Dunn").click()
    expect(host.get_by_role("heading", level=1)).to_have_text("Cal Dunn’s vote")
    main = host.locator("main")
    expect(main).not_to_contain_text("have voted")   # nobody's votes, not even how many
    expect(host.get_by_role("button", name="Log out")).to_have_count(0)  # nothing else to tap
    expect(host.get_by_role("button", name="Yes, deal")).to_be_visible()
    box = host.get_by_role("button", name="No, play on").bounding_box()
    assert box["height"] >= 44 and box["width"] >= 200, box
    screenshot(host, "deal-private-ballot")
    axe(host, "the private ballot")
    check_fits(host, 390)
    host.get_by_role("button", name="Yes, deal").click()
    expect(host.get_by_role("heading", level=1)).to_have_text("Your vote is in")
    expect(main).to_contain_text("Hand the phone back to the host")
    expect(main).not_to_contain_text("Yes")   # which way he voted is not on the screen
    screenshot(host, "deal-vote-hidden")

    # back to the host: the ballot moved on, Cal is no longer offered the phone
    host.get_by_role("link", name="Host: back to the roster").click()
    expect(roster).to_contain_text("1 of 3 have voted")
    expect(roster.get_by_role("link", name="Hand the phone to Cal Dunn")).to_have_count(0)
    expect(roster.get_by_role("link", name="Hand the phone to Bea Park")).to_be_visible()
    # Bea too; her "no" calls the deal off, play goes on
    roster.get_by_role("link", name="Hand the phone to Bea Park").click()
    host.get_by_role("button", name="No, play on").click()
    expect(host.get_by_role("heading", level=1)).to_have_text("Your vote is in")
    host.get_by_role("link", name="Host: back to the roster").click()
    expect(roster).to_contain_text("In the game 3")
    expect(roster).not_to_contain_text("have voted")
