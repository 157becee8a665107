"""The floor on phones (R-PEN-2, R-ENTRY-1): a penalty the host gives from a player's floor panel
reaches that player's own phone with its estimated return time, and the roster shows who is away;
a busted player re-enters on a new random seat. Every phone is its own context, at 390×844."""
from __future__ import annotations

from playwright.sync_api import expect

from services.models import Entry, Event, Penalty
from tests.e2e.conftest import axe, check_fits, seed_tonight
from tests.e2e.test_roster_sheet import check_sheet_taps
from tests.e2e.test_seat_notice import ann_at_the_tables, open_roster, seats, seed_players
from wiring.extensions import db


def local_return(app, event_id: int) -> str:
    with app.app_context():
        penalty = db.session.scalar(db.select(Penalty).where(Penalty.event_id == event_id))
        at = penalty.entry.back_from_penalty(penalty.at)
        db.session.remove()
    return at.strftime("%H:%M")


def test_r_pen_2_a_penalty_and_its_return_time_on_the_players_phone(live_server, phone, screenshot):
    phone.allow(r"status of 422 .*/floor/")  # the refusal below: its reason is on the screen
    event_id, ann, me, host, roster = ann_at_the_tables(live_server, phone, 8)
    expect(roster.locator(".table-card")).to_have_count(1)  # nine players: one table
    me.get_by_role("button", name="Got it").click()
    table, seat = seats(live_server.app, event_id)["Ann Lee"]

    # The host opens Ann's floor panel from her row and gives two missed rounds
    roster.get_by_role("link", name="Ann Lee", exact=True).click()
    floor = host.locator("#floor")
    expect(floor.locator("h2")).to_contain_text(f"Ann Lee table {table}, seat {seat}")
    expect(floor).to_contain_text("No earlier warnings or penalties this month.")
    expect(floor).to_contain_text("A round at this table is 9 hands, about 18 minutes at 30 hands an hour.")
    floor.get_by_label("Why (recorded in the rulings log)").fill("Exposed her cards in a live hand")
    floor.get_by_label("Rounds to miss").select_option("2")
    floor.get_by_role("button", name="Missed rounds").click()
    expect(floor.locator(".flash")).to_contain_text("Ann Lee: missed 2 rounds (18 hands), back about")
    back = local_return(live_server.app, event_id)
    expect(floor.locator(".flash")).to_have_text(f"Ann Lee: missed 2 rounds (18 hands), back about {back}")
    expect(floor.locator("[data-away]")).to_contain_text(f"Away until about {back}")
    expect(floor.locator("[data-history]")).to_have_text("Earlier warnings and penalties: 1 tonight.")
    screenshot(host, "floor-penalty-given")
    check_fits(host, 390)
    check_sheet_taps(host)
    axe(host, "the player's sheet")

    # Her phone hears of it from the stream, as of a seat: away, and until when
    penalty = me.locator("[data-penalty]")
    expect(penalty).to_contain_text(f"away from the table until about {back}")
    expect(me.locator(".seat")).to_have_text(f"Table {table}, seat {seat}")
    screenshot(ann, "floor-penalty-on-the-phone")
    check_fits(ann, 390)
    axe(ann, "the penalty on the player's phone")

    # The roster shows who is on penalty and until when
    host.get_by_role("link", name="Back to the players").click()
    expect(host.locator("#players [data-away]")).to_have_text(f"away till {back}")
    screenshot(host, "floor-roster-away")
    check_fits(host, 390)

    # A refusal shows beside the button tapped: a second penalty while one runs
    host.locator("#players").get_by_role("link", name="Ann Lee", exact=True).click()
    floor = host.locator("#floor")
    floor.get_by_label("Why (recorded in the rulings log)").fill("Again")
    floor.get_by_label("Hands to miss").fill("3")
    floor.get_by_role("button", name="Missed hands").click()
    refusal = floor.locator(".sheet-said #refusal")   # atop her sheet, always in view
    expect(refusal).to_contain_text(f"Ann Lee is already on a penalty until {back}: extend it instead.")
    screenshot(host, "floor-refusal")

    # The host ends it early: her phone shows her back at the table
    floor.get_by_role("button", name="End early: back now").click()
    expect(floor.locator(".flash")).to_have_text("Ann Lee is back at the table")
    expect(penalty).to_have_count(0)


def test_r_entry_1_a_busted_player_re_enters_on_a_new_random_seat(live_server, phone, screenshot):
    league_id, event_id, code = seed_tonight(live_server.app)
    base = live_server.url
    with live_server.app.app_context():
        event = db.session.get(Event, event_id)  # tonight's own setting (its snapshot, R-ENTRY-1)
        event.settings = {**(event.settings or {}), "reentry": "reentry"}
        db.session.commit()
        db.session.remove()
    seed_players(live_server.app, event_id, league_id, ["Ann Lee", "Bea Park", "Cal Dunn", "Dee Moss"])
    host = open_roster(phone, base, event_id)
    roster = host.locator("#players")
    roster.get_by_role("button", name="Draw seats").click()
    expect(roster.locator(".flash")).to_have_text("Seats drawn")
    host.once("dialog", lambda dialog: dialog.accept())  # "… is out?"
    roster.get_by_role("button", name="Cal Dunn is out").click()
    expect(roster.locator(".flash")).to_have_text("Cal Dunn out in 4th")
    host.once("dialog", lambda dialog: dialog.accept())  # "… re-enters with a new stack?"
    roster.get_by_role("button", name="Re-enter").click()
    expect(roster.locator(".flash")).to_contain_text("Cal Dunn re-entered")
    table, seat = seats(live_server.app, event_id)["Cal Dunn"]
    expect(roster.locator(".flash")).to_have_text(f"Cal Dunn re-entered (2nd buy-in): table {table} seat {seat}")
    expect(roster.locator("h2", has_text="In the game")).to_have_text("In the game 4")
    expect(roster.locator("h2", has_text="Out")).to_have_text("Out 0")
    with live_server.app.app_context():
        assert db.session.scalar(db.select(Entry.buy_ins).where(Entry.event_id == event_id,
                                                                Entry.table_no == table, Entry.seat_no == seat)) == 2
        db.session.remove()
    screenshot(host, "floor-re-entry")
    check_fits(host, 390)
    # Once the limit is reached the button is gone
    host.once("dialog", lambda dialog: dialog.accept())
    roster.get_by_role("button", name="Cal Dunn is out").click()
    expect(roster.locator(".flash")).to_have_text("Cal Dunn out in 4th")
    expect(roster.get_by_role("button", name="Re-enter")).to_have_count(0)
    screenshot(host, "floor-re-entry-limit")
