"""The host's roster for wet hands on a 390×844 phone: the players by table and seat, found in two
keystrokes; one tap per player for a bonus and one for food for everyone (R-CHIP-1/2); several out
in one hand with thumb-sized ticks (R-PTS-6)."""
from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import axe, check_fits, seed_tonight
from tests.e2e.test_seat_notice import open_roster, seats, seed_players

NAMES = ["Jack Doyle", "Jane Park", "Ann Lee", "Bea O'Brien", "Cal Dunn", "Dee Moss", "Eve Stone", "Fin Hale",
         "Gus Ward", "Hana Sato", "Ivo Petrov", "Jo Quinn", "Kit Marsh", "Lou Grant", "Mia Cruz", "Ned Kelly",
         "Oli Brook", "Pia Lund", "Raj Mehta", "Sue Hart", "Tom Webb", "Uma Rao"]


def visible_names(roster) -> list[str]:
    return [n.strip() for n in roster.locator(".seats > li:visible > a").all_inner_texts()]


def drawn_roster(live_server, phone, names: list[str]):
    """Tonight with `names` checked in and the seats drawn on the host's roster: (the host's
    page, the roster)."""
    league_id, event_id, _ = seed_tonight(live_server.app)
    seed_players(live_server.app, event_id, league_id, names)
    host = open_roster(phone, live_server.url, event_id)
    roster = host.locator("#players")
    roster.get_by_role("button", name="Draw seats").click()
    expect(roster.locator(".flash")).to_have_text("Seats drawn")
    return host, roster


def test_the_roster_by_table_and_seat_found_in_two_keystrokes(live_server, phone, screenshot):
    league_id, event_id, _ = seed_tonight(live_server.app)
    seed_players(live_server.app, event_id, league_id, NAMES)
    host = open_roster(phone, live_server.url, event_id)
    roster = host.locator("#players")
    expect(roster.locator(".seat-group h3")).to_have_text("Seats not drawn yet 22")
    roster.get_by_role("button", name="Draw seats").click()
    expect(roster.locator(".flash")).to_have_text("Seats drawn")

    # Table 1 seat 1 first, as the table map: each table's players in seat order
    where = seats(live_server.app, event_id)
    tables = sorted({t for t, _ in where.values()})
    expect(roster.locator(".table-card h3")).to_have_text([f"Table {t} {sum(1 for v in where.values() if v[0] == t)}"
                                                           for t in tables])
    shown = visible_names(roster)
    assert shown == sorted(where, key=lambda name: where[name])
    screenshot(host, "roster-by-table")
    host.evaluate("scrollTo(0, 0)")   # no row half under a sticky bar: axe counts a covered target as small
    axe(host, "the roster by table")
    check_fits(host, 390)

    find = host.get_by_label("Find on the roster")
    find.press_sequentially("jd")  # two keystrokes: the initials
    expect(roster.locator(".seats > li:visible")).to_have_count(1)
    assert visible_names(roster) == ["Jack Doyle"]
    expect(roster.locator(".table-card:visible h3")).to_have_text(f"Table {where['Jack Doyle'][0]} "
                                                                    f"{sum(1 for v in where.values() if v[0] == where['Jack Doyle'][0])}")
    expect(host.locator("[data-roster-found]")).to_have_text("1 found")
    screenshot(host, "roster-found-jd")
    find.fill("")
    find.press_sequentially("ja")  # two keystrokes: the start of a name
    assert sorted(visible_names(roster)) == ["Jack Doyle", "Jane Park"]
    find.fill("ob")  # O'Brien, the apostrophe ignored; and Oli Brook's initials
    assert sorted(visible_names(roster)) == ["Bea O'Brien", "Oli Brook"]
    find.fill("t2")  # a table
    assert sorted(visible_names(roster)) == sorted(n for n, (t, _) in where.items() if t == 2)
    # the filter stays through the roster's redraws (a host action's answer)
    find.fill("ja")
    host.once("dialog", lambda dialog: dialog.accept())
    roster.get_by_role("button", name="Jane Park is out").click()
    expect(roster.locator(".flash")).to_contain_text("Jane Park out in 22nd")
    expect(roster.locator(".seats > li:visible")).to_have_count(1)  # the filter is applied once the redraw settles
    assert visible_names(roster) == ["Jack Doyle"]
    expect(roster.locator("ol.roster > li:visible")).to_have_text(["22. Jane Park"])  # the out list is filtered too
    find.fill("")
    expect(roster.locator(".seats > li:visible")).to_have_count(21)


def test_r_chip_1_one_tap_bonus_and_food_for_everyone(live_server, phone, screenshot):
    phone.allow(r"status of 422 .*/players\)$")  # the second card, refused on purpose
    host, roster = drawn_roster(live_server, phone, NAMES[:6])

    # Food for everyone at the start: one tap, one action, Undo takes it back
    roster.get_by_role("button", name="Food for everyone").click()
    expect(roster.locator(".flash")).to_have_text("Food bonus +1,000 for 6 players")
    expect(roster).to_contain_text("Chips in play 66,000")
    expect(roster.locator(".undo-bar")).to_contain_text("Food bonus +1,000 for 6 players")
    roster.get_by_role("radio", name="Food").check()
    expect(roster.get_by_role("button", name="Ann Lee has had the Food bonus")).to_be_disabled()
    host.once("dialog", lambda dialog: dialog.accept())  # "Undo “Food bonus …”?"
    roster.locator(".undo-bar").get_by_role("button", name="Undo").click()
    expect(roster.locator(".flash")).to_have_text("Took back: Food bonus +1,000 for 6 players")
    expect(roster).to_contain_text("Chips in play 60,000")
    expect(roster.get_by_role("radio", name="Food")).to_be_checked()   # the kind picked survives the redraw
    expect(roster.get_by_role("button", name="Food bonus for Ann Lee")).to_be_enabled()

    # One tap per player: the kind picked once, then each player's "+" button
    roster.get_by_role("radio", name="Card").check()
    button = roster.get_by_role("button", name="Membership card bonus for Cal Dunn")
    expect(button).to_have_text("+Card")
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44, box
    top = box["y"]
    button.click()
    row = roster.locator(".seats > li", has=host.get_by_role("checkbox", name="Cal Dunn out in the same hand"))
    expect(roster.locator(".answer-bar .flash")).to_have_text("Cal Dunn: Membership card bonus +1,000")  # in view
    expect(row.get_by_role("button", name="Cal Dunn has had the Membership card bonus")).to_have_text("+Card ✓")
    assert abs(row.locator("button[value^='bonus:']").bounding_box()["y"] - top) < 2  # where the thumb was
    screenshot(host, "roster-one-tap-bonus")
    # a refusal in the row tapped: a screen that had not heard of Cal's card yet (its button enabled)
    host.evaluate("""() => { const b = document.querySelector("#players .seats button[aria-label^='Cal Dunn has had']");
                             b.disabled = false; }""")
    row.get_by_role("button", name="Cal Dunn has had the Membership card bonus").click()
    expect(row.locator("#refusal")).to_contain_text("Already claimed: one membership card bonus per player per game")
    screenshot(host, "roster-one-tap-bonus-refused")
    check_fits(host, 390)


def test_r_pts_6_out_in_one_hand_with_thumb_sized_ticks(live_server, phone, screenshot):
    host, roster = drawn_roster(live_server, phone, NAMES[:8])
    expect(roster.get_by_role("button", name="Out in one hand")).to_be_hidden()  # nobody ticked
    for name, chips in [("Ann Lee", "3,000"), ("Cal Dunn", "5000")]:
        tick = roster.locator(".seats > li", has=host.get_by_role("link", name=name)).locator("label")
        box = tick.bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44, box  # a thumb's target of its own, beside the name
        tick.click()
        roster.get_by_label(f"{name}'s chips at the start of the hand").fill(chips)
    bar = roster.locator(".hand-bar")
    expect(bar).to_be_visible()
    assert bar.bounding_box()["y"] + bar.bounding_box()["height"] <= 844 + 1  # stuck to the bottom of the screen
    screenshot(host, "roster-out-in-one-hand")
    host.once("dialog", lambda dialog: dialog.accept())
    bar.get_by_role("button", name="Out in one hand").click()
    expect(roster.locator(".flash")).to_have_text("Out in one hand: Cal Dunn 7th, Ann Lee 8th")
    expect(roster.get_by_role("button", name="Out in one hand")).to_be_hidden()
    check_fits(host, 390)
