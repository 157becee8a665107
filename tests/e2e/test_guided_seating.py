"""Guided seating and the host's confirmations on a 390×844 phone, a 40-player night: the 41st entrant
opens a table filled at once by a draw (R-SEAT-1, R-LATE-2) and the host walks its moves one at a time
in the panel fixed to the foot of the screen, never scrolling; a table to break (R-SEAT-3) and the
final table (R-SEAT-4) come there too, each asking first; Reject, Call off the deal and Undo ask first,
and a "no" sends nothing; Redo puts back what Undo took back."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from services import deals
from services.models import Entry, Event, Member
from tests.e2e.conftest import SCREENSHOTS, axe, check_fits, seed_tonight
from tests.e2e.test_seat_notice import open_roster, seats, seed_players
from tests.fixtures.roster import bust_out, host_action, player_names
from wiring.extensions import db

PANEL = "[data-moves]"


def box_in_view(page, selector: str) -> bool:
    """The element's whole box lies inside the 390×844 viewport."""
    return page.evaluate("""s => { const r = document.querySelector(s).getBoundingClientRect();
        return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; }""", selector)


def viewport_shot(page, name: str) -> None:
    """What the host sees without scrolling (the fixed panel where the thumb is)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def sizes(app, event_id) -> list[int]:
    tables: dict[int, int] = {}
    for table, _ in seats(app, event_id).values():
        tables[table] = tables.get(table, 0) + 1
    return [tables[t] for t in sorted(tables)]


class Questions:
    """The host's confirmations as the browser shows them: each answered OK or Cancel as the test
    says, what each asked kept, and the roster's POSTs counted (a Cancel must send none)."""

    def __init__(self, page):
        self.asked: list[str] = []
        self.replies: list[bool] = []
        self.posts = 0
        page.on("dialog", self._answer)
        page.on("request", self._count)

    def _answer(self, dialog):
        self.asked.append(dialog.message)
        dialog.accept() if self.replies.pop(0) else dialog.dismiss()

    def _count(self, request):
        if request.method == "POST" and request.url.endswith("/players"):
            self.posts += 1

    def yes(self, button) -> str:
        """Tap `button` and answer OK: the question it asked."""
        self.replies.append(True)
        button.click()
        return self.asked[-1]

    def no_then_yes(self, button) -> str:
        """Tap `button` and Cancel (nothing is sent, the button stays), then tap it again and answer
        OK: the question it asked (two taps for the host, besides the first)."""
        sent = self.posts
        self.replies.append(False)
        button.click()
        expect(button).to_be_visible()
        assert self.posts == sent, "a cancelled question still sent the action"
        return self.yes(button)


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_r_seat_1_the_41st_entrant_s_moves_walked_one_at_a_time_in_view(live_server, phone, theme):
    app = live_server.app
    app.config["SEAT_RNG_SEED"] = 41
    league_id, event_id, _ = seed_tonight(app)
    seed_players(app, event_id, league_id, player_names(40))
    with app.app_context():
        db.session.add(Member.named(league_id, "Wren Gallagher"))
        db.session.commit()
        db.session.remove()
    host = phone()
    host.add_init_script(f"localStorage.setItem('shuffleup-theme', '{theme}')")
    host = open_roster(lambda: host, live_server.url, event_id)
    roster = host.locator("#players")
    roster.get_by_role("button", name="Draw seats").click()
    expect(roster.locator(".flash")).to_have_text("Seats drawn")
    assert sizes(app, event_id) == [10, 10, 10, 10]

    # The walk-in: two taps (the field, Check in), and the new table is filled at once
    host.get_by_label("Find a member").fill("Wren")
    host.locator("#search-results").get_by_role("button", name="Check in", exact=True).click()
    expect(roster.locator(".flash")).to_have_text("Checked in Wren Gallagher")
    assert sizes(app, event_id) == [9, 8, 8, 8, 8]
    panel = host.locator(PANEL)
    expect(panel.locator("h2")).to_have_text("Moves 7 to go")
    assert box_in_view(host, PANEL)
    axe(host, f"the roster with the moves panel ({theme})")
    check_fits(host, 390)
    viewport_shot(host, f"guided-moves-first-{theme}")

    # Next leaves a move for later; Done walks on; the page never jumps and the thumb stays in the panel
    first = panel.locator("li:visible p").inner_text()
    panel.get_by_role("button", name="Next").click()
    expect(panel.locator("li:visible p")).not_to_have_text(first)
    expect(panel.get_by_role("button", name="Done")).to_be_focused()
    host.mouse.wheel(0, 900)   # the host had scrolled the roster down a way
    host.wait_for_function("scrollY > 0")
    scrolled = host.evaluate("scrollY")
    for left in range(7, 0, -1):
        line = panel.locator("li:visible p").inner_text()
        name = line.removeprefix("Move ").split(":")[0]
        panel.get_by_role("button", name="Done").click()
        expect(roster.locator(".answer-bar .flash")).to_contain_text(f"{name} moved: T")
        if left > 1:
            expect(panel.locator("h2")).to_have_text(f"Moves {left - 1} to go")
            expect(panel.get_by_role("button", name="Done")).to_be_focused()
        assert box_in_view(host, PANEL) and host.evaluate("scrollY") == scrolled
    expect(panel.locator("li")).to_have_count(0)
    expect(panel).to_be_focused()   # the panel with its answer, not the page's body
    viewport_shot(host, f"guided-moves-walked-{theme}")

    # Undo the last Done (asked first): the move is back in the panel; Redo puts it back
    asked = Questions(host).yes(roster.locator(".undo-bar").get_by_role("button", name="Undo"))
    expect(roster.locator(".flash")).to_contain_text("Took back: ")
    assert asked == f"Undo “{name} moved: {line.split(': ')[1]}”?"
    expect(panel.locator("h2")).to_have_text("Moves 1 to go")
    roster.locator(".undo-bar").get_by_role("button", name="Redo").click()
    expect(roster.locator(".flash")).to_contain_text(f"Put back: {name} moved")
    expect(panel.locator("li")).to_have_count(0)


def test_break_final_table_reject_deal_and_undo_ask_first_and_no_sends_nothing(live_server, phone):
    app = live_server.app
    league_id, event_id, _ = seed_tonight(app)
    seed_players(app, event_id, league_id, player_names(21))
    with app.app_context():
        member = Member.named(league_id, "Zed Walk")
        db.session.add(member)
        db.session.flush()
        db.session.add(Entry(event_id=event_id, member_id=member.id, status="pending"))
        db.session.commit()
        db.session.remove()
    host = open_roster(phone, live_server.url, event_id)
    roster = host.locator("#players")
    questions = Questions(host)

    # Reject: "no" keeps Zed waiting, nothing sent; "yes" turns him away
    assert questions.no_then_yes(roster.get_by_role("button", name="Reject")) == "Turn Zed Walk away?"
    expect(roster.locator(".flash")).to_have_text("Turned away Zed Walk")

    roster.get_by_role("button", name="Draw seats").click()
    expect(roster.locator(".flash")).to_have_text("Seats drawn")
    with app.app_context():
        event = db.session.get(Event, event_id)
        for name in player_names(21)[:2]:
            bust_out(event, name)
        db.session.remove()
    host.reload()
    panel = host.locator(PANEL)
    button = panel.get_by_role("button", name="Break table")
    expect(button).to_be_visible()
    assert box_in_view(host, PANEL)
    viewport_shot(host, "guided-break-due")
    assert questions.no_then_yes(button).startswith("Break table ")
    expect(roster.locator(".answer-bar .flash")).to_have_text("Table broken")
    expect(panel.locator("h2")).to_contain_text("to go")
    assert len(sizes(app, event_id)) == 2

    with app.app_context():
        event = db.session.get(Event, event_id)
        for name in [n for n in player_names(21)[2:] if n in seats(app, event_id)][:9]:
            bust_out(event, name)
        db.session.remove()
    host.reload()
    assert questions.no_then_yes(panel.get_by_role("button", name="Draw the final table")) == (
        "Draw the final table? Every player gets a new seat at table 1.")
    expect(roster.locator(".answer-bar .flash")).to_have_text("Final table drawn")
    assert sizes(app, event_id) == [10]

    with app.app_context():
        event = db.session.get(Event, event_id)
        with host_action(event, "deal", "Deal put to the vote") as log:
            players, (in_play, _) = log.night.deal_players, log.night.chip_count()
            counts = {e: in_play // len(players) for e in players}  # the count adds up (R-CHIP-3)
            counts[players[0]] += in_play - sum(counts.values())
            deals.open_deal(log.night, counts, "chip_chop", log)
        db.session.remove()
    host.reload()
    assert questions.no_then_yes(roster.get_by_role("button", name="Call off the deal")) == (
        "Call off the deal? The votes so far are lost and play goes on.")
    expect(roster.locator(".flash")).to_have_text("Deal called off")

    # Undo: two taps (Undo, OK); "no" takes nothing back
    undo = roster.locator(".undo-bar").get_by_role("button", name="Undo")
    assert questions.no_then_yes(undo) == "Undo “Deal called off”?"
    expect(roster.locator(".flash")).to_have_text("Took back: Deal called off")
    expect(roster.get_by_role("button", name="Call off the deal")).to_be_visible()
    viewport_shot(host, "guided-undo-asked")
