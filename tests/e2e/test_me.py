"""The player's own page on phones (R-MEM-1): a player checks in
through tonight's link, opens Me and sees their member card's QR code; the host scans the card and
confirms them from it; the player moves the card to a second phone with a one-time code, and the
second phone's Me shows the same member. Both themes pass axe-core; pages fit 390 and 320 pixels
with thumb-sized controls. Screenshots along the way."""
from __future__ import annotations

import datetime as dt
import re

import pytest
from playwright.sync_api import expect

from services import leagues, results
from services.models import Member
from tests.e2e.conftest import axe, check_fits, check_taps, join_and_check_in
from wiring.extensions import db

NAME = "Ann O'Leary"


def card_code(live_server):
    with live_server.app.app_context():
        code = db.session.scalar(db.select(Member.card_code).where(Member.name == NAME))
        db.session.remove()
    return code


def test_a_player_opens_me_and_moves_the_card_to_a_new_phone(tonight, live_server, phone, screenshot):
    base, event_id, code = tonight
    phone.allow(r"status of 422 .*/me/claim\)$")  # the wrong and the used code, on purpose
    old = phone()
    join_and_check_in(old, base, code, NAME)
    expect(old.locator("main")).to_contain_text("will confirm")

    # Me: from the header, tonight's game first, and the member card's QR code
    old.get_by_role("link", name="Me", exact=True).click()
    expect(old).to_have_url(f"{base}/me")
    expect(old.get_by_role("heading", level=1)).to_contain_text(NAME)
    expect(old.get_by_role("heading", name="Tonight: Rose & Crown")).to_be_visible()
    expect(old.locator("[data-me]")).to_contain_text("waiting for the host")
    card = old.get_by_role("img", name=f"QR code of {NAME}'s member card")
    card.scroll_into_view_if_needed()
    expect(card).to_be_visible()
    box = card.bounding_box()
    assert box["width"] >= 240 and abs(box["width"] - box["height"]) < 2, box  # big and square to scan
    # dark modules on white, whatever the theme
    assert old.locator(".qr-card").evaluate("el => getComputedStyle(el).backgroundColor") == "rgb(255, 255, 255)"
    check_fits(old, 390)
    check_taps(old)
    screenshot(old, "me-checked-in")

    # the host scans the card and confirms her from it
    host = phone()
    host.goto(f"{base}/login")
    host.get_by_label("Username").fill("harry")
    host.get_by_label("Password").fill("pw-harry")
    host.get_by_role("button", name="Log in").click()
    host.goto(f"{base}/cards/{card_code(live_server)}")
    expect(host.get_by_role("heading", level=1)).to_contain_text(NAME)
    check_taps(host)
    screenshot(host, "me-card-host")
    host.get_by_role("button", name="Confirm Ann at Rose & Crown").click()
    expect(host.locator("#players .flash")).to_contain_text(f"Confirmed {NAME}")
    old.reload()
    expect(old.locator("[data-me]")).to_contain_text("Seats are not drawn yet")

    # "Move to a new phone": htmx swaps the one-time code in; the page stays
    old.evaluate("window.__marker = 1")
    old.get_by_role("button", name="Move to a new phone").click()
    shown = old.locator("[data-code]")
    expect(shown).to_have_text(re.compile(r"^\d{3} \d{3} \d{4}$"))
    expect(old.get_by_role("img", name="QR code of the link that moves your card")).to_be_visible()
    expect(old.get_by_role("heading", name="Move my card to a new phone")).to_be_focused()  # not lost with the button
    assert old.evaluate("window.__marker") == 1
    one_time = shown.inner_text()
    shown.scroll_into_view_if_needed()
    check_fits(old, 390)
    screenshot(old, "me-move-code")

    # the new phone: no card yet; it takes the code
    new = phone()
    new.goto(f"{base}/me")
    expect(new.get_by_role("heading", level=1)).to_have_text("Me")
    expect(new.locator("main")).to_contain_text("doesn't hold a member card")
    check_taps(new)
    axe(new, "me without a card")
    screenshot(new, "me-no-card")
    new.get_by_role("link", name="I have a code").click()
    code_box = new.get_by_label("One-time code")
    code_box.fill("000 000" if one_time != "000 000" else "111 111")
    new.get_by_role("button", name="Put my card on this phone").click()
    expect(new.get_by_role("alert")).to_contain_text("didn't work")
    axe(new, "claim with an error")
    check_taps(new)
    screenshot(new, "me-claim-wrong")
    new.get_by_label("One-time code").fill(one_time)
    new.get_by_role("button", name="Put my card on this phone").click()
    expect(new).to_have_url(f"{base}/me")
    expect(new.get_by_role("heading", level=1)).to_contain_text(NAME)
    expect(new.get_by_role("status")).to_contain_text("Your member card is on this phone now")
    expect(new.locator("[data-me]")).to_contain_text("Seats are not drawn yet")
    screenshot(new, "me-new-phone")

    # the code worked once: the old phone's page is still its own; a used code is refused
    third = phone()
    third.goto(f"{base}/me/claim?code={one_time.replace(' ', '')}")
    expect(third.get_by_label("One-time code")).to_have_value(one_time.replace(" ", ""))
    third.get_by_role("button", name="Put my card on this phone").click()
    expect(third.get_by_role("alert")).to_contain_text("didn't work")


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_me_has_no_serious_accessibility_problems_and_fits_320(tonight, phone, screenshot, theme):
    base, event_id, code = tonight
    page = phone(viewport={"width": 320, "height": 640})
    page.add_init_script(f"localStorage.setItem('shuffleup-theme', '{theme}')")
    join_and_check_in(page, base, code, "Bartholomew Fitzgerald-Montgomery")
    page.goto(f"{base}/me")
    assert page.evaluate("document.documentElement.dataset.theme") == theme
    axe(page, f"me ({theme})")
    check_fits(page, 320)
    check_taps(page)
    screenshot(page, f"me-320-{theme}")
    page.get_by_role("button", name="Move to a new phone").click()
    expect(page.locator("[data-code]")).to_be_visible()
    axe(page, f"me, move code ({theme})")
    check_fits(page, 320)
    page.goto(f"{base}/me/claim")
    axe(page, f"claim ({theme})")
    check_fits(page, 320)
    check_taps(page)
    screenshot(page, f"me-claim-320-{theme}")


def test_me_with_results_behind_them_and_jump_to_me(tonight, live_server, phone, screenshot):
    """R-STD-1, R-QUAL-1/4: a player with nights behind them sees rank, points, tickets and results;
    on the month's table "Jump to me" lands on their own row, marked."""
    base, event_id, code = tonight
    page = phone()
    join_and_check_in(page, base, code, NAME)
    with live_server.app.app_context():
        league = leagues.find_league("Harbour League")
        today = league.today()
        earlier = today.replace(day=1) - dt.timedelta(days=12)
        names = [f"Player {n:02d}" for n in range(1, 15)]
        # Tonight's early game, 15 players (R-PTS-1/3): Ann 3rd earns 400 + 150; last month, 5 players
        # (R-PTS-2): her 1st earns 250.
        rows = [f"{today},17:00,The Anchor,nightly,{p},{n}," for p, n in
                enumerate(names[:2] + [NAME] + names[2:], 1)]
        rows += [f"{earlier},19:00,The Anchor,nightly,{p},{n}," for p, n in enumerate([NAME] + names[:4], 1)]
        from league.results_file import parse_results
        results.import_results(league, parse_results(
            "date,start_time,venue,event_type,position,player,status\n" + "\n".join(rows) + "\n"))
        db.session.commit()
        db.session.remove()
    page.goto(f"{base}/me")
    stats = page.locator(".stat")
    expect(stats.first).to_contain_text("3rd")
    expect(stats.first).to_contain_text("of 15")
    expect(page.locator("main")).to_contain_text("You're in: top 10 on points")
    expect(page.locator(".my-results tbody tr")).to_have_count(2)
    expect(page.locator("main")).to_contain_text("Monthly Final ticket")
    check_fits(page, 390)
    check_taps(page)
    axe(page, "me with results")
    screenshot(page, "me-with-results")
    page.locator(".stat").first.click()
    expect(page).to_have_url(re.compile(r"/months/\d{4}-\d{2}#member-\d+$"))
    mine = page.locator("tr.is-me")
    expect(mine).to_have_count(1)
    expect(mine).to_contain_text(NAME)
    expect(mine).to_be_in_viewport()
    page.goto(page.url.split("#")[0])
    page.get_by_role("link", name="Jump to me").click()
    expect(page).to_have_url(re.compile(r"#member-\d+$"))
    expect(mine).to_be_in_viewport()
    assert mine.evaluate("el => el.matches(':target')")
    axe(page, "month with jump to me")
    check_fits(page, 390)
    screenshot(page, "me-jump-to-me")
