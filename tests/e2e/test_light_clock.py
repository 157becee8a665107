"""The player's clock page on one bar of signal (R-CLOCK-1..3, R-SEAT-2): no htmx on it, yet the
host's pause, resume and level changes and a seat move reach the phone over the stream; and at
50 kbit/s with 800 ms of latency (Chromium's own network emulation) the server-rendered level,
blinds and time left are on screen within 4 s of the page's first byte, before any script.

The 4 s is measured by the browser itself (Element Timing's render time against the navigation's
responseStart), under emulated network conditions that dwarf this machine's own speed.
"""
from __future__ import annotations

from itsdangerous import URLSafeSerializer
from playwright.sync_api import expect

from blueprints.filters import chips, clock_time
from blueprints.play.member_cookie import COOKIE
from live.announce import announce
from live.payload import clock_payload
from services import clocks
from services.models import Entry, Event, Member
from tests.e2e.conftest import check_fits, seed_tonight
from tests.e2e.test_clock import SYNCED_JS, open_host, tap
from wiring.extensions import db

SLOW = {"offline": False, "latency": 800, "downloadThroughput": 50_000 / 8, "uploadThroughput": 50_000 / 8}
READABLE_MS = 4000
FIELDS = ("level", "blinds", "time")
# Marks the three fields for Element Timing as the parser inserts them (before their first paint),
# and keeps each one's first render time and the text it was rendered with. Chromium reports text
# for the block that holds it: the field, or its paragraph for an inline one (the blinds).
TIME_PAINTS = """(() => {
  window.painted = {};
  new PerformanceObserver(list => {
    for (const entry of list.getEntries()) {
      const field = entry.element?.matches("[data-field]") ? entry.element
        : entry.element?.querySelector(`[data-field=${entry.identifier}]`);
      if (!painted[entry.identifier] || entry.renderTime < painted[entry.identifier].at) {
        painted[entry.identifier] = { at: entry.renderTime, text: field?.textContent };
      }
    }
  }).observe({ type: "element", buffered: true });
  new MutationObserver(() => {
    for (const field of document.querySelectorAll("[data-field=level], [data-field=blinds], [data-field=time]")) {
      for (const marked of field.tagName === "SPAN" ? [field, field.parentElement] : [field]) {
        if (!marked.hasAttribute("elementtiming")) marked.setAttribute("elementtiming", field.dataset.field);
      }
    }
  }).observe(document, { childList: true, subtree: true });
})()"""
# When each response ended, by the file's name (Resource Timing), and the page's first byte.
TIMING_JS = """() => ({
  first_byte: performance.getEntriesByType("navigation")[0].responseStart,
  ended: Object.fromEntries(performance.getEntriesByType("resource")
    .map(r => [new URL(r.name).pathname.split("/").pop(), r.responseEnd])),
})"""


def no_htmx(page):
    """Nothing of htmx on the page: not loaded, not asked for, no hx- or sse- attribute to act on."""
    assert page.evaluate("typeof window.htmx") == "undefined"
    assert page.evaluate("document.querySelectorAll('[hx-get], [hx-post], [hx-trigger], [sse-connect], [sse-swap]').length") == 0


def seed_seated(app, event_id, league_id):
    """Ann (with her member card on the phone: the cookie) at table 1, seat 3, and seven others at
    tables 1 and 2: (cookie, Ann's entry id)."""
    with app.app_context():
        ann = Member.named(league_id, "Ann Lee")
        db.session.add(ann)
        db.session.flush()
        mine = Entry(event_id=event_id, member_id=ann.id, status="playing", table_no=1, seat_no=3)
        db.session.add(mine)
        for number in range(7):
            member = Member.named(league_id, f"Player {number + 1}")
            db.session.add(member)
            db.session.flush()
            db.session.add(Entry(event_id=event_id, member_id=member.id, status="playing",
                                 table_no=1 + number % 2, seat_no=4 + number // 2))
        db.session.commit()
        cookie = URLSafeSerializer("test-secret", salt="member-cookie").dumps([ann.id, ann.cookie_secret])
        found = (cookie, mine.id)
        db.session.remove()
    return found


def move(app, entry_id, table, seat):
    """The host's balancing move as any host action writes it: the version moves on, the seat
    changes, one commit, then every screen hears of it."""
    with app.app_context(), app.test_request_context():
        entry = db.session.get(Entry, entry_id)
        event = db.session.get(Event, entry.event_id)
        clocks.touch(event)
        entry.table_no, entry.seat_no = table, seat
        db.session.commit()
        announce(event)
        db.session.remove()


def test_r_clock_3_r_seat_2_live_updates_reach_the_players_page_without_htmx(live_server, phone, screenshot):
    league_id, event_id, _ = seed_tonight(live_server.app)
    cookie, ann_entry = seed_seated(live_server.app, event_id, league_id)
    base = live_server.url
    requested = []
    ann = phone()
    ann.on("request", lambda request: requested.append(request.url))
    ann.add_init_script("""(() => {
      window.buzzes = [];
      navigator.vibrate = pattern => (buzzes.push(pattern.join(",")), true);
    })()""")
    ann.context.add_cookies([{"name": COOKIE, "value": cookie, "url": base, "httpOnly": True}])
    ann.goto(f"{base}/events/{event_id}")
    expect(ann.locator("[data-connection]")).to_have_text("Live")
    ann.wait_for_function(SYNCED_JS)
    me = ann.locator("[data-me]")
    expect(me.locator(".seat")).to_have_text("Table 1, seat 3")
    no_htmx(ann)
    field = lambda name: ann.locator(f"[data-field={name}]")  # noqa: E731
    expect(field("state")).to_have_text("Not started")

    night = type("Night", (), {"host": f"{base}/host/events/{event_id}"})
    host = open_host(phone, night)
    tap(host, "Start")
    expect(field("state")).to_be_hidden()
    expect(field("time")).not_to_have_text("15:00")
    tap(host, "Pause")
    expect(field("state")).to_have_text("Paused")
    paused = field("time").inner_text()
    ann.wait_for_timeout(1500)
    expect(field("time")).to_have_text(paused)  # stopped, on the phone's own tick too
    screenshot(ann, "light-clock-paused")
    tap(host, "Resume")
    expect(field("state")).to_be_hidden()
    expect(field("time")).not_to_have_text(paused)
    tap(host, "Next level")
    expect(field("level")).to_have_text("Level 2")
    expect(field("blinds")).to_have_text("50 / 100")
    expect(field("next")).to_have_text("Next: 75 / 150")

    # R-SEAT-2: the host moves her; the stream's seat digest tells her phone, which asks for her entry.
    move(live_server.app, ann_entry, 2, 1)
    alert = me.get_by_role("alert")
    expect(alert).to_contain_text("You moved: Table 2, Seat 1")
    expect(alert).to_contain_text("Take your chips to table 2, seat 1.")
    expect(me.locator(".seat")).to_have_text("Table 2, seat 1")
    ann.wait_for_function("buzzes.length === 1")  # the move buzzes even with the sound off
    screenshot(ann, "light-clock-you-moved")
    check_fits(ann, 390)
    alert.get_by_role("button", name="Got it").click()
    expect(alert).to_have_count(0)
    expect(me.locator(".seat")).to_have_text("Table 2, seat 1")
    no_htmx(ann)
    assert not [url for url in requested if "htmx" in url], requested
    assert ann.evaluate("buzzes.length") == 1


def test_r_clock_1_readable_at_50_kbits_within_4_s_of_the_first_byte(live_server, phone, screenshot):
    league_id, event_id, _ = seed_tonight(live_server.app)
    seed_seated(live_server.app, event_id, league_id)
    with live_server.app.app_context():
        event = db.session.get(Event, event_id)
        event.clock_started, event.clock_running_since_ms, event.clock_version = True, None, 2
        event.clock_item_elapsed_ms = 4 * 60_000 + 17_000  # paused at 10:43 left in level 1
        db.session.commit()
        clock = clock_payload(event)
        db.session.remove()
    want = {"level": f"Level {clock['level']}", "time": clock_time(clock["remaining_ms"]),
            "blinds": f"{chips(clock['small_blind'])} / {chips(clock['big_blind'])}"}
    assert want == {"level": "Level 1", "time": "10:43", "blinds": "25 / 50"}

    page = phone()
    page.add_init_script(TIME_PAINTS)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", SLOW)
    page.goto(f"{live_server.url}/events/{event_id}", wait_until="commit")
    page.wait_for_function("() => ['level', 'blinds', 'time'].every(name => name in painted)", timeout=20_000)
    screenshot(page, "light-clock-first-paint-50kbits")  # as soon as it is readable: before the scripts
    painted = page.evaluate("painted")
    timing = page.evaluate(TIMING_JS)
    for name in FIELDS:
        assert painted[name]["text"] == want[name], (name, painted)
        readable = painted[name]["at"] - timing["first_byte"]
        print(f"\n{name} {want[name]!r} readable {readable:.0f} ms after the first byte")
        assert readable <= READABLE_MS, f"{name} readable {readable:.0f} ms after the first byte: {painted}"
        # Server-rendered: on screen before the clock's script (or any other) had arrived.
        assert all(painted[name]["at"] < ended for script, ended in timing["ended"].items()
                   if script.endswith(".js") and ended), (name, painted, timing)
    # Its first paint's styles came with the page; app.css is linked after the clock, at the end.
    assert page.locator("head style").count() == 1 and page.locator("head link[rel=stylesheet]").count() == 0
    for name in FIELDS:  # big enough to read on a phone, on screen without scrolling
        box = page.locator(f"[data-field={name}]").bounding_box()
        assert box["y"] + box["height"] <= 844 and box["height"] >= 16, (name, box)

    # The scripts arrive in the end: the clock goes live and still shows the same.
    expect(page.locator("[data-connection]")).to_have_text("Live", timeout=30_000)
    for name in FIELDS:
        expect(page.locator(f"[data-field={name}]")).to_have_text(want[name])
    expect(page.locator("[data-field=state]")).to_have_text("Paused")
    screenshot(page, "light-clock-live-50kbits")
