"""The door on the host's phone at 390×844, a 40-player night (R-MEM-1, R-LATE-4, R-PAY-1): the walk-in
search by every word in any order and initials, two taps to check a member in (README's table), the
search cleared for the next walk-in with the answer in view, someone already in shown where they are,
an under-21's photo ID recorded by the tap that lets them in, and a cash night's buy-in on the
player's check-in page and the host's Confirm."""
from __future__ import annotations

from playwright.sync_api import expect

from services.models import Event, Member
from tests.e2e.conftest import axe, check_fits, join_and_check_in, seed_tonight
from tests.e2e.test_seat_notice import open_roster, seed_players
from wiring.extensions import db


def members(app, league_id, names, *, under_21=()):
    """Members of the league not in tonight's game (the walk-ins to come)."""
    with app.app_context():
        for name in names:
            member = Member.named(league_id, name)
            member.under_21 = name in under_21
            db.session.add(member)
        db.session.commit()
        db.session.remove()


def in_view(page, locator):
    """The element's box lies inside the 844 px tall viewport, nothing scrolled to reach it."""
    box = locator.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"], box


def counting_taps(page):
    """Count the host's taps (pointer presses) from now on: `page.evaluate("taps")`."""
    page.evaluate("""() => {
      if (!("taps" in window)) document.addEventListener("pointerdown", () => taps++, true);
      window.taps = 0;
    }""")


def test_r_mem_1_the_door_on_a_40_player_night(live_server, phone, screenshot):
    league_id, event_id, code = seed_tonight(live_server.app)
    seed_players(live_server.app, event_id, league_id, [f"Player {n:02d}" for n in range(40)])
    members(live_server.app, league_id, ["Nadia Gallagher", "Gary Nadler", "Young Gun"], under_21=["Young Gun"])
    host = open_roster(phone, live_server.url, event_id)
    field = host.get_by_label("Find a member")
    results = host.locator("#search-results")
    roster = host.locator("#players")

    # README: check-in by name is 2 taps, the field and Check in; typing is not a tap
    counting_taps(host)
    field.tap()
    field.press_sequentially("Nad Ga")
    first = results.locator("li").first
    expect(first).to_contain_text("Nadia Gallagher")
    expect(results.locator("li").nth(1)).to_contain_text("Gary Nadler")  # nad… ga…, in the other order
    screenshot(host, "door-search-nad-ga")
    axe(host, "the walk-in search's results")
    first.get_by_role("button", name="Check in").tap()
    flash = roster.locator(".flash")
    expect(flash).to_have_text("Checked in Nadia Gallagher")
    assert host.evaluate("taps") == 2
    # the answer in view, the search cleared and ready for the next walk-in
    in_view(host, flash)
    expect(field).to_have_value("")
    expect(results.locator("li")).to_have_count(0)
    expect(field).to_be_focused()
    screenshot(host, "door-checked-in")

    # someone already in tonight: where she is, never offered to check in or join again
    field.press_sequentially("nadia gallagher")
    expect(results).to_contain_text("Nadia Gallagher in: seats not drawn yet")
    expect(results.get_by_role("button", name="Check in")).to_have_count(0)
    expect(results.get_by_text("New member")).to_have_count(0)
    expect(results.get_by_role("button", name="New phone: a one-time code for Nadia Gallagher")).to_be_visible()
    screenshot(host, "door-already-in")

    # R-MEM-1: an under-21's one tap says the ID was seen; the roster keeps the mark
    field.fill("")
    field.press_sequentially("yg")
    young = results.locator("li", has_text="Young Gun")
    expect(young).to_contain_text("under 21: check ID")
    screenshot(host, "door-under-21")
    counting_taps(host)
    young.get_by_role("button", name="ID checked · Check in").tap()
    expect(flash).to_have_text("Checked in Young Gun")
    assert host.evaluate("taps") == 1  # the ID recorded by the tap that lets him in
    in_view(host, flash)
    row = roster.locator(".seats li", has_text="Young Gun")
    expect(row.locator(".badge")).to_have_text("U21")
    screenshot(host, "door-u21-row")

    # Enter in the new member's name joins that member, never checks in the first one found
    field.press_sequentially("Gary")
    name = results.get_by_label("Name")
    name.fill("Gary Newman")
    results.get_by_label("They are 18 or over").check()
    name.press("Enter")
    expect(flash).to_have_text("New member Gary Newman")
    expect(roster).not_to_contain_text("Gary Nadler")
    check_fits(host, 390)


def test_r_pay_1_a_cash_nights_door_names_the_buy_in(live_server, phone, screenshot):
    league_id, event_id, code = seed_tonight(live_server.app)
    with live_server.app.app_context():
        db.session.get(Event, event_id).buy_in = 30
        db.session.commit()
        db.session.remove()
    base = live_server.url
    player = phone()
    player.goto(f"{base}/check-in/{code}")
    expect(player.locator("main")).to_contain_text("tonight's buy-in is $30, paid to the host")
    expect(player.locator("main")).not_to_contain_text("it's free")
    axe(player, "a cash night's check-in")
    join_and_check_in(player, base, code, "Cash Cal")
    expect(player.locator("main")).to_contain_text("Pay the host the $30 buy-in")
    screenshot(player, "door-cash-check-in-phone")

    host = open_roster(phone, base, event_id)
    roster = host.locator("#players")
    confirm = roster.get_by_role("button", name="Confirm · $30")
    expect(confirm).to_be_visible()
    screenshot(host, "door-cash-confirm")
    counting_taps(host)
    confirm.tap()
    expect(roster.locator(".flash")).to_have_text("Confirmed Cash Cal · $30 buy-in taken")
    assert host.evaluate("taps") == 1  # README: check-in by QR, one tap
    axe(host, "a cash night's roster")
