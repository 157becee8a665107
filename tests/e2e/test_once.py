"""One tap, one action on the host's 390×844 phone (blueprints/once.py, static/js/app.js, static/host/
kept.js): a warning whose answer never reached the phone is kept and sent again with its key, and
tapped again meanwhile is the one waiting: it is recorded once; a double tap on it is one
warning; and the next tap after an answer is a new one."""
from __future__ import annotations

from playwright.sync_api import expect

from services.models import Penalty
from tests.e2e.conftest import axe, check_fits, seed_tonight
from tests.e2e.test_seat_notice import open_roster, seed_players
from wiring.extensions import db


def warnings(app, event_id: int) -> int:
    with app.app_context():
        found = db.session.scalar(db.select(db.func.count()).select_from(Penalty).where(Penalty.event_id == event_id))
        db.session.remove()
    return found


def test_a_warning_tapped_again_after_a_lost_answer_or_double_tapped_is_recorded_once(live_server, phone, screenshot):
    # the answer dropped on its way, on purpose (htmx logs its sendError)
    phone.allow(r"ERR_FAILED|net::|Failed to load resource|htmx:sendError|htmx:afterRequest")
    league_id, event_id, _ = seed_tonight(live_server.app)
    seed_players(live_server.app, event_id, league_id, ["Ann Lee", "Bob Ray"])
    host = open_roster(phone, live_server.url, event_id)
    host.locator("#players").get_by_role("link", name="Ann Lee", exact=True).click()
    floor = host.locator("#floor")
    floor.get_by_label("Why (recorded in the rulings log)").fill("Slow play")

    # The pub's wifi drops the answer: the warning reached the server, the phone heard nothing
    lost = []

    def answer_lost(route):
        if route.request.method == "POST" and not lost:
            lost.append("idempotency_key=" in (route.request.post_data or ""))
            route.fetch()          # the server takes it and answers…
            route.abort("failed")  # …and the answer never arrives
        else:
            route.continue_()
    host.route("**/floor/**", answer_lost)
    floor.get_by_role("button", name="Verbal warning").click()
    # kept on the phone with its key (static/host/kept.js), said in the sheet and in the waiting box
    expect(floor.locator(".sheet-said")).to_contain_text("No answer came: kept")
    expect(host.locator("#kept [data-kept-waiting]")).to_contain_text("Verbal warning")
    assert lost[0] and warnings(live_server.app, event_id) == 1
    # The host taps again: the same action is the one waiting, not a second warning
    floor.get_by_role("button", name="Verbal warning").click()
    expect(floor.locator(".sheet-said")).to_contain_text("already waiting to send")
    expect(host.locator("#kept [data-kept-waiting] li")).to_have_count(1)
    # The answer comes through now: the kept one goes again with its key, and the first answer comes back
    host.unroute("**/floor/**")
    host.evaluate("dispatchEvent(new Event('online'))")
    expect(host.locator("#kept")).to_be_hidden()
    expect(floor.locator(".flash")).to_have_text("Ann Lee: verbal warning")
    expect(floor.locator("[data-history]")).to_have_text("Earlier warnings and penalties: 1 tonight.")
    assert warnings(live_server.app, event_id) == 1
    screenshot(host, "once-warning-after-a-lost-answer")
    check_fits(host, 390)
    axe(host, "the player's sheet after a repeated tap")

    # A double tap (wet hands) is one warning; the key is new after an answer, so it is a warning of its own
    floor.get_by_label("Why (recorded in the rulings log)").fill("Slow play again")
    floor.get_by_role("button", name="Verbal warning").dblclick()
    expect(floor.locator("[data-history]")).to_have_text("Earlier warnings and penalties: 2 tonight.")
    host.wait_for_load_state("networkidle")
    assert warnings(live_server.app, event_id) == 2
