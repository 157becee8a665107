"""A real night by the rules on the host's phone (390×844): two early bust-outs, then a late entry
that pushes them down (R-PTS-5's example), settled; the results page right; the settled night
corrected and settled again (R-MEM-2). And a Monthly Final's check-in refusing a ticketless player
with the reason on the host's screen, then the host's override (R-QUAL-3, R-MEM-2)."""
from __future__ import annotations

import datetime as dt

from playwright.sync_api import expect

from tests.e2e.conftest import seed_tonight
from wiring.extensions import db

FIRST = ["Ann Lee", "Bob Ray", "Cat Orr", "Dan Poe"]


def seed_players(app, event_id: int, names: list[str]) -> None:
    from services.models import Entry, Event, Member, utcnow
    with app.app_context():
        event = db.session.get(Event, event_id)
        for name in names:
            member = Member.named(event.league_id, name)
            member.adult_confirmed_at = utcnow()
            db.session.add(member)
            db.session.flush()
            db.session.add(Entry(event_id=event_id, member_id=member.id, status="playing", arrived_at=utcnow()))
        db.session.commit()
        db.session.remove()


def log_in(page, base: str, path: str, username: str, password: str) -> None:
    page.goto(f"{base}{path}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    with page.expect_navigation():
        page.get_by_role("button", name="Log in").click()
    # htmx listens only once the page has loaded: a name typed before that would search nothing
    page.wait_for_load_state("load")
    page.wait_for_function("!!window.htmx")


def out(host, roster, name: str, said: str) -> None:
    host.once("dialog", lambda dialog: dialog.accept())
    roster.get_by_role("button", name=f"{name} is out").click()
    expect(roster.locator(".flash")).to_have_text(said)


def test_a_late_entry_after_two_bust_outs_settles_right_and_is_corrected(live_server, phone, screenshot):
    base = live_server.url
    _, event_id, _ = seed_tonight(live_server.app)
    seed_players(live_server.app, event_id, FIRST)
    host = phone()
    log_in(host, base, f"/host/events/{event_id}/players", "harry", "pw-harry")
    roster = host.locator("#players")
    expect(roster).to_contain_text("In the game 4")
    out(host, roster, "Ann Lee", "Ann Lee out in 4th")
    out(host, roster, "Bob Ray", "Bob Ray out in 3rd")
    # A late entrant: a new member joins at the host's hand, and both bust-outs move one place down.
    host.get_by_placeholder("Type a name").fill("Lou Late")
    results = host.locator("#search-results")  # one element: each search replaces it whole
    expect(results).to_contain_text("New member")
    results.get_by_label("They are 18 or over").check()
    results.get_by_role("button", name="Join and check in").click()
    expect(roster.locator(".flash")).to_have_text("New member Lou Late")
    outs = roster.locator("ol.roster").last
    expect(outs).to_contain_text("4. Bob Ray")
    expect(outs).to_contain_text("5. Ann Lee")
    expect(roster.locator("[data-provisional]")).to_be_visible()
    screenshot(host, "rules-host-late-entry-pushes-down")
    out(host, roster, "Cat Orr", "Cat Orr out in 3rd")
    out(host, roster, "Lou Late", "Lou Late out in 2nd")
    host.once("dialog", lambda dialog: dialog.accept())
    roster.get_by_role("button", name="Settle the night").click()
    expect(roster.locator(".flash")).to_contain_text("Night settled")
    screenshot(host, "rules-host-settled")

    # The results page: R-PTS-5's order, R-PTS-2's points for a field of five.
    player = phone()
    player.goto(f"{base}/events/{event_id}/results")
    main = player.locator("main")
    for line in ("Dan Poe", "Lou Late", "Cat Orr", "Bob Ray", "Ann Lee"):
        expect(main).to_contain_text(line)
    rows = main.locator("tbody tr")
    expect(rows).to_have_count(5)
    for place, name in enumerate(("Dan Poe", "Lou Late", "Cat Orr", "Bob Ray", "Ann Lee")):
        expect(rows.nth(place)).to_contain_text(name)
        expect(rows.nth(place).locator("td").first).to_have_text(str(place + 1))
    screenshot(player, "rules-results-page")

    # The scorer swapped Ann and Bob: corrected on the settled night, with the reason.
    host.reload()  # the night's tabs are the page's, not the roster fragment's
    host.get_by_role("link", name="Correct").click()
    form = host.locator("#correct")
    form.get_by_label("Ann Lee: out in hand").fill("2")
    form.get_by_label("Bob Ray: out in hand").fill("1")
    form.get_by_label("Why (recorded as a ruling)").fill("Bob went out first: the scorer swapped them")
    screenshot(host, "rules-host-correcting")
    host.once("dialog", lambda dialog: dialog.accept())
    form.get_by_role("button", name="Correct and settle again").click()
    expect(host.locator("#correct .flash")).to_contain_text("Corrected and settled again")
    expect(host.locator("#correct .corrections")).to_contain_text("the scorer swapped them")
    screenshot(host, "rules-host-corrected")
    player.reload()
    rows = player.locator("main tbody tr")
    assert "Ann Lee" in rows.nth(3).inner_text() and "Bob Ray" in rows.nth(4).inner_text()
    screenshot(player, "rules-results-corrected")
    for page in (host, player):
        assert page.evaluate("document.documentElement.scrollWidth") <= 390


def seed_final(app) -> tuple[int, int]:
    """November 2026: Ann won a nightly game (a ticket), Bob played it and holds none; the Monthly Final
    on 5 December 2026, running, hosted by harry. Returns (final id, Bob's member id)."""
    from services import leagues
    from services.models import Entry, Event, Member, Ticket, User, Venue, utcnow
    with app.app_context():
        league = leagues.create_league("Harbour League", "free")
        venue = Venue(league_id=league.id, name="Rose & Crown")
        host = User(username="harry", display_name="Harry", role="host", league_id=league.id)
        host.set_password("pw-harry")
        db.session.add_all([venue, host])
        db.session.flush()
        night = Event(league_id=league.id, venue_id=venue.id, event_type="nightly", date=dt.date(2026, 11, 3),
                      status="settled")
        final = Event(league_id=league.id, venue_id=venue.id, event_type="monthly_final", date=dt.date(2026, 12, 5),
                      start_time=dt.time(19, 0), host_id=host.id, status="running")
        db.session.add_all([night, final])
        players = {name: Member.named(league.id, name) for name in ("Ann Lee", "Bob Ray")}
        for member in players.values():
            member.adult_confirmed_at = utcnow()
        db.session.add_all(players.values())
        db.session.flush()
        for position, member in enumerate(players.values(), start=1):
            db.session.add(Entry(event_id=night.id, member_id=member.id, status="played", position=position,
                                 points=200 - position))
        db.session.add(Ticket(league_id=league.id, month="2026-11", member_id=players["Ann Lee"].id,
                              event_id=night.id, position=1))
        db.session.commit()
        found = (final.id, players["Bob Ray"].id)
        db.session.remove()
    return found


def test_a_monthly_final_refuses_a_ticketless_player_then_the_host_overrides(live_server, phone, screenshot):
    base = live_server.url
    final_id, _ = seed_final(live_server.app)
    host = phone()
    log_in(host, base, f"/host/events/{final_id}/players", "harry", "pw-harry")
    roster = host.locator("#players")
    phone.allow(r"status of 422")  # the refusal comes back as a 422 fragment, on purpose
    host.get_by_placeholder("Type a name").fill("Bob")
    found = host.locator("#search-results")  # one element (strict): the first search replaced it whole
    expect(found).to_contain_text("Bob Ray")
    found.get_by_role("button", name="Check in", exact=True).click()
    refusal = roster.locator("#refusal")
    expect(refusal).to_contain_text("No Monthly Final ticket for November 2026")
    expect(refusal.get_by_role("button", name="Let them in anyway")).to_be_visible()
    screenshot(host, "final-host-refused-ticketless")
    refusal.get_by_label("Reason for your ruling (recorded)").fill("Won his ticket at the Anchor; not entered yet")
    refusal.get_by_role("button", name="Let them in anyway").click()
    expect(roster.locator(".flash")).to_have_text("Checked in Bob Ray")
    expect(roster).to_contain_text("In the game 1")
    screenshot(host, "final-host-overridden")
    # The ticket holder is admitted without a ruling.
    host.get_by_placeholder("Type a name").fill("Ann")
    found = host.locator("#search-results")  # and the second search too
    expect(found).to_contain_text("Ann Lee")
    expect(found).not_to_contain_text("Bob Ray")  # the first search's answer replaced, not nested
    screenshot(host, "final-host-second-search")
    found.get_by_role("button", name="Check in", exact=True).click()
    expect(roster.locator(".flash")).to_have_text("Checked in Ann Lee")
    with live_server.app.app_context():
        from services.models import Ruling
        rulings = db.session.scalars(db.select(Ruling)).all()
        assert [(r.kind, r.reason) for r in rulings] == [
            ("final_entry_override", "Won his ticket at the Anchor; not entered yet")]
        db.session.remove()
    assert host.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_finals_month_on_the_night_form_and_a_cancelled_night_kept(live_server, phone, screenshot):
    """R-QUAL-3: "Final for month" shows only for a final's type; a night cancelled with its reason
    stays on the host's list, marked Cancelled with who and why."""
    base = live_server.url
    seed_tonight(live_server.app)
    host = phone()
    log_in(host, base, "/host/", "harry", "pw-harry")
    host.locator("summary", has_text="New night").click()
    form = host.locator("form.night-form")
    month = form.get_by_label("Final for month")
    expect(month).to_be_hidden()
    form.locator("select#event_type").select_option("monthly_final")
    expect(month).to_be_visible()
    month.fill("2026-10")
    screenshot(host, "rules-night-form-final-month")
    form.get_by_role("button", name="Create night").click()
    host.get_by_role("link", name="Edit night").click()
    expect(host.get_by_label("Final for month")).to_have_value("2026-10")
    host.get_by_label("Why cancel it (shown on the night's listing)").fill("Venue double-booked")
    host.get_by_role("button", name="Cancel night").click()
    expect(host.locator(".flash")).to_contain_text("Night cancelled")
    expect(host.locator(".cards")).to_contain_text("Cancelled by Harry: Venue double-booked")
    screenshot(host, "rules-host-cancelled-night-listed")
    assert host.evaluate("document.documentElement.scrollWidth") <= 390
