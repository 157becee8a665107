"""A cash night on a 390×844 phone, from the host's new-night form to the prizes on a player's phone
after settling (R-PAY-1, R-PAY-3): the money fields defaulted, the payout ladder growing as players
come in, and the winner's phone showing the prize paid."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from services.models import League
from tests.e2e.conftest import join_and_check_in, seed_tonight
from tests.e2e.test_roster_host import seat
from wiring.extensions import db


def test_r_pay_1_a_cash_night_from_the_form_to_the_winners_prize(live_server, phone, screenshot):
    league_id, _, _ = seed_tonight(live_server.app)
    with live_server.app.app_context():
        db.session.get(League, league_id).kind = "cash"
        db.session.commit()
        db.session.remove()
    base = live_server.url
    host = phone()
    host.goto(f"{base}/host/")
    host.get_by_label("Username").fill("harry")
    host.get_by_label("Password").fill("pw-harry")
    host.get_by_role("button", name="Log in").click()
    host.locator("summary", has_text="New night").click()
    expect(host.get_by_label("Buy-in ($)", exact=True)).to_have_value("30")
    expect(host.get_by_label("To the night's prize pool, per buy-in ($)")).to_have_value("20")
    host.get_by_label("Start", exact=True).fill("20:30")
    host.get_by_label("Guarantee ($)").fill("100")
    host.get_by_role("button", name="Create night").click()
    expect(host).to_have_url(re.compile(r"/host/events/\d+/players$"))
    event_id = int(re.search(r"/events/(\d+)/", host.url).group(1))
    ladder = host.locator("#players .prize-ladder")
    expect(ladder).to_have_text(re.compile(r"Prizes:\s+\$100 guaranteed \+ \$20 from each \$30 entry"))

    host.get_by_role("link", name="Clock", exact=True).click()
    host.get_by_role("button", name="Start").click()
    expect(host.get_by_role("button", name="Pause")).to_be_visible()
    others = [f"Player {n}" for n in range(1, 10)]
    seat(live_server.app, event_id, others)
    host.get_by_role("link", name="Players", exact=True).click()
    code = re.search(r"/check-in/([\w-]+)", host.content()).group(1)

    ann = phone()
    join_and_check_in(ann, base, code, "Ann Winner")
    roster = host.locator("#players")
    roster.get_by_role("button", name="Confirm").click()
    expect(roster.locator(".prize-ladder")).to_have_text(re.compile(r"Prizes \$300:\s*1st \$300"))  # 100 + 10 × 20

    ann.goto(f"{base}/events/{event_id}")
    expect(ann.locator(".clock .prize-ladder")).to_have_text(re.compile(r"Prizes \$300:\s*1st \$300"))
    screenshot(ann, "cash-night-phone-clock-prizes")
    tv = phone(viewport={"width": 1280, "height": 720}, is_mobile=False, has_touch=False, device_scale_factor=1)
    tv.goto(f"{base}/events/{event_id}/screen")
    expect(tv.locator(".clock .prize-ladder")).to_have_text(re.compile(r"Prizes \$300:\s*1st \$300"))
    assert tv.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]") == [1280, 720]
    screenshot(tv, "cash-night-big-screen-prizes")

    for name in others:
        host.once("dialog", lambda dialog: dialog.accept())
        roster.get_by_role("button", name=f"{name} is out").click()
        expect(roster.get_by_role("button", name=f"{name} is out")).to_have_count(0)
    host.once("dialog", lambda dialog: dialog.accept())
    roster.get_by_role("button", name=re.compile("^Settle")).click()
    expect(roster.locator(".prize-ladder")).to_have_text(re.compile(r"Prizes paid \$300:\s*1st \$300"))
    expect(roster.locator("li", has_text="1. Ann Winner")).to_contain_text("$300")
    screenshot(host, "cash-night-host-settled")

    ann.goto(f"{base}/events/{event_id}")
    expect(ann.locator("[data-me]")).to_contain_text(re.compile(r"Finished 1st · \d+ points · \$300"))
    assert ann.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(ann, "cash-night-phone-winner-prize")


def test_the_organisers_new_night_follows_the_type_and_warns_of_the_same_night(live_server, phone):
    """R-PAY-3: the money follows the type picked; a night booked twice is warned of on the
    organiser's page (an htmx answer of 409) and created only with "Create anyway"."""
    from services.models import User
    phone.allow(r"status of 409 .*/nights\)$")  # the warning, on purpose
    league_id, _, _ = seed_tonight(live_server.app)
    with live_server.app.app_context():
        db.session.get(League, league_id).kind = "cash"
        olive = User(username="olive", display_name="Olive", role="organiser", league_id=league_id)
        olive.set_password("pw-olive")
        db.session.add(olive)
        db.session.commit()
        slug = db.session.get(League, league_id).slug
        db.session.remove()
    base = live_server.url
    page = phone()
    page.goto(f"{base}/organiser/{slug}/nights")
    page.get_by_label("Username").fill("olive")
    page.get_by_label("Password").fill("pw-olive")
    page.get_by_role("button", name="Log in").click()
    nights = page.locator("#nights")
    buy_in = nights.get_by_label("Buy-in ($)", exact=True)
    expect(buy_in).to_have_value("30")
    nights.locator("select#event_type").select_option(label="High-roller")
    expect(buy_in).to_have_value("60")
    nights.locator("select#event_type").select_option(label="Nightly")
    expect(buy_in).to_have_value("30")
    nights.get_by_label("Start", exact=True).fill("19:00")  # the seeded night is tonight at 19:00
    nights.get_by_role("button", name="Create night").click()
    expect(page.locator("#night-duplicate")).to_contain_text("Rose & Crown already has a night on")
    page.get_by_role("button", name="Create anyway").click()
    expect(page.locator("#nights .cards li")).to_have_count(2)
