"""The database goes down mid-night in a real browser: the host's tap is answered 503 and the
phone says so beside the button (htmx itself drops 5xx answers), nothing changes, and once the
database is back the same tap works and the notice goes."""
import sqlite3.dbapi2

from playwright.sync_api import expect

from wiring.extensions import db


def test_a_tap_while_the_database_is_down_says_so_and_the_next_one_works(live_server, tonight, phone, screenshot,
                                                                         monkeypatch):
    base, event_id, _ = tonight
    phone.allow(r"503|Response Status Error|responseError|Failed to load resource")
    # the live stream's reconnect is refused too: the sse extension logs the EventSource's error event
    phone.allow(r"console error: \[object Event\] \(.*/htmx-[0-9.]+\.min\.js\)")
    page = phone()
    page.goto(f"{base}/host/events/{event_id}")
    page.get_by_label("Username").fill("harry")
    page.get_by_label("Password").fill("pw-harry")
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{base}/host/events/{event_id}")
    start = page.get_by_role("button", name="Start", exact=True)
    expect(start).to_be_visible()

    with live_server.app.app_context():  # the database goes away: every new connection fails
        db.engine.dispose()

    def refused(*args, **kwargs):
        raise sqlite3.OperationalError("unable to open database file")
    monkeypatch.setattr(sqlite3.dbapi2, "connect", refused)
    start.click()
    notice = page.locator("#unavailable")
    expect(notice).to_have_text("The league's database is not answering just now. Nothing was changed: "
                                "try again in a few seconds.")
    expect(notice).to_have_attribute("role", "alert")
    expect(start).to_be_visible()  # the controls stay as they were
    screenshot(page, "outage-host-tap-503")

    monkeypatch.undo()
    start.click()
    expect(page.get_by_role("button", name="Pause", exact=True)).to_be_visible()
    expect(notice).to_have_count(0)
