"""The host's night for one thumb on a 390×844 phone with 40 players at four tables: every host
action's answer lies inside the viewport, the focus stays on the control tapped (or the override's
reason field, or the answer when the control is gone), never on the page's body and never under a
sticky bar; each player's row is one line and their name opens their sheet, with every action for
them and their record tonight; Enter in a field presses that field's own button."""
from __future__ import annotations

from urllib.parse import parse_qs

from playwright.sync_api import expect

from services.models import Event, Member
from tests.e2e.conftest import SCREENSHOTS, axe, check_fits, join_and_check_in, seed_tonight
from tests.e2e.test_roster_host import host_on
from tests.e2e.test_seat_notice import seats
from tests.fixtures.roster import PUB_NIGHT, pub_night
from wiring.extensions import db

# Where the answer is and where the focus went, as the host's eyes and a keyboard would find them.
IN_VIEW_JS = """s => { const el = document.querySelector(s);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; }"""
FOCUS_JS = """() => { const a = document.activeElement;
  if (!a || a === document.body) return "the page's body";
  const r = a.getBoundingClientRect();
  if (r.top < 0 || r.bottom > innerHeight) return `${a.tagName} ${a.textContent.trim()} out of view`;
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  if (!hit || !(a.contains(hit) || hit.contains(a))) return `${a.tagName} ${a.textContent.trim()} under ${hit && hit.className}`;
  return ""; }"""


def seen(page, name: str) -> None:
    """What the host sees: the screen as it is, not the whole page (test-artifacts/screenshots/<name>.png)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def forty(live_server, with_code=False):
    """Tonight with PUB_NIGHT's 40 players seated at four tables and a member who is not in yet: the event
    id (and the check-in code)."""
    _, event_id, code = seed_tonight(live_server.app)
    with live_server.app.app_context():
        event = db.session.get(Event, event_id)
        pub_night(event)
        db.session.add(Member.named(event.league_id, "Rosa Quinlan"))
        db.session.commit()
        db.session.remove()
    return (event_id, code) if with_code else event_id


def check_answer(page, selector: str, what: str) -> None:
    """The answer (`selector`) is on screen without scrolling, and the focus is on a control in view,
    not under a sticky bar, not on the page's body."""
    expect(page.locator(selector).first).to_be_visible()
    assert page.evaluate(IN_VIEW_JS, selector), f"{what}: the answer {selector} is out of view"
    problem = page.evaluate(FOCUS_JS)
    assert not problem, f"{what}: the focus is on {problem}"


def check_sheet_taps(page) -> None:
    """Every visible control of the open sheet is at least 44 CSS pixels tall and wide (a thumb)."""
    small = page.locator("#sheet").evaluate("""d => [...d.querySelectorAll('a[href], button, input, select')]
      .filter(e => e.offsetParent !== null)
      .map(e => { const r = e.getBoundingClientRect(); return [e.textContent.trim() || e.name, r.width, r.height]; })
      .filter(([, w, h]) => w < 44 || h < 44)""")
    assert not small, f"too small to tap on the sheet: {small}"


def row_of(roster, name: str):
    return roster.locator(".seats > li", has=roster.page.get_by_role("link", name=name, exact=True))


def test_every_answer_in_view_and_the_focus_kept_on_a_forty_player_night(live_server, phone):
    phone.allow(r"status of 422 .*/players\)$")  # the refused bonus, on purpose
    event_id = forty(live_server)
    host = host_on(phone, live_server.url, event_id, tab="")
    host.get_by_role("button", name="Start").click()
    expect(host.get_by_role("button", name="Pause")).to_be_visible()
    host.get_by_role("link", name="Players", exact=True).click()
    roster = host.locator("#players")
    expect(roster.locator(".table-card")).to_have_count(4)

    # A bonus far down the roster (table 4): one tap, the answer in view, the focus on the button
    last = row_of(roster, sorted(seats(live_server.app, event_id).items(), key=lambda i: i[1])[-1][0])
    name = last.locator("a").inner_text()
    roster.get_by_role("radio", name="Card").check()
    button = last.get_by_role("button", name=f"Membership card bonus for {name}")
    button.scroll_into_view_if_needed()
    top = button.bounding_box()["y"]
    button.click()
    expect(roster.locator(".answer-bar .flash")).to_have_text(f"{name}: Membership card bonus +1,000")
    check_answer(host, ".answer-bar .flash", "a bonus")
    assert abs(last.locator("button[value^='bonus:']").bounding_box()["y"] - top) < 2  # the page did not jump
    expect(host.locator("#said")).to_have_text(f"{name}: Membership card bonus +1,000")  # said politely
    seen(host, "sheet-forty-bonus")

    # A refused bonus (drink, closed once play began) beside the button, its override's reason focused
    roster.get_by_role("radio", name="Drink").check()
    roster.get_by_role("button", name=f"Drink bonus for {name}").click()
    refusal = last.locator("#refusal[role=alert]")
    expect(refusal).to_contain_text("only before play starts or during the major break")
    check_answer(host, "#refusal", "a refused bonus")
    expect(refusal.get_by_label("Reason for your ruling")).to_be_focused()
    seen(host, "sheet-forty-refused")
    refusal.get_by_label("Reason for your ruling").fill("Bar was shut at the start")
    # Enter in the reason: the override's own button (a tap on it is test_roster_host's; here the
    # emulated phone has panned its visual viewport to the focused field, which Playwright's click
    # point does not follow)
    refusal.get_by_label("Reason for your ruling").press("Enter")
    expect(roster.locator(".answer-bar .flash")).to_have_text(f"{name}: Drink bonus +500")
    check_answer(host, ".answer-bar .flash", "an overridden bonus")
    seen(host, "sheet-forty-override")

    # Out far down the roster: the row goes, the answer stands in the answer bar, focused
    host.once("dialog", lambda dialog: dialog.accept())
    last.get_by_role("button", name=f"{name} is out").click()
    expect(roster.locator(".answer-bar .flash")).to_have_text(f"{name} out in 40th")
    check_answer(host, ".answer-bar .flash", "a bust-out")
    expect(roster.locator(".answer-bar .flash")).to_be_focused()
    seen(host, "sheet-forty-out")

    # Undo from there (it asks first: OK), the answer in view, the focus on Undo again (the night's last action now)
    host.once("dialog", lambda dialog: dialog.accept())
    roster.locator(".answer-bar").get_by_role("button", name="Undo").click()
    expect(roster.locator(".answer-bar .flash")).to_have_text(f"Took back: {name} out in 40th")
    check_answer(host, ".answer-bar .flash", "an undo")

    # Out in one hand: two ticks (the name no longer ticks), their chips, the bar, OK
    players = list(seats(live_server.app, event_id))
    pair = [p for p in players if p != name][-2:]
    for who, chips in zip(pair, ["3,000", "5000"], strict=True):
        row_of(roster, who).get_by_role("checkbox", name=f"{who} out in the same hand").check()
        field = roster.get_by_label(f"{who}'s chips at the start of the hand")
        field.fill(chips)
        assert not host.evaluate(FOCUS_JS), "the chips field is under a sticky bar"
    # With the filter and the answer bar stuck above and the hand's bar below, no control the
    # keyboard reaches is under one of them
    host.get_by_label("Find on the roster").focus()
    for _ in range(60):
        host.keyboard.press("Tab")
        problem = host.evaluate(FOCUS_JS)
        assert not problem, f"tabbing through the roster: {problem}"
    bar = roster.locator(".hand-bar")
    host.once("dialog", lambda dialog: dialog.accept())
    bar.get_by_role("button", name="Out in one hand").click()
    expect(roster.locator(".answer-bar .flash")).to_contain_text("Out in one hand:")
    check_answer(host, ".answer-bar .flash", "out in one hand")

    # A walk-in's check-in: the answer in view (the roster far below the search)
    host.evaluate("scrollTo(0, 0)")
    host.get_by_label("Find a member").fill("Rosa")
    host.locator("#search-results").get_by_role("button", name="Check in", exact=True).click()
    expect(host.locator("#search-results .flash")).to_have_text("Checked in Rosa Quinlan")   # where the host looks
    check_answer(host, "#search-results .flash", "a check-in")
    expect(host.locator("#search-results").get_by_role("button")).to_have_count(0)   # the results are done with
    expect(host.locator("#said")).to_have_text("Checked in Rosa Quinlan")

    # A move from a player's sheet: the answer atop the sheet, the row in its new seat behind it
    mover = players[0]
    row_of(roster, mover).get_by_role("link", name=mover).click()
    sheet = host.locator("#sheet")
    expect(sheet.locator("h2")).to_contain_text(mover)
    where = sheet.get_by_label("Move to")
    to = where.locator("option").first.get_attribute("value")
    where.select_option(to)
    sheet.get_by_role("button", name="Move", exact=True).click()
    table, seat = to.split("-")
    expect(sheet.locator(".flash")).to_have_text(f"{mover} moved to table {table} seat {seat}")
    check_answer(host, "#sheet .flash", "a move")
    expect(host.locator(f".table-card[data-table='{table}']").get_by_role("link", name=mover)).to_have_count(1)
    seen(host, "sheet-forty-move")
    host.keyboard.press("Escape")
    expect(sheet).to_be_hidden()
    expect(roster.get_by_role("link", name=mover)).to_be_focused()
    check_fits(host, 390)


def test_one_line_a_player_and_the_name_opens_their_sheet(live_server, phone):
    event_id = forty(live_server)
    host = host_on(phone, live_server.url, event_id)
    roster = host.locator("#players")
    roster.get_by_role("button", name="Food for everyone").click()   # every row has a used bonus now
    expect(roster.locator(".answer-bar .flash")).to_have_text("Food bonus +1,000 for 40 players")
    roster.get_by_role("radio", name="Food").check()
    rows = roster.locator(".seats > li")
    expect(rows).to_have_count(40)
    heights = rows.evaluate_all("rows => rows.map(r => r.getBoundingClientRect().height)")
    assert max(heights) < 56, heights  # one line each: a thumb-high row, never two
    # a long name is cut with an ellipsis, never broken mid-word
    long = row_of(roster, "Bartholomew Featherstonehaugh").locator("a")
    assert long.evaluate("a => getComputedStyle(a).whiteSpace === 'nowrap' && a.scrollWidth > a.clientWidth")
    seen(host, "sheet-one-line-rows")
    host.evaluate("scrollTo(0, 0)")   # no row half under a sticky bar: axe counts a covered target as small
    axe(host, "the forty-player roster")

    # Tapping the name opens the sheet; it never ticks the player
    row = row_of(roster, "Siobhan Gallagher-Fitzpatrick")
    row.get_by_role("link", name="Siobhan Gallagher-Fitzpatrick").click()
    sheet = host.locator("#sheet")
    expect(sheet).to_be_visible()
    expect(row.get_by_role("checkbox")).not_to_be_checked()
    for button in ["Out", "+Card", "+Food ✓", "Verbal warning", "Missed hands", "Missed rounds", "New phone"]:
        expect(sheet.locator("button", has_text=button).first).to_be_visible()
    expect(sheet).to_contain_text("Every table is full: no empty seat to move to.")   # 40 at four tables of 10
    expect(sheet.locator("summary", has_text="Disqualify")).to_be_visible()
    expect(sheet.locator(".record")).to_contain_text("Food +1,000")
    seen(host, "sheet-open")
    check_sheet_taps(host)
    axe(host, "a player's sheet")
    check_fits(host, 390)

    # Out from the sheet: the answer atop it, and the sheet shows her out; the roster behind follows
    host.once("dialog", lambda dialog: dialog.accept())
    sheet.get_by_role("button", name="Out", exact=True).click()
    expect(sheet.locator(".flash")).to_have_text("Siobhan Gallagher-Fitzpatrick out in 40th")
    check_answer(host, "#sheet .flash", "Out from the sheet")
    expect(sheet.locator(".record")).to_contain_text("Out in 40th")
    sheet.get_by_role("link", name="Back to the players").click()
    expect(sheet).to_be_hidden()
    expect(roster.locator("ol.roster")).to_contain_text("40. Siobhan Gallagher-Fitzpatrick")
    expect(roster.locator(".seats > li")).to_have_count(39)

    # A new phone for a player in tonight's game: the one-time code, on a page of its own
    roster.get_by_role("link", name="Jack Doyle", exact=True).click()
    sheet.get_by_role("button", name="New phone").click()
    expect(host.get_by_role("heading", name="One-time code for Jack Doyle")).to_be_visible()
    host.get_by_role("link", name="Back to the players").click()
    expect(roster.get_by_role("link", name="Jack Doyle", exact=True)).to_be_visible()


def test_the_sheet_is_a_page_of_its_own_without_script(live_server, browser):
    event_id = forty(live_server)
    context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/host/events/{event_id}/players")
        page.get_by_label("Username").fill("harry")
        page.get_by_label("Password").fill("pw-harry")
        page.get_by_role("button", name="Log in").click()
        page.get_by_role("link", name="Jack Doyle", exact=True).click()
        expect(page.locator("#floor h2")).to_contain_text("Jack Doyle")
        page.locator("#floor").get_by_role("button", name="+Card").click()
        expect(page.locator("#floor .flash")).to_have_text("Jack Doyle: Membership card bonus +1,000")
        expect(page.locator("#floor .record")).to_contain_text("Membership card +1,000")
    finally:
        context.close()


def posted(page, action) -> dict:
    """The form the next POST carried, once `action` (an Enter) has run: its fields."""
    with page.expect_request(lambda r: r.method == "POST") as request:
        action()
    return {k: v[0] for k, v in parse_qs(request.value.post_data or "").items()}


def test_enter_in_each_field_presses_its_own_button(live_server, phone):
    """Enter in the called clock's Seat field calls the clock (it paused it); in a ticked player's chips
    field it sends the hand (it gave food for everyone); in the new member's name it joins; in the DQ
    and deal fields their own buttons; on the sheet the hands field its penalty, the reason none; in the
    structure editor it saves."""
    event_id = forty(live_server)
    host = host_on(phone, live_server.url, event_id, tab="")
    host.get_by_role("button", name="Start").click()
    expect(host.get_by_role("button", name="Pause")).to_be_visible()
    seat = host.get_by_label("Seat")
    seat.fill("T2 S5")
    seat.press("Enter")   # the tap goes over the host's line (a WebSocket), so its outcome is what is seen
    expect(host.get_by_role("button", name="Stop the called clock")).to_be_visible()
    expect(host.get_by_role("button", name="Pause")).to_be_visible()   # still running, not paused

    host.get_by_role("link", name="Players", exact=True).click()
    roster = host.locator("#players")
    who = PUB_NIGHT[1]
    row_of(roster, who).get_by_role("checkbox").check()
    chips = roster.get_by_label(f"{who}'s chips at the start of the hand")
    chips.fill("4000")
    host.once("dialog", lambda dialog: dialog.accept())
    assert posted(host, lambda: chips.press("Enter"))["op"] == "bust_hand"
    expect(roster.locator(".answer-bar .flash")).to_contain_text(f"Out in one hand: {who}")

    roster.locator("summary", has_text="Disqualify a player").click()
    reason = roster.locator("details.dq").get_by_label("Reason")
    reason.fill("Collusion")
    host.once("dialog", lambda dialog: dialog.dismiss())   # the Disqualify button's question: it was that button
    reason.press("Enter")
    expect(roster.locator("details.dq")).to_have_attribute("open", "")

    host.get_by_label("Find a member").fill("Newcomer Nell")
    search = host.locator("#search-results")
    name = search.get_by_label("Name")
    expect(name).to_have_value("Newcomer Nell")
    search.get_by_label("They are 18 or over").check()
    assert posted(host, lambda: name.press("Enter"))["op"] == "join"
    expect(roster.locator(".answer-bar .flash")).to_have_text("New member Newcomer Nell")

    # the sheet: the hands field gives missed hands; the reason, shared by every penalty, gives none
    roster.get_by_role("link", name=PUB_NIGHT[2], exact=True).click()
    sheet = host.locator("#sheet")
    why = sheet.get_by_label("Why (recorded in the rulings log)")
    why.fill("Slow roll")
    why.press("Enter")
    hands = sheet.get_by_label("Hands to miss")
    hands.fill("2")
    assert posted(host, lambda: hands.press("Enter"))["op"] == "give:missed_hands"   # the first POST since
    expect(sheet.locator(".flash")).to_contain_text(f"{PUB_NIGHT[2]}: missed 2 hands")
    host.keyboard.press("Escape")

    host.get_by_role("link", name="Structure", exact=True).click()
    minutes = host.locator("#structure").get_by_label("Minutes").first
    assert posted(host, lambda: minutes.press("Enter"))["op"] == "save"


class Taps:
    """The host's taps, counted as README's table counts them (typing is not a tap; OK on a question is)."""

    def __init__(self, page):
        self.page, self.count = page, 0

    def tap(self, locator, ok=False):
        if ok:
            self.page.once("dialog", self.ok)
        self.count += 1
        locator.click()

    def ok(self, dialog):
        self.count += 1
        dialog.accept()

    def taken(self) -> int:
        count, self.count = self.count, 0
        return count


def test_readme_taps_for_the_five_common_actions(live_server, phone):
    """README's table at 390×844 on a 40-player night: check-in by QR 1, by name 2, a bonus 1, food for
    everyone 1, a bust-out 2, two out in one hand 6, Undo 2 (Undo, then OK)."""
    event_id, code = forty(live_server, with_code=True)
    player = phone()
    join_and_check_in(player, live_server.url, code, "Quinn Arrival")
    host = host_on(phone, live_server.url, event_id)
    roster, taps = host.locator("#players"), Taps(host)

    taps.tap(roster.get_by_role("button", name="Confirm"))
    expect(roster.locator(".answer-bar .flash")).to_have_text("Confirmed Quinn Arrival")
    assert taps.taken() == 1

    taps.tap(host.get_by_label("Find a member"))
    host.get_by_label("Find a member").press_sequentially("Ros")
    taps.tap(host.locator("#search-results").get_by_role("button", name="Check in", exact=True))
    expect(host.locator("#search-results .flash")).to_have_text("Checked in Rosa Quinlan")
    assert taps.taken() == 2

    taps.tap(roster.get_by_role("button", name="Membership card bonus for Jack Doyle"))
    expect(roster.locator(".answer-bar .flash")).to_have_text("Jack Doyle: Membership card bonus +1,000")
    assert taps.taken() == 1

    taps.tap(roster.get_by_role("button", name="Food for everyone"))
    expect(roster.locator(".answer-bar .flash")).to_contain_text("Food bonus +1,000 for 42 players")
    assert taps.taken() == 1

    taps.tap(roster.get_by_role("button", name="Wren Okafor is out"), ok=True)
    expect(roster.locator(".answer-bar .flash")).to_have_text("Wren Okafor out in 42nd")
    assert taps.taken() == 2

    for who in ("Cal Dunn", "Dee Moss"):
        taps.tap(roster.get_by_role("checkbox", name=f"{who} out in the same hand"))
        taps.tap(roster.get_by_label(f"{who}'s chips at the start of the hand"))
        roster.get_by_label(f"{who}'s chips at the start of the hand").fill("4000" if who == "Cal Dunn" else "6000")
    taps.tap(roster.locator(".hand-bar").get_by_role("button", name="Out in one hand"), ok=True)
    expect(roster.locator(".answer-bar .flash")).to_have_text("Out in one hand: Dee Moss 40th, Cal Dunn 41st")
    assert taps.taken() == 6

    taps.tap(roster.locator(".answer-bar").get_by_role("button", name="Undo"), ok=True)
    expect(roster.locator(".answer-bar .flash")).to_contain_text("Took back: Out in one hand")
    assert taps.taken() == 2


def test_enter_in_the_other_fields_of_the_roster_and_the_sheet(live_server, phone):
    """The rest of the host's text fields at a final table of six: the roster's filter and the walk-in
    search send nothing; a deal's chip count puts the deal to the vote; the DQ's chips ask the
    Disqualify question; the override's reason re-posts the bonus; on the sheet the extra hands extend
    the penalty and the DQ's chips ask its question."""
    phone.allow(r"status of 422 .*/players\)$")  # the refused bonus, on purpose
    _, event_id, _ = seed_tonight(live_server.app)
    with live_server.app.app_context():
        pub_night(db.session.get(Event, event_id), 6)
        db.session.remove()
    host = host_on(phone, live_server.url, event_id, tab="")
    host.get_by_role("button", name="Start").click()
    expect(host.get_by_role("button", name="Pause")).to_be_visible()
    host.get_by_role("link", name="Players", exact=True).click()
    roster = host.locator("#players")
    questions = []

    def answer(dialog):
        questions.append(dialog.message)
        dialog.dismiss()
    host.on("dialog", answer)

    # the filter and the search post nothing: the next POST is the bonus tapped after them
    host.get_by_label("Find on the roster").fill("ja")
    host.get_by_label("Find on the roster").press("Enter")
    host.get_by_label("Find on the roster").fill("")
    host.get_by_label("Find a member").fill("Nobody Here")
    host.get_by_label("Find a member").press("Enter")
    expect(host.locator("#search-results")).to_contain_text("New member")
    roster.get_by_role("radio", name="Drink").check()
    tapped = posted(host, lambda: roster.get_by_role("button", name="Drink bonus for Jack Doyle").click())
    assert tapped["op"].startswith("bonus:")
    reason = roster.locator("#refusal").get_by_label("Reason for your ruling")
    reason.fill("Bar was shut")
    again = posted(host, lambda: reason.press("Enter"))   # the override's own form
    assert again["op"] == tapped["op"] and again["why"] == "Bar was shut"
    expect(roster.locator(".answer-bar .flash")).to_contain_text("Jack Doyle: Drink bonus +")

    roster.locator("summary", has_text="Deal at the final table").click()
    chips = roster.locator("details.deal").get_by_label(PUB_NIGHT[2])
    chips.fill("10000")
    assert posted(host, lambda: chips.press("Enter"))["op"] == "deal"
    expect(roster.locator("details.deal #refusal")).to_contain_text("chips")   # the others' counts missing

    roster.locator("summary", has_text="Disqualify a player").click()
    dq_chips = roster.locator("details.dq").get_by_label("Chips they had")
    dq_chips.fill("5000")
    dq_chips.press("Enter")   # the Disqualify button's question (dismissed): that button, no other
    assert questions and questions[-1].startswith("Disqualify this player?")

    roster.get_by_role("link", name=PUB_NIGHT[3], exact=True).click()
    sheet = host.locator("#sheet")
    sheet.get_by_label("Why (recorded in the rulings log)").fill("Slow roll")
    hands = sheet.get_by_label("Hands to miss")
    hands.fill("2")
    assert posted(host, lambda: hands.press("Enter"))["op"] == "give:missed_hands"
    more = sheet.get_by_label("Hands to add")
    more.fill("3")
    assert posted(host, lambda: more.press("Enter"))["op"].startswith("extend:")
    expect(sheet.locator(".flash")).to_contain_text("penalty extended")
    sheet.locator("summary", has_text="Disqualify").click()
    sheet.get_by_label("Chips they had").fill("100")
    sheet.get_by_label("Chips they had").press("Enter")
    assert questions[-1] == f"Disqualify {PUB_NIGHT[3]}? They earn no points and no prize."
