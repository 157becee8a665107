"""A whole night on phones: three players check in through the check-in link, the host
confirms them and draws seats, each player's phone shows their seat, one is busted, the night is
settled and a player sees their points. Screenshots along the way."""
from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import join_and_check_in

NAMES = ["Ann Lee", "O'Brien <b>", "Zoë Ng"]


def test_a_whole_night_on_phones(tonight, phone, screenshot):
    base, event_id, code = tonight
    players = {}
    for name in NAMES:
        page = phone()
        join_and_check_in(page, base, code, name)
        expect(page.locator("main")).to_contain_text("checked in")
        expect(page.locator("main")).to_contain_text("will confirm")
        players[name] = page
    screenshot(players["O'Brien <b>"], "night-player-checked-in")
    assert players["O'Brien <b>"].locator("main b").count() == 0  # the name is text, not markup

    host = phone()
    host.goto(f"{base}/host/events/{event_id}/players")
    host.get_by_label("Username").fill("harry")
    host.get_by_label("Password").fill("pw-harry")
    host.get_by_role("button", name="Log in").click()
    roster = host.locator("#players")
    for name in NAMES:
        expect(roster).to_contain_text(name)
    screenshot(host, "night-host-arrivals")
    for waiting in range(len(NAMES) - 1, -1, -1):
        roster.get_by_role("button", name="Confirm").first.click()
        expect(roster.locator("h2", has_text="Arrivals")).to_have_text(f"Arrivals {waiting}")
    expect(roster).to_contain_text("In the game 3")
    roster.get_by_role("button", name="Draw seats").click()
    expect(roster.locator(".table-card")).to_have_count(1)
    screenshot(host, "night-host-tables")

    # each player's phone shows their own seat
    for page in players.values():
        page.goto(f"{base}/events/{event_id}")
        expect(page.locator("[data-me]")).to_contain_text("Table 1, seat")

    # one player busts; undo and redo, then the last one; the night is settled
    host.once("dialog", lambda dialog: dialog.accept())  # "… is out?"
    roster.get_by_role("button", name=f"{NAMES[2]} is out").click()
    expect(roster.locator(".flash")).to_contain_text(f"{NAMES[2]} out in 3rd")
    host.once("dialog", lambda dialog: dialog.accept())  # "Undo “… out in 3rd”?"
    roster.get_by_role("button", name="Undo").click()
    expect(roster.locator(".flash")).to_have_text(f"Took back: {NAMES[2]} out in 3rd")
    host.once("dialog", lambda dialog: dialog.accept())  # "… is out?"
    roster.get_by_role("button", name=f"{NAMES[2]} is out").click()
    expect(roster.locator(".flash")).to_have_text(f"{NAMES[2]} out in 3rd")
    host.once("dialog", lambda dialog: dialog.accept())
    roster.get_by_role("button", name=f"{NAMES[1]} is out").click()
    expect(roster.locator(".flash")).to_have_text(f"{NAMES[1]} out in 2nd")
    host.once("dialog", lambda dialog: dialog.accept())
    roster.get_by_role("button", name="Settle the night").click()
    expect(roster.locator(".flash")).to_contain_text("Night settled")
    screenshot(host, "night-host-settled")

    # R-PTS-2: three players → 200, 175, 150
    winner = players[NAMES[0]]
    winner.goto(f"{base}/events/{event_id}")
    expect(winner.locator("[data-me]")).to_contain_text("1st")
    expect(winner.locator("[data-me]")).to_contain_text("200 points")
    screenshot(winner, "night-player-settled")
    for page in [host, *players.values()]:
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
