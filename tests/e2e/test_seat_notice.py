"""A player's phone shows their table and seat and tells them when they move
(R-SEAT-1..4), and the host's roster follows the event's clock stream instead of polling (R-MEM-1).

The phone refetches its own entry when its bucket of the stream's seat digest changes (clock.js
dispatches `seats` on it); the fallback poll is a minute away from the last swap of the fragment,
so an alert within the default 10 s wait came from the stream. Every phone is its own context.
"""
from __future__ import annotations

from playwright.sync_api import expect

from live.announce import announce
from services import seats as seating
from services.models import Entry, Event, Member
from tests.e2e.conftest import axe, check_fits, join_and_check_in, seed_tonight
from tests.fixtures.roster import host_action
from wiring.extensions import db

# What the phone did: buzzes (navigator.vibrate), notes played, and the `seats` refetches clock.js asked for.
RECORD_PHONE = """(() => {
  window.buzzes = [];
  navigator.vibrate = pattern => (buzzes.push(pattern.join(",")), true);
  const make = AudioContext.prototype.createOscillator;
  window.notes = 0;
  AudioContext.prototype.createOscillator = function () { notes++; return make.call(this); };
  window.seatFetches = 0;
  document.addEventListener("seats", () => seatFetches++);
})()"""
# Every clock message the host's page receives, whoever listens to it.
RECORD_STREAM = """(() => {
  window.clockMessages = 0;
  const Source = window.EventSource;
  window.EventSource = class extends Source {
    constructor(url, options) { super(url, options); this.addEventListener("clock", () => clockMessages++); }
  };
})()"""
LEVEL_BUZZ = "150,80,150,80,350,80"  # clock.js's level-change tones, as vibration


def seed_players(app, event_id, league_id, names):
    """Players already in the game (confirmed, not seated)."""
    with app.app_context():
        for name in names:
            member = Member.named(league_id, name)
            db.session.add(member)
            db.session.flush()
            db.session.add(Entry(event_id=event_id, member_id=member.id, status="playing"))
        db.session.commit()
        db.session.remove()


def seats(app, event_id):
    """{name: (table, seat)} of the players in the game."""
    with app.app_context():
        found = {e.member.name: (e.table_no, e.seat_no) for e in db.session.scalars(
            db.select(Entry).where(Entry.event_id == event_id, Entry.status == "playing"))}
        db.session.remove()
    return found


def check_thumb(button):
    """One hand, a dark room: the alert's button is a big target (the page's own links are the
    clock page's business)."""
    box = button.bounding_box()
    assert box["height"] >= 48 and box["width"] >= 200, box


def check_in(page, base, code, name):
    join_and_check_in(page, base, code, name)
    expect(page.locator("main")).to_contain_text("will confirm")


def open_roster(phone, base, event_id):
    host = phone()
    host.add_init_script(RECORD_STREAM)
    host.goto(f"{base}/host/events/{event_id}/players")
    host.get_by_label("Username").fill("harry")
    host.get_by_label("Password").fill("pw-harry")
    host.get_by_role("button", name="Log in").click()
    expect(host.locator("[data-roster-stream] .connection")).to_have_text("Live")
    return host


def ann_at_the_tables(live_server, phone, players: int):
    """Tonight with `players` seeded and Ann checked in from her own phone, on the clock page and
    live; the host's roster open, Ann confirmed and the seats drawn:
    (event id, Ann's page, her [data-me] part, the host's page, the roster)."""
    league_id, event_id, code = seed_tonight(live_server.app)
    base = live_server.url
    seed_players(live_server.app, event_id, league_id, [f"Player {n:02d}" for n in range(players)])
    ann = phone()
    check_in(ann, base, code, "Ann Lee")
    ann.goto(f"{base}/events/{event_id}")
    me = ann.locator("[data-me]")
    expect(ann.locator("[data-connection]")).to_have_text("Live")
    host = open_roster(phone, base, event_id)
    roster = host.locator("#players")
    roster.get_by_role("button", name="Confirm").click()
    expect(roster.locator(".flash")).to_have_text("Confirmed Ann Lee")
    roster.get_by_role("button", name="Draw seats").click()
    expect(roster.locator(".flash")).to_have_text("Seats drawn")
    expect(me.get_by_role("alert")).to_contain_text("Your seat")  # her phone has heard of the draw
    return event_id, ann, me, host, roster


def test_r_seat_a_players_phone_shows_their_seat_and_their_move(live_server, phone, screenshot):
    league_id, event_id, code = seed_tonight(live_server.app)
    base = live_server.url
    # A fixed draw: a bucket's three hex digits stay the same for one change in 4,096 (then the phone
    # waits for its minute poll), and a test must not pass or fail by that chance.
    live_server.app.config["SEAT_RNG_SEED"] = 2026
    # 14 in all: two tables of 7; two out at one table leave 7 and 5, and a balancing move (R-SEAT-2)
    seed_players(live_server.app, event_id, league_id, [f"Player {n:02d}" for n in range(13)])

    ann = phone()
    ann.add_init_script(RECORD_PHONE)
    check_in(ann, base, code, "Ann Lee")
    ann.goto(f"{base}/events/{event_id}")
    me = ann.locator("[data-me]")
    expect(me).to_contain_text("waiting for the host")
    expect(ann.locator("[data-connection]")).to_have_text("Live")

    host = open_roster(phone, base, event_id)
    roster = host.locator("#players")
    roster.get_by_role("button", name="Confirm").click()
    expect(me).to_contain_text("Seats are not drawn yet")  # the confirmation reached her phone

    # R-SEAT-1: the draw; her phone announces her first seat
    roster.get_by_role("button", name="Draw seats").click()
    expect(roster.locator(".table-card")).to_have_count(2)
    table, seat = seats(live_server.app, event_id)["Ann Lee"]
    alert = me.get_by_role("alert")
    expect(alert).to_contain_text(f"Your seat: Table {table}, Seat {seat}")
    expect(alert).to_contain_text(f"Go to table {table}, seat {seat}.")
    screenshot(ann, "seat-first-seat")
    axe(ann, "the first-seat alert")
    check_fits(ann, 390)
    check_thumb(alert.get_by_role("button", name="Got it"))

    alert.get_by_role("button", name="Got it").click()
    expect(alert).to_have_count(0)
    expect(me.locator(".seat")).to_have_text(f"Table {table}, seat {seat}")
    buzzed = ann.evaluate("buzzes.length")
    ann.locator("[data-sound]").click()  # sound on: the tap unlocks Web Audio (and beeps once)
    ann.wait_for_function(f"shuffleupClock.audio === 'running' && buzzes.length === {buzzed + 1}")
    fetches, notes = ann.evaluate("[seatFetches, notes]")

    # R-SEAT-2: two out at the other table; the host moves Ann from hers to the short one
    other = 2 if table == 1 else 1
    for name in [n for n, (t, _) in seats(live_server.app, event_id).items() if t == other][:2]:
        host.once("dialog", lambda dialog: dialog.accept())  # "… is out?"
        roster.get_by_role("button", name=f"{name} is out").click()
        expect(roster.locator(".flash")).to_contain_text(f"{name} out in")
    proposal = roster.locator("[data-moves]")   # the balancing move, in the panel at the foot of the screen
    expect(proposal).to_contain_text(f"big blind next at T{table} → T{other}")
    proposal.locator("select[name=mover-1]").select_option(label=f"Ann Lee (seat {seat})")
    proposal.get_by_role("button", name="Done").click()
    expect(roster.locator(".flash")).to_contain_text(f"Ann Lee moved to table {other}")
    new_table, new_seat = seats(live_server.app, event_id)["Ann Lee"]
    assert new_table == other

    expect(alert).to_contain_text(f"You moved: Table {other}, Seat {new_seat}")
    expect(alert).to_contain_text(f"Take your chips to table {other}, seat {new_seat}.")
    expect(me.locator(".seat")).to_have_text(f"Table {other}, seat {new_seat}")
    ann.wait_for_function(f"buzzes.length === {buzzed + 2} && notes >= {notes + 3}")  # buzz, level tones
    assert ann.evaluate("buzzes.at(-1)") == LEVEL_BUZZ
    assert ann.evaluate("seatFetches") > fetches  # the stream asked for it, not the slow poll
    screenshot(ann, "seat-you-moved")
    axe(ann, "the you-moved alert")
    check_fits(ann, 390)
    check_thumb(alert.get_by_role("button", name="Got it"))

    # R-PTS-5: she busts: her phone shows where she finished, no move alert
    alert.get_by_role("button", name="Got it").click()
    expect(alert).to_have_count(0)
    host.once("dialog", lambda dialog: dialog.accept())  # "… is out?"
    roster.get_by_role("button", name="Ann Lee is out").click()
    expect(me).to_contain_text("Finished 12th")
    expect(alert).to_have_count(0)
    assert ann.evaluate("buzzes.length") == buzzed + 2


def test_the_hosts_roster_follows_the_stream_not_a_poll(live_server, phone, screenshot):
    league_id, event_id, code = seed_tonight(live_server.app)
    base = live_server.url
    seed_players(live_server.app, event_id, league_id, ["Ann Lee", "Bea Park", "Cal Dunn"])
    host = open_roster(phone, base, event_id)
    roster = host.locator("#players")
    expect(roster).to_contain_text("In the game 3")
    fetches = []
    host.on("request", lambda r: fetches.append(r.url) if r.method == "GET" and "/players" in r.url else None)

    # The host's own action: its answer is the roster; the stream's message for it fetches nothing.
    heard = host.evaluate("clockMessages")
    host.once("dialog", lambda dialog: dialog.accept())  # "… is out?"
    roster.get_by_role("button", name="Cal Dunn is out").click()
    expect(roster.locator(".flash")).to_have_text("Cal Dunn out in 3rd")
    host.wait_for_function(f"clockMessages > {heard}")
    host.wait_for_timeout(1000)  # longer than app.js waits before it compares versions
    assert fetches == []
    expect(roster.locator(".flash")).to_have_text("Cal Dunn out in 3rd")

    # A player checks in on their phone: the roster shows the arrival without a reload.
    dee = phone()
    check_in(dee, base, code, "Dee Moss")
    expect(roster.locator("h2", has_text="Arrivals")).to_have_text("Arrivals 1")
    expect(roster).to_contain_text("Dee Moss")
    assert len(fetches) == 1
    screenshot(host, "roster-live-arrival")

    # Never while the host has a <details> open: it waits for it to close.
    roster.locator("details.dq summary").click()
    expect(roster.locator("details.dq")).to_have_attribute("open", "")
    heard = host.evaluate("clockMessages")
    eve = phone()
    check_in(eve, base, code, "Eve Stone")
    host.wait_for_function(f"clockMessages > {heard}")
    host.wait_for_timeout(2000)  # app.js looks again every 1.5 s while the details stay open
    expect(roster).not_to_contain_text("Eve Stone")
    roster.locator("details.dq summary").click()
    expect(roster).to_contain_text("Eve Stone")
    expect(roster.locator("h2", has_text="Arrivals")).to_have_text("Arrivals 2")

    # Nor while ticks and numbers wait to be sent; another host's screen changes the night meanwhile.
    roster.get_by_role("checkbox", name="Ann Lee out in the same hand").check()
    clock_screen = host.context.new_page()
    clock_screen.goto(f"{base}/host/events/{event_id}")
    heard = host.evaluate("clockMessages")
    clock_screen.locator("#controls").get_by_role("button", name="Start", exact=True).click()
    host.wait_for_function(f"clockMessages > {heard}")
    host.locator("h1").click()  # the tick stays, the focus goes
    host.wait_for_timeout(2000)
    expect(roster.get_by_role("checkbox", name="Ann Lee out in the same hand")).to_be_checked()
    assert len(fetches) == 2
    check_fits(host, 390)


def test_r_seat_4_a_phone_that_missed_its_seat_alert_gets_the_final_table_message(live_server, phone, screenshot):
    """Ann never taps "Got it" on her first seat: when the final table is drawn her phone says
    "Final table … Take your chips to", not "Your seat … Go to" again."""
    event_id, ann, me, host, roster = ann_at_the_tables(live_server, phone, 11)
    expect(roster.locator(".table-card")).to_have_count(2)
    alert = me.get_by_role("alert")
    expect(alert).to_contain_text("Your seat: Table")   # left up: the phone is in her pocket

    for name in [n for n in seats(live_server.app, event_id) if n != "Ann Lee"][:2]:
        host.once("dialog", lambda dialog: dialog.accept())
        roster.get_by_role("button", name=f"{name} is out").click()
        expect(roster.locator(".flash")).to_contain_text(f"{name} out in")
    host.once("dialog", lambda dialog: dialog.accept())  # "Draw the final table? …"
    roster.get_by_role("button", name="Draw the final table").click()
    expect(roster.locator(".flash")).to_have_text("Final table drawn")
    _, seat = seats(live_server.app, event_id)["Ann Lee"]
    expect(alert).to_contain_text(f"Final table: Table 1, Seat {seat}")
    expect(alert).to_contain_text(f"Take your chips to table 1, seat {seat}.")
    expect(alert).not_to_contain_text("Your seat")
    expect(me.locator(".seat")).to_have_text(f"Table 1, seat {seat}")
    screenshot(ann, "seat-final-after-missed-alert")
    check_fits(ann, 390)
    check_thumb(alert.get_by_role("button", name="Got it"))


def move_by_the_services(app, event_id, name, table, seat):
    """A balancing move of `name` to `table`, `seat` as the roster's "Move to …" makes it (one journalled
    host action), and every screen told: for a seat the roster's proposal would not pick."""
    with app.app_context():
        event = db.session.get(Event, event_id)
        with host_action(event, "move_to", f"{name} moved to table {table} seat {seat}") as log:
            entry = next(e for e in log.night.entries if e.member.name == name)
            seating.move(log.night, entry, table, seat, log)
        announce(event)
        db.session.remove()


def test_r_seat_2_moved_twice_back_to_her_old_seat_she_is_alerted_even_after_a_reload(live_server, phone, screenshot):
    """Ann acknowledges her seat, is moved (the alert left up: the phone is in her pocket), then moved
    back to the seat she had: her phone tells her again, with a buzz, and a reload keeps the alert
    (clock.js keeps what she acknowledged and the alert's seat) until she taps "Got it"."""
    live_server.app.config["SEAT_RNG_SEED"] = 2026  # a fixed draw: see the first test
    event_id, ann, me, host, roster = ann_at_the_tables(live_server, phone, 13)
    ann.add_init_script(RECORD_PHONE)
    ann.reload()  # recording from here on
    alert = me.get_by_role("alert")
    expect(ann.locator("[data-connection]")).to_have_text("Live")
    table, seat = seats(live_server.app, event_id)["Ann Lee"]
    # The first-seat alert nobody acknowledged comes back with the reload (it may follow the page's
    # own load: waited for, never assumed absent); she acknowledges it.
    expect(alert).to_contain_text("Your seat")
    alert.get_by_role("button", name="Got it").click()
    expect(alert).to_have_count(0)
    expect(me.locator(".seat")).to_have_text(f"Table {table}, seat {seat}")
    buzzed = ann.evaluate("buzzes.length")  # from here on, each move buzzes once more

    other = 2 if table == 1 else 1
    for name in [n for n, (t, _) in seats(live_server.app, event_id).items() if t == other][:2]:
        host.once("dialog", lambda dialog: dialog.accept())
        roster.get_by_role("button", name=f"{name} is out").click()
        expect(roster.locator(".flash")).to_contain_text(f"{name} out in")
    proposal = roster.locator("[data-moves]")   # the balancing move, in the panel at the foot of the screen
    proposal.locator("select[name=mover-1]").select_option(label=f"Ann Lee (seat {seat})")
    proposal.get_by_role("button", name="Done").click()
    expect(roster.locator(".flash")).to_contain_text(f"Ann Lee moved to table {other}")
    _, away = seats(live_server.app, event_id)["Ann Lee"]
    expect(alert).to_contain_text(f"You moved: Table {other}, Seat {away}")
    # ann's page is behind the others: no animation frames to poll on
    ann.wait_for_function("n => buzzes.length === n + 1", arg=buzzed, polling=100)

    move_by_the_services(live_server.app, event_id, "Ann Lee", table, seat)
    expect(alert).to_contain_text(f"You moved: Table {table}, Seat {seat}")
    expect(me.locator(".seat")).to_have_text(f"Table {table}, seat {seat}")
    ann.wait_for_function("n => buzzes.length === n + 2", arg=buzzed, polling=100)
    screenshot(ann, "seat-moved-back-to-her-old-seat")
    check_fits(ann, 390)

    ann.reload()  # the alert nobody acknowledged comes back
    expect(alert).to_contain_text(f"You moved: Table {table}, Seat {seat}")
    axe(ann, "the you-moved alert after a reload")
    alert.get_by_role("button", name="Got it").click()
    expect(alert).to_have_count(0)
    ann.reload()
    expect(me.locator(".seat")).to_have_text(f"Table {table}, seat {seat}")
    ann.wait_for_timeout(500)  # what clock.js asks on load has come back
    expect(alert).to_have_count(0)


def test_r_seat_a_move_made_while_her_page_was_closed_is_told_when_she_opens_it(live_server, phone, screenshot):
    live_server.app.config["SEAT_RNG_SEED"] = 2026
    event_id, ann, me, host, roster = ann_at_the_tables(live_server, phone, 13)
    alert = me.get_by_role("alert")
    table, seat = seats(live_server.app, event_id)["Ann Lee"]
    alert.get_by_role("button", name="Got it").click()
    expect(alert).to_have_count(0)
    base = live_server.url
    ann.goto(f"{base}/me")  # the clock page closed
    other = 2 if table == 1 else 1
    empty = min(set(range(1, 11)) - {s for t, s in seats(live_server.app, event_id).values() if t == other})
    move_by_the_services(live_server.app, event_id, "Ann Lee", other, empty)
    ann.goto(f"{base}/events/{event_id}")
    expect(alert).to_contain_text(f"You moved: Table {other}, Seat {empty}")
    screenshot(ann, "seat-moved-while-closed")
