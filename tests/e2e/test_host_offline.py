"""The host's phone without a signal (R-CLOCK-3, issue 27 item 3), in real browsers at 390×844: a
tap made offline is kept on the phone and said on screen, sent when the signal is back, and applied
at the moment it was tapped on every phone; one that no longer applies (another host acted
meanwhile) comes back with its reason, to redo or drop."""
from __future__ import annotations

import re
import time

from playwright.sync_api import expect

from services import clocks
from services.models import Event
from tests.e2e.conftest import axe
from tests.e2e.test_clock import CLOCK_POST, LINE, field, night, open_host, open_player, tap  # noqa: F401 (night: the fixture)
from wiring.extensions import db

RUNNING_JS = "() => shuffleupClock.view().running"
PAUSED_JS = "() => !shuffleupClock.view().running"


def allow_offline_errors(phone):
    """What a phone cut off logs: failed loads, the stream's and the line's errors (htmx logs the
    stream's as an Event)."""
    phone.allow(r"net::ERR_")
    phone.allow(r"\[object Event\] \(\S+/htmx-2\.0\.11\.min\.js\)")
    phone.allow(r"WebSocket connection to .* failed")
    phone.allow(r"status of 409")


def kept(host):
    return host.locator("#kept")


def pause_offline(host) -> int:
    """The signal drops and the host taps Pause: kept, the only tap waiting. → the time left on the
    host's clock at the tap (ms)."""
    host.context.set_offline(True)
    host.wait_for_function("() => !navigator.onLine")
    at_tap = host.evaluate("shuffleupClock.view().remaining_ms")
    host.locator("#controls").get_by_role("button", name="Pause", exact=True).click()
    expect(kept(host).locator("[data-kept-count]")).to_have_text(
        "1 waiting to send: no connection, they go when it's back")
    return at_tap


def test_r_clock_3_a_pause_taken_offline_pauses_every_phone_at_its_moment(night, phone):  # noqa: F811
    allow_offline_errors(phone)
    host = open_host(phone, night)
    player = open_player(phone, night)
    tap(host, "Start")
    player.wait_for_function(RUNNING_JS)
    expect(kept(host)).to_be_hidden()

    at_tap = pause_offline(host)
    host.locator("#controls").get_by_role("button", name="+1 min", exact=True).click()
    expect(kept(host).locator("[data-kept-count]")).to_have_text(
        "2 waiting to send: no connection, they go when it's back")
    waiting = kept(host).locator("[data-kept-waiting] li")
    expect(waiting).to_have_count(2)
    expect(waiting.nth(0)).to_contain_text("Pause · tapped ")
    expect(waiting.nth(1)).to_contain_text("+1 min · tapped ")
    expect(host.locator("#controls [data-main]")).to_have_text("Resume")  # the next tap follows this one
    assert host.evaluate("shuffleupClock.view().running")  # the clock on the host's phone keeps counting
    axe(host, "the host's clock with a tap waiting to send")
    # a player arrives meanwhile (the version moves on, not the clock): the kept pause still applies
    with night.app.app_context():
        clocks.touch(db.session.get(Event, night.id))
        db.session.commit()
        db.session.remove()
    # the players' phones have not heard of it: their clocks run on while the host's phone is away
    time.sleep(3)
    assert player.evaluate("shuffleupClock.view().running")
    assert host.evaluate("() => shuffleupClock.view().running")

    host.context.set_offline(False)
    expect(kept(host)).to_be_hidden()
    player.wait_for_function(PAUSED_JS)
    host.wait_for_function(PAUSED_JS)
    # paused where the host's thumb paused it, not when the signal came back (three seconds later),
    # then the minute added after it
    host.wait_for_function(f"() => shuffleupClock.view().remaining_ms > {at_tap + 30_000}")
    player.wait_for_function(f"() => shuffleupClock.view().remaining_ms > {at_tap + 30_000}")
    for page in (player, host):
        assert abs(page.evaluate("shuffleupClock.view().remaining_ms") - (at_tap + 60_000)) < 1500
    expect(host.locator("#controls [data-main]")).to_have_text("Resume")
    expect(host.locator("#controls .error")).to_have_count(0)


def test_r_clock_3_taps_kept_offline_after_another_hosts_come_back_to_redo_or_drop(night, phone):  # noqa: F811
    allow_offline_errors(phone)
    host = open_host(phone, night)
    other = open_host(phone, night)
    player = open_player(phone, night)
    tap(host, "Start")
    other.wait_for_function(RUNNING_JS)

    host.context.set_offline(True)
    host.wait_for_function("() => !navigator.onLine")
    controls = host.locator("#controls")
    controls.get_by_role("button", name="Pause", exact=True).click()
    controls.get_by_role("button", name="+1 min", exact=True).click()
    expect(kept(host).locator("[data-kept-count]")).to_have_text(
        "2 waiting to send: no connection, they go when it's back")
    tap(other, "Next level")  # the second host acts meanwhile
    expect(field(player, "level")).to_have_text("Level 2")

    host.context.set_offline(False)
    refused = kept(host).locator("[data-kept-refused] li")
    expect(refused).to_have_count(2)
    expect(refused.nth(0)).to_contain_text(
        "Pause · tapped ")
    expect(refused.nth(0)).to_contain_text("The clock changed on another screen")
    expect(refused.nth(1)).to_contain_text("+1 min · tapped ")
    expect(refused.nth(1)).to_contain_text("Not sent: it followed an action that was not applied.")
    expect(kept(host).locator("[data-kept-count]")).to_have_text("")
    assert player.evaluate("shuffleupClock.view().running")  # nothing applied
    expect(field(host, "level")).to_have_text("Level 2")  # the host's screen shows the clock as it now is
    axe(host, "the host's taps refused on arrival, with Redo and Drop")

    kept(host).get_by_role("button", name="Drop +1 min").click()
    expect(refused).to_have_count(1)
    kept(host).get_by_role("button", name="Redo Pause now").click()
    player.wait_for_function(PAUSED_JS)
    expect(kept(host)).to_be_hidden()
    expect(field(player, "level")).to_have_text("Level 2")
    expect(host.locator("#controls [data-main]")).to_have_text("Resume")


def test_r_clock_3_a_tap_that_got_no_answer_is_kept_and_sent_again_with_its_key(night, phone):  # noqa: F811
    """Wifi up, the pub's line down: the phone thinks it is online, the tap's POST gets no answer.
    It is kept (not "tap again"), and sent again with the same key once the signal is back."""
    allow_offline_errors(phone)
    phone.allow(r"htmx:(afterRequest|sendError), \[object HTMLFormElement\]")  # htmx logs the lost POST
    bodies = []

    def no_line_and_note_posts(page):
        page.route_web_socket(LINE, lambda socket: socket.close())
        page.on("request", lambda request: bodies.append(request.post_data)
                if request.method == "POST" and CLOCK_POST.match(request.url) else None)

    host = open_host(phone, night, prepare=no_line_and_note_posts)
    player = open_player(phone, night)
    tap(host, "Start")
    player.wait_for_function(RUNNING_JS)
    host.route(CLOCK_POST, lambda route: route.abort("internetdisconnected"))
    host.locator("#controls").get_by_role("button", name="Pause", exact=True).click()
    expect(kept(host).locator("[data-kept-count]")).to_have_text("1 waiting to send")
    expect(host.locator("#controls .error")).to_have_count(0)
    host.unroute(CLOCK_POST)
    host.evaluate("dispatchEvent(new Event('online'))")  # as the browser does when the signal is back
    player.wait_for_function(PAUSED_JS)
    expect(kept(host)).to_be_hidden()
    first, again = bodies[-2], bodies[-1]
    key = re.search(r"idempotency_key=(\w+)", first).group(1)
    assert f"idempotency_key={key}" in again and "tapped_at_ms=" in again and "action=pause" in again


def test_r_clock_3_a_tap_whose_answer_on_the_line_was_lost_is_sent_by_http_and_applied_once(night, phone):  # noqa: F811
    """The tap went over the host's line and landed, its answer lost on the way back: the phone keeps
    it and sends it again by HTTP with its key; the first answer comes back (not "not applied" as
    stale), and the clock was paused once."""
    allow_offline_errors(phone)
    lose = {"next": False}
    replays = []

    def answers_can_be_lost(page):
        def line(socket):
            server = socket.connect_to_server()

            def back(message):
                if lose["next"]:
                    lose["next"] = False  # this answer never reaches the phone
                    return
                socket.send(message)
            server.on_message(back)
        page.route_web_socket(LINE, line)
        page.on("response", lambda response: replays.append(response.headers.get("idempotency-replayed"))
                if response.request.method == "POST" and CLOCK_POST.match(response.url) else None)

    host = open_host(phone, night, prepare=answers_can_be_lost)
    player = open_player(phone, night)
    host.wait_for_timeout(300)  # the line opens as the page starts
    tap(host, "Start")
    player.wait_for_function(RUNNING_JS)
    lose["next"] = True
    host.locator("#controls").get_by_role("button", name="Pause", exact=True).click()
    player.wait_for_function(PAUSED_JS)  # it landed: every phone heard it
    # no answer within the line's timeout (8 s): kept, as an unanswered POST is
    expect(kept(host).locator("[data-kept-count]")).to_contain_text("1 waiting to send", timeout=15_000)
    host.evaluate("dispatchEvent(new Event('online'))")  # sent now rather than at the next 15 s round
    expect(kept(host)).to_be_hidden()
    assert replays == ["true"]
    expect(host.locator("#controls .error")).to_have_count(0)
    expect(host.locator("#controls [data-main]")).to_have_text("Resume")
    with night.app.app_context():
        assert db.session.get(Event, night.id).clock_version == 2  # started, paused: once
        db.session.remove()
    axe(host, "the host's clock after a tap sent again by HTTP")
