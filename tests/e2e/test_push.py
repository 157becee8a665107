"""Web Push on a real Chromium (R-MEM-1: a phone acts for its own member): the player turns on
"Tell me when I move" on /me at 390×844 (permission after the tap; axe-checked), the subscription
reaches the server, and the service worker shows a pushed message as a notification. Chromium here
cannot reach a real push service: its subscribe() is stood in for by a subscription to the test's
loopback push service, and the message is delivered through the DevTools protocol
(ServiceWorker.deliverPushMessage), as the push service would."""
from __future__ import annotations

import json

from playwright.sync_api import expect

from services.models import PushSubscription
from tests.e2e.conftest import axe, check_fits, check_taps, join_and_check_in
from tests.fixtures.push_service import PushService
from wiring.extensions import db

NAME = "Wren Okafor"

# pushManager.subscribe() answers with the loopback push service's subscription (SUBSCRIPTION, set per test).
FAKE_SUBSCRIBE = """
(() => {
  const sub = %s;
  let current = null;
  const made = () => ({ endpoint: sub.endpoint, toJSON: () => sub,
                        unsubscribe: async () => { current = null; return true; } });
  if (self.PushManager) {
    PushManager.prototype.subscribe = async function () { current = made(); return current; };
    PushManager.prototype.getSubscription = async function () { return current; };
  }
})();
"""


def test_a_player_turns_on_push_and_the_service_worker_shows_a_move(tonight, live_server, phone):
    base, event_id, code = tonight
    service = PushService()
    live_server.app.config["PUSH_SERVICES"] = service.origin
    try:
        wren = service.phone("wren")
        page = phone()
        page.context.grant_permissions(["notifications"], origin=base)
        page.context.add_init_script(FAKE_SUBSCRIBE % json.dumps(wren.subscription()))
        join_and_check_in(page, base, code, NAME)
        page.goto(f"{base}/me")
        switch = page.get_by_role("button", name="Tell me when I move")
        expect(switch).to_be_visible()
        expect(switch).to_have_attribute("aria-pressed", "false")
        check_fits(page, 390)
        check_taps(page, "[data-push] button")
        axe(page, "/me with the push switch")

        switch.click()
        expect(page.locator("[data-push] button")).to_have_attribute("aria-pressed", "true")
        expect(page.locator("[data-push-note]")).to_contain_text("this phone will buzz")
        with live_server.app.app_context():
            rows = db.session.scalars(db.select(PushSubscription.endpoint)).all()
            db.session.remove()
        assert rows == [wren.endpoint]

        # The push service delivers a move: the service worker shows it.
        cdp = page.context.new_cdp_session(page)
        registrations = []
        cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: registrations.extend(e["registrations"]))
        cdp.send("ServiceWorker.enable")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        for _ in range(50):  # the registration arrives as a DevTools event
            if any(r["scopeURL"].startswith(base) for r in registrations):
                break
            page.wait_for_timeout(100)
        registration = next(r for r in registrations if r["scopeURL"].startswith(base))
        message = {"title": "Your seat moved", "body": "Please move to Table 1, Seat 8.", "url": f"/events/{event_id}"}
        cdp.send("ServiceWorker.deliverPushMessage", {"origin": base, "registrationId": registration["registrationId"],
                                                      "data": json.dumps(message)})
        page.wait_for_function("""async () => {
            const r = await navigator.serviceWorker.ready;
            return (await r.getNotifications()).length === 1; }""")
        shown = page.evaluate("""async () => {
            const r = await navigator.serviceWorker.ready;
            return (await r.getNotifications()).map(n => ({title: n.title, body: n.body, url: n.data.url})); }""")
        assert shown == [message]

        # Off again: the server forgets the phone.
        page.locator("[data-push] button").click()
        expect(page.locator("[data-push] button")).to_have_attribute("aria-pressed", "false")
        with live_server.app.app_context():
            assert db.session.scalar(db.select(db.func.count()).select_from(PushSubscription)) == 0
            db.session.remove()
    finally:
        service.close()
