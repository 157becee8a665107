"""The host's roster on a 390×844 phone: a refusal shows where the host tapped, with the override
the rule allows (R-CHIP-2, R-MEM-2); destroying actions ask first (Out, Disqualify, Settle)."""
from __future__ import annotations

from playwright.sync_api import expect

from services.models import Entry, Member
from tests.e2e.conftest import seed_tonight
from wiring.extensions import db


def seat(app, event_id: int, names: list[str], status: str = "playing") -> None:
    """Players already in tonight's game (checked in by the host), or with `status` "pending" arrivals
    waiting for the host's Confirm."""
    with app.app_context():
        from services.models import Event
        event = db.session.get(Event, event_id)
        for name in names:
            member = Member.named(event.league_id, name)
            db.session.add(member)
            db.session.flush()
            db.session.add(Entry(event_id=event_id, member_id=member.id, status=status))
        db.session.commit()
        db.session.remove()


def host_on(phone, base: str, event_id: int, tab: str = "players"):
    host = phone()
    host.goto(f"{base}/host/events/{event_id}/{tab}" if tab else f"{base}/host/events/{event_id}")
    host.get_by_label("Username").fill("harry")
    host.get_by_label("Password").fill("pw-harry")
    host.get_by_role("button", name="Log in").click()
    return host


def in_view(page, selector: str) -> bool:
    return page.evaluate("""s => { const r = document.querySelector(s).getBoundingClientRect();
                                   return r.top >= 0 && r.bottom <= innerHeight; }""", selector)


def test_r_chip_2_a_refused_bonus_is_seen_where_the_host_tapped_and_overridden(live_server, phone, screenshot):
    phone.allow(r"status of 422 .*/players\)$")  # the refusal, on purpose
    _, event_id, _ = seed_tonight(live_server.app)
    seat(live_server.app, event_id, ["Anna", "Bob", "Cy"])
    base = live_server.url
    host = host_on(phone, base, event_id, tab="")
    host.get_by_role("button", name="Start").click()
    expect(host.get_by_role("button", name="Pause")).to_be_visible()
    host.get_by_role("link", name="Players", exact=True).click()
    roster = host.locator("#players")
    roster.get_by_role("button", name="Cy is out").wait_for()
    host.once("dialog", lambda dialog: dialog.accept())
    roster.get_by_role("button", name="Cy is out").click()
    expect(roster.locator(".flash")).to_have_text("Cy out in 3rd")

    roster.get_by_role("radio", name="Drink").check()   # outside its window now: "closed now"
    roster.get_by_role("button", name="Drink bonus for Bob").click()
    row = roster.locator(".seats > li", has=host.get_by_role("checkbox", name="Bob out in the same hand"))
    refusal = row.locator("#refusal[role=alert]")
    expect(refusal).to_contain_text("only before play starts or during the major break")
    expect(roster.locator(".flash")).to_have_count(0)  # the old success message is gone
    assert in_view(host, "#refusal")
    expect(roster.get_by_role("radio", name="Drink")).to_be_checked()  # what the host picked stays picked
    reason = refusal.get_by_label("Reason for your ruling")
    expect(reason).to_be_focused()
    screenshot(host, "roster-refused-bonus")
    refusal.get_by_role("button", name="Give the bonus anyway").click()   # empty: the phone asks for it
    expect(refusal).to_be_visible()
    reason.fill("Bar was shut at the start")
    refusal.get_by_role("button", name="Give the bonus anyway").click()
    expect(roster.locator(".flash")).to_contain_text("Bob: Drink bonus +")
    expect(roster.locator("#refusal")).to_have_count(0)
    screenshot(host, "roster-bonus-overridden")
    assert host.evaluate("document.documentElement.scrollWidth") <= 390


def test_out_disqualify_and_settle_ask_first(live_server, phone, screenshot):
    _, event_id, _ = seed_tonight(live_server.app)
    seat(live_server.app, event_id, ["Anna", "Bob", "Cy"])
    host = host_on(phone, live_server.url, event_id)
    roster = host.locator("#players")
    asked = []

    def answer(reply):
        def handle(dialog):
            asked.append(dialog.message)
            dialog.accept() if reply else dialog.dismiss()
        host.once("dialog", handle)

    # Out: "No" leaves Cy in, "Yes" puts Cy out
    answer(False)
    roster.get_by_role("button", name="Cy is out").click()
    expect(roster).to_contain_text("In the game 3")
    answer(True)
    roster.get_by_role("button", name="Cy is out").click()
    expect(roster.locator(".flash")).to_have_text("Cy out in 3rd")

    roster.locator("summary", has_text="Disqualify a player").click()
    roster.locator("select[name=dq_entry]").select_option(label="Bob")
    roster.locator("input[name=reason]").fill("Collusion")
    answer(False)
    roster.get_by_role("button", name="Disqualify").click()
    expect(roster.locator("details.dq")).to_be_visible()
    assert roster.locator(".flash").count() == 1 and "Cy out" in roster.locator(".flash").inner_text()
    answer(True)
    roster.get_by_role("button", name="Disqualify").click()
    expect(roster.locator(".flash")).to_have_text("Bob disqualified")

    answer(False)
    roster.get_by_role("button", name="Settle the night").click()
    expect(roster.get_by_role("button", name="Settle the night")).to_be_visible()
    answer(True)
    roster.get_by_role("button", name="Settle the night").click()
    expect(roster.locator(".flash")).to_have_text("Night settled")
    screenshot(host, "roster-settled-after-asking")
    assert [m.split("?")[0] for m in asked] == ["Cy is out", "Cy is out", "Disqualify this player",
                                                "Disqualify this player", "Settle the night", "Settle the night"]


def test_undo_of_the_third_last_action_takes_back_it_and_the_two_after(live_server, phone, screenshot):
    _, event_id, _ = seed_tonight(live_server.app)
    seat(live_server.app, event_id, ["Anna", "Bob", "Cy", "Dee"])
    host = host_on(phone, live_server.url, event_id)
    roster = host.locator("#players")
    roster.get_by_role("button", name="Draw seats").click()
    expect(roster.locator(".table-card")).to_have_count(1)
    for name, place in [("Dee", "4th"), ("Cy", "3rd"), ("Bob", "2nd")]:
        host.once("dialog", lambda dialog: dialog.accept())
        roster.get_by_role("button", name=f"{name} is out").click()
        expect(roster.locator(".flash")).to_have_text(f"{name} out in {place}")

    roster.locator("summary", has_text="Tonight's actions").click()
    journal = roster.locator(".journal-list li")
    expect(journal).to_have_count(4)
    expect(journal.nth(0)).to_contain_text("Bob out in 2nd")
    expect(journal.nth(2)).to_contain_text("Dee out in 4th")
    expect(journal.nth(2)).to_contain_text(":")  # its time
    screenshot(host, "roster-journal")
    asked = []
    host.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    journal.nth(2).get_by_role("button", name="Undo Dee out in 4th").click()
    expect(roster.locator(".flash")).to_have_text("Took back: Dee out in 4th; Cy out in 3rd; Bob out in 2nd")
    assert asked == ["Undo “Dee out in 4th” and the 2 actions after it?"]
    expect(roster).to_contain_text("In the game 4")
    expect(roster.locator(".table-card")).to_have_count(1)   # the draw before it stands
    expect(roster.locator(".undo-bar")).to_contain_text("Last: Seats drawn")
    roster.locator("summary", has_text="Tonight's actions").click()
    expect(roster.locator(".journal-list li.undone")).to_have_count(3)
    screenshot(host, "roster-journal-undone")
    assert host.evaluate("document.documentElement.scrollWidth") <= 390
