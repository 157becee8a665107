"""The Content-Security-Policy (no inline script but base.html's hashed theme script, no inline
style, no eval) breaks nothing: the pages a host and a player use run with no CSP report in the console."""
from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import join_and_check_in, seed_tonight


def test_pages_run_under_the_content_security_policy(live_server, phone):
    _, event_id, code = seed_tonight(live_server.app)
    base = live_server.url
    messages: list[str] = []
    player = phone()
    player.on("console", lambda message: messages.append(message.text))
    player.add_init_script("localStorage.setItem('shuffleup-theme', 'light')")
    response = player.goto(f"{base}/")
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    # the hashed inline script ran: the saved light theme is on before app.js
    expect(player.locator("html")).to_have_attribute("data-theme", "light")
    join_and_check_in(player, base, code, "Cara Csp")
    player.goto(f"{base}/me")
    player.goto(f"{base}/events/{event_id}")
    host = phone()
    host.on("console", lambda message: messages.append(message.text))
    host.goto(f"{base}/host/events/{event_id}/players")
    host.get_by_label("Username").fill("harry")
    host.get_by_label("Password").fill("pw-harry")
    host.get_by_role("button", name="Log in").click()
    expect(host.locator("#players")).to_be_visible()
    host.wait_for_timeout(500)
    assert not [m for m in messages if "Content Security Policy" in m], messages
