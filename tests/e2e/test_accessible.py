"""What a phone says and shows beyond the screens themselves (WCAG 2.2 AA): a level or break change
said once by a polite live region on a player's phone and the TV; the structure editor's refusal
shown, focused and in view; a refusal no view answered itself (a stale form) told atop the form
tapped while the roster stays; the refusal pages at phone width in both themes.

The clock's structure is the THPA nightly template: 25/50, 50/100, 75/150, 100/200, then the
15-minute "Major break" (tests/e2e/test_clock.py).
"""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import axe, check_fits, check_taps
from tests.e2e.test_clock import field, night, open_host, open_player, tap  # noqa: F401  (night: the fixture)
from tests.e2e.test_roster_wet_hands import drawn_roster

# Every text the clock's live region takes, in order, on this page.
RECORD_SAID = """document.addEventListener("DOMContentLoaded", () => {
  window.said = [];
  for (const region of document.querySelectorAll('[data-field="said"]')) {
    new MutationObserver(() => said.push(region.textContent)).observe(region, {childList: true, characterData: true});
  }
})"""
# The element lies inside the screen, and nothing (a sticky bar) covers its middle.
IN_VIEW_JS = """el => { const r = el.getBoundingClientRect();
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth && el.contains(top); }"""


def said(page) -> list[str]:
    return page.evaluate("window.said")


def test_r_clock_1_level_and_break_changes_are_said_once_on_phones_and_the_tv(night, phone):  # noqa: F811
    player = phone()
    player.add_init_script(RECORD_SAID)
    player.goto(night.player)
    tv = phone(viewport={"width": 1280, "height": 720}, device_scale_factor=1, is_mobile=False, has_touch=False)
    tv.add_init_script(RECORD_SAID)
    tv.goto(night.screen)
    host = open_host(phone, night)
    for page in (player, tv):
        expect(page.locator("[data-connection]")).to_have_text("Live")
        region = page.locator('[data-field="said"]')
        expect(region).to_have_attribute("role", "status")  # polite, unlike the alerts
        expect(region).to_be_empty()  # nothing said on the first look

    tap(host, "Start")
    tap(host, "Next level")
    level_2 = "Level 2: blinds 50 / 100."
    for page in (player, tv):
        expect(field(page, "said")).to_have_text(level_2)
    # The clock ticks on, repainting every second: the change is not said again.
    shown = field(player, "time").inner_text()
    expect(field(player, "time")).not_to_have_text(shown)
    shown = field(player, "time").inner_text()
    expect(field(player, "time")).not_to_have_text(shown)
    assert said(player) == said(tv) == [level_2]

    host.locator("#controls select[name=index]").select_option(label="5. Major break (15 min)")
    tap(host, "Jump")
    on_break = "Major break, 15 minutes. Then blinds 150 / 300."
    for page in (player, tv):
        expect(field(page, "said")).to_have_text(on_break)
        assert said(page) == [level_2, on_break]
    tap(host, "Pause")  # a pause is shown, not said: the level did not change
    expect(field(player, "state")).to_have_text("Paused")
    assert said(player) == [level_2, on_break]


def test_the_structure_editors_refusal_is_shown_focused_and_in_view_and_the_focus_kept(night, phone, screenshot):  # noqa: F811
    phone.allow(r"status of 422")  # the refusal, as the browser logs it
    host = open_host(phone, night)
    host.get_by_role("link", name="Structure", exact=True).click()
    host.locator('input[name="minutes"]').nth(3).fill("1o")
    save = host.get_by_role("button", name="Save structure")
    save.scroll_into_view_if_needed()
    save.click()
    refusal = host.get_by_role("alert")
    expect(refusal).to_contain_text("Not saved: fix the items marked below.")
    expect(refusal).to_contain_text("Item 4: minutes must be a whole number, not '1o'")
    expect(refusal).to_be_focused()
    assert refusal.evaluate(IN_VIEW_JS), "the refusal is off the screen"
    expect(host.locator('input[name="minutes"]').nth(3)).to_have_value("1o")  # the host's edits kept
    screenshot(host, "structure-refused", full_page=False)
    # Put right, it saves, and says so.
    host.locator('input[name="minutes"]').nth(3).fill("10")
    host.get_by_role("button", name="Save structure").click()
    expect(host.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    expect(host.get_by_role("alert")).to_have_count(0)
    expect(host.get_by_role("button", name="Save structure")).to_be_focused()  # not dropped to the page
    items = host.locator("ol.items > li")
    count = items.count()
    host.get_by_role("button", name="Duplicate item 2").click()
    expect(items).to_have_count(count + 1)
    expect(host.get_by_role("button", name="Duplicate item 2")).to_be_focused()


def test_a_stale_form_is_told_atop_the_form_and_the_roster_stays(live_server, phone, screenshot):
    phone.allow(r"status of 400|Response Status Error Code 400")  # the browser and htmx log the refusal
    host, roster = drawn_roster(live_server, phone, ["Ann Lee", "Bea Moss", "Cal Dunn"])
    # The page was left open until its form's token expired (here: replaced).
    host.evaluate("""() => { for (const input of document.querySelectorAll('input[name=csrf_token]')) input.value = 'stale';
                             document.body.setAttribute('hx-headers', '{"X-CSRFToken": "stale"}'); }""")
    host.once("dialog", lambda dialog: dialog.accept())
    roster.get_by_role("button", name="Ann Lee is out").click()
    notice = host.get_by_role("alert").filter(has_text="This page was open too long")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("Go back, reload the page and try again.")
    assert notice.evaluate(IN_VIEW_JS), "the notice is off the screen or under a sticky bar"
    expect(roster.get_by_role("button", name="Ann Lee is out")).to_be_visible()  # nothing replaced, nothing done
    screenshot(host, "roster-stale-form", full_page=False)


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_the_refusal_pages_read_on_a_phone(live_server, phone, screenshot, theme):
    phone.allow(r"status of 40[34]")
    for size in ({"width": 390, "height": 844}, {"width": 320, "height": 640}):
        page = phone(viewport=size)
        page.add_init_script(f"localStorage.setItem('shuffleup-theme', '{theme}')")
        page.goto(f"{live_server.url}/check-in/NOPE")
        expect(page.get_by_role("heading", level=1)).to_have_text("Not found")
        expect(page.get_by_role("alert")).to_contain_text("This check-in link has ended or is wrong: "
                                                          "ask the host for tonight's QR code.")
        body = page.locator("body")
        assert float(body.evaluate("el => getComputedStyle(el).fontSize")[:-2]) >= 16  # not 7 px on a phone
        check_fits(page, size["width"])
        check_taps(page, "main a, header a, header button")
        axe(page, f"the 404 page ({theme}, {size['width']} px)")
        screenshot(page, f"error-404-{theme}-{size['width']}", full_page=False)
        page.goto(f"{live_server.url}/organiser/")  # logged out: the login first
        expect(page).to_have_url(f"{live_server.url}/login?next=/organiser/")
