"""A player pre-registers themselves on their phone (R-LATE-3): with a member card on
the phone they open the league's coming nights, tap Pre-register, see they are in and cancel; on a
night with a buy-in they ask, and the host confirms the buy-in from the roster. Phone-sized (390×844),
thumb-sized controls, no serious axe findings; screenshots along the way."""
from __future__ import annotations

import datetime as dt

from itsdangerous import URLSafeSerializer
from playwright.sync_api import expect

from blueprints.play.member_cookie import COOKIE
from services import clocks
from services.models import Entry, Event, League, Member, utcnow
from tests.e2e.conftest import axe, check_fits, check_taps
from wiring.extensions import db

NAME = "Ann O'Leary"


def seed_coming(live_server, event_id: int, buy_in: int = 0) -> tuple[int, str, str]:
    """A night next week at tonight's venue, and Ann with her member card: (night id, league slug, cookie)."""
    with live_server.app.app_context():
        tonight = db.session.get(Event, event_id)
        night = Event(league_id=tonight.league_id, venue_id=tonight.venue_id, event_type="nightly",
                      date=tonight.league.today() + dt.timedelta(days=7),
                      start_time=dt.time(19, 30), host_id=tonight.host_id, status="scheduled", buy_in=buy_in)
        ann = Member.named(tonight.league_id, NAME)
        ann.adult_confirmed_at = utcnow()
        db.session.add_all([night, ann])
        db.session.commit()
        found = (night.id, db.session.get(League, tonight.league_id).slug,
                 URLSafeSerializer("test-secret", salt="member-cookie").dumps([ann.id, ann.cookie_secret]))
        db.session.remove()
    return found


def entry_status(live_server, event_id: int) -> str | None:
    with live_server.app.app_context():
        status = db.session.scalar(db.select(Entry.status).where(Entry.event_id == event_id))
        db.session.remove()
    return status


def check_block_taps(block):
    """The block's own controls are thumb-sized (the event page's footer links are not this test's)."""
    sizes = block.locator("a[href], button, input").evaluate_all(
        "els => els.filter(el => el.offsetParent !== null && el.type !== 'hidden')"
        ".map(el => { const r = el.getBoundingClientRect(); return [el.textContent.trim(), r.width, r.height]; })")
    assert sizes and not [s for s in sizes if s[1] < 44 or s[2] < 44], sizes


def ann_phone(phone, base: str, cookie: str):
    page = phone()
    page.context.add_cookies([{"name": COOKIE, "value": cookie, "url": base, "httpOnly": True}])
    return page


def test_r_late_3_a_player_pre_registers_from_coming_nights_and_cancels(tonight, live_server, phone, screenshot):
    base, event_id, _ = tonight
    night_id, slug, cookie = seed_coming(live_server, event_id)
    page = ann_phone(phone, base, cookie)
    page.goto(f"{base}/leagues/{slug}/nights")
    block = page.locator(f"#prereg-{night_id}")
    button = block.get_by_role("button", name=f"Pre-register as {NAME}")
    expect(button).to_be_visible()
    check_fits(page, 390)
    check_taps(page)
    screenshot(page, "prereg-nights")

    button.click()
    expect(block.get_by_role("status")).to_have_text("Done: you're in.")
    expect(block).to_contain_text("You're pre-registered.")
    assert entry_status(live_server, night_id) == "registered"
    check_fits(page, 390)
    check_taps(page)
    axe(page, "coming nights, pre-registered")
    screenshot(page, "prereg-nights-in")

    block.get_by_role("button", name="Cancel my pre-registration").click()
    expect(block.get_by_role("status")).to_have_text("Your pre-registration is cancelled.")
    expect(block.get_by_role("button", name=f"Pre-register as {NAME}")).to_be_visible()
    assert entry_status(live_server, night_id) is None
    screenshot(page, "prereg-nights-cancelled")


def test_r_late_3_a_cash_night_request_waits_for_the_host(tonight, live_server, phone, screenshot):
    base, event_id, _ = tonight
    night_id, _, cookie = seed_coming(live_server, event_id, buy_in=30)
    page = ann_phone(phone, base, cookie)
    page.goto(f"{base}/events/{night_id}")
    block = page.locator(f"#prereg-{night_id}")
    block.get_by_role("button", name="Ask to pre-register · $30").click()
    expect(block.get_by_role("status")).to_have_text("Sent to the host.")
    expect(block).to_contain_text("Pre-registration asked.")
    assert entry_status(live_server, night_id) == "requested"
    check_fits(page, 390)
    check_block_taps(block)
    screenshot(page, "prereg-event-cash-asked")

    host = phone()
    host.goto(f"{base}/login")
    host.get_by_label("Username").fill("harry")
    host.get_by_label("Password").fill("pw-harry")
    host.get_by_role("button", name="Log in").click()
    host.goto(f"{base}/host/events/{night_id}/players")
    expect(host.get_by_role("heading", name="Pre-registration requests 1")).to_be_visible()
    expect(host.locator(".undo-bar")).to_contain_text(
        f"{NAME} asked on their phone to pre-register ($30 buy-in to confirm)")
    screenshot(host, "prereg-host-request")
    host.get_by_role("button", name=f"Buy-in paid: {NAME}").click()
    expect(host.get_by_role("heading", name="Pre-registered, not here yet 1")).to_be_visible()
    assert entry_status(live_server, night_id) == "registered"
    screenshot(host, "prereg-host-confirmed")

    page.reload()
    expect(block).to_contain_text("You're pre-registered.")
    screenshot(page, "prereg-event-cash-confirmed")


def test_a_refusal_replaces_the_button_with_the_reason(tonight, live_server, phone, screenshot):
    base, event_id, _ = tonight
    night_id, slug, cookie = seed_coming(live_server, event_id)
    phone.allow(r"status of 422 .*/prereg\)$")  # the refusal, on purpose
    page = ann_phone(phone, base, cookie)
    page.goto(f"{base}/leagues/{slug}/nights")
    with live_server.app.app_context():  # the host starts that night's clock while the list is open
        night = db.session.get(Event, night_id)
        clocks.act(night, "start", night.clock_version)
        db.session.commit()
        db.session.remove()
    block = page.locator(f"#prereg-{night_id}")
    block.get_by_role("button", name=f"Pre-register as {NAME}").click()
    expect(block.get_by_role("alert")).to_contain_text("Play has started")
    expect(block.get_by_role("button")).to_have_count(0)
    assert entry_status(live_server, night_id) is None
    screenshot(page, "prereg-nights-refused")
