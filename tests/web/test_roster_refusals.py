"""A refused roster action comes back as the roster with its reason beside the button tapped (or at
the top when that button is gone), the old success message gone; where the rule allows the host's
ruling (R-LATE-1, R-CHIP-2, R-MEM-2) it offers an override form that re-posts the same op with a
reason, and nowhere else (R-LATE-4)."""
import re

from services.models import BonusClaim, Entry, Event, Member, Ruling, Venue
from tests.conftest import login
from tests.fixtures.host import host_op, past_the_major_break, seat_players, tap
from tests.fixtures.pages import html, refusal
from tests.fixtures.rows import entries
from wiring.extensions import db


def override_form(page):
    """The override form's hidden fields as a dict (None: no override offered)."""
    form = re.search(r'<form id="override".*?</form>', page, re.S)
    if form is None:
        return None
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form.group(0)))


def test_r_chip_2_a_bonus_outside_its_window_is_refused_beside_the_bonus_with_an_override(client, night):
    roster = seat_players(client, night, ["Anna", "Bob"])
    bob = roster["Bob"]
    tap(client, night, "start")
    refused = host_op(client, night, f"bonus:{bob.id}", kind="drink")  # Bob's one-tap bonus, drink picked
    page = html(refused)
    assert refused.status_code == 422
    block = refusal(page)
    assert block and "only before play starts or during the major break" in block
    assert 'name="why" form="override" required' in block
    # beside what was tapped: in Bob's row, right after his buttons; the kind he tapped stays picked
    assert re.search(rf'value="bonus:{bob.id}">\+Drink</button><button name="op" value="bust:{bob.id}">Out</button>'
                     r'\s*<div class="refusal"', page)
    assert re.search(r'name="kind" value="drink"[^>]* checked', page)
    assert override_form(page) == {"csrf_token": override_form(page)["csrf_token"], "op": f"bonus:{bob.id}",
                                   "kind": "drink"}
    assert db.session.scalar(db.select(db.func.count()).select_from(BonusClaim)) == 0
    # the override re-posts the same op with the host's reason: accepted, recorded as a ruling
    allowed = host_op(client, night, f"bonus:{bob.id}", kind="drink", why="Bar was shut")
    assert allowed.status_code == 200 and "Bob: Drink bonus +" in html(allowed) and refusal(html(allowed)) is None
    ruling = db.session.scalar(db.select(Ruling).where(Ruling.kind == "bonus_override"))
    assert ruling.rule_id == "R-CHIP-2" and ruling.reason == "Bar was shut"


def test_r_chip_2_a_refusal_the_rule_does_not_let_the_host_override_has_no_override_form(client, night):
    roster = seat_players(client, night, ["Anna", "Bob"])
    first = host_op(client, night, "bonus", bonus_entry=str(roster["Anna"].id), kind="food")
    assert first.status_code == 200 and 'class="flash"' in html(first)
    twice = host_op(client, night, "bonus", bonus_entry=str(roster["Anna"].id), kind="food")
    page = html(twice)
    assert twice.status_code == 422 and "Already claimed" in refusal(page)
    assert override_form(page) is None and 'form="override"' not in page
    assert 'class="flash"' not in page  # the earlier success message is gone


def test_r_late_1_a_walk_in_after_the_major_break_offers_the_override(client, night, league):
    seat_players(client, night, ["Anna", "Bob"])
    member = Member.named(league.id, "Late Lou")
    db.session.add(member)
    db.session.commit()
    past_the_major_break(client, night)
    refused = host_op(client, night, f"walk_in:{member.id}")
    page = html(refused)
    assert refused.status_code == 422 and "major break has started" in refusal(page)
    assert 'name="reason" form="override" required' in refusal(page)
    assert override_form(page)["op"] == f"walk_in:{member.id}"
    assert "Late Lou" not in entries(night)
    allowed = host_op(client, night, f"walk_in:{member.id}", reason="Booked a seat by phone")
    assert allowed.status_code == 200 and "Checked in Late Lou" in html(allowed)
    assert entries(night)["Late Lou"].status == "playing"
    assert db.session.scalar(db.select(Ruling)).reason == "Booked a seat by phone"


def test_r_late_1_a_new_member_after_the_major_break_keeps_what_the_host_typed_in_the_override(client, night):
    seat_players(client, night, ["Anna", "Bob"])
    past_the_major_break(client, night)
    page = html(host_op(client, night, "join", name="Late Larry", adult="yes"))
    fields = override_form(page)
    assert fields["op"] == "join" and fields["name"] == "Late Larry" and fields["adult"] == "yes"
    assert "under_21" not in fields
    # the search results are outside the roster: the refusal is in the answer bar, atop the roster
    assert page.index('class="answer-bar"') < page.index('id="refusal"') < page.index("<h2>Arrivals")


def test_r_late_4_one_game_at_a_time_is_refused_without_an_override(client, night, league):
    seat_players(client, night, ["Anna"])
    busy = Member.named(league.id, "Busy Bee")
    venue = Venue(league_id=league.id, name="Other Pub")
    db.session.add_all([busy, venue])
    db.session.flush()
    other = Event(league_id=league.id, venue_id=venue.id, event_type="nightly", date=night.date, status="running")
    db.session.add(other)
    db.session.flush()
    db.session.add(Entry(event_id=other.id, member_id=busy.id, status="playing"))
    db.session.commit()
    refused = host_op(client, night, f"walk_in:{busy.id}", reason="I said so")
    page = html(refused)
    assert refused.status_code == 422 and "one game at a time" in refusal(page)
    assert override_form(page) is None
    assert "Busy Bee" not in entries(night)


def test_a_refusal_shows_beside_the_button_tapped_and_at_the_top_when_it_is_gone(client, night):
    roster = seat_players(client, night, ["Anna", "Bob", "Cy"])
    deal = host_op(client, night, "deal", method="icm")  # no chip counts given
    page = html(deal)
    assert deal.status_code == 422
    assert re.search(r'<details class="deal" open>.*Put the deal to the vote</button>\s*<div class="refusal"', page, re.S)
    # Cy already out (another phone): the Out button is gone, so the reason is in the answer bar
    assert host_op(client, night, f"bust:{roster['Cy'].id}").status_code == 200
    again = html(host_op(client, night, f"bust:{roster['Cy'].id}"))
    assert refusal(again) and again.index('class="answer-bar"') < again.index('id="refusal"') < again.index("<h2>Arrivals")
    assert 'class="flash"' not in again


def test_r_pts_5_rows_out_without_a_place_still_show_and_take_actions(client, night):
    """Entries out with no finishing place (a hand-made database, or a file from elsewhere): the roster
    lists them after those placed, and a bust-out beside them answers, never a 500 from a sort."""
    members = []
    for number in range(4):
        member = Member.named(night.league_id, f"Placeless {number}")
        db.session.add(member)
        db.session.flush()
        members.append(member)
        db.session.add(Entry(event_id=night.id, member_id=member.id, status="played" if number >= 2 else "playing"))
    db.session.commit()
    login(client, "host", "pw-host")
    playing = db.session.scalar(db.select(Entry).where(Entry.event_id == night.id, Entry.member_id == members[0].id))
    answer = host_op(client, night, f"bust:{playing.id}")
    assert answer.status_code == 200
    page = client.get(f"/host/events/{night.id}/players").get_data(as_text=True)
    out = page[page.index("Placeless 0"):]
    assert "Placeless 2" in out and "Placeless 3" in out  # the placed one first, the placeless after
