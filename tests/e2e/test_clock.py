"""The live clock in real browsers (R-CLOCK-1..4): every phone shows the same second, host actions
reach every device at once, a dropped connection keeps counting and catches up, the big screen,
and the called clock.

Each simulated phone is its own browser context (its own connections, as on separate phones).
Expected values come from the THPA nightly template by hand: 15-minute levels 25/50, 50/100,
75/150, 100/200, then the 15-minute "Major break" (colour up the 25 chips), then 150/300 ...
No test asserts a wall-clock duration except the one-second reach of a pause (R-CLOCK-3).
"""
from __future__ import annotations

import contextlib
import dataclasses
import queue
import re
import threading
import time
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from blueprints.filters import chips, clock_time
from league import clock, structures
from services.models import Entry, Event, Member
from tests.e2e.conftest import seed_tonight
from wiring.extensions import db

DROP_AGENT = "ShuffleUpDroppedPhone"
SYNCED_JS = "() => window.shuffleupClock && shuffleupClock.rtt !== null"
CLOCK_JSON = re.compile(r".*/api/events/\d+/clock$")
# Where this device thinks the current item ends, on its own clock: equal on every device in sync.
END_JS = "() => { const v = shuffleupClock.view(); return v.at - shuffleupClock.offset + v.remaining_ms; }"


@pytest.fixture
def night(live_server):
    """Tonight's nightly game at the Rose & Crown, host Harry; 12 entries, 2 already out."""
    league_id, event_id, _ = seed_tonight(live_server.app)
    with live_server.app.app_context():
        for number in range(12):
            member = Member.named(league_id, f"Player {number + 1}")
            db.session.add(member)
            db.session.flush()
            out = number >= 10  # the last two out already, in 12th and 11th (R-PTS-5)
            db.session.add(Entry(event_id=event_id, member_id=member.id, status="played" if out else "playing",
                                 position=22 - number if out else None))
        db.session.commit()
        db.session.remove()
    return SimpleNamespace(url=live_server.url, app=live_server.app, id=event_id,
                           player=f"{live_server.url}/events/{event_id}",
                           host=f"{live_server.url}/host/events/{event_id}",
                           screen=f"{live_server.url}/events/{event_id}/screen")


@pytest.fixture
def expected_errors(phone):
    """`expected_errors(pattern)`: a console error this test provokes on purpose (a dropped stream
    logs htmx:sseError and failed loads; a refused tap logs its 409)."""
    return phone.allow


def open_player(phone, night, skew_ms=0, **options):
    """A player's phone on the event page, its clock `skew_ms` off the server's, connected and synced."""
    page = phone(**options)
    if skew_ms:
        page.add_init_script(f"(() => {{ const now = Date.now; Date.now = () => now() + {skew_ms}; }})()")
    page.goto(night.player)
    expect(page.locator("[data-connection]")).to_have_text("Live")
    page.wait_for_function(SYNCED_JS)
    return page


def cut_feed(page):
    """No live stream and no polled clock for this phone from now on (requests already open stay)."""
    page.route("**/stream", lambda route: route.abort())
    page.route(CLOCK_JSON, lambda route: route.abort())


def open_host(phone, night, feed=True, prepare=None):
    """The host's phone: log in through the form and land on the event's controls; without `feed`,
    its live stream and polling never get through (a phone that lost the live feed); `prepare(page)`
    runs before the first page opens (listeners, routes)."""
    page = phone()
    if not feed:
        cut_feed(page)
    if prepare:
        prepare(page)
    page.goto(night.host)
    page.get_by_label("Username").fill("harry")
    page.get_by_label("Password").fill("pw-harry")
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(night.host)
    expect(page.locator("[data-connection]")).to_have_text("Live" if feed else "Reconnecting…")
    page.wait_for_function(SYNCED_JS)
    return page


def field(page, name):
    return page.locator(f"[data-field={name}]")


def text(page, name):
    return field(page, name).inner_text()


def seconds(shown):
    """'14:52' → 892."""
    minutes, secs = shown.split(":")
    return int(minutes) * 60 + int(secs)


def same_second(pages):
    """The time every page shows at one moment: read the first page before and after the others;
    if it didn't flip meanwhile, all must show the same."""
    for _ in range(10):
        first = text(pages[0], "time")
        others = [text(page, "time") for page in pages[1:]]
        if text(pages[0], "time") != first:
            continue  # it flipped while we read
        if others == [first] * len(others):
            return first
        # Read across a flip: a phone a few ms ahead may already show the next second, never more.
        assert all(abs(seconds(other.lstrip("+")) - seconds(first.lstrip("+"))) <= 1 for other in others), \
            f"{first} on one phone, {others} on the others"
    pytest.fail("the phones never showed the same second")


def wait_until_all(pages, name, wanted, budget_s=None, started=None):
    """Wait until every page's field reads `wanted`; with `budget_s`, fail if that takes longer
    than that from `started` (a time.monotonic(); by default now). Returns the time it took."""
    started = time.monotonic() if started is None else started
    for page in pages:
        left_ms = None if budget_s is None else max(1, (budget_s - (time.monotonic() - started)) * 1000)
        page.wait_for_function("([name, wanted]) => document.querySelector(`[data-field=${name}]`)"
                               ".textContent === wanted", arg=[name, wanted], timeout=left_ms, polling=20)
    return time.monotonic() - started


def tap(host, name):
    """The host taps a control; returns the clock's version once the host's screen shows the change."""
    before = host.evaluate("shuffleupClock.view().version")
    host.locator("#controls").get_by_role("button", name=name, exact=True).click()
    host.wait_for_function(f"shuffleupClock.view().version > {before}")
    return before + 1


class StreamCutter:
    """Ends the open live streams of phones whose user agent has DROP_AGENT, as a dropped wifi
    connection would, by wrapping the app's WSGI callable (new streams pass through untouched)."""

    def __init__(self, app):
        self.inner, self.cut = app.wsgi_app, threading.Event()
        app.wsgi_app = self

    def __call__(self, environ, start_response):
        body = self.inner(environ, start_response)
        if environ["PATH_INFO"].endswith("/stream") and DROP_AGENT in environ.get("HTTP_USER_AGENT", ""):
            return self._until_cut(body)
        return body

    def _until_cut(self, body):
        chunks: queue.Queue = queue.Queue()

        def pump():
            try:
                for chunk in body:
                    chunks.put(chunk)
                    if self.cut.is_set():
                        break
            finally:
                getattr(body, "close", lambda: None)()

        threading.Thread(target=pump, daemon=True).start()
        while not self.cut.is_set():
            with contextlib.suppress(queue.Empty):
                yield chunks.get(timeout=0.05)


def test_r_clock_1_3_every_phone_in_step_with_the_host(night, phone, screenshot):
    # Two players whose phone clocks are wrong by +42 s and -97 s, and the host.
    players = [open_player(phone, night, skew_ms=42_000), open_player(phone, night, skew_ms=-97_000)]
    host = open_host(phone, night)
    everyone = [*players, host]
    for page in everyone:
        expect(field(page, "state")).to_have_text("Not started")
        expect(field(page, "time")).to_have_text("15:00")
    assert abs(players[0].evaluate("shuffleupClock.offset") + 42_000) < 250
    assert abs(players[1].evaluate("shuffleupClock.offset") - 97_000) < 250
    assert all(page.evaluate("shuffleupClock.awake") for page in everyone), "the screen may sleep"

    # R-CLOCK-1/3: the host taps Start; every phone shows the same second.
    tap(host, "Start")
    for page in everyone:
        page.wait_for_function("shuffleupClock.view().running")
        expect(field(page, "state")).to_be_hidden()
    expect(field(players[0], "time")).not_to_have_text("15:00")
    same_second(everyone)
    ends = [page.evaluate(END_JS) - skew for page, skew in zip(everyone, (42_000, -97_000, 0))]
    assert max(ends) - min(ends) <= 100, f"the phones disagree by {max(ends) - min(ends)} ms"
    with night.app.test_client() as client:
        truth = client.get(f"/api/events/{night.id}/clock").get_json()
    assert abs(truth["server_time_ms"] + truth["remaining_ms"] - ends[2]) <= 100
    expect(field(players[0], "level")).to_have_text("Level 1")
    expect(field(players[0], "blinds")).to_have_text("25 / 50")
    expect(field(players[0], "next")).to_have_text("Next: 50 / 100")
    screenshot(players[0], "clock-player-running")
    screenshot(host, "clock-host-controls")

    # R-CLOCK-3: Pause reaches the other phones within a second, and their time stops.
    tapped = time.monotonic()
    host.locator("#controls").get_by_role("button", name="Pause", exact=True).click()
    took = wait_until_all(players, "state", "Paused", budget_s=1.0, started=tapped)
    assert took <= 1.0, f"the pause took {took:.2f} s to reach the players"
    expect(host.locator("#controls [data-main]")).to_have_text("Resume")
    stopped = same_second(everyone)
    players[0].wait_for_timeout(1500)
    assert [text(page, "time") for page in everyone] == [stopped] * 3
    assert not players[1].evaluate("shuffleupClock.view().running")
    expect(players[0].locator(".clock")).to_have_class(re.compile(r"\bis-paused\b"))
    screenshot(players[0], "clock-player-paused")

    # +1 min, Next level, Previous level, Jump: the players follow.
    tap(host, "+1 min")
    plus = f"{(seconds(stopped) + 60) // 60}:{(seconds(stopped) + 60) % 60:02d}"
    wait_until_all(everyone, "time", plus)
    tap(host, "Next level")
    wait_until_all(everyone, "level", "Level 2")
    for page in everyone:
        expect(field(page, "blinds")).to_have_text("50 / 100")
        expect(field(page, "time")).to_have_text("15:00")
        expect(field(page, "next")).to_have_text("Next: 75 / 150")
    tap(host, "Previous level")
    wait_until_all(everyone, "level", "Level 1")
    expect(field(players[1], "blinds")).to_have_text("25 / 50")
    host.locator("#controls select[name=index]").select_option(label="5. Major break (15 min)")
    tap(host, "Jump")
    wait_until_all(everyone, "level", "Major break")
    for page in players:
        expect(page.locator(".clock")).to_have_class(re.compile(r"\bis-break\b"))
        expect(field(page, "blinds")).to_have_text("Then 150 / 300")
        expect(field(page, "colour-up")).to_have_text("Colour up the 25 chips")
        expect(field(page, "next")).to_have_text("Next: 150 / 300")
        expect(field(page, "to-break")).to_have_text("1:15:00")
    tap(host, "Resume")
    wait_until_all(players, "state", "")
    screenshot(players[1], "clock-player-break")
    # The host's form carries the newest version, so the next tap is not refused as stale.
    version = host.evaluate("shuffleupClock.view().version")
    assert host.locator("#controls input[name=version]").input_value() == str(version) == "7"
    assert host.locator("#controls select[name=index]").input_value() == "5"


def test_r_clock_1_a_structure_changed_behind_a_phones_back_reaches_it(night, phone):
    """R-CLOCK-1/3: a tap's message carries the state and the structure's digest only. A phone whose
    structure is another (changed by another process, or while it was away) asks for the whole clock
    and shows the new levels; the prize ladder and the field's figures come with every message."""
    host = open_host(phone, night)
    player = open_player(phone, night)
    tap(host, "Start")
    player.wait_for_function("shuffleupClock.view().running")
    with night.app.app_context():
        event = db.session.get(Event, night.id)
        event.structure = [{**item, "minutes": 25} if index == 0 else item
                           for index, item in enumerate(structures.to_json(structures.TEMPLATES["thpa_nightly"][1]))]
        db.session.commit()
        db.session.remove()
    assert player.evaluate("document.querySelector('[data-clock]')._clock.structure[0].minutes") == 15
    tap(host, "Pause")
    player.wait_for_function("document.querySelector('[data-clock]')._clock.structure[0].minutes === 25")
    player.wait_for_function("!shuffleupClock.view().running")
    assert 24 * 60 < seconds(text(player, "time")) <= 25 * 60
    expect(field(player, "players")).to_have_text("10")


def test_r_clock_1_big_screen(night, phone, screenshot):
    tv = phone(viewport={"width": 1280, "height": 720}, device_scale_factor=1, is_mobile=False, has_touch=False)
    tv.goto(night.screen)
    expect(tv.locator("[data-connection]")).to_have_text("Live")
    expect(field(tv, "time")).to_have_text("15:00")
    expect(field(tv, "level")).to_have_text("Level 1")
    expect(field(tv, "blinds")).to_have_text("25 / 50")
    expect(field(tv, "next")).to_have_text("Next: 50 / 100")
    expect(field(tv, "players")).to_have_text("10")
    expect(field(tv, "average")).to_have_text("12,000")  # 12 × 10,000 in play, 10 left
    expect(field(tv, "to-break")).to_have_text("1:00:00")
    screenshot(tv, "clock-screen-tv")
    digits = field(tv, "time").bounding_box()
    assert digits["height"] >= 720 * 0.25, f"the digits are only {digits['height']} px tall on a 720 px screen"
    assert tv.evaluate("document.documentElement.scrollHeight <= innerHeight"), "the big screen scrolls"
    tv.set_viewport_size({"width": 390, "height": 844})
    assert tv.evaluate("document.documentElement.scrollWidth <= 390")


def test_r_clock_3_a_dropped_phone_keeps_counting_and_catches_up(night, phone, expected_errors):
    expected_errors(r"\[object Event\] \(\S+/htmx-2\.0\.11\.min\.js\)")  # htmx logs the sseError
    expected_errors(r"Failed to load resource: net::ERR_(FAILED|INTERNET_DISCONNECTED)")
    cutter = StreamCutter(night.app)
    host = open_host(phone, night)
    player = open_player(phone, night, user_agent=DROP_AGENT)
    tap(host, "Start")
    player.wait_for_function("shuffleupClock.view().running")

    # The wifi drops: no stream, no polling either for now.
    cut_feed(player)
    cutter.cut.set()
    expect(player.locator("[data-connection]")).to_have_text("Reconnecting…")
    before = text(player, "time")
    expect(field(player, "time")).not_to_have_text(before)  # still counting
    expect(player.locator("[data-connection]")).to_have_text("Reconnecting…")
    changed = tap(host, "+1 min")
    assert player.evaluate("shuffleupClock.view().version") < changed

    # Polling (every 5 s while the stream is down) brings the change before the stream is back.
    player.unroute(CLOCK_JSON)
    player.wait_for_function(f"shuffleupClock.view().version >= {changed}", timeout=20_000)
    expect(player.locator("[data-connection]")).to_have_text("Reconnecting…")
    assert abs(player.evaluate(END_JS) - host.evaluate(END_JS)) <= 100

    # A change while still down, then the stream is back: Live, and caught up.
    tap(host, "Next level")
    player.context.set_offline(True)
    expect(player.locator("[data-connection]")).to_have_text("Offline")
    player.context.set_offline(False)
    cutter.cut.clear()
    player.unroute("**/stream")
    expect(player.locator("[data-connection]")).to_have_text("Live", timeout=40_000)
    expect(field(player, "level")).to_have_text("Level 2")
    expect(field(player, "blinds")).to_have_text("50 / 100")
    same_second([player, host])


def test_r_clock_4_call_the_clock_on_every_screen(night, phone, screenshot):
    player = open_player(phone, night)
    host = open_host(phone, night)
    expect(field(player, "shot-box")).to_be_hidden()
    tap(host, "Start")
    host.get_by_label("Seat").fill("T2 S5")
    tap(host, "Call the clock")
    banner = field(player, "shot-box")
    expect(banner).to_be_visible()
    expect(field(player, "shot-seat")).to_have_text("Clock called on T2 S5")
    expect(field(player, "shot-note")).to_have_text("seconds")
    first = int(text(player, "shot"))
    assert 60 <= first <= 70
    expect(field(player, "shot")).not_to_have_text(str(first))  # counting down
    assert int(text(player, "shot")) < first
    assert player.evaluate("document.querySelector('[data-field=shot-box]').dataset.phase") == "running"
    expect(field(host, "shot-box")).to_be_visible()
    screenshot(player, "clock-player-called")
    screenshot(host, "clock-host-called")
    # The phases, as shot_view() gives them (THPA: warning at 40 left, count of the last 10).
    phases = player.evaluate("""() => [29999, 30000, 59999, 60000, 69999, 70000].map(ms =>
        shuffleupClock.shotView({started_ms: 0, length_s: 70, seat: ''}, ms).phase)""")
    assert phases == ["running", "warning", "warning", "count", "count", "expired"]
    tv = phone(viewport={"width": 1280, "height": 720}, device_scale_factor=1, is_mobile=False, has_touch=False)
    tv.goto(night.screen)
    expect(field(tv, "shot-seat")).to_have_text("Clock called on T2 S5")
    screenshot(tv, "clock-screen-called")
    assert tv.evaluate("document.documentElement.scrollHeight <= innerHeight"), "the big screen scrolls"
    host.get_by_role("button", name="Stop the called clock").click()
    expect(banner).to_be_hidden()
    expect(host.get_by_label("Seat")).to_be_visible()


def test_r_clock_1_overtime_after_the_last_level(night, phone, screenshot):
    """Past the end of the last level the clock counts up: "+m:ss"."""
    with night.app.app_context():
        event = db.session.get(Event, night.id)
        event.clock_index, event.clock_item_elapsed_ms = 14, 15 * 60_000 + 83_000  # level 13, 1:23 over
        event.clock_running_since_ms, event.clock_started, event.clock_version = int(time.time() * 1000), True, 9
        db.session.commit()
        db.session.remove()
    player = open_player(phone, night)
    expect(field(player, "level")).to_have_text("Level 13")
    expect(field(player, "blinds")).to_have_text("3,000 / 6,000")
    expect(field(player, "ante")).to_have_text("ante 6,000")
    expect(field(player, "next")).to_have_text("Last level")
    expect(field(player, "to-break")).to_have_text("–")
    expect(player.locator(".clock")).to_have_class(re.compile(r"\bis-overtime\b"))
    expect(field(player, "state")).to_have_text("Overtime")
    first = text(player, "time")
    assert re.fullmatch(r"\+1:2\d", first), first
    expect(field(player, "time")).not_to_have_text(first)
    assert seconds(text(player, "time")[1:]) > seconds(first[1:])  # counting up
    screenshot(player, "clock-player-overtime")


def test_r_clock_3_a_stale_tap_is_refused_and_says_so(night, phone, expected_errors):
    expected_errors(r"status of 409")
    expected_errors(r"\[object Event\] \(\S+/htmx-2\.0\.11\.min\.js\)")  # htmx logs the sseError
    expected_errors(r"Failed to load resource: net::ERR_FAILED")
    first = open_host(phone, night)
    # The second host's phone has lost the live feed, so it will still show version 0.
    second = open_host(phone, night, feed=False)
    tap(first, "Start")
    expect(first.locator("#controls [data-main]")).to_have_text("Pause")
    tap(second, "Next level")
    expect(second.locator("#controls .error")).to_have_text(
        "The clock changed on another screen; here it is now. Tap again if needed.")
    expect(second.locator("#controls [data-main]")).to_have_text("Pause")
    expect(field(second, "level")).to_have_text("Level 1")  # nothing changed
    tap(second, "Next level")  # now it has the current version
    expect(field(second, "level")).to_have_text("Level 2")
    expect(second.locator("#controls .error")).to_have_count(0)
    expect(field(first, "level")).to_have_text("Level 2")
    # The first host's form followed through the stream: its next tap is accepted.
    tap(first, "Pause")
    expect(first.locator("#controls [data-main]")).to_have_text("Resume")
    expect(first.locator("#controls .error")).to_have_count(0)


CLOCK_POST = re.compile(r".*/host/events/\d+/clock$")
LINE = re.compile(r".*/host/events/\d+/clock/line$")


def clock_posts(page) -> list[str]:
    """The clock taps this page sends as POSTs, from now on (the host's line sends none)."""
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url)
            if request.method == "POST" and CLOCK_POST.match(request.url) else None)
    return posts


def line_frames(page) -> list[str]:
    """The text frames this page sends over the host's line, from now on."""
    frames: list[str] = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda frame: frames.append(frame)) if LINE.match(socket.url) else None)
    return frames


def test_r_clock_3_the_hosts_taps_go_over_the_line_and_reach_every_phone(night, phone):
    player = open_player(phone, night)
    sent = {}
    host = open_host(phone, night, prepare=lambda page: sent.update(posts=clock_posts(page), frames=line_frames(page)))
    posts, frames = sent["posts"], sent["frames"]
    host.wait_for_timeout(300)  # the line opens as the page starts
    tap(host, "Start")
    tap(host, "Next level")
    expect(field(player, "level")).to_have_text("Level 2")
    tap(host, "Pause")
    expect(field(player, "state")).to_contain_text("Paused", ignore_case=True)
    expect(host.locator("#controls [data-main]")).to_have_text("Resume")
    # the line's answer is the phones' message: the controls follow it (the called clock's rows, the
    # seat typed for it cleared, the version the next tap carries)
    host.locator("#controls input[name=seat]").fill("T2 S5")
    tap(host, "Call the clock")
    expect(host.locator("#controls [data-shot-on]")).to_be_visible()
    expect(host.locator("#controls [data-shot-off]")).to_be_hidden()
    assert host.locator("#controls input[name=seat]").input_value() == ""
    tap(host, "Stop the called clock")
    expect(host.locator("#controls [data-shot-off]")).to_be_visible()
    expect(host.locator("#controls input[name=version]")).to_have_value("5")
    assert posts == [], f"taps went as POSTs while the line was open: {posts}"
    assert [dict(pair.split("=", 1) for pair in frame.split("&"))["action"] for frame in frames] == \
        ["start", "next", "pause", "shot", "shot_off"]


def test_r_clock_3_without_the_line_the_taps_post_as_before(night, phone):
    """A proxy that refuses the WebSocket (or a line that keeps dropping): every tap still works, by POST."""
    sent = {}

    def without_the_line(page):
        page.route_web_socket(LINE, lambda socket: socket.close())
        sent["posts"] = clock_posts(page)

    host = open_host(phone, night, prepare=without_the_line)
    posts = sent["posts"]
    player = open_player(phone, night)
    tap(host, "Start")
    tap(host, "Next level")
    expect(field(player, "level")).to_have_text("Level 2")
    assert len(posts) == 2


def test_r_clock_3_a_host_logged_out_elsewhere_is_told_at_the_next_tap(night, phone):
    host = open_host(phone, night)
    host.wait_for_timeout(300)  # the line opens as the page starts
    tap(host, "Start")
    # The same login ends on another phone: its session token rotates, so this screen's login is over.
    other = open_host(phone, night)
    other.get_by_role("button", name="Log out").click()
    host.locator("#controls").get_by_role("button", name="Pause", exact=True).click()
    expect(host.locator("#controls .error")).to_have_text("You are no longer logged in to run this night: log in again.")
    expect(host.locator("#controls [data-main]")).to_have_text("Pause")  # nothing changed
    with night.app.app_context():
        assert db.session.get(Event, night.id).clock_running_since_ms is not None
        db.session.remove()


def test_host_controls_fit_one_hand_and_a_320_pixel_phone(night, phone, screenshot):
    host = open_host(phone, night)
    main = host.locator("#controls [data-main]").bounding_box()
    assert main["height"] >= 56
    grid = host.locator("#controls .control-grid button")
    boxes = [grid.nth(i).bounding_box() for i in range(4)]
    assert all(box["height"] >= 48 for box in boxes)
    assert boxes[0]["y"] == boxes[1]["y"] < boxes[2]["y"] == boxes[3]["y"], "not a 2×2 grid"
    for box in [main, *boxes]:  # in the bottom half of a 390×844 screen, under the thumb
        assert box["y"] >= 844 / 2 and box["y"] + box["height"] <= 844
    for control in host.locator("#controls :is(button, select, input):visible, [data-sound]").all():
        assert control.bounding_box()["height"] >= 48
    for page in (host, open_player(phone, night, viewport={"width": 320, "height": 640})):
        page.set_viewport_size({"width": 320, "height": 640})
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 320, f"{page.url} scrolls sideways: {width}px wide on a 320px screen"
    screenshot(host, "clock-host-320px")


def test_r_clock_2_sound_and_vibration_once_tapped(night, phone):
    """Level change, break and a called clock beep and buzz, only after the player turned sound on."""
    player = phone()
    player.add_init_script("""(() => {
        window.buzzes = [];
        navigator.vibrate = pattern => (buzzes.push(pattern.join(",")), true);
        const make = AudioContext.prototype.createOscillator;
        window.notes = 0;
        AudioContext.prototype.createOscillator = function () { notes++; return make.call(this); };
    })()""")
    player.goto(night.player)
    expect(player.locator("[data-connection]")).to_have_text("Live")
    host = open_host(phone, night)
    sound = player.locator("[data-sound]")
    expect(sound).to_have_attribute("aria-pressed", "false")
    expect(sound).to_have_text("Sound off: tap to turn on")
    tap(host, "Start")
    player.wait_for_function("shuffleupClock.view().version === 1")
    tap(host, "Next level")
    expect(field(player, "level")).to_have_text("Level 2")
    assert player.evaluate("[buzzes, notes]") == [[], 0], "alerts before the player turned sound on"

    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "true")
    expect(sound).to_have_text("Sound on")
    player.wait_for_function("shuffleupClock.audio === 'running' && buzzes.length === 1")  # a test beep
    tap(host, "Next level")  # level 3: up-beat triple
    player.wait_for_function("buzzes.length === 2")
    host.locator("#controls select[name=index]").select_option(label="5. Major break (15 min)")
    tap(host, "Jump")  # the break: down-beat triple
    player.wait_for_function("buzzes.length === 3")
    tap(host, "Call the clock")
    player.wait_for_function("buzzes.length === 4")
    assert player.evaluate("buzzes.slice(1)") == [
        "150,80,150,80,350,80", "250,80,250,80,450,80", "300,80,300,80"]
    assert player.evaluate("notes") >= 2 + 3 + 3 + 2
    player.reload()
    expect(player.locator("[data-sound]")).to_have_text("Sound on")  # remembered on this phone
    expect(player.locator("[data-sound]")).to_have_attribute("aria-pressed", "true")


def test_r_clock_2_one_minute_warning(night, phone):
    """Sound left on from an earlier night: a double beep when the level has one minute left."""
    with night.app.app_context():
        event = db.session.get(Event, night.id)
        event.clock_item_elapsed_ms, event.clock_running_since_ms = 15 * 60_000 - 65_000, int(time.time() * 1000)
        event.clock_started, event.clock_version = True, 1
        db.session.commit()
        db.session.remove()
    player = phone()
    player.add_init_script("""localStorage.setItem("shuffleup-sound", "1"); window.buzzes = [];
        navigator.vibrate = pattern => (buzzes.push(pattern.join(",")), true);""")
    player.goto(night.player)
    expect(player.locator("[data-sound]")).to_have_text("Sound on")
    assert seconds(text(player, "time")) > 60
    player.wait_for_function("buzzes.length > 0")
    assert player.evaluate("buzzes") == ["180,80,180,80"]
    assert seconds(text(player, "time")) <= 60


def test_the_script_derives_what_league_clock_derives(night, phone):
    """The JS port of view(), shot_view() and the Jinja filters, against the Python, state by state."""
    page = open_player(phone, night)
    shapes = [structures.TEMPLATES["thpa_nightly"][1], structures.TEMPLATES["monthly_final"][1],
              (structures.Level(1, 10, 20), structures.Break(2, "Short", "Colour up"), structures.Level(1, 20, 40, 40))]
    cases, expected = [], []
    for shape in shapes:
        total = sum(item.duration_ms for item in shape)
        for index in range(-1, len(shape) + 1, 2):
            for elapsed in (-3_600_000, -1, 0, 1, 59_999, 60_000, 899_999, 900_000, total):
                for running_since in (None, 1_000_000, 1_000_000 + 7 * 60_000 + 1):
                    state = clock.ClockState(index, elapsed, running_since, running_since is not None, 3)
                    for now in (1_000_000 + 7 * 60_000, 1_000_000 + total + 61_001):
                        view = dataclasses.asdict(clock.view(shape, state, now))
                        for key in ("item_duration_ms", "is_major_break", "registration_open", "play_elapsed_ms"):
                            del view[key]
                        data = {"version": 3, "structure": structures.to_json(shape),
                                "state": {"index": index, "item_elapsed_ms": elapsed,
                                          "running_since_ms": running_since, "started": state.started}}
                        cases.append([data, now])
                        view["at"] = view.pop("at_ms")
                        expected.append(view)
    derived = page.evaluate("cases => cases.map(([d, at]) => shuffleupClock.derive(d, at))", cases)
    for got, want, case in zip(derived, expected, cases):
        assert got == want, case

    times = [0, 1, 999, 1000, 1001, 59_999, 60_000, 61_000, 3_599_999, 3_600_000, 3_600_001, 36_000_000, -5]
    assert page.evaluate("ms => ms.map(shuffleupClock.clockTime)", times) == [clock_time(ms) for ms in times]
    amounts = [0, 25, 999, 1000, 12_000, 1_234_567, None]
    assert page.evaluate("ns => ns.map(shuffleupClock.chips)", amounts) == [chips(n) for n in amounts]
    moments = list(range(-1000, 75_000, 997)) + [30_000, 40_000, 60_000, 70_000]
    shots = page.evaluate("ms => ms.map(at => shuffleupClock.shotView({started_ms: 0, length_s: 70}, at))",
                          moments)
    for got, at in zip(shots, moments):
        want = clock.shot_view(0, at)
        assert (got["remaining_ms"], got["phase"]) == (want.remaining_ms, want.phase), at


def test_only_the_hosts_page_downloads_the_hosts_controls(night, phone):
    """The host's clock controls (static/host/controls.js: the controls kept in step, the host's line)
    are a module of their own: a player's phone and the big screen download clock.js alone, the
    host's night page both."""
    def scripts(page):
        loaded = []
        page.on("request", lambda request: loaded.append(request.url.partition("?")[0].removeprefix(night.url))
                if request.resource_type == "script" else None)
        return loaded

    for url in (night.player, night.screen):
        page = phone()
        loaded = scripts(page)
        page.goto(url)
        expect(page.locator("[data-connection]")).to_have_text("Live")
        assert "/static/js/clock.js" in loaded and not [path for path in loaded if "/host/" in path], (url, loaded)
    host_loaded = []
    open_host(phone, night, prepare=lambda page: host_loaded.append(scripts(page)))
    assert {"/static/js/clock.js", "/static/host/controls.js"} <= set(host_loaded[0]), host_loaded


def test_the_player_page_is_light(night, phone):
    """The player page's first load (its page, styles and scripts; the worker's in test_pwa.py)
    stays within 25,000 B compressed (the pub's wifi, a phone's data), and no htmx on it."""
    import gzip
    page = phone()
    sizes = {}
    page.on("response", lambda response: sizes.__setitem__(response.url, len(gzip.compress(response.body(), 9)))
            if not response.url.endswith("/stream") and response.request.resource_type != "fetch" else None)
    page.goto(night.player)
    expect(page.locator("[data-connection]")).to_have_text("Live")
    names = {url.partition("?")[0].rsplit("/", 1)[-1] for url in sizes}  # static URLs carry their hash
    assert names >= {str(night.id), "app.css", "clock.js", "app.js"}
    assert not [name for name in names if "htmx" in name], names
    assert sum(sizes.values()) <= 25_000, sizes
