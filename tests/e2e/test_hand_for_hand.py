"""Hand-for-hand in real browsers at 390×844 (R-HFH-2): each tap of Next hand shows "Deal now" on every
phone and the big screen within a second, the hand's number with it, and buzzes; the host's controls
follow hand-for-hand on and off. Each phone is its own browser context, as in test_clock."""
from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import axe
from tests.e2e.test_clock import field, night, open_host, open_player, tap  # noqa: F401  (night: the fixture)
from tests.e2e.test_voice import ENGINE

# "Within a second of the tap": Playwright's own waiting, bounded, not a measured time.
REACH_MS = 1000
BUZZES_JS = """() => { window.buzzes = []; navigator.vibrate = pattern => { buzzes.push(pattern); return true; }; }"""


def test_r_hfh_2_every_phone_shows_deal_now_within_a_second_of_next_hand(night, phone, screenshot):  # noqa: F811
    players = [open_player(phone, night) for _ in range(3)]
    tv = phone(viewport={"width": 1280, "height": 720}, device_scale_factor=1, is_mobile=False, has_touch=False)
    tv.add_init_script(ENGINE)
    tv.goto(night.screen)
    expect(tv.locator("[data-connection]")).to_have_text("Live")
    tv.get_by_role("button", name="Voice off: tap to turn on").click()  # and the TV says each hand
    host = open_host(phone, night)
    screens = [*players, tv]
    for page in screens:
        page.evaluate(BUZZES_JS)
        field(page, "time").click()  # a first tap on the page: Chrome lets it vibrate from then on
    tap(host, "Start")
    controls = host.locator("#controls")
    expect(controls.get_by_role("button", name="Next hand")).to_be_hidden()
    tap(host, "Hand-for-hand on")
    expect(controls.get_by_role("button", name="Next hand")).to_be_visible()
    expect(controls.get_by_role("button", name="Hand-for-hand on")).to_be_hidden()
    expect(controls.locator("[data-main]")).to_be_hidden()  # the clock stands still: Next hand instead
    for page in screens:
        expect(field(page, "hfh-box")).to_be_visible(timeout=REACH_MS)
        expect(field(page, "hfh-deal")).to_have_text("Hand-for-hand")
        expect(field(page, "state")).to_have_text("Hand-for-hand")
    axe(players[0], "a phone waiting for the next hand")

    for hand in (1, 2):
        controls.get_by_role("button", name="Next hand").click()
        for page in screens:
            expect(field(page, "hfh-deal")).to_have_text("Deal now", timeout=REACH_MS)
            expect(field(page, "hfh-note")).to_contain_text(f"Hand {hand}: every table deals now",
                                                            timeout=REACH_MS)
        expect(host.locator("[data-hfh-hand]")).to_have_text(f"Hand-for-hand: hand {hand} in play")
    tv.wait_for_function("window.shuffleupSaid.length >= 2")
    assert [text for text in tv.evaluate("window.shuffleupSaid") if text.startswith("Deal")] == [
        "Deal now. Hand 1.", "Deal now. Hand 2."]
    # each new hand buzzed every phone, sound on or off, as a seat move does
    assert all(page.evaluate("buzzes.length") >= 2 for page in players)
    screenshot(players[0], "hand-for-hand-deal-now")
    screenshot(host, "hand-for-hand-host")
    axe(players[0], "a phone told to deal now")
    axe(host, "the host's controls in hand-for-hand")

    tap(host, "Hand-for-hand off")
    for page in screens:
        expect(field(page, "hfh-box")).to_be_hidden(timeout=REACH_MS)
    expect(controls.get_by_role("button", name="Hand-for-hand on")).to_be_visible()
    expect(controls.get_by_role("button", name="Resume")).to_be_visible()
