"""What a flood of check-ins leaves behind, on a 390×844 phone (R-MEM-1): the host turns away every
waiting arrival with one tap (asked first; Undo brings them back), and the organiser deletes a record
with no history (a tick to confirm)."""
from __future__ import annotations

from playwright.sync_api import expect

from services.models import Member, User
from tests.e2e.conftest import axe, check_fits, seed_tonight
from tests.e2e.test_roster_host import host_on, seat
from wiring.extensions import db

PRANKS = [f"Prank {n}" for n in range(5)]


def test_r_mem_1_the_host_turns_a_flood_away_in_one_tap_and_undo_brings_it_back(live_server, phone, screenshot):
    _, event_id, _ = seed_tonight(live_server.app)
    seat(live_server.app, event_id, PRANKS, status="pending")  # arrivals waiting for Confirm
    host = host_on(phone, live_server.url, event_id)
    roster = host.locator("#players")
    clear = roster.get_by_role("button", name="Turn away all 5 waiting")
    expect(clear).to_be_visible()
    check_fits(host, 390)
    axe(host, "the roster with a flood waiting")
    asked = []
    host.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    clear.click()
    expect(roster.locator(".flash")).to_contain_text("Turned away 5 waiting arrivals")
    assert asked == ["Turn away all 5 waiting arrivals? Undo brings them back."]
    expect(roster.get_by_text("Nobody waiting")).to_be_visible()
    screenshot(host, "roster-flood-cleared")
    host.once("dialog", lambda dialog: dialog.accept())
    host.locator("#players").get_by_role("button", name="Undo", exact=True).first.click()
    expect(roster.locator(".flash")).to_contain_text("Took back: Turned away 5 waiting arrivals")
    expect(roster.get_by_role("button", name="Turn away all 5 waiting")).to_be_visible()


def test_r_mem_1_the_organiser_deletes_a_record_with_no_history(live_server, phone, screenshot):
    league_id, _, _ = seed_tonight(live_server.app)
    with live_server.app.app_context():
        olive = User(username="olive", display_name="Olive", role="organiser", league_id=league_id)
        olive.set_password("pw-olive")
        prank = Member.named(league_id, "Prank Pat")
        db.session.add_all([olive, prank])
        db.session.commit()
        slug, prank_id = olive.league.slug, prank.id
        db.session.remove()
    page = phone()
    page.goto(f"{live_server.url}/organiser/{slug}/members/{prank_id}")
    page.get_by_label("Username").fill("olive")
    page.get_by_label("Password").fill("pw-olive")
    page.get_by_role("button", name="Log in").click()
    page.get_by_text("Delete this record").click()
    check_fits(page, 390)
    axe(page, "a member's record with Delete open")
    page.get_by_label("Yes, delete Prank Pat's record for good").check()
    page.get_by_role("button", name="Delete Prank Pat").click()
    expect(page.get_by_role("status")).to_have_text("Deleted Prank Pat's record.")
    screenshot(page, "organiser-member-deleted")
