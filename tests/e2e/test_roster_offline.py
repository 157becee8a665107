"""The host's night without a signal beyond the clock (R-PTS-5, R-CLOCK-3, R-MEM-1), in real browsers
at 390×844: a bust-out on the roster and a pause on the clock, taken offline in the host's two tabs,
are kept in one queue for the night, shown as waiting on the row and in the box, and sent in the order
they were tapped when the signal is back, each applied at its moment; a bust-out kept for a player
another host put out meanwhile comes back with the reason, to redo or drop; and the door finds a
known member with no signal, the check-in waiting to be sent."""
from __future__ import annotations

import datetime as dt
import re
import time
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from services.models import Action, Entry, Member
from tests.e2e.conftest import axe, seed_tonight
from tests.e2e.test_clock import open_host, tap
from tests.e2e.test_host_offline import PAUSED_JS, RUNNING_JS, allow_offline_errors, kept, pause_offline
from tests.e2e.test_seat_notice import seed_players
from wiring.extensions import db

POSTS = re.compile(r".*/host/events/\d+/(clock|players|floor/\d+)$")


@pytest.fixture
def night(live_server):
    """Tonight's game at the Rose & Crown, host Harry, Player 1 to Player 10 in it."""
    league_id, event_id, _ = seed_tonight(live_server.app)
    seed_players(live_server.app, event_id, league_id, [f"Player {number + 1}" for number in range(10)])
    return SimpleNamespace(url=live_server.url, app=live_server.app, id=event_id,
                           host=f"{live_server.url}/host/events/{event_id}")


def players_tab(host, night):
    """The host's players page in a second tab of the same phone (one store, one queue), its errors
    noted as the phone fixture notes the first tab's."""
    page = host.context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(f"{night.host}/players")
    page.locator("#players").get_by_role("button", name="Player 3 is out").wait_for()
    return page


def offline_errors_only(page):
    """Nothing but what a page cut off logs (failed loads, the stream's errors) went wrong in it."""
    assert not page.errors, page.errors


def entry_of(night, name):
    with night.app.app_context():
        entry = db.session.scalar(db.select(Entry).join(Member).where(Entry.event_id == night.id, Member.name == name))
        found = (entry.status, entry.position)
        db.session.remove()
    return found


def bust_at(night):
    with night.app.app_context():
        at = db.session.scalar(db.select(Action.at).where(Action.event_id == night.id, Action.kind == "bust"))
        db.session.remove()
    return at


def test_r_pts_5_a_bust_out_and_a_pause_taken_offline_go_in_order_at_their_moments(night, phone, screenshot):
    allow_offline_errors(phone)
    host = open_host(phone, night)
    tap(host, "Start")
    host.wait_for_function(RUNNING_JS)
    roster_page = players_tab(host, night)
    roster = roster_page.locator("#players")
    posts = []
    host.context.on("request", lambda request: posts.append(POSTS.match(request.url).group(1))
                    if request.method == "POST" and POSTS.match(request.url) else None)

    at_pause = pause_offline(host)

    roster_page.bring_to_front()
    roster_page.once("dialog", lambda dialog: dialog.accept())
    out_tapped = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    roster.get_by_role("button", name="Player 3 is out").click()
    box = kept(roster_page)
    expect(box.locator("[data-kept-count]")).to_have_text("2 waiting to send: no connection, they go when it's back")
    waiting = box.locator("[data-kept-waiting] li")
    expect(waiting.nth(0)).to_contain_text("Pause · tapped ")
    expect(waiting.nth(1)).to_contain_text("Player 3 is out · tapped ")
    row = roster.locator(".seats > li", has=roster_page.get_by_role("link", name="Player 3", exact=True))
    expect(row.locator(".kept-note")).to_have_text("Out · waiting to send")
    expect(row.get_by_role("button", name="Player 3 is out")).to_be_disabled()
    expect(roster_page.locator("#said")).to_have_text("Player 3 is out: waiting to send")
    # the clock's tab hears of the roster's: one queue for the night
    expect(kept(host).locator("[data-kept-count]")).to_have_text(
        "2 waiting to send: no connection, they go when it's back")
    axe(roster_page, "the roster with a bust-out and a pause waiting to send")
    screenshot(roster_page, "roster-offline-waiting", full_page=False)
    assert entry_of(night, "Player 3") == ("playing", None)  # nothing reached the server
    time.sleep(3)  # the signal stays away a while: both go later, applied as then

    host.context.set_offline(False)
    expect(kept(roster_page)).to_be_hidden()
    expect(kept(host)).to_be_hidden()
    host.wait_for_function(PAUSED_JS)
    assert posts[:2] == ["clock", "players"], posts  # in the order they were tapped
    # paused where the host's thumb paused it, not when the signal came back three seconds later
    assert abs(host.evaluate("shuffleupClock.view().remaining_ms") - at_pause) < 1500
    assert entry_of(night, "Player 3") == ("played", 10)
    assert abs((bust_at(night) - out_tapped).total_seconds()) < 1.5  # out when tapped
    expect(roster.locator("ol.roster")).to_contain_text("Player 3")
    expect(row).to_have_count(0)
    offline_errors_only(roster_page)


def test_r_pts_5_a_bust_out_kept_for_a_player_already_out_comes_back_to_redo_or_drop(night, phone, screenshot):
    allow_offline_errors(phone)
    phone.allow(r"status of 422")
    host = open_host(phone, night)
    roster_page = players_tab(host, night)
    roster = roster_page.locator("#players")
    other = phone()  # a second host, on a phone of their own
    other.goto(f"{night.host}/players")
    other.get_by_label("Username").fill("harry")
    other.get_by_label("Password").fill("pw-harry")
    other.get_by_role("button", name="Log in").click()

    host.context.set_offline(True)
    roster_page.wait_for_function("() => !navigator.onLine")
    roster_page.once("dialog", lambda dialog: dialog.accept())
    roster.get_by_role("button", name="Player 4 is out").click()
    expect(kept(roster_page).locator("[data-kept-count]")).to_have_text(
        "1 waiting to send: no connection, they go when it's back")
    other.once("dialog", lambda dialog: dialog.accept())
    other.locator("#players").get_by_role("button", name="Player 4 is out").click()  # meanwhile, over HTTP
    expect(other.locator("#players .flash").first).to_have_text("Player 4 out in 10th")

    host.context.set_offline(False)
    refused = kept(roster_page).locator("[data-kept-refused] li")
    expect(refused).to_have_count(1)
    expect(refused).to_contain_text("Player 4 is out · tapped ")
    expect(refused).to_contain_text("Player 4 is already out: not in the game.")
    expect(kept(roster_page).locator("[data-kept-count]")).to_have_text("")
    expect(kept(host).locator("[data-kept-refused] li")).to_have_count(1)  # on the clock's tab too
    assert entry_of(night, "Player 4") == ("played", 10)  # out once, as the other host put them
    axe(roster_page, "the roster with a kept bust-out refused on arrival")
    screenshot(roster_page, "roster-offline-refused", full_page=False)

    kept(roster_page).get_by_role("button", name="Drop Player 4 is out").click()
    expect(kept(roster_page)).to_be_hidden()
    expect(kept(host)).to_be_hidden()
    offline_errors_only(roster_page)


def test_r_mem_1_the_door_finds_a_known_member_with_no_signal(night, phone):
    allow_offline_errors(phone)
    with night.app.app_context():
        from services.models import Event
        db.session.add(Member.named(db.session.get(Event, night.id).league_id, "Nadia Gallagher"))
        db.session.commit()
        db.session.remove()
    host = open_host(phone, night)
    roster_page = players_tab(host, night)
    roster_page.wait_for_function("() => performance.getEntriesByType('resource').some(r => r.name.includes('members.json'))")
    host.context.set_offline(True)
    roster_page.wait_for_function("() => !navigator.onLine")
    roster_page.get_by_label("Find a member").fill("nad ga")
    results = roster_page.locator("#search-results")
    expect(results).to_contain_text("No connection: found on this phone's list")
    results.get_by_role("button", name="Check in").click()
    expect(kept(roster_page).locator("[data-kept-waiting] li")).to_contain_text("Nadia Gallagher: Check in · tapped ")
    expect(results.locator(".kept-note")).to_have_text("Checked in · waiting to send")
    assert entry_of_member(night, "Nadia Gallagher") is None
    host.context.set_offline(False)
    expect(kept(roster_page)).to_be_hidden()
    assert entry_of_member(night, "Nadia Gallagher") == "playing"
    expect(roster_page.locator("#players")).to_contain_text("Nadia Gallagher")
    offline_errors_only(roster_page)


def entry_of_member(night, name):
    with night.app.app_context():
        status = db.session.scalar(db.select(Entry.status).join(Member).where(
            Entry.event_id == night.id, Member.name == name))
        db.session.remove()
    return status


def player_5s_sheet(night, phone):
    """The host's clock page, the players tab with Player 5's sheet open over it: (host, roster page, Player
    5's row, the sheet)."""
    allow_offline_errors(phone)
    host = open_host(phone, night)
    roster_page = players_tab(host, night)
    row = roster_page.locator("#players .seats > li", has=roster_page.get_by_role("link", name="Player 5", exact=True))
    row.get_by_role("link", name="Player 5", exact=True).click()
    sheet = roster_page.locator("#sheet")
    expect(sheet.locator("h2")).to_contain_text("Player 5")
    return host, roster_page, row, sheet


def test_r_chip_1_r_pen_1_a_bonus_and_a_warning_kept_offline_show_on_the_row_and_go_on_reconnect(night, phone,
                                                                                              screenshot):
    # Player 5's sheet, open when the signal drops: a warning given there waits, said in the sheet (modal)
    host, roster_page, row, sheet = player_5s_sheet(night, phone)
    roster = roster_page.locator("#players")
    host.context.set_offline(True)
    roster_page.wait_for_function("() => !navigator.onLine")
    sheet.get_by_label("Why (recorded in the rulings log)").fill("Swearing at the dealer")
    sheet.get_by_role("button", name="Verbal warning").click()
    expect(sheet.locator(".sheet-said .flash")).to_have_text("Verbal warning: waiting to send")
    sheet.get_by_role("link", name="Back to the players").click()
    expect(sheet).to_be_hidden()
    expect(row.locator(".kept-note")).to_have_text("Warning · waiting to send")
    # with no signal another sheet can't be fetched: said on the row, nothing opens
    other_row = roster.locator(".seats > li", has=roster_page.get_by_role("link", name="Player 6", exact=True))
    other_row.get_by_role("link", name="Player 6", exact=True).click()
    expect(other_row.locator("[role=alert]")).to_have_text("No connection: the sheet opens when the signal is back.")
    expect(sheet).to_be_hidden()

    roster.get_by_role("radio", name="Card").check()
    row.get_by_role("button", name="Membership card bonus for Player 5").click()
    bonus = row.locator("button[value^='bonus:']")
    expect(bonus).to_have_text("+Card ✓ waiting")
    expect(bonus).to_be_disabled()
    expect(roster_page.locator("#said")).to_have_text("Membership card bonus for Player 5: waiting to send")
    expect(kept(roster_page).locator("[data-kept-waiting] li")).to_have_count(2)
    axe(roster_page, "the roster with a bonus and a warning waiting to send")
    screenshot(roster_page, "roster-offline-bonus-warning", full_page=False)

    host.context.set_offline(False)
    expect(kept(roster_page)).to_be_hidden()
    expect(row.locator(".kept-note")).to_have_count(0)
    expect(row.locator("button[value^='bonus:']")).to_have_text("+Card ✓")   # had, as the server says now
    with night.app.app_context():
        from services.models import BonusClaim, Penalty
        assert [(p.kind, p.reason) for p in db.session.scalars(db.select(Penalty))] == [
            ("warning", "Swearing at the dealer")]
        assert [c.kind for c in db.session.scalars(db.select(BonusClaim))] == ["membership"]
        db.session.remove()
    offline_errors_only(roster_page)


def test_r_pen_2_a_penalty_ended_early_offline_waits_on_the_row_and_ends_at_the_tap(night, phone):
    """Player 5 sits out five hands; the signal drops and the host ends it early from the open sheet: it
    waits, marked on the row, and goes on reconnect, the penalty over at the moment of the tap."""
    from services.models import Penalty
    host, roster_page, row, sheet = player_5s_sheet(night, phone)
    sheet.get_by_label("Why (recorded in the rulings log)").fill("Slow roll")
    sheet.get_by_label("Hands to miss").fill("5")
    sheet.get_by_role("button", name="Missed hands").click()
    expect(sheet.get_by_role("button", name="End early: back now")).to_be_visible()
    host.context.set_offline(True)
    roster_page.wait_for_function("() => !navigator.onLine")
    tapped_before = roster_page.evaluate("shuffleupKept.serverNow()")
    sheet.get_by_role("button", name="End early: back now").click()
    expect(sheet.locator(".sheet-said .flash")).to_have_text("End early: back now: waiting to send")
    sheet.get_by_role("link", name="Back to the players").click()
    expect(row.locator(".kept-note")).to_have_text("Penalty ended · waiting to send")
    roster_page.wait_for_timeout(4000)   # the signal is back four seconds later
    host.context.set_offline(False)
    expect(kept(roster_page)).to_be_hidden()
    with night.app.app_context():
        [penalty] = db.session.scalars(db.select(Penalty)).all()
        ended_ms = penalty.ended_at.replace(tzinfo=dt.UTC).timestamp() * 1000
        db.session.remove()
    assert tapped_before - 1000 <= ended_ms <= tapped_before + 2500   # the tap's moment, not the send's
    offline_errors_only(roster_page)
